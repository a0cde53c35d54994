"""Standard attention: three kernels that materialize the N x N_kv matrices S and P in HBM.

    kernel 1 (scores):  S = scale * Q K^T      block i: load Qi, then for each j load Kj and write Sij
    kernel 2 (softmax): P = softmax(S)         block i: read the row block S[i, :], write P[i, :]
    kernel 3 (output):  O = P V                block i: for each j read Pij and Vj; write Oi

S and P are stored in the storage dtype (float16 storage rounds them, which is where standard attention in
float16 loses accuracy); arithmetic is float32. Causal masking writes -inf into S (no tile is skipped), and a
fully masked row gets P = 0, so O = 0. There is no log-sum-exp output (``lse`` is None).

HBM traffic: Q and O once; K and V once per block of Q rows; S written and read once, P written and read once.
"""

import numpy as np

from ._inputs import AttentionResult, check_qkv, positive_int, safe_max, scores, tiles
from .ledger import Ledger

KERNELS = ("scores", "softmax", "output")


def standard_attention(q, k, v, *, Br=64, Bc=64, causal=False, dtype="float32", scale=None, sram_budget=None):
    """Run standard attention on q (BH, N, d), k and v (BH, N_kv, d). Returns an AttentionResult (lse None).
    Raises ValueError naming the argument on bad input, SramBudgetError if a block does not fit."""
    q, k, v, scale, dt = check_qkv(q, k, v, scale, dtype)
    Br, Bc = positive_int("Br", Br), positive_int("Bc", Bc)
    bh, n, d = q.shape
    n_kv, s = k.shape[1], dt.itemsize

    ledger = Ledger(sram_budget)
    for name, nbytes in (("Q", q.nbytes), ("K", k.nbytes), ("V", v.nbytes), ("S", bh * n * n_kv * s)):
        ledger.hbm(name, nbytes)
    ledger.hbm("P", bh * n * n_kv * s)
    ledger.hbm("O", q.nbytes)
    ledger.shared("scores", Qi=Br * d * s, Kj=Bc * d * s, Sij=Br * Bc * 4)
    ledger.shared("softmax", Si=Br * n_kv * 4, mi=Br * 4, li=Br * 4)
    ledger.shared("output", Pij=Br * Bc * s, Vj=Bc * d * s, Oi=Br * d * 4)

    row_tiles, kv_tiles = tiles(n, Br), tiles(n_kv, Bc)
    S = np.empty((bh, n, n_kv), dt)
    for i, (r0, r1) in enumerate(row_tiles):  # kernel 1: S = scale * Q K^T
        at = dict(kernel="scores", block=i, heads=bh)
        Qi = q[:, r0:r1]
        ledger.read("Q", i, (r1 - r0) * d * s, step=0, **at)
        for j, (c0, c1) in enumerate(kv_tiles):
            ledger.read("K", j, (c1 - c0) * d * s, step=j + 1, **at)
            Sij = scores(Qi, k[:, c0:c1], scale, (r0, r1), (c0, c1), n, n_kv, causal, ledger.flops)
            S[:, r0:r1, c0:c1] = Sij.astype(dt)
            ledger.write("S", (i, j), (r1 - r0) * (c1 - c0) * s, step=j + 1, **at)

    P = np.empty((bh, n, n_kv), dt)
    for i, (r0, r1) in enumerate(row_tiles):  # kernel 2: P = softmax(S), one row block resident
        at = dict(kernel="softmax", block=i, heads=bh)
        for j, (c0, c1) in enumerate(kv_tiles):
            ledger.read("S", (i, j), (r1 - r0) * (c1 - c0) * s, step=j, **at)
        Si = S[:, r0:r1].astype(np.float32)
        m_i = Si.max(-1, keepdims=True)
        e = np.exp(Si - safe_max(m_i))
        l_i = e.sum(-1, keepdims=True)
        P[:, r0:r1] = (e / np.where(l_i == 0, np.float32(1), l_i)).astype(dt)
        ledger.flops.add("other", 4 * Si.size)  # row max, subtract, row sum, divide
        ledger.flops.add("exp", Si.size)
        for j, (c0, c1) in enumerate(kv_tiles):
            ledger.write("P", (i, j), (r1 - r0) * (c1 - c0) * s, step=len(kv_tiles) + j, **at)

    o = np.empty(q.shape, dt)
    for i, (r0, r1) in enumerate(row_tiles):  # kernel 3: O = P V
        at = dict(kernel="output", block=i, heads=bh)
        Oi = np.zeros((bh, r1 - r0, d), np.float32)
        for j, (c0, c1) in enumerate(kv_tiles):
            ledger.read("P", (i, j), (r1 - r0) * (c1 - c0) * s, step=j, **at)
            ledger.read("V", j, (c1 - c0) * d * s, step=j, **at)
            Pij, Vj = P[:, r0:r1, c0:c1].astype(np.float32), v[:, c0:c1].astype(np.float32)
            Oi += np.matmul(Pij, Vj)
            ledger.flops.matmul(Pij.shape, Vj.shape)
            ledger.flops.add("other", Oi.size)  # +=
        o[:, r0:r1] = Oi.astype(dt)
        ledger.write("O", i, (r1 - r0) * d * s, step=len(kv_tiles), **at)
    params = dict(Br=Br, Bc=Bc, causal=causal, dtype=dt.name, scale=scale)
    return AttentionResult(o, None, ledger, "standard", params)
