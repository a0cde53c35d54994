"""The standard backward pass: the forward stored P = softmax(S) in HBM (N x N_kv), and the backward reads it back,
in five kernels that each materialize their N x N_kv result, as a framework's autograd of plain attention does.

    dv          block j (a tile of keys): for each i read Pij and dOi;  write dVj = sum_i Pij^T dOi
    dp          block i (a block of query rows): read dOi; for each j read Vj, write dPij = dOi Vj^T
    softmax_bwd block i: read the row block P[i, :] and dP[i, :];  write dS[i, :] = P * (dP - rowsum(P * dP))
    dq          block i: for each j read dSij and Kj;  write dQi = scale * sum_j dSij Kj
    dk          block j: for each i read dSij and Qi;  write dKj = scale * sum_i dSij^T Qi

rowsum(P * dP) is FlashAttention's Δ = rowsum(dO * O) (O = P V), computed here from what the kernel holds. P, dP,
dS, dQ, dK and dV are stored in the storage dtype; the arithmetic is float32. Causal masking skips no tile (P is 0
above the diagonal, as the standard forward stored it). P is the forward's, rounded to the storage dtype; it is
recomputed here from Q and K, which gives the values the standard forward wrote, and counted as the reads of the
stored P that it stands for (the forward's write of P is counted in the forward's ledger, ``standard``).

FLOPs (``ledger.flops``; closed form ``flops.standard_backward``): four products, 8 N N_kv d matmul; the softmax's
backward 4 N N_kv other (P * dP, its row sum, dP - rowsum, P * (..)); each tile's product added into its
accumulator (Tr N_kv d for dV and dK each, Tc N d for dQ), and dQ and dK scaled (N d, N_kv d). The P it reads back
is the forward's work, not counted here.

HBM traffic: P read twice, dP written and read once, dS written once and read twice (3 N x N_kv tensors, 7 passes
over N * N_kv elements); Q read once per tile of keys, K and V once per block of query rows, dO once per tile of
keys and once more; dQ, dK, dV written once.
"""

import numpy as np

from ._backward import BackwardResult, check_backward
from ._inputs import positive_int, safe_max, scores, tiles
from .ledger import OTHER, Ledger


