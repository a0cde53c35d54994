"""FlashAttention 3 for Hopper (fa3.cu, sm_90a only): FA2's loop on wgmma, fed by the TMA through a ring of stages,
with a producer warpgroup and two consumer warpgroups (384 threads; Br = 128, 64 rows a consumer). It reads Q, K, V
and writes O as 16-bit fp16 or bf16 (its `dtype`, kernelviz.cuda.half), L as float32, at d = 64 or 128 and tiles
(128, Bc) with Bc = 64 or 128 (the wgmma widths the kernel is written for); its shared memory is dynamic: Q, the
ring of FA3_STAGES = 2 stages of K_j and V_j, the mbarriers, and 1 KiB to align the tiles to the 128-byte swizzle's
atom. Its first four arguments are tensor maps (descriptor.TensorMap) of Q, K, V and O, 3-D (D, rows, BH) in boxes
of 64 columns; the TMA needs each array's start on a 16-byte boundary (`check_inputs`) and at least one key.

verify rounds Q, K, V to the dtype and holds O and L to MMA_TOL[dtype] = 4u, as fa2_mma (the same two roundings to
16 bits: P before it multiplies V, O on the way out; scores, m, l and accumulators fp32). Measured on an H200 (50
shapes, fp16 and bf16, d 64 and 128, causal or not, ragged N and N_kv): O within 0.97u, L within 3.4e-7; and the
GPU tests (tests/cuda/test_cuda_fa3_gpu.py) pass there. ptxas gives the launch 168 registers a thread (384 x 168 of
the SM's 65,536); setmaxnreg then leaves the producer 24 and raises the consumers to 240 (128 x 24 + 256 x 240 =
64,512).
"""

import numpy as np

from .. import half
from ..descriptor import TENSOR_CORE, WARP, Kernel, Launch, TensorMap, check_aligned, check_tensor_core, fewer, more

BR = 128  # rows of Q a block: two consumer warpgroups of 64
STAGES = 2  # the ring of K_j, V_j (FA3_STAGES in fa3.cu)
WARPGROUPS = 3  # a producer and two consumers
THREADS = WARPGROUPS * 4 * WARP
BOX = 64  # columns of a TMA box: 128 bytes of 16-bit elements, the swizzle's row
TMA_ALIGN = 16  # bytes: a tensor map's global address (cuTensorMapEncodeTiled)
HEAD_DIMS = (64, 128)
BCS = (64, 128)  # the wgmma widths (n of m64nNk16) fa3.cu instantiates


def default_tiles(d):  # (128, 128): at d = 128, 164,904 bytes of dynamic shared memory, under 163 KiB (166,912)
    return (BR, 128)


def dynamic_bytes(tiles, d):
    """Bytes of dynamic shared memory a block takes: 1 KiB of alignment slack + Q (Br x d) + STAGES x (K_j, V_j)
    (Bc x d each), 16-bit, + 1 + 2 STAGES mbarriers of 8 bytes (fa3_shared_bytes in fa3.cu)."""
    br, bc = tiles
    return 1024 + 2 * br * d + 2 * STAGES * 2 * bc * d + 8 * (1 + 2 * STAGES)


def check_fa3(br, bc, d, threads, dtype):
    """Raise ValueError unless the kernel can take these: Br = 128, Bc 64 or 128, d 64 or 128, 384 threads (else
    ThreadLimitError), dtype "fp16" or "bf16"."""
    fits = br == BR and bc in BCS and d in HEAD_DIMS
    takes = f"Br = {BR}, Bc in {BCS} and d in {HEAD_DIMS}"
    check_tensor_core("fa3", (br, bc), d, fits, takes, threads, (WARPGROUPS, "warpgroups"), dtype)


def launches(bh, n, d, tiles, threads, n_splits, dtype, smem):
    br, bc = tiles
    dtype = dtype or "fp16"
    check_fa3(br, bc, d, threads, dtype)
    name = f"fa3<{br}, {bc}, {d}, {int(dtype == 'bf16')}>"
    return [Launch(name, (-(-n // br), bh), threads, smem[0], dynamic_bytes(tiles, d))]


def arguments(n, scale, causal, n_splits, n_kv, kv_heads, bc):
    """The tensor maps of Q and O in boxes of 64 rows (a consumer's), of K and V in boxes of Bc rows (a tile), then
    L and the scalars."""
    n_kv = n if n_kv is None else n_kv
    maps = (TensorMap("Q", (BOX, 64, 1)), TensorMap("K", (BOX, bc, 1)), TensorMap("V", (BOX, bc, 1)))
    return [
        (
            *maps,
            TensorMap("O", (BOX, 64, 1)),
            "L",
            np.int32(n),
            np.int32(n_kv),
            np.float32(scale),
            np.int32(bool(causal)),
        )
    ]


def check_inputs(given, arrays, host, address):
    """Q, K and V, as launched (`arrays`, `address(x)` the address of x's first element), start on a 16-byte boundary,
    as a tensor map's global address must, and there is at least one key (a tensor map has no empty dimension)."""
    check_aligned("fa3", arrays, address, TMA_ALIGN, "a TMA tensor map needs it aligned")
    if arrays[1].shape[1] == 0:
        raise ValueError("fa3: K and V have no keys (N_kv = 0); a TMA tensor map has no empty dimension")


KERNEL = Kernel(
    name="fa3",
    algorithm="fa3",
    default_tiles=default_tiles,
    shared_bytes=lambda tiles, d: [0],  # static: none; dynamic_bytes is the launch's
    dynamic_bytes=dynamic_bytes,
    launches=launches,
    arguments=arguments,
    shared_formula="1024 + 2*Br*D + 8*Bc*D + 40 (dynamic)",
    variants=(
        *({"dtype": t, "causal": c} for t in half.DTYPES for c in (False, True)),
        {"dtype": "fp16", "causal": True, "n_kv": fewer},
        {"dtype": "bf16", "causal": True, "n_kv": more},
    ),
    **TENSOR_CORE,
    threads=THREADS,
    check_inputs=check_inputs,
    archs=("sm_90a",),
    head_dims=HEAD_DIMS,
)
