"""FlashAttention (fa1.py): the K/V tiles in the outer loop, O, l and m read and written back per tile."""

from .. import flops, formulas
from ..algorithm import Algorithm
from ..fa1 import flash_attention_1

ALGORITHM = Algorithm(
    name="fa1",
    function=flash_attention_1,
    bytes=formulas.fa1,
    flops=flops.fa1,
    minimum=formulas.compulsory,
    baseline="standard",
    baseline_words="standard attention",
    per_block=True,
)
