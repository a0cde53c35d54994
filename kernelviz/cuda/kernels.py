"""The kernels of this folder as the host sees them: file, tiles, launch shapes, shared memory and outputs.

Both backends, the CPU shim (`cpu.py`) and the GPU (`launch.py`), take their launch plans from here, so a plan
that a GPU would refuse fails the same way on the CPU, before anything runs: tiles beyond the shared memory of a
block, more threads per block than the compiled kernel's registers allow, a grid beyond CUDA's limits.

Shapes: Q, K, V are float32 (BH, N, D), except flash decoding's Q, which is (BH, 1, D): one query row per (batch·head),
and FA1's and FA2's K and V, which are (BH, N_kv, D): N_kv keys (any number, 0 included, with causal masking aligned
bottom-right) for N query rows. Online softmax reads X (BH, N), one row of scores per (batch·head), and V (BH, N, D).
FA2's backward (fa2_bwd) reads Q, K, V, O, dO (BH, N, D) and L (BH, N), and writes D (BH, N), dQ, dK, dV. The inputs and
outputs are named as in the kernels (see `inputs` and `outputs`).

FA2 on tensor cores (fa2_mma) reads Q, K, V and writes O as 16-bit fp16 or bf16 (its `dtype`, kernelviz.cuda.half),
and L as float32; its block is 4 warps (Br = 64) and its tiles (64, Bc) are made of whole 16×16 fragments.

Paged decoding reads Q (B, H_q, D), K_pages and V_pages (pages, PAGE, H_kv, D), block_table (B, max_pages) and
seq_lens (B,), the last two int32 (see `paged_sizes`). Its sizes map onto the others' names: BH is B*H_kv (the decode
blocks of one split, grid.y), N is max_pages, and the tiles (Br, Bc) are (G, PAGE): the G = H_q / H_kv query rows
of a group, and the page, both set by the data, not chosen. Its lengths are at least 1: the launchers refuse a
length of 0 by name (kernelviz.attention.paged_cache says why), as they refuse a page index outside the pool and a
length longer than its row of the table (`check_inputs`).

What a kernel reads beyond its shapes is checked by `check_inputs`, which both launchers call before anything runs:
paged decoding's block table and lengths, and the addresses of fa2_mma's 16-byte loads.
"""

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernelviz.attention.paged_cache import check_table

FOLDER = Path(__file__).parent
KERNELS = ("online_softmax", "fa1", "fa2", "flash_decoding", "fa2_bwd", "paged_decoding", "fa2_mma")
FILES = {k: f"{k}.cu" for k in KERNELS}
ONE_ROW = ("online_softmax", "flash_decoding")  # one row per (batch·head): Br = 1
INDEX_INPUTS = ("block_table", "seq_lens")  # int32 inputs (of paged decoding); every other array is float32
PAGED_TILES = (4, 16)  # (G, PAGE) of the instances compiled in advance: 4 query heads a K/V head, pages of 16
STATIC_SHARED_LIMIT = 48 * 1024  # bytes of static __shared__ per block, on every architecture since sm_20
GPU_THREADS = 128
MMA_WARPS = 4  # fa2_mma: 4 warps a block, 16 rows of Q each (Br = 64), the block's threads fixed at 128
MMA_BR = 16 * MMA_WARPS
MAX_THREADS = 1024  # threads per block, sm_20 on
REGISTERS_PER_BLOCK = 65536  # 32-bit registers a block may use, sm_50 to sm_90
REGISTER_UNIT = 256  # registers are given to a warp in units of 256 (CUDA's occupancy calculator, sm_50 to sm_90)
WARP = 32
ALWAYS_FITS = REGISTERS_PER_BLOCK // 256  # threads: a block this small fits even at 255 registers a thread
GRID_MAX = (2**31 - 1, 65535, 65535)  # blocks in grid.x, grid.y, grid.z


class SharedMemoryError(ValueError):
    """A launch whose tiles need more shared memory per block than the device allows."""


class ThreadLimitError(ValueError):
    """A launch with more threads per block than its kernel can run (its registers, or the 1,024 of CUDA)."""


