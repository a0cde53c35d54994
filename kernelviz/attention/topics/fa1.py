"""FlashAttention (fa1.py): the K/V tiles in the outer loop, O, l and m read and written back per tile."""

from .. import flops, formulas
from ..algorithm import Algorithm
from ..fa1 import flash_attention_1


def per_block(ledger):
    """The times each Q tile is read (once per K/V tile that visits it), for (batch, head) 0."""
    blocks = ledger.tile_counts("O", "write")  # every block's O is initialized (written) at step 0
    reads = ledger.tile_counts("Q")
    return [reads.get(i, 0) for i in sorted(blocks)]


def shared(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """Shared-memory traffic of the book's FA1 kernel (cuda/fa1.cu; ``attention.scalar_smem`` says what each step
    stores and loads): the tile_interactions steps, each also storing Qi and the carries Oi, mi, li (Br d s, Br d 4,
    Br 4, Br 4) and loading back the carries of its rows that exist (q_rows_read rows in all: d 4 + 4 + 4 a row);
    and each of the ceil(N_kv / Bc) K/V tiles stored once (Bc d s, K and V)."""
    N_kv = N if N_kv is None else N_kv
    h = batch_heads
    steps = h * formulas.tile_interactions(N, Br, Bc, N_kv, causal)
    rows = h * formulas.q_rows_read(N, Br, Bc, N_kv, causal)
    return formulas.scalar_shared(steps, h * formulas.cdiv(N_kv, Bc), steps, rows, Br, Bc, d, itemsize, False)


ALGORITHM = Algorithm(
    name="fa1",
    function=flash_attention_1,
    bytes=formulas.fa1,
    flops=flops.fa1,
    shared=shared,  # the book's scalar kernel's (cuda/fa1.cu): reported, no roofline unit
    minimum=formulas.compulsory,
    per_block=per_block,
    grid=lambda tiles, batch_heads: [sum(tiles)] * batch_heads,  # a block per batch_head walks every block of rows
    ledger_records=lambda tr, tc, n_splits: 3 * tr + tc * (2 + 7 * tr),
)
