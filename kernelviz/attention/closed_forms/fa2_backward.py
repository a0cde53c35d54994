"""FlashAttention-2's backward (fa2_backward.py): K/V outer, dQ added into atomically.
Its closed forms: HBM bytes per tensor (``hbm``) and FLOPs by kind (``flops``)."""

from ..flops import count, pair_sums, scaled
from ..formulas import STAT, q_rows_read, rw


def hbm(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """FA2's backward: a preprocess reads O and dO once, writes Δ = rowsum(dO * O) and zeroes dQ (float32); the
    main kernel (K/V outer) reads K and V once and writes dK and dV once, and at every (K/V tile, Q block) step
    reads Qi, dOi, L_i, D_i and adds into dQ_i atomically: a read and a write of the float32 tile."""
    N_kv = N if N_kv is None else N_kv
    h, s = batch_heads, itemsize
    rows = h * q_rows_read(N, Br, Bc, N_kv, causal)
    return {
        "Q": rw(rows * d * s),
        "K": rw(h * N_kv * d * s),
        "V": rw(h * N_kv * d * s),
        "O": rw(h * N * d * s),
        "dO": rw(h * N * d * s + rows * d * s),
        "L": rw(rows * STAT),
        "Δ": rw(rows * STAT, h * N * STAT),
        "dQ": rw(rows * d * STAT, h * N * d * STAT + rows * d * STAT),
        "dK": rw(0, h * N_kv * d * s),
        "dV": rw(0, h * N_kv * d * s),
    }


def flops(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """The preprocess, 2 N d other (dO * O and its row sum); then per visited tile of r rows and c keys five products
    (S recomputed, dV, dP, dQ, dK: 10rcd matmul), P = exp(S - L) (rc exp), and 4rc + 2rd + 3cd other: scale S,
    S - L, dP - D, P * (dP - D); scale and add into dQ; add into dV; scale and add into dK."""
    rc, r, c = pair_sums(N, Br, Bc, N_kv, causal)
    flops = count(10 * rc * d, rc, 2 * N * d + 4 * rc + 2 * r * d + 3 * c * d)
    return scaled(flops, batch_heads)