@dataclass(frozen=True)
class Launch:
    """One kernel launch: its template name (as nvcc or NVRTC instantiates it), grid, block and shared memory."""

    name: str
    grid: tuple
    threads: int
    shared_bytes: int


def default_tiles(kernel, d):
    """(Br, Bc) for head dimension d: the largest that keep a block's shared memory under 48 KiB."""
    if kernel in ONE_ROW:
        return (1, 64 if d <= 64 else 32)
    if kernel == "fa2_bwd":  # K, V, dK, dV of Bc keys and Q, dO of Br rows: twice the forward's tiles
        return (16, 32) if d <= 64 else (8, 16)
    if kernel == "paged_decoding":
        return PAGED_TILES
    if kernel == "fa2_mma":  # d = 128 with Bc = 64 would need 52,224 bytes: over 48 KiB
        return (MMA_BR, 64 if d <= 64 else 32)
    return (32, 32) if d <= 64 else (16, 16)


def shared_bytes(kernel, tiles, d):
    """Bytes of static shared memory one block of each of `kernel`'s launches declares, as in the .cu files."""
    br, bc = tiles
    if kernel in ("fa1", "fa2"):
        return [4 * (2 * br * d + 2 * bc * d + br * bc + 2 * br)]
    if kernel == "flash_decoding":
        return [4 * (2 * d + 2 * bc * d + bc + 3), 4 * (2 + d)]  # fd_split, fd_combine
    if kernel == "online_softmax":
        return [4 * (bc + bc * d + d + 3)]
    if kernel == "fa2_bwd":
        return [0, 4 * (4 * bc * d + 2 * br * d + 2 * br * bc + 2 * br)]  # fa2_bwd_preprocess, fa2_bwd
    if kernel == "fa2_mma":  # Qi, Kj, Vj of 16-bit elements, rows padded by 8 (16 bytes)
        return [2 * (br + 2 * bc) * (d + 8)]
    if kernel == "paged_decoding":  # paged_decode (its last 4 bytes: the page's index), paged_combine
        return [4 * (2 * br * d + 2 * bc * d + br * bc + 3 * br) + 4, 4 * (2 + d)]
    raise ValueError(f"unknown kernel {kernel!r}; the kernels are {', '.join(KERNELS)}")


# the kernel of each algorithm of kernelviz.attention that has one (``attention.run``'s names)
ALGORITHM_KERNELS = {
    "fa1": "fa1",
    "fa2": "fa2",
    "flash-decoding": "flash_decoding",
    "online-softmax-output": "online_softmax",
    "fa2-backward": "fa2_bwd",
    "paged-decoding": "paged_decoding",
    "fa2-mma": "fa2_mma",
}


