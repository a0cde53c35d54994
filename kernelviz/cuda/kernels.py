"""The kernels of this folder as the host sees them: file, tiles, launch shapes, shared memory and outputs.

Each kernel is one record (descriptor.Kernel) in its own module of ``topics/``, which says what is its alone: its
file, default tiles, shared memory, launches, inputs, outputs, arguments, dtypes and verify's checks (each module's
docstring says its shapes). This module keeps the registry (``topics.TOPICS``, by name in ``REGISTRY``) and what is
the same for every kernel: the functions below answer for any kernel by asking its record, and make the checks that
hold for all of them.

Both backends, the CPU shim (`cpu.py`) and the GPU (`launch.py`), take their launch plans from here, so a plan
that a GPU would refuse fails the same way on the CPU, before anything runs: tiles beyond the shared memory of a
block, more threads per block than the compiled kernel's registers allow, a grid beyond CUDA's limits. What a kernel
reads beyond its shapes is checked by `check_inputs`, which both launchers call before anything runs.
"""

from pathlib import Path

import numpy as np

from .descriptor import GPU_THREADS, WARP, Launch, SharedMemoryError, ThreadLimitError
from .topics import LOAD_BYTES, MMA_BR, MMA_WARPS, PAGED_TILES, TOPICS, check_mma, paged_sizes, tiles_per_split

__all__ = [  # what the rest of kernelviz and the tests read here, the records' own helpers among them
    "GPU_THREADS",
    "LOAD_BYTES",
    "MMA_BR",
    "MMA_WARPS",
    "PAGED_TILES",
    "WARP",
    "Launch",
    "SharedMemoryError",
    "ThreadLimitError",
    "check_mma",
    "paged_sizes",
    "tiles_per_split",
]

FOLDER = Path(__file__).parent
REGISTRY = {k.name: k for k in TOPICS}
KERNELS = tuple(REGISTRY)
FILES = {k.name: k.file for k in TOPICS}
STATIC_SHARED_LIMIT = 48 * 1024  # bytes of static __shared__ per block, on every architecture since sm_20
# bytes of dynamic shared memory a block may opt in to (cudaFuncAttributeMaxDynamicSharedMemorySize) on sm_80, the
# smaller of compile.ARCHS (sm_90: 227 KiB): the CUDA C++ Programming Guide's table of compute capabilities
DYNAMIC_SHARED_LIMIT = 163 * 1024
MAX_THREADS = 1024  # threads per block, sm_20 on
REGISTERS_PER_BLOCK = 65536  # 32-bit registers a block may use, sm_50 to sm_90
REGISTER_UNIT = 256  # registers are given to a warp in units of 256 (CUDA's occupancy calculator, sm_50 to sm_90)
ALWAYS_FITS = REGISTERS_PER_BLOCK // 256  # threads: a block this small fits even at 255 registers a thread
GRID_MAX = (2**31 - 1, 65535, 65535)  # blocks in grid.x, grid.y, grid.z

# the kernel of each algorithm of kernelviz.attention that has one (``attention.run``'s names)
ALGORITHM_KERNELS = {k.algorithm: k.name for k in TOPICS if k.algorithm}


def headers():
    """{file name: text} of the headers beside the kernels that a .cu file may include (swizzle.h): what every build
    of a kernel passes its compiler (and hashes into its cache key)."""
    return {path.name: path.read_text() for path in sorted(FOLDER.glob("*.h"))}


def kernel(name):
    """The record (descriptor.Kernel) of kernel `name`; ValueError naming the kernels for an unknown one."""
    if name not in REGISTRY:
        raise ValueError(f"unknown kernel {name!r}; the kernels are {', '.join(KERNELS)}")
    return REGISTRY[name]


def default_tiles(name, d):
    """(Br, Bc) for head dimension d: the largest that keep a block's shared memory under 48 KiB."""
    return kernel(name).default_tiles(d)


def shared_bytes(name, tiles, d):
    """Bytes of static shared memory one block of each of the kernel's launches declares, as in the .cu files."""
    return kernel(name).shared_bytes(tuple(tiles), d)


def archs(name):
    """The architectures kernel `name` is compiled for (e.g. ("sm_80", "sm_90"); ("sm_90a",) for Hopper's own)."""
    return kernel(name).archs


def head_dims(name, dims):
    """Those of head dimensions `dims` kernel `name` is built for (all of them but for a kernel that says)."""
    own = kernel(name).head_dims
    return tuple(d for d in dims if own is None or d in own)


