"""Standard attention (standard.py): three kernels, S = QK^T and P = softmax(S) stored in HBM between them; the
baseline every forward pass is measured against."""

from .. import flops, formulas
from ..algorithm import Algorithm
from ..standard import standard_attention

ALGORITHM = Algorithm(
    name="standard",
    function=standard_attention,
    bytes=formulas.standard,
    flops=flops.standard,
    minimum=formulas.compulsory,
    baseline="standard",
    baseline_words="standard attention",
    lighter="fa2, which never stores S and P",
    skips_masked=False,
)
