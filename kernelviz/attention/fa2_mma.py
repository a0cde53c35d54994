"""FlashAttention 2 on tensor cores, as kernelviz/cuda/fa2_mma.cu runs it: FA2's loops, split among the warps of
a block, with 16-bit operands and float32 accumulators.

A block of Br query rows is `warps` warps, warp w owning rows [w R, w R + R) of the block with R = ceil(Br / warps),
the last of them fewer (or none) when warps does not divide Br (the CUDA kernel: 4 warps of 16 rows, Br = 64; the
page's figure draws 2 a warp). For each block i:

    store Qi HBM -> SRAM; each warp loads its rows of Qi SRAM -> registers, once
    for each K/V tile j (with causal masking, only tiles not entirely above the diagonal, as FA2):
        store Kj, Vj HBM -> SRAM
        each warp: load all of Kj; S = scale * Q_w Kj^T (float32, from the 16-bit operands);
                   online softmax on its rows (float32): m, l rescaled, P~ = exp(S - m_new);
                   P~ rounded to the 16-bit type, already the A operand of the next mma (registers, no SRAM);
                   load all of Vj; O_w = alpha O_w + P~ Vj (float32 accumulation)
    each warp writes O = O_w / l (rounded to the 16-bit type) and L = m + log l (float32) registers -> HBM

A block whose rows all see no key (causal, N > N_kv) returns before loading anything, as FA2's does (``fa2``):
it writes O = 0 and L = -inf, and stores and loads nothing in SRAM.

Storage is "float16" (inputs cast as every algorithm here casts them) or "bfloat16" (emulated by rounding float32
to nearest even, ``kernelviz.cuda.half``; P~ and O are rounded the same way, as fa2_mma.cu's cvt does);
o comes back as float16, or for bfloat16 as float32 holding bf16 values. HBM traffic is FA2's exactly. Shared
memory holds Qi, Kj and Vj (the kernel pads each row by 8 elements against bank conflicts: ``kernels.shared_bytes``);
its traffic goes to the ledger (``Ledger.smem``) at full tile size: per block that sees a key, Q stored and loaded
once (Br d s each), per visited tile K and V stored once (Bc d s) and loaded by every warp (warps Bc d s). With
``p_in_shared`` P~ takes the round trip FA2's register reuse avoids: stored into and loaded from SRAM (Br Bc s each) on
every visited tile.
The numerics do not change (P~ is rounded to 16 bits either way). Closed form: ``closed_forms.fa2_mma.shared``.
"""

import numpy as np

from . import half
from ._inputs import (
    SIXTEEN_BIT,
    STAT_BYTES,
    AttentionResult,
    absorb,
    check_qkv_16bit,
    finish,
    positive_int,
    scores,
    tiles,
    visible_tiles,
    write_unseen,
)
from .ledger import LOAD, STORE, Ledger

KERNEL = "fa2_mma"
SMEM_TENSORS = ("Q", "K", "V", "P")  # what can pass through shared memory; P only with p_in_shared


def fresh(bh, rows, d):
    """A warp's m = -inf, l = 0 and O = 0 for its `rows` query rows, float32."""
    m_w = np.full((bh, rows), -np.inf, np.float32)
    return m_w, np.zeros((bh, rows), np.float32), np.zeros((bh, rows, d), np.float32)


def sixteen_bit_ledger(sram_budget, bh, n, n_kv, d):
    """A Ledger with the HBM tensors of a 16-bit kernel (fa2_mma's, fa3's) registered: Q and O (BH, N, d), K and V
    (BH, N_kv, d) of 2 bytes an element, L (BH, N) of float32."""
    ledger = Ledger(sram_budget)
    for name, length in (("Q", n), ("K", n_kv), ("V", n_kv), ("O", n)):
        ledger.hbm(name, bh * length * d * 2)
    ledger.hbm("L", bh * n * STAT_BYTES)
    return ledger


def sixteen_bit_outputs(q, dtype):
    """Empty o (float16, or float32 holding bf16 values) and lse (float32) for q (BH, N, d)."""
    return np.empty(q.shape, np.float16 if dtype == "float16" else np.float32), np.empty(q.shape[:2], np.float32)


def rounding(dtype, keep=None):
    """p -> p rounded to the 16-bit `dtype` (nearest even), as the kernels' cvt rounds P~ and O; with a dict `keep`,
    the last value rounded is kept in keep["P"] too (for `observe`)."""
    code = SIXTEEN_BIT[dtype]

    def rounded(p):
        out = half.round(p, code)
        if keep is not None:
            keep["P"] = out
        return out

    return rounded


def write_rows(o, lse, own, state, rounded, flops):
    """Registers -> HBM: each warp's (or warpgroup's) rows [a, b) of `own`, from its (m, l, O) in `state`:
    o = O / l rounded to 16 bits, lse = m + log l; a group with no rows (past N) writes nothing."""
    for (a, b), (m_w, l_w, acc) in zip(own, state, strict=True):
        if b > a:
            Ow, Lw = finish(m_w, l_w, acc, flops)
            o[:, a:b] = rounded(Ow)
            lse[:, a:b] = Lw


