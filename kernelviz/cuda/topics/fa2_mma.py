"""FA2 on tensor cores (fa2_mma.cu): FA2's loop with S = Q K^T and O += P~ V as m16n8k16 mma.sync. It reads Q, K,
V and writes O as 16-bit fp16 or bf16 (its `dtype`, kernelviz.cuda.half), and L as float32; its block is 4 warps
(Br = 64) and its tiles (64, Bc) are made of whole 16×16 fragments. Its 16-byte loads need Q, K and V aligned
(`check_inputs`).

verify rounds Q, K, V to the dtype (the reference reads the same rounded values) and holds O and L to
MMA_TOL[dtype] = 4u, u the format's unit roundoff (2^-11 for fp16, 2^-8 for bf16): its O is rounded to 16 bits once
on the way out (at most u of |o|), and P~ is rounded to 16 bits before it multiplies V (each weight off by at most u,
which moves o by at most u·max|v| and, the errors being independent, far less in practice); its scores, m, l and
accumulators are fp32. Measured on the shim (verify's 48 checks): O within 0.72u for fp16 and 0.93u for bf16, L
within 1e-7.
"""

from .. import half
from ..descriptor import TENSOR_CORE, WARP, Kernel, Launch, check_aligned, check_tensor_core, fewer, more, qkv_arguments

MMA_WARPS = 4  # 4 warps a block, 16 rows of Q each (Br = 64), the block's threads fixed at 128
MMA_BR = 16 * MMA_WARPS
LOAD_BYTES = 16  # its widest load (copy16: a uint4, 8 elements of 16 bits)


def default_tiles(d):  # d = 128 with Bc = 64 would need 52,224 bytes: over 48 KiB
    return (MMA_BR, 64 if d <= 64 else 32)


def shared_bytes(tiles, d):  # Qi, Kj, Vj of 16-bit elements, rows padded by 8 (16 bytes)
    br, bc = tiles
    return [2 * (br + 2 * bc) * (d + 8)]


def check_mma(br, bc, d, threads, dtype):
    """Raise ValueError unless the kernel can take these: Br = 64 (its 4 warps of 16 rows), Bc and d multiples of 16
    (whole m16n8k16 fragments), 128 threads (else ThreadLimitError), dtype "fp16" or "bf16"."""
    fits = br == MMA_BR and bc % 16 == 0 and bc >= 16 and d % 16 == 0
    takes = f"Br = {MMA_BR} and Bc, d multiples of 16"
    check_tensor_core("fa2_mma", (br, bc), d, fits, takes, threads, (MMA_WARPS, "warps"), dtype)


def launches(bh, n, d, tiles, threads, n_splits, dtype, smem):
    br, bc = tiles
    dtype = dtype or "fp16"
    check_mma(br, bc, d, threads, dtype)
    name = f"fa2_mma<{br}, {bc}, {d}, {int(dtype == 'bf16')}>"
    return [Launch(name, (-(-n // br), bh), threads, smem[0])]


def check_inputs(given, arrays, host, address):
    """Q, K and V, as launched (`arrays`, `address(x)` the address of x's first element), start on a 16-byte
    boundary, as its 16-byte loads need (their rows are D = 16k elements, so every row is then aligned)."""
    check_aligned("fa2_mma", arrays, address, LOAD_BYTES, f"its {LOAD_BYTES}-byte loads need it aligned")


PLAIN = tuple(  # in both dtypes, and ragged (fewer, more keys) in one each
    {"dtype": t, "causal": c} for t in half.DTYPES for c in (False, True)
)

KERNEL = Kernel(
    name="fa2_mma",
    algorithm="fa2-mma",
    default_tiles=default_tiles,
    shared_bytes=shared_bytes,
    launches=launches,
    arguments=qkv_arguments,
    shared_formula="2*(Br + 2*Bc)*(D + 8)",
    variants=(
        *PLAIN,
        {"dtype": "fp16", "causal": True, "n_kv": fewer},
        {"dtype": "bf16", "causal": True, "n_kv": more},
    ),
    **TENSOR_CORE,
    threads=WARP * MMA_WARPS,
    check_inputs=check_inputs,
    figure=None,  # shared_bytes at any tiles, as its figure draws them (4×4, 2 rows a warp)
)
