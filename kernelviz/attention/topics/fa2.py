"""FlashAttention-2 (fa2.py): the Q tiles in the outer loop, O, l and m kept on chip, O and L written once."""

from .. import flops, formulas
from ..algorithm import Algorithm
from ..fa2 import flash_attention_2

ALGORITHM = Algorithm(
    name="fa2",
    function=flash_attention_2,
    bytes=formulas.fa2,
    flops=flops.fa2,
    minimum=formulas.compulsory,
    baseline="standard",
    baseline_words="standard attention",
    per_block=True,
)
