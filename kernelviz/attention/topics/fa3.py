"""FlashAttention 3 (fa3.py), as fa3.cu runs it on Hopper: FA2's loops for a block split between consumer
warpgroups, 16-bit operands and float32 accumulators, K and V through a ring of stages. It takes float16 or bfloat16
storage only, and warpgroups; its HBM traffic and FLOPs are FA2's exactly (``fa2_mma``'s), and it counts its
shared-memory traffic (`shared`, below)."""

from .. import flops, formulas
from .._inputs import tiles
from ..algorithm import Algorithm, Option
from ..fa3 import flash_attention_3
from ..formulas import blocks_seeing, sl, tile_interactions
from ..warp_values import warpgroup_answers

STRAY = "{given}: fa3's (consumer warpgroups on Hopper), not {algo}'s"


def shared(N, d, Br, Bc, *, N_kv=None, warpgroups=2, itemsize=2, causal=False, batch_heads=1):
    """Shared-memory traffic of FA3 (``attention.fa3``), at full tile size as the kernel moves it: each of the
    ``blocks_seeing`` blocks has the TMA store its Qi once (Br d s); on each of the tile_interactions visited tiles
    the TMA stores Kj and Vj (Bc d s each) and wgmma reads the warpgroups' rows of Qi (Br d s in all) and, for each of
    the `warpgroups`, all of Kj and Vj (warpgroups Bc d s each); P stays in registers (0); every one of the Tr =
    ceil(N / Br) blocks stores its O tile and the TMA store reads it (Br d s each way). The ring's stages change
    what is held, not what moves."""
    h, s = batch_heads, itemsize
    q = h * blocks_seeing(N, Br, Bc, N_kv, causal) * Br * d * s
    visited = h * tile_interactions(N, Br, Bc, N_kv, causal)
    kv = visited * Bc * d * s
    o = h * len(tiles(N, Br)) * Br * d * s
    return {
        "Q": sl(q, visited * Br * d * s),
        "K": sl(kv, warpgroups * kv),
        "V": sl(kv, warpgroups * kv),
        "P": sl(),
        "O": sl(o, o),
    }


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
    bytes=formulas.fa2,
    flops=flops.fa2,
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
