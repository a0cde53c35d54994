"""Flash decoding: split K/V along the sequence, run FlashAttention on each split in parallel, then combine.

The K/V tiles (Tc = ceil(N_kv / Bc) of them) are dealt to n_splits contiguous splits as flash-attn's split-KV
kernel deals them: T = ceil(Tc / n_splits) tiles a split, split s owning tiles [s*T, min((s+1)*T, Tc)). Trailing
splits may own none (4 tiles in 3 splits: 2, 2, 0); such a split still reads Qi and writes m = -inf, l = 0, O = 0,
as the split kernel of cuda/flash_decoding.cu does. Query rows are tiled by Br as in FlashAttention 2; decoding is
the case N = 1.

    split kernel, one block per (block i of query rows, split s):
        load Qi;  run the online softmax over the split's K/V tiles (as FA2: m_i, l_i, Oi in SRAM)
        write O_partial[s, i] = Oi (unnormalized), m_partial[s, i] = m_i, l_partial[s, i] = l_i
    combine kernel, one block per block i of query rows:
        m_g = max_s m_partial[s];  l_g = sum_s exp(m_partial[s] - m_g) l_partial[s]
        O[i] = sum_s exp(m_partial[s] - m_g) O_partial[s] / l_g

The partials are float32. The split overhead, against FA2, is Q read n_splits times instead of once and the
partials written and read back once. As in the seed page's combine kernel, only O is written: ``lse`` is None.
A split whose tiles are all masked for a block still writes m = -inf, l = 0, O = 0, which the combine ignores.
"""

import numpy as np

from ._inputs import (
    STAT_BYTES,
    AttentionResult,
    absorb,
    check_qkv,
    combine,
    positive_int,
    scores,
    tiles,
    visible_tiles,
)
from .ledger import Ledger


def split_tiles(n_tiles, n_splits):
    """The K/V tile indices of each split: a list of n_splits ranges covering range(n_tiles) in order, each of
    ceil(n_tiles / n_splits) tiles but the last ones (shorter, or empty)."""
    per = -(-n_tiles // n_splits)
    return [range(min(s * per, n_tiles), min((s + 1) * per, n_tiles)) for s in range(n_splits)]


def flash_decoding(
    q, k, v, *, Br=64, Bc=64, n_splits=None, causal=False, dtype="float32", scale=None, sram_budget=None
):
    """Run flash decoding on q (BH, N, d), k and v (BH, N_kv, d). n_splits: 1 to ceil(N_kv / Bc); None takes
    min(4, that). Returns an AttentionResult (lse None). Raises ValueError naming the argument on bad input,
    SramBudgetError if a block does not fit."""
    q, k, v, scale, dt = check_qkv(q, k, v, scale, dtype)
    Br, Bc = positive_int("Br", Br), positive_int("Bc", Bc)
    bh, n, d = q.shape
    n_kv, s = k.shape[1], dt.itemsize
    kv_tiles = tiles(n_kv, Bc)
    n_splits = min(4, len(kv_tiles)) if n_splits is None else positive_int("n_splits", n_splits)
    if n_splits > len(kv_tiles):
        raise ValueError(f"n_splits: at most ceil(N_kv / Bc) = {len(kv_tiles)} (the K/V tiles), got {n_splits}")

    ledger = Ledger(sram_budget)
    for name, nbytes in (("Q", q.nbytes), ("K", k.nbytes), ("V", v.nbytes)):
        ledger.hbm(name, nbytes)
    ledger.hbm("O_partial", n_splits * bh * n * d * STAT_BYTES)
    ledger.hbm("m_partial", n_splits * bh * n * STAT_BYTES)
    ledger.hbm("l_partial", n_splits * bh * n * STAT_BYTES)
    ledger.hbm("O", q.nbytes)
    ledger.shared(
        "split", Qi=Br * d * s, Kj=Bc * d * s, Vj=Bc * d * s, Sij=Br * Bc * 4, Oi=Br * d * 4, mi=Br * 4, li=Br * 4
    )
    ledger.shared("combine", m_global=Br * 4, l_global=Br * 4, Oi=Br * d * 4)

    o = np.empty(q.shape, dt)
    splits = split_tiles(len(kv_tiles), n_splits)
    for i, (r0, r1) in enumerate(tiles(n, Br)):
        rows = r1 - r0
        visible = set(visible_tiles(r1, n, n_kv, kv_tiles, causal))
        O_part = np.zeros((n_splits, bh, rows, d), np.float32)
        m_part = np.full((n_splits, bh, rows), -np.inf, np.float32)
        l_part = np.zeros((n_splits, bh, rows), np.float32)
        for sp, owned in enumerate(splits):  # split kernel: these blocks run in parallel
            at = dict(kernel="split", block=(i, sp), heads=bh)
            Qi = q[:, r0:r1]
            ledger.read("Q", i, rows * d * s, step=0, **at)
            m_i, l_i, Oi = m_part[sp], l_part[sp], O_part[sp]
            step = 0
            for step, j in enumerate((j for j in owned if j in visible), start=1):
                c0, c1 = kv_tiles[j]
                ledger.read("K", j, (c1 - c0) * d * s, step=step, **at)
                ledger.read("V", j, (c1 - c0) * d * s, step=step, **at)
                Sij = scores(Qi, k[:, c0:c1], scale, (r0, r1), (c0, c1), n, n_kv, causal, ledger.flops)
                m_i, l_i, Oi = absorb(m_i, l_i, Oi, Sij, v[:, c0:c1], ledger.flops)
            O_part[sp], m_part[sp], l_part[sp] = Oi, m_i, l_i  # unnormalized: no division here
            ledger.write("O_partial", (sp, i), rows * d * STAT_BYTES, step=step + 1, **at)
            ledger.write("m_partial", (sp, i), rows * STAT_BYTES, step=step + 1, **at)
            ledger.write("l_partial", (sp, i), rows * STAT_BYTES, step=step + 1, **at)

        at = dict(kernel="combine", block=i, heads=bh)  # combine kernel: one block per block of query rows
        for step, name in enumerate(("m_partial", "l_partial", "O_partial")):
            for sp in range(n_splits):
                ledger.read(name, (sp, i), rows * (d if name == "O_partial" else 1) * STAT_BYTES, step=step, **at)
        o[:, r0:r1] = combine(m_part, l_part, O_part, ledger.flops).astype(dt)
        ledger.write("O", i, rows * d * s, step=3, **at)
    params = dict(Br=Br, Bc=Bc, n_splits=n_splits, causal=causal, dtype=dt.name, scale=scale)
    return AttentionResult(o, None, ledger, "flash-decoding", params)
