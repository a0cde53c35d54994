"""FlashAttention-2 (fa2.py): the Q tiles in the outer loop, O, l and m kept on chip, O and L written once."""

from .. import flops, formulas
from ..algorithm import Algorithm
from ..fa2 import flash_attention_2


def per_block(ledger):
    """The K tiles each block of query rows reads (one K read per tile it visits), for (batch, head) 0."""
    blocks = ledger.tile_counts("O", "write")  # every block writes its O tile once (one that sees no key too)
    visits = {i: 0 for i in blocks}
    for t in ledger.transfers:
        if t.tensor == "K" and t.direction == "read" and t.bh == 0:
            visits[t.block] += 1
    return [visits[i] for i in sorted(visits)]


ALGORITHM = Algorithm(
    name="fa2",
    function=flash_attention_2,
    bytes=formulas.fa2,
    flops=flops.fa2,
    minimum=formulas.compulsory,
    per_block=per_block,
    grid=lambda tiles, batch_heads: tiles * batch_heads,  # a block per (batch_head, block of rows)
    ledger_records=lambda tr, tc, n_splits: tr * (2 * tc + 3),
)
