"""FA2's backward pass (fa2_backward.py), run after its forward for O and L on a random dO (_backward.traced);
measured against the standard backward, which reads back the P its forward stored."""

from .. import formulas
from .._backward import traced
from ..algorithm import Algorithm
from ..closed_forms import fa2_backward
from ..fa2 import flash_attention_2
from ..fa2_backward import flash_attention_2_backward

ALGORITHM = Algorithm(
    name="fa2-backward",
    function=traced(flash_attention_2, flash_attention_2_backward),
    api=flash_attention_2_backward,
    bytes=fa2_backward.hbm,
    flops=fa2_backward.flops,
    shared=fa2_backward.shared,
    shared_is_unit=False,  # fa2_bwd.cu: scalar float32 code
    minimum=formulas.compulsory_backward,
    family="backward",
    passes=2,
    ledger_records=lambda tr, tc, n_splits: tr * (2 * tc + 3) + 4 * tr + tc * (4 + 6 * tr),  # forward, then its own
    memory=lambda s: {"gradients": s.gradients()},
)
