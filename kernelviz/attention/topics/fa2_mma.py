"""FA2 on tensor cores (fa2_mma.py): FA2's loops split among the warps of a block, 16-bit operands and float32
accumulators. It takes float16 or bfloat16 storage only, warps and p_in_shared, and counts its shared-memory
traffic too (``closed_forms.fa2_mma.shared``); its HBM traffic and FLOPs are FA2's exactly (rounding P to 16 bits is a
cast, which costs nothing)."""

from .. import formulas
from ..algorithm import Algorithm, Option
from ..closed_forms import fa2, fa2_mma
from ..fa2_mma import flash_attention_2_mma
from ..warp_values import warp_answers

MAX_WARPS = 32  # a CUDA block has at most 1024 threads: 32 warps of 32


def warps_problem(warps):
    """Why `warps` warps cannot make one block (a sentence), or None."""
    if warps <= MAX_WARPS:
        return None
    return (
        f"warps: {warps:,} warps do not make a block, which has at most {MAX_WARPS} warps ({MAX_WARPS * 32} threads);"
        " the CUDA kernel runs 4 warps of 16 rows each (Br = 64)"
    )


def memory(s):
    """q, k, v rounded to 16 bits held as float32 (bf16's rounding: 64-bit temporaries); bf16's o in float32 too."""
    qkv = s.bh * s.d * (s.n + 2 * s.n_kv)
    rounding = qkv * (4 - s.itemsize) + 32 * s.bh * max(s.n, s.n_kv) * s.d + s.bh * s.n * s.d * (4 - s.itemsize)
    return {"16-bit rounding": rounding}


STRAY = "{given}: fa2-mma's (warps on tensor cores), not {algo}'s"

ALGORITHM = Algorithm(
    name="fa2-mma",
    function=flash_attention_2_mma,
    options=(
        Option(
            "warps",
            int,
            default=4,
            stray=STRAY,
            check=warps_problem,
            help=f"warps a block (1 to {MAX_WARPS}), each owning ceil(Br / warps) of its rows (default 4)",
        ),
        Option(
            "p_in_shared",
            bool,
            default=False,
            stray=STRAY,
            help="send P through shared memory (the round trip FA2's register reuse avoids) to count it",
        ),
    ),
    bytes=fa2.hbm,
    flops=fa2.flops,
    shared=fa2_mma.shared,
    minimum=formulas.compulsory,
    dtypes=("float16", "bfloat16"),
    dtypes_why="tensor cores' mma.m16n8k16 takes 16-bit operands",
    known_as="tensor cores",
    instruction="mma.sync",  # mma.sync.aligned.m16n8k16: Hopper's wgmma roof is out of its reach (roofline.units)
    slower=4,  # its warps and 16-bit rounding: 4096 steps in 1.1 s where fa2 takes 0.25 s
    ledger_records=lambda tr, tc, n_splits: tr * (2 * tc + 3),  # its shared traffic is summed, not recorded
    memory=memory,
    observes=True,
    answers=warp_answers,  # its figure draws each warp's registers (attention.warp_values)
)
