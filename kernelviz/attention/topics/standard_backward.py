"""The standard backward pass (standard_backward.py), after standard attention's forward: five kernels that read
back the P it stored; the baseline of the backward passes."""

from .. import flops, formulas
from .._backward import traced
from ..algorithm import Algorithm
from ..standard import standard_attention
from ..standard_backward import standard_attention_backward

ALGORITHM = Algorithm(
    name="standard-backward",
    function=traced(standard_attention, standard_attention_backward, needs=("do",)),
    bytes=formulas.standard_backward,
    flops=flops.standard_backward,
    minimum=formulas.compulsory_backward,
    baseline="standard-backward",
    baseline_words="the standard backward",
    skips_masked=False,
    passes=2,
)
