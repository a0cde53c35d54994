"""What a kernel of this folder is to the host, in one record (the idea of flash-attention's kernel traits): a
`Kernel` says its file, default tiles, shared memory, launches, inputs, outputs and arguments, the dtypes it is
built for, and how `verify` checks it (inputs, reference, tolerance, variants). Each kernel's record sits in its own
module of ``topics/``, beside nothing else of its; ``topics/__init__.py`` lists them, and kernels.py, verify.py,
launch.py, cpu.py and cpu/harness.cpp loop over that list: adding a kernel is a .cu file and a record.

The generic parts the records share are here too: a Launch, the error measures, and the reading of the common
attention inputs (Q, K, V). Standard library and NumPy only; kernelviz.attention for the references.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from kernelviz.attention.reference import attention_fp64

from . import half

ARCHS = ("sm_80", "sm_90")  # the architectures a kernel is compiled for unless its record says others
TOL = 1e-5  # verify's relative error bound for the float32 kernels
MMA_TOL = {dtype: 4 * u for dtype, u in half.UNIT_ROUNDOFF.items()}  # for 16-bit inputs: 4u (see verify)
SPLITS = (1, 3, 8)  # the splits verify runs the split-KV kernels with
GPU_THREADS = 128
WARP = 32


class SharedMemoryError(ValueError):
    """A launch whose tiles need more shared memory per block than the device allows."""


class ThreadLimitError(ValueError):
    """A launch with more threads per block than its kernel can run (its registers, or the 1,024 of CUDA)."""


@dataclass(frozen=True)
class TensorMap:
    """A kernel argument that is a TMA tensor map (CUDA's CUtensorMap, passed by value) of the array `name`: the
    array (BH, rows, D) row-major as a tensor of dims (D, rows, BH), innermost first, copied in boxes of `box`
    elements (innermost first) with a `swizzle` of 0, 32, 64 or 128 bytes; elements outside the array read as zeros
    and are not written. The GPU launcher encodes it with the driver's cuTensorMapEncodeTiled, the CPU harness with
    kvshim::make_tensor_map."""

    name: str
    box: tuple
    swizzle: int = 128

    def dims(self, shape):
        """The tensor's dims, innermost first, for an array of `shape`."""
        return tuple(reversed(shape))


@dataclass(frozen=True)
class Launch:
    """One kernel launch: its template name (as nvcc or NVRTC instantiates it), grid, block and shared memory: the
    bytes of static __shared__ its source declares, and the bytes of dynamic (extern __shared__) the host gives it."""

    name: str
    grid: tuple
    threads: int
    shared_bytes: int
    dynamic_bytes: int = 0


def rel_err(x, ref):
    """max |x - ref| / max |ref| (over 1 where ref is all zeros); inf if x is not finite."""
    x = np.asarray(x, dtype=np.float64)
    if not np.isfinite(x).all():
        return float("inf")
    return float(np.abs(x - ref).max() / (np.abs(ref).max() or 1.0))


def lse_err(x, ref):
    """max |x - ref| / max(1, max |ref|) over the finite entries of ref; inf if x is not finite there, or is not
    -inf where ref is -inf (a row that sees no key)."""
    x, ref = np.asarray(x, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    empty = np.isneginf(ref)
    if not np.isneginf(x[empty]).all() or not np.isfinite(x[~empty]).all():
        return float("inf")
    if empty.all():
        return 0.0
    return float(np.abs(x[~empty] - ref[~empty]).max() / max(1.0, float(np.abs(ref[~empty]).max())))


def draw_qkv(rng, bh, n, d, decode=False, n_kv=None):
    """Random float32 q, k, v, drawn from `rng` in that order; k and v have `n_kv` rows (default n); q has one row
    per (batch·head) when `decode`."""
    q = rng.standard_normal((bh, 1 if decode else n, d)).astype(np.float32)
    n_kv = n if n_kv is None else n_kv
    k, v = (rng.standard_normal((bh, n_kv, d)).astype(np.float32) for _ in range(2))
    return q, k, v


def qkv(bh, n, d, decode=False, seed=0, n_kv=None):
    """draw_qkv from a generator seeded with `seed`."""
    return draw_qkv(np.random.default_rng(seed), bh, n, d, decode, n_kv)


def attention_error(out, arrays, causal, lse=None):
    """rel_err of out["O"] against attention_fp64 of q, k, v = `arrays`, and where `lse` (out -> the kernel's
    logsumexp per row) is given the larger with lse_err of it. An empty cache (N_kv = 0): every row sees no key."""
    if arrays[1].shape[1] == 0:
        o_ref, lse_ref = np.zeros(arrays[0].shape), np.full(arrays[0].shape[:2], -np.inf)
    else:
        o_ref, lse_ref = attention_fp64(*arrays, causal=causal)
    err = rel_err(out["O"], o_ref)
    if lse is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            err = max(err, lse_err(lse(out), lse_ref))
    return err


def fewer(n):
    """N_kv of a verify variant with fewer keys than queries: ceil(N / 2)."""
    return -(-n // 2)


def more(n):
    """N_kv of a verify variant with more keys than queries: 2N."""
    return 2 * n


RAGGED = ({"causal": False}, {"causal": True}, {"causal": True, "n_kv": fewer}, {"causal": True, "n_kv": more})


def attention_tiles(d):
    """(Br, Bc) of the float32 attention kernels for head dimension d: under 48 KiB of shared memory a block."""
    return (32, 32) if d <= 64 else (16, 16)


def attention_inputs(bh, n, d, n_kv=None):
    """{Q: (BH, N, D), K, V: (BH, N_kv, D)}: N query rows, N_kv keys (default N)."""
    n_kv = n if n_kv is None else n_kv
    return {"Q": (bh, n, d), "K": (bh, n_kv, d), "V": (bh, n_kv, d)}


def attention_figure(sizes):
    """(n, tiles) of a page's sizes {N, N_kv, d, Br, Bc, ...} to plan the launches with."""
    return sizes.get("N_kv", sizes["N"]), (sizes["Br"], sizes["Bc"])


def check_tensor_core(name, tiles, d, fits, takes, threads, block, dtype):
    """The checks of a launch that the tensor-core kernels (fa2_mma, fa2_pipe, fa3) share. `fits`: whether kernel
    `name` takes tiles (Br, Bc) at head dimension d, which `takes` says in words (ValueError naming the three
    otherwise); `block` = (count, "warps" or "warpgroups"): the threads a block must be (ThreadLimitError for other
    `threads`); dtype "fp16" or "bf16" (ValueError otherwise)."""
    br, bc = tiles
    if not fits:
        raise ValueError(f"{name} takes {takes}, not Br={br}, Bc={bc}, d={d}")
    count, unit = block
    need = count * WARP * (4 if unit == "warpgroups" else 1)
    if threads != need:
        raise ThreadLimitError(f"{name} runs {count} {unit}, {need} threads a block, not {threads}")
    if dtype not in half.DTYPES:
        raise ValueError(f"{name} takes dtype 'fp16' or 'bf16', not {dtype!r}")


def check_aligned(name, arrays, address, align, why):
    """Raise ValueError, naming kernel `name`, the array and its address, unless Q, K and V as launched (`arrays`;
    `address(x)`: the address of x's first element) each start on an `align`-byte boundary; `why`: what needs it."""
    for label, x in zip(("Q", "K", "V"), arrays, strict=True):
        at = address(x)
        if at % align:
            raise ValueError(
                f"{name}: {label} starts at address {at:#x}, {at % align} bytes past a {align}-byte boundary; {why} "
                f"(a view at an offset into a larger tensor? pass a copy)"
            )


def rounded_qkv(bh, n, d, decode, seed, causal, n_kv, dtype):
    """verify's inputs of a 16-bit kernel: qkv rounded to `dtype` (default fp16), so that the fp64 reference reads
    the very values the kernel does."""
    return tuple(half.round(x, dtype or "fp16") for x in qkv(bh, n, d, decode, seed, n_kv))


def qkv_arguments(n, scale, causal, n_splits, n_kv, kv_heads, bc):
    """A one-launch attention kernel's arguments: Q, K, V, O, L, then N, N_kv, scale and causal."""
    n_kv = n if n_kv is None else n_kv
    return [("Q", "K", "V", "O", "L", np.int32(n), np.int32(n_kv), np.float32(scale), np.int32(bool(causal)))]


def _lse_error(out, arrays, causal):
    return attention_error(out, arrays, causal, lambda out: out["L"])


# The fields of a Kernel every tensor-core kernel shares: Q, K, V in; O (16-bit, as Q, K, V) and L (float32) out, N
# from Q's rows; fp16 or bf16, its inputs rounded to it for verify, which holds O and L to MMA_TOL
TENSOR_CORE = {
    "inputs": lambda bh, n, d, n_kv: attention_inputs(bh, n, d, n_kv),
    "outputs": lambda bh, n, d, n_splits, tiles: {"O": (bh, n, d), "L": (bh, n)},
    "error": _lse_error,
    "verify_inputs": rounded_qkv,
    "tolerance": lambda dtype: MMA_TOL[dtype or "fp16"],
    "n_from_q": True,
    "dtypes": half.DTYPES,
    "sixteen_bit": ("Q", "K", "V", "O"),
}


def _none(*_):
    return None


@dataclass(frozen=True)
class Kernel:
    """One kernel: `name` (its .cu file's stem, the name kernels.py and the command line use) and `algorithm` (the
    name of the algorithm of kernelviz.attention it runs, ``attention.run``'s, or None); the callables below answer
    kernels.py's questions for it (their arguments as kernels.py's functions of the same name take them)."""

    name: str
    algorithm: str | None
    default_tiles: Callable  # d -> (Br, Bc): the largest that keep a block's shared memory under 48 KiB
    shared_bytes: Callable  # (tiles, d) -> [bytes of static __shared__ of each launch]
    launches: Callable  # (bh, n, d, tiles, threads, n_splits, dtype, smem, **options) -> [Launch], checks made
    inputs: Callable  # (bh, n, d, n_kv) -> {name: shape}, in argument order
    outputs: Callable  # (bh, n, d, n_splits, tiles) -> {name: shape}, in argument order
    arguments: Callable  # (n, scale, causal, n_splits, n_kv, kv_heads, bc) -> [one tuple a launch]
    shared_formula: str  # its shared memory in words of Br, Bc, D, for the error that says it does not fit
    error: Callable  # (out, arrays, causal) -> the relative error verify holds to tolerance
    verify_inputs: Callable = None  # (bh, n, d, decode, seed, causal, n_kv, dtype) -> arrays; default qkv
    variants: tuple = RAGGED  # verify's options (an "n_kv": a function of N)
    tolerance: Callable = lambda dtype: TOL  # dtype -> the largest relative error verify allows
    decode: bool = False  # one query row per (batch·head): verify's inputs' q is (BH, 1, D)
    n_from_q: bool = False  # N is Q's rows (keys: N_kv); otherwise N is the keys' count
    dtypes: tuple = (None,)  # the dtypes it is built for (plan's `dtype`; the first the default)
    sixteen_bit: tuple = ()  # arrays of fp16/bf16 bits (C: unsigned short)
    index_inputs: tuple = ()  # int32 inputs (C: int); every other array is float32
    threads: int | None = None  # the threads a block it takes, where fixed
    sizes: Callable = None  # arrays -> (bh, n, d, n_kv), where the shapes of `inputs` do not say them
    data_tiles: Callable = _none  # arrays -> the tiles its inputs fix, or None
    kv_heads: Callable = lambda arrays: 1  # arrays -> `arguments`' kv_heads
    check_inputs: Callable = None  # (given, arrays, host, address): what it reads beyond its shapes
    host_formulas: dict = field(default_factory=dict)  # {argument: C expression over a page's figure sizes}
    figure: Callable = None  # page sizes -> (n, tiles) to plan with for shared_memory; None: shared_bytes direct
    watch: tuple = ()  # (launch index, output): an output blocks share, changed only by atomicAdd in that launch
    options: dict = field(default_factory=dict)  # {template option: its values, the default first}, e.g. stages
    compiled_options: tuple = ({},)  # the option sets compile.instances builds (the report's rows)
    archs: tuple = ARCHS  # the architectures it is compiled for (sm_90a: Hopper's own instructions)
    head_dims: tuple | None = None  # the head dimensions it is built for, where not any
    dynamic_bytes: Callable = None  # (tiles, d) -> dynamic shared memory a block takes (default options); None: 0

    @property
    def file(self):
        return f"{self.name}.cu"

    def dtype(self, dtype=None):
        """`dtype`, or the default of those it is built for (None for a float32 kernel)."""
        return dtype or self.dtypes[0]

    def make_inputs(self, bh, n, d, decode=False, seed=0, causal=False, n_kv=None, dtype=None):
        if self.verify_inputs is None:
            return qkv(bh, n, d, decode, seed, n_kv)
        return self.verify_inputs(bh, n, d, decode, seed, causal, n_kv, dtype)
