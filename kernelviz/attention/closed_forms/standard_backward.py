"""The standard backward (standard_backward.py), which reads back the P its forward stored.
Its closed forms: HBM bytes per tensor (``hbm``) and FLOPs by kind (``flops``)."""

from ..flops import count, scaled
from ..formulas import cdiv, rw


def hbm(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """The standard backward, which reads back the P its forward stored: five kernels (dV = P^T dO; dP = dO V^T;
    dS = P * (dP - rowsum(P * dP)); dQ = dS K; dK = dS^T Q), each tiled as standard attention's forward. P is read
    twice, dP written and read, dS written once and read twice; causal masking skips nothing."""
    N_kv = N if N_kv is None else N_kv
    h, s, Tr, Tc = batch_heads, itemsize, cdiv(N, Br), cdiv(N_kv, Bc)
    nn = h * N * N_kv * s
    return {
        "Q": rw(h * Tc * N * d * s),
        "K": rw(h * Tr * N_kv * d * s),
        "V": rw(h * Tr * N_kv * d * s),
        "dO": rw(h * (Tc + 1) * N * d * s),
        "P": rw(2 * nn),
        "dP": rw(nn, nn),
        "dS": rw(2 * nn, nn),
        "dQ": rw(0, h * N * d * s),
        "dK": rw(0, h * N_kv * d * s),
        "dV": rw(0, h * N_kv * d * s),
    }


def flops(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """Four products over the whole N x N_kv (dV, dP, dQ, dK: 8 N N_kv d matmul), the softmax's backward (4 N N_kv
    other), each tile's product added into its accumulator (dV and dK: Tr N_kv d each; dQ: Tc N d) and dQ, dK
    scaled (N d + N_kv d). Nothing is skipped under a causal mask; P is read back, not recomputed."""
    N_kv = N if N_kv is None else N_kv
    nn, Tr, Tc = N * N_kv, cdiv(N, Br), cdiv(N_kv, Bc)
    other = 4 * nn + 2 * Tr * N_kv * d + Tc * N * d + N * d + N_kv * d
    return scaled(count(8 * nn * d, 0, other), batch_heads)
