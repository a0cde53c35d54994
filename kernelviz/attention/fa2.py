"""FlashAttention 2: Q on the outer loop, one block per Br rows of Q; K and V stream past on the inner loop.

For each block i of Br query rows (the blocks are independent and run in parallel on a GPU):

    load Qi;  m_i = -inf,  l_i = 0,  Oi = 0                          (SRAM)
    for each K/V tile j (with causal masking, only tiles not entirely above the diagonal):
        load Kj, Vj;  Sij = scale * Qi Kj^T
        m_new = max(m_i, rowmax(Sij));  P = exp(Sij - m_new)
        l_i = exp(m_i - m_new) l_i + rowsum(P);  Oi = exp(m_i - m_new) Oi + P Vj;  m_i = m_new
    write O[i] = Oi / l_i  and  L[i] = m_i + log l_i

So Q is read once, O and L are written once, and K and V are read once per block of Q: Tr = ceil(N / Br) times
(fewer with causal skipping). Storage is float32 or float16; Sij, m, l, Oi and L are float32.

A block whose rows all see no key (causal with N > N_kv: the first N - N_kv rows see none) has no tile to visit,
and returns before loading anything, as flash-attn's forward kernel does: it writes O[i] = 0 and L[i] = -inf (the
log of an empty sum) and reads neither Q nor K nor V. A block some of whose rows see a key runs the loop, and its
rows that see none come out of it with l = 0, so ``finish`` gives them O = 0 and L = -inf too.
"""

import numpy as np

from ._inputs import (
    STAT_BYTES,
    AttentionResult,
    absorb,
    check_qkv,
    finish,
    positive_int,
    scores,
    tiles,
    visible_tiles,
    write_unseen,
)
from .fa2_block import tiles as block_tiles
from .ledger import Ledger

KERNEL = "fa2"


def flash_attention_2(
    q, k, v, *, Br=64, Bc=64, causal=False, dtype="float32", scale=None, sram_budget=None, observe=None
):
    """Run FlashAttention 2 on q (BH, N, d), k and v (BH, N_kv, d). Returns an AttentionResult with o, lse and
    the ledger. Raises ValueError naming the argument on bad input, SramBudgetError if a block does not fit.
    `observe`: called as observe(i, j, S=Sij, m=m_i, l=l_i, O=Oi) after block i folds K/V tile j in (the figure's
    answers show these carries: kernelviz.site.answers)."""
    q, k, v, scale, dt = check_qkv(q, k, v, scale, dtype)
    Br, Bc = positive_int("Br", Br), positive_int("Bc", Bc)
    bh, n, d = q.shape
    n_kv, s = k.shape[1], dt.itemsize

    ledger = Ledger(sram_budget)
    for name, nbytes in (("Q", q.nbytes), ("K", k.nbytes), ("V", v.nbytes), ("O", q.nbytes)):
        ledger.hbm(name, nbytes)
    ledger.hbm("L", bh * n * STAT_BYTES)
    ledger.shared(KERNEL, **block_tiles(Br, Bc, d, s))

    o = np.empty(q.shape, dt)
    lse = np.empty((bh, n), np.float32)
    kv_tiles = tiles(n_kv, Bc)
    for i, (r0, r1) in enumerate(tiles(n, Br)):
        at = dict(kernel=KERNEL, block=i, heads=bh)
        visits = visible_tiles(r1, n, n_kv, kv_tiles, causal)
        if not visits:  # the mask hides every key from every row: load nothing
            write_unseen(ledger, o, lse, i, r0, r1, s, at)
            continue
        Qi = q[:, r0:r1]  # load Qi: stays in SRAM for the whole block
        ledger.read("Q", i, (r1 - r0) * d * s, step=0, **at)
        m_i = np.full((bh, r1 - r0), -np.inf, np.float32)
        l_i = np.zeros((bh, r1 - r0), np.float32)
        Oi = np.zeros((bh, r1 - r0, d), np.float32)
        step = 0
        for step, j in enumerate(visits, start=1):
            c0, c1 = kv_tiles[j]
            Kj, Vj = k[:, c0:c1], v[:, c0:c1]  # load Kj, Vj
            ledger.read("K", j, (c1 - c0) * d * s, step=step, **at)
            ledger.read("V", j, (c1 - c0) * d * s, step=step, **at)
            Sij = scores(Qi, Kj, scale, (r0, r1), (c0, c1), n, n_kv, causal, ledger.flops)
            m_i, l_i, Oi = absorb(m_i, l_i, Oi, Sij, Vj, ledger.flops)
            if observe is not None:
                observe(i, j, S=Sij, m=m_i, l=l_i, O=Oi)
        Oi, Li = finish(m_i, l_i, Oi, ledger.flops)  # O[i], L[i] = Oi / l_i, m_i + log(l_i)
        o[:, r0:r1] = Oi.astype(dt)
        lse[:, r0:r1] = Li
        ledger.write("O", i, (r1 - r0) * d * s, step=step + 1, **at)
        ledger.write("L", i, (r1 - r0) * STAT_BYTES, step=step + 1, **at)
    params = dict(Br=Br, Bc=Bc, causal=causal, dtype=dt.name, scale=scale)
    return AttentionResult(o, lse, ledger, KERNEL, params)
