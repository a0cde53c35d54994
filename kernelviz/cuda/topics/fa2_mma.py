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

import numpy as np

from .. import half
from ..descriptor import (
    MMA_TOL,
    WARP,
    Kernel,
    Launch,
    ThreadLimitError,
    attention_error,
    attention_inputs,
    fewer,
    more,
    qkv,
)

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
    if br != MMA_BR or bc % 16 or bc < 16 or d % 16:
        raise ValueError(f"fa2_mma takes Br = {MMA_BR} and Bc, d multiples of 16, not Br={br}, Bc={bc}, d={d}")
    if threads != WARP * MMA_WARPS:
        raise ThreadLimitError(f"fa2_mma runs {MMA_WARPS} warps, {WARP * MMA_WARPS} threads a block, not {threads}")
    if dtype not in half.DTYPES:
        raise ValueError(f"fa2_mma takes dtype 'fp16' or 'bf16', not {dtype!r}")


def launches(bh, n, d, tiles, threads, n_splits, dtype, smem):
    br, bc = tiles
    dtype = dtype or "fp16"
    check_mma(br, bc, d, threads, dtype)
    name = f"fa2_mma<{br}, {bc}, {d}, {int(dtype == 'bf16')}>"
    return [Launch(name, (-(-n // br), bh), threads, smem[0])]


def arguments(n, scale, causal, n_splits, n_kv, kv_heads, bc):
    n_kv = n if n_kv is None else n_kv
    return [("Q", "K", "V", "O", "L", np.int32(n), np.int32(n_kv), np.float32(scale), np.int32(bool(causal)))]


def verify_inputs(bh, n, d, decode, seed, causal, n_kv, dtype):
    return tuple(half.round(x, dtype or "fp16") for x in qkv(bh, n, d, decode, seed, n_kv))


def check_inputs(given, arrays, host, address):
    """Q, K and V, as launched (`arrays`, `address(x)` the address of x's first element), start on a 16-byte
    boundary, as its 16-byte loads need (their rows are D = 16k elements, so every row is then aligned)."""
    for name, x in zip(("Q", "K", "V"), arrays, strict=True):
        at = address(x)
        if at % LOAD_BYTES:
            raise ValueError(
                f"fa2_mma: {name} starts at address {at:#x}, {at % LOAD_BYTES} bytes past a {LOAD_BYTES}-byte "
                f"boundary; its {LOAD_BYTES}-byte loads need it aligned (a view at an offset into a larger "
                f"tensor? pass a copy)"
            )


PLAIN = tuple(  # in both dtypes, and ragged (fewer, more keys) in one each
    {"dtype": t, "causal": c} for t in half.DTYPES for c in (False, True)
)

KERNEL = Kernel(
    name="fa2_mma",
    algorithm="fa2-mma",
    default_tiles=default_tiles,
    shared_bytes=shared_bytes,
    launches=launches,
    inputs=lambda bh, n, d, n_kv: attention_inputs(bh, n, d, n_kv),
    outputs=lambda bh, n, d, n_splits, tiles: {"O": (bh, n, d), "L": (bh, n)},  # O: 16-bit, as its inputs
    arguments=arguments,
    shared_formula="2*(Br + 2*Bc)*(D + 8)",
    error=lambda out, arrays, causal: attention_error(out, arrays, causal, lambda out: out["L"]),
    verify_inputs=verify_inputs,
    variants=(
        *PLAIN,
        {"dtype": "fp16", "causal": True, "n_kv": fewer},
        {"dtype": "bf16", "causal": True, "n_kv": more},
    ),
    tolerance=lambda dtype: MMA_TOL[dtype or "fp16"],
    n_from_q=True,
    dtypes=half.DTYPES,
    sixteen_bit=("Q", "K", "V", "O"),
    threads=WARP * MMA_WARPS,
    check_inputs=check_inputs,
    figure=None,  # shared_bytes at any tiles, as its figure draws them (4×4, 2 rows a warp)
)