def standard_attention_backward(
    q, k, v, do, *, Br=64, Bc=64, causal=False, dtype="float32", scale=None, sram_budget=None
):
    """The gradients of attention with respect to q (BH, N, d), k and v (BH, N_kv, d) given do (BH, N, d), reading
    the P the standard forward stored. Returns a BackwardResult (dq, dk, dv in the storage dtype, and the ledger).
    Raises ValueError naming the argument on bad input, SramBudgetError if a block does not fit."""
    q, k, v, _, do, _, scale, dt = check_backward(q, k, v, None, do, None, scale, dtype)
    Br, Bc = positive_int("Br", Br), positive_int("Bc", Bc)
    bh, n, d = q.shape
    n_kv, s = k.shape[1], dt.itemsize
    nn = bh * n * n_kv * s

    ledger = Ledger(sram_budget)
    for name, nbytes in (("Q", q.nbytes), ("K", k.nbytes), ("V", v.nbytes), ("dO", do.nbytes)):
        ledger.hbm(name, nbytes)
    for name in ("P", "dP", "dS"):
        ledger.hbm(name, nn)
    for name, nbytes in (("dQ", q.nbytes), ("dK", k.nbytes), ("dV", v.nbytes)):
        ledger.hbm(name, nbytes)
    ledger.shared("dv", Pij=Br * Bc * s, dOi=Br * d * s, dVj=Bc * d * 4)
    ledger.shared("dp", dOi=Br * d * s, Vj=Bc * d * s, dPij=Br * Bc * 4)
    ledger.shared("softmax_bwd", Pi=Br * n_kv * 4, dPi=Br * n_kv * 4, Δi=Br * 4)
    ledger.shared("dq", dSij=Br * Bc * s, Kj=Bc * d * s, dQi=Br * d * 4)
    ledger.shared("dk", dSij=Br * Bc * s, Qi=Br * d * s, dKj=Bc * d * 4)

    f32 = np.float32
    row_tiles, kv_tiles = tiles(n, Br), tiles(n_kv, Bc)
    P = _stored_p(q, k, scale, n, n_kv, causal, dt)
    dP, dS = np.empty_like(P), np.empty_like(P)

    def tile(i, j):
        return (row_tiles[i][1] - row_tiles[i][0]) * (kv_tiles[j][1] - kv_tiles[j][0]) * s

    def kv_gradient(kernel, stored, stored_name, x, x_name, out_name, factor=None):
        """Kernel `kernel`, one block j a tile of keys (dv, dk): for each block i read the stored N x N_kv tile
        (i, j) and x's rows i, and add stored_ij^T x_i into an accumulator; write out_j = factor * it (not scaled
        when factor is None)."""
        out = np.empty((bh, n_kv, d), dt)
        for j, (c0, c1) in enumerate(kv_tiles):
            at = dict(kernel=kernel, block=j, heads=bh)
            acc = np.zeros((bh, c1 - c0, d), f32)
            for i, (r0, r1) in enumerate(row_tiles):
                ledger.read(stored_name, (i, j), tile(i, j), step=i, **at)
                ledger.read(x_name, i, (r1 - r0) * d * s, step=i, **at)
                acc += np.matmul(stored[:, r0:r1, c0:c1].astype(f32).transpose(0, 2, 1), x[:, r0:r1].astype(f32))
                ledger.flops.matmul((bh, c1 - c0, r1 - r0), (bh, r1 - r0, d))
                ledger.flops.add(OTHER, acc.size)
            if factor is not None:
                acc = f32(factor) * acc
                ledger.flops.add(OTHER, acc.size)
            out[:, c0:c1] = acc.astype(dt)
            ledger.write(out_name, j, (c1 - c0) * d * s, step=len(row_tiles), **at)
        return out

    dv = kv_gradient("dv", P, "P", do, "dO", "dV")  # kernel dv: dV = P^T dO

    for i, (r0, r1) in enumerate(row_tiles):  # kernel dp: dP = dO V^T
        at = dict(kernel="dp", block=i, heads=bh)
        ledger.read("dO", i, (r1 - r0) * d * s, step=0, **at)
        for j, (c0, c1) in enumerate(kv_tiles):
            ledger.read("V", j, (c1 - c0) * d * s, step=j + 1, **at)
            dP[:, r0:r1, c0:c1] = np.matmul(do[:, r0:r1].astype(f32), v[:, c0:c1].astype(f32).transpose(0, 2, 1))
            ledger.flops.matmul((bh, r1 - r0, d), (bh, d, c1 - c0))
            ledger.write("dP", (i, j), tile(i, j), step=j + 1, **at)

    for i, (r0, r1) in enumerate(row_tiles):  # kernel softmax_bwd: dS = P * (dP - rowsum(P * dP))
        at = dict(kernel="softmax_bwd", block=i, heads=bh)
        for j in range(len(kv_tiles)):
            ledger.read("P", (i, j), tile(i, j), step=j, **at)
            ledger.read("dP", (i, j), tile(i, j), step=j, **at)
        Pi, dPi = P[:, r0:r1].astype(f32), dP[:, r0:r1].astype(f32)
        dS[:, r0:r1] = Pi * (dPi - (Pi * dPi).sum(-1, keepdims=True))
        ledger.flops.add(OTHER, 4 * Pi.size)
        for j in range(len(kv_tiles)):
            ledger.write("dS", (i, j), tile(i, j), step=len(kv_tiles) + j, **at)

    dq = np.empty(q.shape, dt)
    for i, (r0, r1) in enumerate(row_tiles):  # kernel dq: dQ = scale * dS K
        at = dict(kernel="dq", block=i, heads=bh)
        acc = np.zeros((bh, r1 - r0, d), f32)
        for j, (c0, c1) in enumerate(kv_tiles):
            ledger.read("dS", (i, j), tile(i, j), step=j, **at)
            ledger.read("K", j, (c1 - c0) * d * s, step=j, **at)
            acc += np.matmul(dS[:, r0:r1, c0:c1].astype(f32), k[:, c0:c1].astype(f32))
            ledger.flops.matmul((bh, r1 - r0, c1 - c0), (bh, c1 - c0, d))
            ledger.flops.add(OTHER, acc.size)
        dq[:, r0:r1] = (f32(scale) * acc).astype(dt)
        ledger.flops.add(OTHER, acc.size)
        ledger.write("dQ", i, (r1 - r0) * d * s, step=len(kv_tiles), **at)

    dk = kv_gradient("dk", dS, "dS", q, "Q", "dK", factor=scale)  # kernel dk: dK = scale * dS^T Q
    params = dict(Br=Br, Bc=Bc, causal=causal, dtype=dt.name, scale=scale)
    return BackwardResult(dq, dk, dv, ledger, "standard-backward", params)


def _stored_p(q, k, scale, n, n_kv, causal, dt):
    """P = softmax(scale * Q K^T) in the storage dtype, as the standard forward stores it (0 where masked, and on a
    fully masked row)."""
    S = scores(q, k, scale, (0, n), (0, n_kv), n, n_kv, causal).astype(dt).astype(np.float32)  # S as stored
    m = S.max(-1, keepdims=True)
    e = np.exp(S - safe_max(m))
    total = e.sum(-1, keepdims=True)
    return (e / np.where(total == 0, np.float32(1), total)).astype(dt)
