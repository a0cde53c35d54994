"""FlashAttention 2, backward pass (Dao, 2023, Algorithm 2): dQ, dK, dV from Q, K, V, O, dO and L = m + log l.

The forward keeps only O and, per query row, L = m + log l, the log of the softmax's denominator. That is enough:
P = exp(S - L) is the softmax itself, recomputed from Q and K tile by tile. With dP = dO V^T, the softmax's
Jacobian gives dS = P * (dP - Δ) where Δ = rowsum(dO * O) (= rowsum(P * dP), since O = P V), and then

    dV = P^T dO,    dQ = scale * dS K,    dK = scale * dS^T Q.

Two kernels, as in the paper and in flash-attn:

    preprocess, one block per Br query rows i:
        load O[i], dO[i];  Δ[i] = rowsum(dO[i] * O[i]);  write Δ[i];  write dQ[i] = 0
    main, one block per K/V tile j (K and V on the outer loop: dK_j and dV_j stay in SRAM until the end):
        load Kj, Vj;  dKj = 0, dVj = 0
        for each block i of query rows (with causal masking, only blocks with a row that sees a key of tile j):
            load Qi, dOi, L[i], Δ[i]
            Sij = scale * Qi Kj^T;  Pij = exp(Sij - L[i])         (recomputed, never stored)
            dVj += Pij^T dOi;  dPij = dOi Vj^T;  dSij = Pij * (dPij - Δ[i])
            dQ[i] += scale * dSij Kj                              (an atomic add into HBM: see below)
            dKj += scale * dSij^T Qi
        write dK[j], dV[j]

The atomic add of a dQ tile is counted as a read-modify-write of HBM: a read of the tile and a write of the tile,
both of its full bytes, at the step that adds it. On the GPU a global atomic is carried out in the L2 cache, so this
is an upper bound on what reaches HBM. Every count of this backward (the ledger, the closed form
``formulas.fa2_backward``, the CLI, the page and its figure) counts it so. Blocks j add into the same dQ[i] in any
order (so on a GPU dQ's last bits can change from run to run: flash-attn's deterministic mode avoids that), and dQ
lives in HBM as float32 (flash-attn's dq_accum) whatever the storage dtype; it is
returned in float32 (flash-attn converts it in a third kernel, which this model leaves out). Δ and L are float32;
Q, K, V, O, dO, dK and dV are in the storage dtype; the arithmetic is float32.

A fully masked row (causal with N > N_kv: the first N - N_kv rows see no key) has L = -inf and O = 0: its P is 0,
so it adds nothing to dK and dV and its dQ row stays 0.

FLOPs (``ledger.flops``, the kinds of ``ledger.Flops``; closed form ``flops.fa2_backward``): the preprocess does 2rd
other per block of r rows (dO * O, the row sum); each visited tile of r rows and c keys does five products, 10rcd
matmul (S recomputed, dV, dP, dQ, dK), rc exp (P), and 4rc + 2rd + 3cd other (scale S, S - L, dP - Δ, P * (..),
scale and add into dQ, add into dV, scale and add into dK).
"""

import numpy as np

from ._backward import BackwardResult, check_backward
from ._inputs import STAT_BYTES, positive_int, safe_max, scores, tiles, visible_tiles
from .ledger import EXP, OTHER, Ledger

KERNEL, PREPROCESS = "fa2_bwd", "fa2_bwd_preprocess"
DQ_BYTES = 4  # dQ accumulates in float32 in HBM


