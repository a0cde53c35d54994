"""FlashAttention 1: K and V on the outer loop, Q on the inner loop; O, l and m live in HBM between steps.

    write O = 0, l = 0, m = -inf to HBM
    for each K/V tile j:                      load Kj, Vj (stay in SRAM for the whole inner loop)
        for each block i of Br query rows (with causal masking, only blocks with a visible key in tile j):
            load Qi, Oi, l_i, m_i;  Sij = scale * Qi Kj^T
            m_new = max(m_i, rowmax(Sij));  P = exp(Sij - m_new)
            l_new = exp(m_i - m_new) l_i + rowsum(P)
            Oi = (exp(m_i - m_new) l_i Oi + P Vj) / l_new
            write Oi, l_i = l_new, m_i = m_new

(The paper takes the tile max first and rescales both terms to m_new; the result is the same.) So K and V are
read once, but Q is read, and O, l, m are read and written back, once per K/V tile: Tc = ceil(N_kv / Bc) times.
One block per (batch, head) runs the whole double loop. O is stored in the storage dtype, rounded at every
write (so in float16 its error grows with Tc; the tests hold it within 2x standard attention's at their sizes),
l and m in float32. ``lse`` is m + log l as the run leaves them in HBM (-inf for fully masked rows).
"""

import numpy as np

from ._inputs import STAT_BYTES, AttentionResult, absorb, check_qkv, finish, positive_int, scores, tiles, visible_tiles
from .ledger import Ledger

KERNEL = "fa1"


def flash_attention_1(
    q, k, v, *, Br=64, Bc=64, causal=False, dtype="float32", scale=None, sram_budget=None, observe=None
):
    """Run FlashAttention 1 on q (BH, N, d), k and v (BH, N_kv, d). Returns an AttentionResult with o, lse and
    the ledger. Raises ValueError naming the argument on bad input, SramBudgetError if a block does not fit.
    `observe`: called as observe(i, j, S=Sij, m=m_i, l=l_i, O=Oi) after block i folds K/V tile j in, with the
    carries it writes back to HBM (the figure's answers, attention.figure_values); each array is (BH, ...)."""
    q, k, v, scale, dt = check_qkv(q, k, v, scale, dtype)
    Br, Bc = positive_int("Br", Br), positive_int("Bc", Bc)
    bh, n, d = q.shape
    n_kv, s = k.shape[1], dt.itemsize

    ledger = Ledger(sram_budget)
    for name, nbytes in (("Q", q.nbytes), ("K", k.nbytes), ("V", v.nbytes), ("O", q.nbytes)):
        ledger.hbm(name, nbytes)
    ledger.hbm("l", bh * n * STAT_BYTES)
    ledger.hbm("m", bh * n * STAT_BYTES)
    ledger.shared(
        KERNEL, Kj=Bc * d * s, Vj=Bc * d * s, Qi=Br * d * s, Oi=Br * d * 4, Sij=Br * Bc * 4, li=Br * 4, mi=Br * 4
    )

    row_tiles, kv_tiles = tiles(n, Br), tiles(n_kv, Bc)
    visits = [set(visible_tiles(r1, n, n_kv, kv_tiles, causal)) for _, r1 in row_tiles]
    at = dict(kernel=KERNEL, block=0, heads=bh)

    O_hbm = np.zeros(q.shape, dt)  # O, l, m in HBM, initialized by the kernel
    l_hbm = np.zeros((bh, n), np.float32)
    m_hbm = np.full((bh, n), -np.inf, np.float32)
    for i, (r0, r1) in enumerate(row_tiles):
        ledger.write("O", i, (r1 - r0) * d * s, step=0, **at)
        ledger.write("l", i, (r1 - r0) * STAT_BYTES, step=0, **at)
        ledger.write("m", i, (r1 - r0) * STAT_BYTES, step=0, **at)

    step = 0
    for j, (c0, c1) in enumerate(kv_tiles):
        step += 1
        Kj, Vj = k[:, c0:c1], v[:, c0:c1]  # load Kj, Vj: stay in SRAM for the inner loop
        ledger.read("K", j, (c1 - c0) * d * s, step=step, **at)
        ledger.read("V", j, (c1 - c0) * d * s, step=step, **at)
        for i, (r0, r1) in enumerate(row_tiles):
            if j not in visits[i]:
                continue
            step += 1
            rows = (r1 - r0) * d * s
            for name, nbytes in (("Q", rows), ("O", rows), ("l", (r1 - r0) * 4), ("m", (r1 - r0) * 4)):
                ledger.read(name, i, nbytes, step=step, **at)
            Qi, Oi, l_i, m_i = q[:, r0:r1], O_hbm[:, r0:r1].astype(np.float32), l_hbm[:, r0:r1], m_hbm[:, r0:r1]
            Sij = scores(Qi, Kj, scale, (r0, r1), (c0, c1), n, n_kv, causal, ledger.flops)
            m_new, l_new, acc = absorb(m_i, l_i, l_i[..., None] * Oi, Sij, Vj, ledger.flops)
            ledger.flops.add("other", Oi.size)  # l_i * Oi: back from normalized
            Oi, _ = finish(m_new, l_new, acc, ledger.flops)
            O_hbm[:, r0:r1], l_hbm[:, r0:r1], m_hbm[:, r0:r1] = Oi.astype(dt), l_new, m_new
            if observe is not None:
                observe(i, j, S=Sij, m=m_new, l=l_new, O=O_hbm[:, r0:r1])
            for name, nbytes in (("O", rows), ("l", (r1 - r0) * 4), ("m", (r1 - r0) * 4)):
                ledger.write(name, i, nbytes, step=step, **at)
    _, lse = finish(m_hbm, l_hbm, np.zeros((bh, n, 1), np.float32))  # for the API: no kernel's work
    params = dict(Br=Br, Bc=Bc, causal=causal, dtype=dt.name, scale=scale)
    return AttentionResult(O_hbm, lse, ledger, KERNEL, params)
