"""The standard backward pass (standard_backward.py), after standard attention's forward: five kernels that read
back the P it stored; the baseline of the backward passes."""

from .. import formulas
from .._backward import traced
from ..algorithm import Algorithm
from ..closed_forms import standard_backward
from ..standard import standard_attention
from ..standard_backward import standard_attention_backward


def records(tr, tc, n_splits):
    """Ledger records per batch·head: its forward's, then five kernels'."""
    return (
        tr * (6 * tc + 2) + tc * (2 * tr + 1) + tr * (1 + 2 * tc) + tr * 3 * tc + tr * (2 * tc + 1) + tc * (2 * tr + 1)
    )


def memory(s):
    """Its gradients, the forward's S and P, and P, dP, dS stored with P's float32 temporaries (S, exp, one at a
    time)."""
    return {
        "gradients": s.gradients(),
        "S and P (N x N_kv each)": s.scores(),
        "P, dP, dS and their temporaries (N x N_kv each)": (3 * s.itemsize + 12) * s.bh * s.n * s.n_kv,
    }


ALGORITHM = Algorithm(
    name="standard-backward",
    function=traced(standard_attention, standard_attention_backward, needs=("do",)),
    api=standard_attention_backward,
    bytes=standard_backward.hbm,
    flops=standard_backward.flops,
    minimum=formulas.compulsory_backward,
    family="backward",
    baseline=True,
    title="the standard backward",
    skips_masked=False,
    passes=2,
    ledger_records=records,
    memory=memory,
)