def flash_attention_2_mma(
    q,
    k,
    v,
    *,
    Br=64,
    Bc=64,
    warps=4,
    causal=False,
    dtype="float16",
    scale=None,
    sram_budget=None,
    p_in_shared=False,
    observe=None,
):
    """Run FA2 on tensor cores on q (BH, N, d), k and v (BH, N_kv, d); see the module docstring. Returns an
    AttentionResult with o, lse and the ledger (HBM transfers, and shared-memory traffic). Raises ValueError naming
    the argument on bad input (dtype float32: tensor cores take 16-bit operands), SramBudgetError if a block does not
    fit. `observe` (the figure's answers, attention.figure_values): called as observe(i, j, w, S=Sij, P=P~, m=m, l=l,
    O=acc) after warp w of block i folds tile j into its registers (P~ rounded to 16 bits, acc not divided by l)."""
    q, k, v, scale = check_qkv_16bit(q, k, v, scale, dtype)
    Br, Bc, warps = positive_int("Br", Br), positive_int("Bc", Bc), positive_int("warps", warps)
    rows = -(-Br // warps)
    tile_rows = [max(0, min(rows, Br - w * rows)) for w in range(warps)]  # each warp's rows of a whole tile
    bh, n, d = q.shape
    n_kv, s = k.shape[1], 2

    ledger = sixteen_bit_ledger(sram_budget, bh, n, n_kv, d)
    ledger.shared(KERNEL, Qi=Br * d * s, Kj=Bc * d * s, Vj=Bc * d * s, **({"P": Br * Bc * s} if p_in_shared else {}))
    for name in SMEM_TENSORS:
        ledger.smem(name, STORE, 0)

    last = {}
    rounded = rounding(dtype, keep=last)  # P~ as the A operand of the P V mma: 16 bits
    o, lse = sixteen_bit_outputs(q, dtype)
    kv_tiles = tiles(n_kv, Bc)
    smem = dict(heads=bh)
    for i, (r0, r1) in enumerate(tiles(n, Br)):
        at = dict(kernel=KERNEL, block=i, heads=bh)
        visits = visible_tiles(r1, n, n_kv, kv_tiles, causal)
        if not visits:  # the mask hides every key from every row: load nothing
            write_unseen(ledger, o, lse, i, r0, r1, s, at)
            continue
        ledger.read("Q", i, (r1 - r0) * d * s, step=0, **at)  # load Qi: HBM -> SRAM -> registers, once
        ledger.smem("Q", STORE, Br * d * s, **smem)  # the whole tile: rows past N stored as zeros
        ledger.smem("Q", LOAD, Br * d * s, **smem)  # each warp its own rows
        own = [(min(r0 + w * rows, r1), min(r0 + (w + 1) * rows, r1)) for w in range(warps)]  # empty past N
        state = [fresh(bh, b - a, d) for a, b in own]  # each warp's m, l, O in its registers
        step = 0
        for step, j in enumerate(visits, start=1):
            c0, c1 = kv_tiles[j]
            Kj, Vj = k[:, c0:c1], v[:, c0:c1]  # load Kj, Vj: HBM -> SRAM
            ledger.read("K", j, (c1 - c0) * d * s, step=step, **at)
            ledger.read("V", j, (c1 - c0) * d * s, step=step, **at)
            ledger.smem("K", STORE, Bc * d * s, **smem)
            ledger.smem("V", STORE, Bc * d * s, **smem)
            for w, (a, b) in enumerate(own):
                ledger.smem("K", LOAD, Bc * d * s, **smem)  # every warp reads all of Kj ...
                if p_in_shared:  # ... P~ written to SRAM and read back as the A operand ...
                    ledger.smem("P", STORE, tile_rows[w] * Bc * s, **smem)
                    ledger.smem("P", LOAD, tile_rows[w] * Bc * s, **smem)
                ledger.smem("V", LOAD, Bc * d * s, **smem)  # ... and all of Vj
                if b > a:
                    Sij = scores(q[:, a:b], Kj, scale, (a, b), (c0, c1), n, n_kv, causal, ledger.flops)
                    state[w] = absorb(*state[w], Sij, Vj, ledger.flops, rounding=rounded)
                    if observe is not None:
                        observe(i, j, w, S=Sij, P=last["P"], **dict(zip("mlO", state[w], strict=True)))
        write_rows(o, lse, own, state, rounding(dtype), ledger.flops)  # O, L: registers -> HBM
        ledger.write("O", i, (r1 - r0) * d * s, step=step + 1, **at)
        ledger.write("L", i, (r1 - r0) * STAT_BYTES, step=step + 1, **at)
    params = dict(Br=Br, Bc=Bc, warps=warps, causal=causal, dtype=dtype, scale=scale, p_in_shared=p_in_shared)
    return AttentionResult(o, lse, ledger, "fa2-mma", params)
