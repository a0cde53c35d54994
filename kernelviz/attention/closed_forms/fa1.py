"""FlashAttention-1 (fa1.py): K/V outer, Q inner, O, l and m written back after every step.
Its closed forms: HBM bytes per tensor (``hbm``), FLOPs by kind (``flops``) and the shared-memory traffic of the
book's scalar kernel, cuda/fa1.cu (``shared``: reported, not a roofline unit, ``Algorithm.shared_unit``)."""

from ..flops import pair_sums, scaled, tile_steps
from ..formulas import STAT, cdiv, q_rows_read, rw, scalar_shared, tile_interactions


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


def shared(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """Shared-memory traffic of the book's FA1 kernel (cuda/fa1.cu; ``attention.scalar_smem`` says what each step
    stores and loads): the tile_interactions steps, each also storing Qi and the carries Oi, mi, li (Br d s, Br d 4,
    Br 4, Br 4) and loading back the carries of its rows that exist (q_rows_read rows in all: d 4 + 4 + 4 a row);
    and each of the ceil(N_kv / Bc) K/V tiles stored once (Bc d s, K and V)."""
    N_kv = N if N_kv is None else N_kv
    h = batch_heads
    steps = h * tile_interactions(N, Br, Bc, N_kv, causal)
    rows = h * q_rows_read(N, Br, Bc, N_kv, causal)
    return scalar_shared(steps, h * cdiv(N_kv, Bc), steps, rows, Br, Bc, d, itemsize, False)
