"""FlashAttention 3 (fa3.py), as fa3.cu runs it on Hopper: FA2's loops for a block split between consumer
warpgroups, 16-bit operands and float32 accumulators, K and V through a ring of stages. It takes float16 or bfloat16
storage only, and warpgroups; its HBM traffic and FLOPs are FA2's exactly (``fa2_mma``'s), and it counts its
shared-memory traffic (``closed_forms.fa3.shared``)."""

from .. import formulas
from ..algorithm import Algorithm, Option
from ..closed_forms import fa2
from ..closed_forms.fa3 import shared
from ..fa3 import flash_attention_3
from ..warp_values import warpgroup_answers

STRAY = "{given}: fa3's (consumer warpgroups on Hopper), not {algo}'s"


def memory(s):
    """q, k, v rounded to 16 bits held as float32 (bf16's rounding: 64-bit temporaries); bf16's o in float32 too."""
    qkv = s.bh * s.d * (s.n + 2 * s.n_kv)
    rounding = qkv * (4 - s.itemsize) + 32 * s.bh * max(s.n, s.n_kv) * s.d + s.bh * s.n * s.d * (4 - s.itemsize)
    return {"16-bit rounding": rounding}


ALGORITHM = Algorithm(
    name="fa3",
    function=flash_attention_3,
    options=(
        Option(
            "warpgroups",
            int,
            default=2,
            stray=STRAY,
            help="consumer warpgroups a block, each owning "
            "ceil(Br / warpgroups) of its rows (default 2; the CUDA kernel: 2 of 64 rows, Br = 128)",
        ),
    ),
    bytes=fa2.hbm,
    flops=fa2.flops,
    shared=shared,
    minimum=formulas.compulsory,
    dtypes=("float16", "bfloat16"),
    dtypes_why="Hopper's wgmma takes 16-bit operands",
    known_as="Hopper",
    slower=4,  # as fa2-mma: its warpgroups and 16-bit rounding
    ledger_records=lambda tr, tc, n_splits: tr * (2 * tc + 3),  # its shared traffic is summed, not recorded
    memory=memory,
    observes=True,
    answers=warpgroup_answers,  # its figure draws each consumer's registers (attention.warp_values)
)