def shared_memory(algo, sizes):
    """{launch: bytes of __shared__ one block declares} of the launches of `algo`'s kernel (``ALGORITHM_KERNELS``)
    at a run's `sizes` (named as in kernelviz.glossary: {N, N_kv, d, Br, Bc, splits} of attention, {N, d, Bc} of
    online-softmax-output, whose kernel takes tiles (1, Bc); {d, page_size, H_q, H_kv, splits} of paged-decoding,
    whose kernel takes tiles (H_q / H_kv, page_size)), from ``plan`` with no device limit: a page may
    describe tiles too large for one. fa2_mma's from ``shared_bytes`` at any tiles, as its figure draws them (4×4,
    2 rows a warp), though the kernel itself takes Br = 64 and multiples of 16 (``check_mma``). None for an algorithm
    without a kernel. The tests hold these equal to what ptxas reports."""
    kernel = ALGORITHM_KERNELS.get(algo)
    if kernel is None:
        return None
    if kernel == "fa2_mma":
        return {kernel: shared_bytes(kernel, (sizes["Br"], sizes["Bc"]), sizes["d"])[0]}
    if kernel == "online_softmax":
        n, tiles = sizes["N"], (1, sizes["Bc"])
    elif kernel == "paged_decoding":
        n, tiles = 1, (sizes["H_q"] // sizes["H_kv"], sizes["page_size"])
    else:
        n, tiles = sizes.get("N_kv", sizes["N"]), (sizes["Br"], sizes["Bc"])
    launches = plan(kernel, 1, n, sizes["d"], tiles, n_splits=sizes.get("splits", 1), limit=float("inf"))
    return {launch.name.partition("<")[0]: launch.shared_bytes for launch in launches}


def host_formulas(kernel):
    """{name: C expression over a page's figure sizes (N, Bc, splits, ...)} of the kernel arguments the host derives
    from them, under the names the kernel uses: flash decoding's tiles_per_split (see tiles_per_split)."""
    if kernel == "flash_decoding":
        return {"tiles_per_split": "((N + Bc - 1)/Bc + splits - 1)/splits", "n_splits": "splits"}
    if kernel == "paged_decoding":  # the page's figure draws one K/V head, its H_q query heads the group
        return {"PAGE": "page_size", "G": "H_q", "H_kv": "1", "n_splits": "splits"}
    return {}


def check_shared_memory(launch, limit):
    """Raise SharedMemoryError, naming the launch and both numbers, if `launch` needs more than `limit` bytes."""
    if launch.shared_bytes > limit:
        raise SharedMemoryError(
            f"{launch.name} needs {launch.shared_bytes} bytes of shared memory per block and the device allows "
            f"{limit}: choose smaller tiles (shared memory is 4*(2*Br*D + 2*Bc*D + Br*Bc + 2*Br) bytes for FA1/FA2, "
            "4*(4*Bc*D + 2*Br*D + 2*Br*Bc + 2*Br) for FA2's backward, 2*(Br + 2*Bc)*(D + 8) for fa2_mma)"
        )


def register_thread_limit(registers):
    """The most threads a block of a kernel using `registers` per thread can have: each warp takes
    ceil(32 * registers / 256) * 256 of the block's 65,536 registers. E.g. 92 registers: 3,072 a warp, 21 warps,
    672 threads. The driver's own figure is cudaFuncAttributes.maxThreadsPerBlock (what the GPU launcher uses)."""
    per_warp = -(-WARP * registers // REGISTER_UNIT) * REGISTER_UNIT
    return min(MAX_THREADS, REGISTERS_PER_BLOCK // per_warp * WARP)


def check_threads(launch, limit, why):
    """Raise ThreadLimitError, naming the launch, its limit and `why` (where the limit comes from), if it has
    more than `limit` threads per block."""
    if launch.threads > limit:
        raise ThreadLimitError(
            f"{launch.name} can run at most {limit} threads per block ({why}), not {launch.threads}: "
            f"use threads <= {limit}"
        )


def check_compiled_shared(launch, compiled, reserved):
    """Check the static shared memory the driver reports for the loaded kernel (`compiled` bytes) against the host's
    formula: equal, or larger by exactly the `reserved` bytes the device keeps per block for the system (1 KiB on
    sm_80 and later: cudaDevAttrReservedSharedMemoryPerBlock). Raises RuntimeError otherwise: the .cu file and
    shared_bytes no longer agree."""
    if compiled not in (launch.shared_bytes, launch.shared_bytes + reserved):
        raise RuntimeError(
            f"{launch.name}: compiled with {compiled} bytes of static shared memory, the host computed "
            f"{launch.shared_bytes} (+ {reserved} reserved by the system): shared_bytes() and the .cu file disagree"
        )


def check_grid(launch):
    """Raise ValueError if `launch`'s grid has more blocks in a dimension than CUDA allows (grid.y: 65,535, and
    grid.y is batch·heads wherever a grid has two dimensions)."""
    for axis, (blocks, most) in enumerate(zip(launch.grid, GRID_MAX, strict=False)):
        if blocks > most:
            advice = ": batch·heads goes in grid.y, so run the batch in chunks of at most 65,535" if axis == 1 else ""
            raise ValueError(
                f"{launch.name}: {blocks:,} blocks in grid.{'xyz'[axis]}, which holds at most {most:,}{advice}"
            )


def tiles_per_split(n, bc, n_splits):
    """The K/V tiles each split of flash decoding owns: ceil(ceil(n / bc) / n_splits), flash-attn's split-KV
    partition (n_blocks_per_split). Split s owns tiles [s*T, (s+1)*T) of the ceil(n / bc), so the last of its tiles
    may be short, and trailing splits may own none (e.g. 4 tiles in 3 splits: 2, 2, 0)."""
    tiles = -(-n // bc)
    return -(-tiles // n_splits)


def plan(
    kernel,
    bh,
    n,
    d,
    tiles=None,
    threads=GPU_THREADS,
    n_splits=1,
    limit=STATIC_SHARED_LIMIT,
    thread_limits=None,
    dtype=None,
):
    """The launches of `kernel` for these shapes, in order, after checking each against `limit` bytes of shared
    memory per block, CUDA's grid limits and, where `thread_limits` ({name: (most threads, why)}, e.g. from the
    compiled kernels' registers) has the launch, its threads. `dtype` ("fp16", the default, or "bf16"): fa2_mma's
    inputs, the last argument of its template (the other kernels take None). Raises ValueError for a bad shape or a
    grid too large, SharedMemoryError for tiles that do not fit, ThreadLimitError for too many threads."""
    br, bc = tiles or default_tiles(kernel, d)
    if bh < 1 or n < 1 or d < 1:
        raise ValueError(f"shapes must be positive: BH={bh}, N={n}, D={d}")
    if not 1 <= threads <= MAX_THREADS:
        raise ThreadLimitError(f"a block holds 1 to {MAX_THREADS} threads, not {threads}")
    smem = shared_bytes(kernel, (br, bc), d)
    if kernel == "fa2":
        launches = [Launch(f"fa2<{br}, {bc}, {d}>", (math.ceil(n / br), bh), threads, smem[0])]
    elif kernel == "fa2_mma":
        dtype = dtype or "fp16"
        check_mma(br, bc, d, threads, dtype)
        name = f"fa2_mma<{br}, {bc}, {d}, {int(dtype == 'bf16')}>"
        launches = [Launch(name, (math.ceil(n / br), bh), threads, smem[0])]
    elif kernel == "fa1":
        launches = [Launch(f"fa1<{br}, {bc}, {d}>", (bh,), threads, smem[0])]
    elif kernel == "fa2_bwd":
        launches = [
            Launch(f"fa2_bwd_preprocess<{br}, {d}>", (math.ceil(n / br), bh), threads, smem[0]),
            Launch(f"fa2_bwd<{br}, {bc}, {d}>", (math.ceil(n / bc), bh), threads, smem[1]),
        ]
    elif kernel == "paged_decoding":
        if n_splits < 1:
            raise ValueError(f"paged decoding takes n_splits >= 1, not {n_splits}")
        launches = [Launch(f"paged_decode<{br}, {bc}, {d}>", (n_splits, bh), threads, smem[0])]
        if n_splits > 1:  # one split finishes O in paged_decode
            launches.append(Launch(f"paged_combine<{d}>", (bh * br,), threads, smem[1]))
    elif kernel == "online_softmax":
        if br != 1:
            raise ValueError(f"online softmax takes Br = 1 (one row per block), not Br={br}")
        launches = [Launch(f"online_softmax<{bc}, {d}>", (bh,), threads, smem[0])]
    else:
        if br != 1 or n_splits < 1:
            raise ValueError(f"flash decoding takes Br = 1 and n_splits >= 1, not Br={br}, n_splits={n_splits}")
        launches = [
            Launch(f"fd_split<{bc}, {d}>", (n_splits, bh), threads, smem[0]),
            Launch(f"fd_combine<{d}>", (bh,), threads, smem[1]),
        ]
    for launch in launches:
        check_shared_memory(launch, limit)
        check_grid(launch)
        if launch.name in (thread_limits or {}):
            check_threads(launch, *thread_limits[launch.name])
    return launches


def compiled_dtypes(kernel):
    """The dtypes `kernel` is instantiated for (plan's `dtype`): fp16 and bf16 for fa2_mma, (None,) for the others."""
    return ("fp16", "bf16") if kernel == "fa2_mma" else (None,)


def check_mma(br, bc, d, threads, dtype):
    """Raise ValueError unless fa2_mma can take these: Br = 64 (its 4 warps of 16 rows), Bc and d multiples of 16
    (whole m16n8k16 fragments), 128 threads, dtype "fp16" or "bf16"."""
    if br != MMA_BR or bc % 16 or bc < 16 or d % 16:
        raise ValueError(f"fa2_mma takes Br = {MMA_BR} and Bc, d multiples of 16, not Br={br}, Bc={bc}, d={d}")
    if threads != WARP * MMA_WARPS:
        raise ThreadLimitError(f"fa2_mma runs {MMA_WARPS} warps, {WARP * MMA_WARPS} threads a block, not {threads}")
    if dtype not in ("fp16", "bf16"):
        raise ValueError(f"fa2_mma takes dtype 'fp16' or 'bf16', not {dtype!r}")


def inputs(kernel, bh, n, d, n_kv=None):
    """{name: shape} of what `kernel` reads, in the order the kernels' arguments list them; `n_kv` (default n):
    FA1's and FA2's keys."""
    if kernel == "online_softmax":
        return {"X": (bh, n), "V": (bh, n, d)}
    if kernel == "paged_decoding":  # only the names: the shapes are the data's (paged_sizes)
        return dict.fromkeys(("Q", "K_pages", "V_pages", *INDEX_INPUTS))
    if kernel == "fa2_bwd":
        return {name: (bh, n, d) for name in ("Q", "K", "V", "O", "dO")} | {"L": (bh, n)}
    if kernel == "flash_decoding":
        return {"Q": (bh, 1, d), "K": (bh, n, d), "V": (bh, n, d)}
    n_kv = n if n_kv is None else n_kv
    return {"Q": (bh, n, d), "K": (bh, n_kv, d), "V": (bh, n_kv, d)}


def sizes(kernel, arrays):
    """(BH, N, D, N_kv) of `kernel`'s inputs `arrays` (anything with .shape, in the order of `inputs`; V is
    (BH, N_kv, D)): N is the kernel's argument N (FA1, FA2: Q's rows; flash decoding, online softmax: the keys) and
    N_kv = N but for FA1 and FA2. Raises ValueError naming the input whose shape is wrong."""
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; the kernels are {', '.join(KERNELS)}")
    if kernel == "paged_decoding":
        found = paged_sizes(arrays)
        return found["B"] * found["H_kv"], found["max_pages"], found["D"], found["max_pages"]
    names = list(inputs(kernel, 1, 1, 1))
    if len(arrays) != len(names) or len(arrays[names.index("V")].shape) != 3:
        shapes = [tuple(x.shape) for x in arrays]
        raise ValueError(f"{kernel} takes {', '.join(names)} (V of shape (BH, N, D)), got arrays of shapes {shapes}")
    bh, n_kv, d = arrays[names.index("V")].shape
    n = arrays[0].shape[1] if kernel in ("fa1", "fa2", "fa2_mma") and len(arrays[0].shape) == 3 else n_kv
    for (name, shape), x in zip(inputs(kernel, bh, n, d, n_kv).items(), arrays, strict=True):
        if tuple(x.shape) != shape:
            raise ValueError(f"{kernel}: {name} has shape {tuple(x.shape)}, expected {shape}")
    return bh, n, d, n_kv


def paged_sizes(arrays):
    """{B, H_q, H_kv, G, PAGE, D, pages, max_pages} of paged decoding's inputs `arrays` (Q, K_pages, V_pages,
    block_table, seq_lens). Raises ValueError naming the input whose shape does not fit the others."""
    names = list(inputs("paged_decoding", 1, 1, 1))
    if len(arrays) != len(names) or [len(x.shape) for x in arrays] != [3, 4, 4, 2, 1]:
        shapes = [tuple(x.shape) for x in arrays]
        raise ValueError(f"paged_decoding takes {', '.join(names)}, got arrays of shapes {shapes}")
    q, k, v, table, lens = (tuple(x.shape) for x in arrays)
    (B, H_q, D), (pages, page, H_kv, _) = q, k
    if k[3] != D or v != k:
        raise ValueError(f"paged_decoding: K_pages {k} and V_pages {v} must be equal, (pages, PAGE, H_kv, {D})")
    if H_q % H_kv:
        raise ValueError(f"paged_decoding: Q's {H_q} heads are not a multiple of K_pages' {H_kv}")
    if table[0] != B or lens != (B,):
        raise ValueError(f"paged_decoding: block_table {table} and seq_lens {lens} must have Q's {B} sequences")
    return dict(B=B, H_q=H_q, H_kv=H_kv, G=H_q // H_kv, PAGE=page, D=D, pages=pages, max_pages=table[1])


def data_tiles(kernel, arrays):
    """(Br, Bc) that `kernel`'s inputs fix, or None where the tiles are free: paged decoding's (G, PAGE)."""
    if kernel != "paged_decoding":
        return None
    found = paged_sizes(arrays)
    return found["G"], found["PAGE"]


def check_inputs(kernel, given, arrays, host, address):
    """Check what `kernel` would read that its shapes do not say, before anything is launched; cpu.run and
    launch.prepare both call this after `sizes`. Paged decoding: its block table and lengths, as the caller gave them
    (`given`, read into NumPy by `host`, before the cast to int32 could wrap them), by paged_cache.check_table: each
    length at least 1, within its row of the table, each entry it reads a page of the pool. fa2_mma: that Q, K and
    V, as launched (`arrays`, `address(x)` the address of x's first element), start on a 16-byte boundary, as its
    16-byte loads need (their rows are D = 16k elements, so every row is then aligned). Raises ValueError naming the
    input, and the entry or the address."""
    if kernel == "paged_decoding":
        found = paged_sizes(arrays)
        check_table(host(given[3]), host(given[4]), found["pages"], found["PAGE"])
    if kernel == "fa2_mma":
        for name, x in zip(inputs(kernel, 1, 1, 1), arrays, strict=True):
            at = address(x)
            if at % LOAD_BYTES:
                raise ValueError(
                    f"fa2_mma: {name} starts at address {at:#x}, {at % LOAD_BYTES} bytes past a {LOAD_BYTES}-byte "
                    f"boundary; its {LOAD_BYTES}-byte loads need it aligned (a view at an offset into a larger "
                    f"tensor? pass a copy)"
                )


LOAD_BYTES = 16  # fa2_mma's widest load (copy16: a uint4, 8 elements of 16 bits)
SIXTEEN_BIT = {"fa2_mma": ("Q", "K", "V", "O")}  # arrays of fp16 or bf16 bits (C: unsigned short)


def element_type(kernel, name):
    """The C type of the elements of `kernel`'s array argument `name`: "unsigned short" (fp16/bf16 bits),
    "int" (block tables and lengths) or "float"."""
    if name in SIXTEEN_BIT.get(kernel, ()):
        return "unsigned short"
    return "int" if name in INDEX_INPUTS else "float"


def dtypes(kernel, arrays):
    """The dtype each of `kernel`'s inputs is passed in: int32 for block tables and lengths, float32 for the rest."""
    names = list(inputs(kernel, 1, 1, 1))
    return [np.int32 if i < len(names) and names[i] in INDEX_INPUTS else np.float32 for i in range(len(arrays))]


def tiles_for(kernel, arrays, d, tiles=None):
    """The tiles (Br, Bc) to run `kernel` with on `arrays`: `tiles`, or the default for its D; where the data fixes
    them (data_tiles) those, and a ValueError if `tiles` asks for others."""
    fixed = data_tiles(kernel, arrays)
    if fixed is not None and tiles is not None and tuple(tiles) != fixed:
        raise ValueError(f"{kernel}: the inputs fix the tiles (G, PAGE) at {fixed}, not {tuple(tiles)}")
    if fixed is not None:
        return fixed
    return tuple(tiles or default_tiles(kernel, d))


def extra_sizes(kernel, arrays):
    """What the CPU harness needs of `kernel`'s inputs beyond (BH, N, D) and the tiles: paged decoding's B and the
    pool's pages; [] for the others."""
    if kernel != "paged_decoding":
        return []
    found = paged_sizes(arrays)
    return [found["B"], found["pages"]]


def outputs(kernel, bh, n, d, n_splits=1, tiles=None):
    """{name: shape} of what `kernel` writes, in the order the kernels' arguments list them. Paged decoding's rows are
    the batch's query heads, bh * G = B * H_q (its O is (B, H_q, D) read as (B*H_q, D)); with one split it writes
    no partials (their shapes have 0 splits)."""
    if kernel == "online_softmax":
        return {"O": (bh, d), "m_out": (bh,), "l_out": (bh,)}
    if kernel in ("fa2", "fa2_mma"):  # fa2_mma's O: 16-bit, as its inputs
        return {"O": (bh, n, d), "L": (bh, n)}
    if kernel == "fa1":
        return {"O": (bh, n, d), "l": (bh, n), "m": (bh, n)}
    if kernel == "fa2_bwd":
        return {"D": (bh, n), "dQ": (bh, n, d), "dK": (bh, n, d), "dV": (bh, n, d)}
    if kernel == "paged_decoding":
        rows, parts = bh * (tiles or PAGED_TILES)[0], n_splits if n_splits > 1 else 0
        return {"O_partial": (rows, parts, d), "m_partial": (rows, parts), "l_partial": (rows, parts), "O": (rows, d)}
    return {
        "O_partial": (bh, n_splits, d),
        "m_partial": (bh, n_splits),
        "l_partial": (bh, n_splits),
        "O": (bh, 1, d),
    }


def arguments(kernel, n, scale, causal=False, n_splits=1, n_kv=None, kv_heads=1, bc=None):
    """Each launch's arguments, in the order of its __global__ signature: arrays by name (the names of `inputs`
    and `outputs`) and scalars as np.int32 (C int) or np.float32 (C float); `n_kv` (default n): FA1's and FA2's
    keys; `bc`: flash decoding's K/V tile (the splits own whole tiles; required for it). The GPU launcher fills the
    names in with device arrays; the tests check the kinds against the compiled kernels' signatures. Paged
    decoding: n is max_pages, `kv_heads` H_kv."""
    n32, scale32 = np.int32(n), np.float32(scale)
    n_kv32 = np.int32(n if n_kv is None else n_kv)
    if kernel in ("fa2", "fa2_mma"):
        return [("Q", "K", "V", "O", "L", n32, n_kv32, scale32, np.int32(bool(causal)))]
    if kernel == "fa1":
        return [("Q", "K", "V", "O", "l", "m", n32, n_kv32, scale32, np.int32(bool(causal)))]
    if kernel == "online_softmax":
        return [("X", "V", "O", "m_out", "l_out", n32)]
    if kernel == "fa2_bwd":  # N_kv = N: the host runs it on square attention, as the forward kernels
        return [
            ("O", "dO", "D", "dQ", n32),
            ("Q", "K", "V", "dO", "L", "D", "dQ", "dK", "dV", n32, n32, scale32, np.int32(bool(causal))),
        ]
    if kernel == "flash_decoding":
        partial = ("O_partial", "m_partial", "l_partial")
        if bc is None:
            raise ValueError("flash decoding's arguments need bc, the K/V tile its splits are made of")
        splits = np.int32(n_splits)
        return [
            ("Q", "K", "V", *partial, n32, scale32, splits, np.int32(tiles_per_split(n, bc, n_splits))),
            (*partial, "O", splits),
        ]
    if kernel == "paged_decoding":
        partial, splits = ("O_partial", "m_partial", "l_partial"), np.int32(n_splits)
        decode = ("Q", "K_pages", "V_pages", *INDEX_INPUTS, *partial, "O", np.int32(kv_heads), n32, scale32, splits)
        return [decode, (*partial, "O", splits)] if n_splits > 1 else [decode]
    raise ValueError(f"unknown kernel {kernel!r}; the kernels are {', '.join(KERNELS)}")
