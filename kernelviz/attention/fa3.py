"""FlashAttention 3, as kernelviz/cuda/fa3.cu runs it on Hopper: FA2's loops for a block of Br rows, split between
`warpgroups` consumer warpgroups (the kernel: 2 of 64 rows, Br = 128), fed by a producer that copies with the TMA,
16-bit operands and float32 accumulators. For each block i:

    TMA: Qi HBM -> SRAM, once (the whole box; rows past N arrive as zeros)
    for each K/V tile j (with causal masking, only tiles not entirely above the diagonal, as FA2):
        TMA: Kj, Vj HBM -> SRAM, into a stage of the ring
        each warpgroup: S = scale * Q_w Kj^T by wgmma, both operands read from SRAM (its rows of Qi, all of Kj);
                        online softmax on its rows (float32); P~ rounded to 16 bits, wgmma's A operand in registers;
                        O_w = alpha O_w + P~ Vj by wgmma, Vj read from SRAM (float32 accumulation)
    each warpgroup writes O = O_w / l (16 bits) registers -> SRAM, and the TMA stores it SRAM -> HBM; L = m + log l
    (float32) registers -> HBM

HBM traffic is FA2's exactly, in 16 bits (``fa2_mma``'s): Q, O and L once, K and V once per visited tile. A block
whose rows all see no key (causal, N > N_kv) loads nothing and writes O = 0 and L = -inf, its zeros through SRAM as
every block's O goes.

Shared memory (``Ledger.smem``, at full tile size as the kernel moves it): the TMA stores Qi once a block (Br d s)
and Kj, Vj once a visited tile (Bc d s each); wgmma reads, on every visited tile, each warpgroup's rows of Qi (Br d s
in all) and all of Kj and Vj once per warpgroup (warpgroups Bc d s each): there is no ldmatrix, and P never leaves
registers (0); the epilogue stores O and the TMA store reads it (Br d s each way, every block). Closed form:
``topics/fa3.py``'s ``shared``. The numerics are fa2_mma's (P~ and O rounded to 16 bits; dtype "float16" or
"bfloat16", emulated as there).
"""

from ._inputs import (
    STAT_BYTES,
    AttentionResult,
    absorb,
    check_qkv_16bit,
    positive_int,
    scores,
    tiles,
    visible_tiles,
    write_unseen,
)
from .fa2_mma import fresh, rounding, sixteen_bit_ledger, sixteen_bit_outputs, write_rows
from .ledger import LOAD, STORE

KERNEL = "fa3"
SMEM_TENSORS = ("Q", "K", "V", "P", "O")  # P stays in registers: registered with 0
STAGES = 2  # the ring of K/V tiles (FA3_STAGES in fa3.cu): what shared memory holds, not what moves


def flash_attention_3(
    q,
    k,
    v,
    *,
    Br=128,
    Bc=128,
    warpgroups=2,
    causal=False,
    dtype="float16",
    scale=None,
    sram_budget=None,
    observe=None,
):
    """Run FA3 on q (BH, N, d), k and v (BH, N_kv, d); see the module docstring. Shared memory held: Qi and a ring
    of STAGES tiles of K and of V, as fa3.cu's. Returns an AttentionResult with o, lse and the ledger (HBM transfers,
    and shared-memory traffic). Raises ValueError naming the argument on bad input (dtype float32: wgmma takes
    16-bit operands), SramBudgetError if a block does not fit. `observe` (the figure's answers,
    attention.figure_values): called as observe(i, j, w, S=Sij, P=P~, m=m, l=l, O=acc) after warpgroup w of block i
    folds tile j into its registers (P~ rounded to 16 bits, acc not divided by l)."""
    q, k, v, scale = check_qkv_16bit(q, k, v, scale, dtype)
    Br, Bc = positive_int("Br", Br), positive_int("Bc", Bc)
    warpgroups = positive_int("warpgroups", warpgroups)
    rows = -(-Br // warpgroups)
    bh, n, d = q.shape
    n_kv, s = k.shape[1], 2

    ledger = sixteen_bit_ledger(sram_budget, bh, n, n_kv, d)
    ledger.shared(KERNEL, Qi=Br * d * s, Kj=STAGES * Bc * d * s, Vj=STAGES * Bc * d * s)  # O reuses Qi's
    for name in SMEM_TENSORS:
        ledger.smem(name, STORE, 0)

    last = {}
    rounded = rounding(dtype, keep=last)  # P~ as wgmma's A operand from registers: 16 bits
    o, lse = sixteen_bit_outputs(q, dtype)
    kv_tiles = tiles(n_kv, Bc)
    smem = dict(heads=bh)
    for i, (r0, r1) in enumerate(tiles(n, Br)):
        at = dict(kernel=KERNEL, block=i, heads=bh)
        visits = visible_tiles(r1, n, n_kv, kv_tiles, causal)
        own = [(min(r0 + w * rows, r1), min(r0 + (w + 1) * rows, r1)) for w in range(warpgroups)]  # empty past N
        state = [fresh(bh, b - a, d) for a, b in own]  # each warpgroup's m, l, O in registers
        if visits:
            ledger.read("Q", i, (r1 - r0) * d * s, step=0, **at)  # TMA: HBM -> SRAM, once
            ledger.smem("Q", STORE, Br * d * s, **smem)
        step = 0
        for step, j in enumerate(visits, start=1):
            c0, c1 = kv_tiles[j]
            Kj, Vj = k[:, c0:c1], v[:, c0:c1]  # TMA: HBM -> SRAM, a stage of the ring
            ledger.read("K", j, (c1 - c0) * d * s, step=step, **at)
            ledger.read("V", j, (c1 - c0) * d * s, step=step, **at)
            ledger.smem("K", STORE, Bc * d * s, **smem)
            ledger.smem("V", STORE, Bc * d * s, **smem)
            ledger.smem("Q", LOAD, Br * d * s, **smem)  # each warpgroup's rows of Qi: wgmma's A, from SRAM
            for w, (a, b) in enumerate(own):
                ledger.smem("K", LOAD, Bc * d * s, **smem)  # every warpgroup's wgmma reads all of Kj ...
                ledger.smem("V", LOAD, Bc * d * s, **smem)  # ... and all of Vj
                if b > a:
                    Sij = scores(q[:, a:b], Kj, scale, (a, b), (c0, c1), n, n_kv, causal, ledger.flops)
                    state[w] = absorb(*state[w], Sij, Vj, ledger.flops, rounding=rounded)
                    if observe is not None:
                        observe(i, j, w, S=Sij, P=last["P"], **dict(zip("mlO", state[w], strict=True)))
        ledger.smem("O", STORE, Br * d * s, **smem)  # the epilogue: registers -> SRAM, and the TMA store reads it
        ledger.smem("O", LOAD, Br * d * s, **smem)
        if not visits:  # the mask hides every key from every row: O = 0, L = -inf, nothing loaded
            write_unseen(ledger, o, lse, i, r0, r1, s, at)
            continue
        write_rows(o, lse, own, state, rounding(dtype), ledger.flops)  # O, L -> HBM
        ledger.write("O", i, (r1 - r0) * d * s, step=step + 1, **at)
        ledger.write("L", i, (r1 - r0) * STAT_BYTES, step=step + 1, **at)
    params = dict(Br=Br, Bc=Bc, warpgroups=warpgroups, causal=causal, dtype=dtype, scale=scale)
    return AttentionResult(o, lse, ledger, "fa3", params)
