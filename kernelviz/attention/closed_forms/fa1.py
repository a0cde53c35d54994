"""FlashAttention-1 (fa1.py): K/V outer, Q inner, O, l and m written back after every step.
Its closed forms: HBM bytes per tensor (``hbm``) and FLOPs by kind (``flops``)."""

from ..flops import pair_sums, scaled, tile_steps
from ..formulas import STAT, q_rows_read, rw


def hbm(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """K/V outer, Q inner: K and V read once; at every (K/V tile, Q block) step Qi, Oi, l_i, m_i are read and
    Oi, l_i, m_i written back; O, l, m are also written once at the start (initialization)."""
    N_kv = N if N_kv is None else N_kv
    h, s = batch_heads, itemsize
    steps_rows = q_rows_read(N, Br, Bc, N_kv, causal)  # rows of Q moved over all inner steps
    return {
        "Q": rw(h * steps_rows * d * s),
        "K": rw(h * N_kv * d * s),
        "V": rw(h * N_kv * d * s),
        "O": rw(h * steps_rows * d * s, h * (N + steps_rows) * d * s),
        "l": rw(h * steps_rows * STAT, h * (N + steps_rows) * STAT),
        "m": rw(h * steps_rows * STAT, h * (N + steps_rows) * STAT),
    }


def flops(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """As FA2, but Oi goes back to HBM normalized after every tile: each step multiplies it by l_i first
    (rd) and finishes it again (rd + r other, r exp)."""
    rc, r, _ = pair_sums(N, Br, Bc, N_kv, causal)
    flops = tile_steps(d, rc, r)
    flops["exp"] += r
    flops["other"] += 2 * r * d + r
    return scaled(flops, batch_heads)