def flash_attention_2_backward(
    q, k, v, o, do, lse, *, Br=64, Bc=64, causal=False, dtype="float32", scale=None, sram_budget=None, observe=None
):
    """The gradients of attention with respect to q (BH, N, d), k and v (BH, N_kv, d), given the forward's o
    (BH, N, d) and lse (BH, N; -inf for a fully masked row), and the upstream gradient do (BH, N, d). Returns a
    BackwardResult with dq, dk, dv and the ledger. Raises ValueError naming the argument on bad input,
    SramBudgetError if a block does not fit. `observe` (the figure's answers, attention.figure_values): called as
    observe(i, Δ=Δi) after the preprocess of block i of rows, and as observe(i, j, P=Pij, dV=dVj, dS=dSij,
    dQ_read=dQi, dQ=dQi, dK=dKj) after main block j takes block i of rows (dQ_read: dQi before its add)."""
    q, k, v, o, do, lse, scale, dt = check_backward(q, k, v, o, do, lse, scale, dtype)
    Br, Bc = positive_int("Br", Br), positive_int("Bc", Bc)
    bh, n, d = q.shape
    n_kv, s = k.shape[1], dt.itemsize

    ledger = Ledger(sram_budget)
    for name, nbytes in (("Q", q.nbytes), ("K", k.nbytes), ("V", v.nbytes), ("O", o.nbytes), ("dO", do.nbytes)):
        ledger.hbm(name, nbytes)
    ledger.hbm("L", bh * n * STAT_BYTES)
    ledger.hbm("Δ", bh * n * STAT_BYTES)  # Dao's D; D is the head dimension here
    ledger.hbm("dQ", bh * n * d * DQ_BYTES)
    ledger.hbm("dK", k.nbytes)
    ledger.hbm("dV", v.nbytes)
    ledger.shared(PREPROCESS)  # one thread per row: O and dO go from HBM to registers
    ledger.shared(
        KERNEL,
        Kj=Bc * d * s,
        Vj=Bc * d * s,
        dKj=Bc * d * 4,
        dVj=Bc * d * 4,
        Qi=Br * d * s,
        dOi=Br * d * s,
        Li=Br * 4,
        Δi=Br * 4,
        Pij=Br * Bc * 4,
        dSij=Br * Bc * 4,
    )

    row_tiles, kv_tiles = tiles(n, Br), tiles(n_kv, Bc)
    f32 = np.float32
    delta = np.empty((bh, n), f32)  # Δ
    dq = np.empty((bh, n, d), f32)  # dQ in HBM
    for i, (r0, r1) in enumerate(row_tiles):  # preprocess
        at = dict(kernel=PREPROCESS, block=i, heads=bh)
        ledger.read("O", i, (r1 - r0) * d * s, step=0, **at)
        ledger.read("dO", i, (r1 - r0) * d * s, step=0, **at)
        delta[:, r0:r1] = (do[:, r0:r1].astype(f32) * o[:, r0:r1].astype(f32)).sum(-1)
        ledger.flops.add(OTHER, 2 * bh * (r1 - r0) * d)  # dO * O, the row sum
        dq[:, r0:r1] = 0
        if observe is not None:
            observe(i, Δ=delta[:, r0:r1])
        ledger.write("Δ", i, (r1 - r0) * STAT_BYTES, step=0, **at)
        ledger.write("dQ", i, (r1 - r0) * d * DQ_BYTES, step=0, **at)

    visits = [set(visible_tiles(r1, n, n_kv, kv_tiles, causal)) for _, r1 in row_tiles]
    dk, dv = np.empty(k.shape, dt), np.empty(v.shape, dt)
    L = safe_max(lse)  # exp(S - L) = 0 for a masked S = -inf, also on a fully masked row (L = -inf)
    for j, (c0, c1) in enumerate(kv_tiles):  # main: one block per K/V tile
        at = dict(kernel=KERNEL, block=j, heads=bh)
        Kj, Vj = k[:, c0:c1].astype(f32), v[:, c0:c1].astype(f32)  # load Kj, Vj: stay in SRAM for the whole block
        ledger.read("K", j, (c1 - c0) * d * s, step=0, **at)
        ledger.read("V", j, (c1 - c0) * d * s, step=0, **at)
        dKj = np.zeros(Kj.shape, f32)
        dVj = np.zeros(Vj.shape, f32)
        step = 0
        for i, (r0, r1) in enumerate(row_tiles):
            if j not in visits[i]:
                continue
            step += 1
            rows = r1 - r0
            for name, nbytes in (("Q", rows * d * s), ("dO", rows * d * s), ("L", rows * 4), ("Δ", rows * 4)):
                ledger.read(name, i, nbytes, step=step, **at)
            Qi, dOi = q[:, r0:r1], do[:, r0:r1].astype(f32)
            flops = ledger.flops
            Pij = np.exp(scores(Qi, Kj, scale, (r0, r1), (c0, c1), n, n_kv, causal, flops) - L[:, r0:r1, None])
            dVj += np.matmul(Pij.transpose(0, 2, 1), dOi)
            dPij = np.matmul(dOi, Vj.transpose(0, 2, 1))
            dSij = Pij * (dPij - delta[:, r0:r1, None])
            flops.add(EXP, Pij.size)
            flops.add(OTHER, 3 * Pij.size + dVj.size)  # S - L, dP - Δ, P * (...); the add into dVj
            flops.matmul(Pij.transpose(0, 2, 1).shape, dOi.shape)
            flops.matmul(dOi.shape, Vj.transpose(0, 2, 1).shape)
            ledger.read("dQ", i, rows * d * DQ_BYTES, step=step, **at)  # the atomic add: read ...
            read = dq[:, r0:r1].copy() if observe is not None else None
            dq[:, r0:r1] += f32(scale) * np.matmul(dSij, Kj)
            flops.matmul(dSij.shape, Kj.shape)
            flops.add(OTHER, 2 * bh * rows * d)  # scale, add
            ledger.write("dQ", i, rows * d * DQ_BYTES, step=step, **at)  # ... and write the tile
            dKj += f32(scale) * np.matmul(dSij.transpose(0, 2, 1), Qi.astype(f32))
            flops.matmul(dSij.transpose(0, 2, 1).shape, Qi.shape)
            flops.add(OTHER, 2 * dKj.size)  # scale, add
            if observe is not None:
                seen = dict(P=Pij, dV=dVj.copy(), dS=dSij, dQ_read=read, dQ=dq[:, r0:r1].copy(), dK=dKj.copy())
                observe(i, j, **seen)
        dk[:, c0:c1], dv[:, c0:c1] = dKj.astype(dt), dVj.astype(dt)
        ledger.write("dK", j, (c1 - c0) * d * s, step=step + 1, **at)
        ledger.write("dV", j, (c1 - c0) * d * s, step=step + 1, **at)
    params = dict(Br=Br, Bc=Bc, causal=causal, dtype=dt.name, scale=scale)
    return BackwardResult(dq, dk, dv, ledger, "fa2-backward", params)
