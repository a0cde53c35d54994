"""Standard attention (standard.py): three kernels, S = QK^T and P = softmax(S) stored in HBM between them; the
baseline every forward pass is measured against."""

from .. import formulas
from ..algorithm import Algorithm
from ..closed_forms import standard
from ..standard import standard_attention

ALGORITHM = Algorithm(
    name="standard",
    function=standard_attention,
    bytes=standard.hbm,
    flops=standard.flops,
    minimum=formulas.compulsory,
    baseline=True,
    title="standard attention",
    lighter="fa2, which never stores S and P",
    skips_masked=False,
    ledger_records=lambda tr, tc, n_splits: tr * (6 * tc + 2),
    memory=lambda s: {"S and P (N x N_kv each)": s.scores()},
)
