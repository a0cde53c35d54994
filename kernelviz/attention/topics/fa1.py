"""FlashAttention (fa1.py): the K/V tiles in the outer loop, O, l and m read and written back per tile."""

from .. import formulas
from ..algorithm import Algorithm
from ..closed_forms import fa1
from ..fa1 import flash_attention_1


def per_block(ledger):
    """The times each Q tile is read (once per K/V tile that visits it), for (batch, head) 0."""
    blocks = ledger.tile_counts("O", "write")  # every block's O is initialized (written) at step 0
    reads = ledger.tile_counts("Q")
    return [reads.get(i, 0) for i in sorted(blocks)]


ALGORITHM = Algorithm(
    name="fa1",
    function=flash_attention_1,
    bytes=fa1.hbm,
    flops=fa1.flops,
    shared=fa1.shared,
    shared_is_unit=False,  # fa1.cu: scalar float32 code, not the tensor cores the roofline puts it under
    minimum=formulas.compulsory,
    per_block=per_block,
    grid=lambda tiles, batch_heads: [sum(tiles)] * batch_heads,  # a block per batch_head walks every block of rows
    ledger_records=lambda tr, tc, n_splits: 3 * tr + tc * (2 + 7 * tr),
)
