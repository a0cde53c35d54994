"""FA2 on tensor cores, pipelined (fa2_pipe.cu): fa2_mma.cu's loop at FA2's tile sizes, Br = 128 rows of Q a block
(8 warps of 16 rows), Bc = 64 keys a tile, K and V copied by cp.async into a ring of `stages` buffers (1: no
pipeline; 2, the default: tile j + 1 in flight while tile j computes) in dynamic shared memory, rows XOR-swizzled
(`swizzle` = 1, the default; 0: padded by 8 elements, fa2_mma.cu's layout). It reads Q, K, V and writes O as 16-bit
fp16 or bf16 and L as float32, all four 16-byte aligned (`check_inputs`).

Shared memory, all of it dynamic: Qi, then `stages` pairs Kj, Vj, rows of S = D (swizzled) or D + 8 elements:
2*(Br + 2*stages*Bc)*S bytes; at d = 128 and 2 stages 98,304 bytes, over the 48 KiB a block gets without opting in
(launch.py sets cudaFuncAttributeMaxDynamicSharedMemorySize), within sm_80's 163 KiB.

verify holds O and L to MMA_TOL[dtype] as fa2_mma's (see its module): the arithmetic is the same, in the same order,
only the copies and the layout differ; it is checked with 1 and 2 stages.
"""

from ..descriptor import TENSOR_CORE, WARP, Kernel, Launch, check_aligned, check_tensor_core, fewer, more, qkv_arguments

PIPE_WARPS = 8  # 8 warps a block, 16 rows of Q each: FA2's Br = 128
PIPE_BR = 16 * PIPE_WARPS
PIPE_BC = 64
PIPE_ALIGN = 16  # bytes: its cp.async and ldmatrix move 16 bytes, its stores of O 4
OPTIONS = {"stages": (2, 1), "swizzle": (1, 0)}  # the default first


def row_stride(d, swizzle):
    """Elements from one SRAM row to the next: D when swizzled, D + 8 when padded."""
    return d if swizzle else d + 8


def dynamic_bytes(tiles, d, stages=2, swizzle=1):
    """Bytes of dynamic shared memory a block takes: Qi [Br][S] and `stages` pairs Kj, Vj [Bc][S], 16-bit."""
    br, bc = tiles
    return 2 * (br + 2 * stages * bc) * row_stride(d, swizzle)


def check_pipe(br, bc, d, threads, dtype, stages, swizzle):
    """Raise ValueError unless the kernel can take these: Br = 128, Bc a multiple of 16, d a multiple of 16 (and, to
    swizzle, 16, 32 or a multiple of 64), 256 threads (else ThreadLimitError), dtype "fp16" or "bf16"."""
    fits = br == PIPE_BR and bc % 16 == 0 and bc >= 16 and d % 16 == 0
    fits = fits and not (swizzle and d not in (16, 32) and d % 64)
    takes = f"Br = {PIPE_BR}, Bc a multiple of 16 and d a multiple of 16 (swizzled: 16, 32 or a multiple of 64)"
    check_tensor_core("fa2_pipe", (br, bc), d, fits, takes, threads, (PIPE_WARPS, "warps"), dtype)


def launches(bh, n, d, tiles, threads, n_splits, dtype, smem, stages=2, swizzle=1):
    br, bc = tiles
    dtype = dtype or "fp16"
    check_pipe(br, bc, d, threads, dtype, stages, swizzle)
    name = f"fa2_pipe<{br}, {bc}, {d}, {stages}, {swizzle}, {int(dtype == 'bf16')}>"
    return [Launch(name, (-(-n // br), bh), threads, smem[0], dynamic_bytes(tiles, d, stages, swizzle))]


def check_inputs(given, arrays, host, address):
    """Q, K, V as launched (`arrays`, `address(x)` the address of x's first element) start on a 16-byte boundary, as
    its 16-byte copies need (their rows are D = 16k elements, so every row is then aligned); O is allocated by the
    launchers, aligned."""
    check_aligned("fa2_pipe", arrays, address, PIPE_ALIGN, f"cp.async copies {PIPE_ALIGN} bytes and needs it aligned")


VARIANTS = (  # each dtype with and without the mask, each with both stages; ragged (fewer, more keys) in one each
    {"dtype": "fp16", "causal": False, "stages": 2},
    {"dtype": "bf16", "causal": True, "stages": 2},
    {"dtype": "fp16", "causal": True, "stages": 1},
    {"dtype": "bf16", "causal": False, "stages": 1},
    {"dtype": "fp16", "causal": True, "n_kv": fewer, "stages": 2},
    {"dtype": "bf16", "causal": True, "n_kv": more, "stages": 1},
)

KERNEL = Kernel(
    name="fa2_pipe",
    algorithm="fa2-pipe",
    default_tiles=lambda d: (PIPE_BR, PIPE_BC),
    shared_bytes=lambda tiles, d: [0],  # static: none; dynamic_bytes is the launch's
    dynamic_bytes=dynamic_bytes,
    launches=launches,
    arguments=qkv_arguments,
    shared_formula="2*(Br + 2*stages*Bc)*D (dynamic; D + 8 unswizzled)",
    variants=VARIANTS,
    **TENSOR_CORE,
    threads=WARP * PIPE_WARPS,
    check_inputs=check_inputs,
    options=OPTIONS,
    compiled_options=({"stages": 2}, {"stages": 1}),
)
