"""Standard attention (standard.py): S and P materialized in HBM.
Its closed forms: HBM bytes per tensor (``hbm``) and FLOPs by kind (``flops``)."""

from ..flops import count, scaled
from ..formulas import cdiv, rw


def hbm(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """Three kernels: S = QK^T (K read once per block of Q rows), P = softmax(S), O = PV (V likewise).
    S and P are each written and read once; causal masking skips nothing."""
    N_kv = N if N_kv is None else N_kv
    h, s, Tr = batch_heads, itemsize, cdiv(N, Br)
    nn = h * N * N_kv * s
    return {
        "Q": rw(h * N * d * s),
        "K": rw(h * Tr * N_kv * d * s),
        "V": rw(h * Tr * N_kv * d * s),
        "S": rw(nn, nn),
        "P": rw(nn, nn),
        "O": rw(0, h * N * d * s),
    }


def flops(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """S = scale Q K^T on every tile (nothing skipped), a softmax of each whole row (max, subtract, exp, sum,
    divide), O = P V tile by tile with one add of each product into O."""
    N_kv = N if N_kv is None else N_kv
    nn = N * N_kv
    return scaled(count(4 * nn * d, nn, nn + 4 * nn + N * d * cdiv(N_kv, Bc)), batch_heads)