def shared_memory(algo, sizes):
    """{launch: bytes of shared memory one block takes: the __shared__ it declares plus the dynamic (extern
    __shared__) bytes the host gives it} of the launches of `algo`'s kernel (``ALGORITHM_KERNELS``) at a run's `sizes`
    (named as in kernelviz.glossary: {N, N_kv, d, Br, Bc, splits} of attention, {N, d, Bc} of online-softmax-output,
    whose kernel takes tiles (1, Bc); {d, page_size, H_q, H_kv, splits} of paged-decoding, whose kernel takes tiles
    (H_q / H_kv, page_size): each record's `figure`), from ``plan`` with no device limit: a page may describe tiles
    too large for one. A record without `figure` (the tensor-core kernels) from its ``shared_bytes`` and
    ``dynamic_bytes`` at any tiles, as its figure draws them, though the kernel itself takes fewer. None for an
    algorithm without a kernel. The tests hold the static part equal to what ptxas reports."""
    name = ALGORITHM_KERNELS.get(algo)
    if name is None:
        return None
    k = kernel(name)
    if k.figure is None:
        tiles, d = (sizes["Br"], sizes["Bc"]), sizes["d"]
        return {name: k.shared_bytes(tiles, d)[0] + (k.dynamic_bytes(tiles, d) if k.dynamic_bytes else 0)}
    n, tiles = k.figure(sizes)
    launches = plan(name, 1, n, sizes["d"], tiles, n_splits=sizes.get("splits", 1), limit=float("inf"))
    return {launch.name.partition("<")[0]: launch.shared_bytes + launch.dynamic_bytes for launch in launches}


def host_formulas(name):
    """{name: C expression over a page's figure sizes (N, Bc, splits, ...)} of the kernel arguments the host derives
    from them, under the names the kernel uses (e.g. a split kernel's tiles_per_split)."""
    return dict(kernel(name).host_formulas) if name in REGISTRY else {}


def check_shared_memory(launch, limit, formula=None, dynamic_limit=DYNAMIC_SHARED_LIMIT):
    """Raise SharedMemoryError, naming the launch and both numbers, if `launch` needs more than `limit` bytes of
    static shared memory, or more than `dynamic_limit` of dynamic (what a block may opt in to); `formula`: its
    kernel's shared memory in words, for the advice."""
    how = f" (its shared memory is {formula} bytes)" if formula else ""
    for kind, need, most in (("", launch.shared_bytes, limit), ("dynamic ", launch.dynamic_bytes, dynamic_limit)):
        if need > most:
            raise SharedMemoryError(
                f"{launch.name} needs {need} bytes of {kind}shared memory per block and the device allows "
                f"{most}: choose smaller tiles{how}"
            )


def check_options(name, options):
    """Raise ValueError unless every one of `options` is a template option of kernel `name` with one of its values."""
    own = kernel(name).options
    for key, value in options.items():
        if key not in own:
            takes = f"takes {', '.join(own)}" if own else "takes no template options"
            raise ValueError(f"{name} {takes}, not {key!r}")
        if value not in own[key]:
            raise ValueError(f"{name}: {key} must be one of {own[key]}, not {value!r}")


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


def plan(
    name,
    bh,
    n,
    d,
    tiles=None,
    threads=None,
    n_splits=1,
    limit=STATIC_SHARED_LIMIT,
    thread_limits=None,
    dtype=None,
    dynamic_limit=DYNAMIC_SHARED_LIMIT,
    **options,
):
    """The launches of kernel `name` for these shapes, in order, after checking each against `limit` bytes of static
    shared memory per block (`dynamic_limit` of dynamic), CUDA's grid limits and, where `thread_limits` ({name: (most
    threads, why)}, e.g. from the compiled kernels' registers) has the launch, its threads. `dtype`: for a kernel
    built for several (compiled_dtypes), the one to launch, the default its first (the others take None); `options`:
    the kernel's own template options (its record's `options`, e.g. stages=1). Raises ValueError for a bad shape, an
    option it does not take or a grid too large, SharedMemoryError for tiles that do not fit, ThreadLimitError for
    too many threads."""
    k = kernel(name)
    br, bc = tiles or k.default_tiles(d)
    threads = threads or k.threads or GPU_THREADS
    if bh < 1 or n < 1 or d < 1:
        raise ValueError(f"shapes must be positive: BH={bh}, N={n}, D={d}")
    if not 1 <= threads <= MAX_THREADS:
        raise ThreadLimitError(f"a block holds 1 to {MAX_THREADS} threads, not {threads}")
    check_options(name, options)
    smem = k.shared_bytes((br, bc), d)
    launches = k.launches(bh, n, d, (br, bc), threads, n_splits, dtype, smem, **options)
    for launch in launches:
        check_shared_memory(launch, limit, k.shared_formula, dynamic_limit)
        check_grid(launch)
        if launch.name in (thread_limits or {}):
            check_threads(launch, *thread_limits[launch.name])
    return launches


def instances(name, tiles, d, **options):
    """Every template instance kernel `name` may launch at `tiles` and `d` (and its template `options`): each launch
    of its plan, with more than one split (the combines too), for each dtype it is built for."""
    k = kernel(name)
    names = []
    for dtype in k.dtypes:
        threads, inf = k.threads or GPU_THREADS, float("inf")
        launches = plan(name, 1, 1, d, tiles, threads, 2, inf, dtype=dtype, dynamic_limit=inf, **options)
        names += [launch.name for launch in launches]
    return list(dict.fromkeys(names))


