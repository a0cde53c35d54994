"""FlashAttention-2 (fa2.py): Q outer, K/V inner, O and L written once.
Its closed forms: HBM bytes per tensor (``hbm``) and FLOPs by kind (``flops``)."""

from ..flops import pair_sums, scaled, tile_steps
from ..formulas import STAT, kv_rows_read, rows_seeing, rw


def hbm(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """Q outer, K/V inner: Q read once, K and V once per block of Q rows, O and L = m + log l written once. A block
    whose rows see no key (causal, N > N_kv) reads nothing: its Q rows are not read (``rows_seeing``)."""
    h, s = batch_heads, itemsize
    kv = h * kv_rows_read(N, Br, Bc, N_kv, causal) * d * s
    q = h * rows_seeing(N, Br, Bc, N_kv, causal) * d * s
    return {"Q": rw(q), "K": rw(kv), "V": rw(kv), "O": rw(0, h * N * d * s), "L": rw(0, h * N * STAT)}


def flops(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """One online-softmax step per visited tile, one finish per row of a block that sees a key (a block that sees
    none writes O = 0 and L = -inf without computing: ``formulas.rows_seeing``)."""
    rc, r, _ = pair_sums(N, Br, Bc, N_kv, causal)
    flops = tile_steps(d, rc, r)
    rows = rows_seeing(N, Br, Bc, N_kv, causal)
    flops["other"] += rows * d + rows
    flops["exp"] += rows
    return scaled(flops, batch_heads)
