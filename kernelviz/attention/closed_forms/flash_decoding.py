"""Flash decoding (flash_decoding.py): the keys cut into splits, then the partials combined.
Its closed forms: HBM bytes per tensor (``hbm``) and FLOPs by kind (``flops``)."""

from ..flops import pair_sums, scaled, tile_steps
from ..formulas import STAT, kv_rows_read, rw


def hbm(N, d, Br, Bc, n_splits, N_kv=None, causal=False, itemsize=4, batch_heads=1, partials="unnormalized"):
    """Split kernel: each of n_splits blocks per block of Q rows reads Qi and its own K/V tiles, and writes
    float32 partials O, m, l; the combine kernel reads the partials once and writes O. With partials="lse" the
    partials are the normalized O and one log-sum-exp a row: lse_partial instead of m_partial and l_partial, one
    float a row a split fewer each way."""
    h, s = batch_heads, itemsize
    kv = h * kv_rows_read(N, Br, Bc, N_kv, causal) * d * s
    partial_o, partial_stat = h * n_splits * N * d * STAT, h * n_splits * N * STAT
    stats = ("lse_partial",) if partials == "lse" else ("m_partial", "l_partial")
    return {
        "Q": rw(h * n_splits * N * d * s),
        "K": rw(kv),
        "V": rw(kv),
        "O_partial": rw(partial_o, partial_o),
        **{name: rw(partial_stat, partial_stat) for name in stats},
        "O": rw(0, h * N * d * s),
    }


def flops(N, d, Br, Bc, n_splits, N_kv=None, causal=False, batch_heads=1, partials="unnormalized"):
    """FA2's tiles shared among the splits (each visited tile once), then per query row a combine of the
    n_splits partials: max, m_s - m_g, exp, w * l, the sum, w * O_s and its sum, one division. With
    partials="lse" each split finishes its rows (O / l: d divisions, m + log l: one log and one add, ``finish``) and
    the combine has no division of O: max, lse_s - max, exp, the sum, w_s / sum, w * O_s and its sum."""
    rc, r, _ = pair_sums(N, Br, Bc, N_kv, causal)
    flops = tile_steps(d, rc, r)
    flops["other"] += 4 * n_splits * N + 2 * n_splits * N * d
    flops["exp"] += n_splits * N
    if partials == "lse":
        flops["other"] += n_splits * N * (d + 1)
        flops["exp"] += n_splits * N
    else:
        flops["other"] += N * d
    return scaled(flops, batch_heads)