def compiled_dtypes(name):
    """The dtypes kernel `name` is instantiated for (plan's `dtype`): (None,) for a float32 kernel."""
    return kernel(name).dtypes


def inputs(name, bh, n, d, n_kv=None):
    """{name: shape} of what the kernel reads, in the order the kernels' arguments list them; `n_kv` (default n):
    the keys of a kernel with N_kv keys for N queries."""
    return kernel(name).inputs(bh, n, d, n_kv)


def sizes(name, arrays):
    """(BH, N, D, N_kv) of the kernel's inputs `arrays` (anything with .shape, in the order of `inputs`; V is
    (BH, N_kv, D)): N is the kernel's argument N (Q's rows where the record says `n_from_q`, else the keys) and
    N_kv its keys. Raises ValueError naming the input whose shape is wrong."""
    k = kernel(name)
    if k.sizes is not None:
        return k.sizes(arrays)
    names = list(k.inputs(1, 1, 1, None))
    if len(arrays) != len(names) or len(arrays[names.index("V")].shape) != 3:
        shapes = [tuple(x.shape) for x in arrays]
        raise ValueError(f"{name} takes {', '.join(names)} (V of shape (BH, N, D)), got arrays of shapes {shapes}")
    bh, n_kv, d = arrays[names.index("V")].shape
    n = arrays[0].shape[1] if k.n_from_q and len(arrays[0].shape) == 3 else n_kv
    for (input_name, shape), x in zip(k.inputs(bh, n, d, n_kv).items(), arrays, strict=True):
        if tuple(x.shape) != shape:
            raise ValueError(f"{name}: {input_name} has shape {tuple(x.shape)}, expected {shape}")
    return bh, n, d, n_kv


def data_tiles(name, arrays):
    """(Br, Bc) that the kernel's inputs fix, or None where the tiles are free."""
    return kernel(name).data_tiles(arrays)


def check_inputs(name, given, arrays, host, address):
    """Check what the kernel would read that its shapes do not say, before anything is launched (its record's
    `check_inputs`: a paged kernel's block table and lengths, the alignment of 16-byte loads); cpu.run and
    launch.prepare both call this after `sizes`. `given`: the inputs as the caller gave them, `host(x)` one of them
    read into NumPy; `arrays`: as launched, `address(x)` the address of x's first element. Raises ValueError naming
    the input, and the entry or the address."""
    check = kernel(name).check_inputs
    if check is not None:
        check(given, arrays, host, address)


def element_type(name, array):
    """The C type of the elements of the kernel's array argument `array`: "unsigned short" (fp16/bf16 bits),
    "int" (block tables and lengths) or "float"."""
    k = kernel(name)
    if array in k.sixteen_bit:
        return "unsigned short"
    return "int" if array in k.index_inputs else "float"


def dtypes(name, arrays):
    """The dtype each of the kernel's inputs is passed in: int32 for its index inputs, float32 for the rest."""
    k = kernel(name)
    names = list(k.inputs(1, 1, 1, None))
    return [np.int32 if i < len(names) and names[i] in k.index_inputs else np.float32 for i in range(len(arrays))]


def tiles_for(name, arrays, d, tiles=None):
    """The tiles (Br, Bc) to run the kernel with on `arrays`: `tiles`, or the default for its D; where the data fixes
    them (data_tiles) those, and a ValueError if `tiles` asks for others."""
    fixed = data_tiles(name, arrays)
    if fixed is not None and tiles is not None and tuple(tiles) != fixed:
        raise ValueError(f"{name}: the inputs fix the tiles (G, PAGE) at {fixed}, not {tuple(tiles)}")
    if fixed is not None:
        return fixed
    return tuple(tiles or default_tiles(name, d))


def outputs(name, bh, n, d, n_splits=1, tiles=None):
    """{name: shape} of what the kernel writes, in the order the kernels' arguments list them."""
    return kernel(name).outputs(bh, n, d, n_splits, tiles)


def arguments(name, n, scale, causal=False, n_splits=1, n_kv=None, kv_heads=1, bc=None):
    """Each launch's arguments, in the order of its __global__ signature: arrays by name (the names of `inputs`
    and `outputs`) and scalars as np.int32 (C int) or np.float32 (C float); `n_kv` (default n): the keys; `bc`: the
    K/V tile (a split kernel's splits own whole tiles; required for it); `kv_heads`: a paged kernel's H_kv (n its
    max_pages). The GPU launcher fills the names in with device arrays, the CPU harness with its buffers; the tests
    check the kinds against the compiled kernels' signatures."""
    return kernel(name).arguments(n, scale, causal, n_splits, n_kv, kv_heads, bc)


def kv_heads(name, arrays):
    """`arguments`' kv_heads for the kernel's inputs `arrays` (1 but for a paged kernel)."""
    return kernel(name).kv_heads(arrays)
