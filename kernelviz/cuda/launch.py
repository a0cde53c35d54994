"""Run the kernels on an NVIDIA GPU through CuPy (an optional dependency, imported only here and only when called).

`run(kernel, *inputs, ...)` (the inputs in the order of kernels.inputs) takes the same arguments as cpu.run and
returns the same {name: float32 array}; `prepare` returns a function that only enqueues the launches, for timing. The
cubin comes from nvrtc.build for the device's architecture (the same compile the tests run without a GPU, cached on
disk) and CuPy loads it; each launch's arguments come from kernels.arguments. Before anything runs the host checks
the block's shared memory, computed from the tiles, against the device's limit (kernels.SharedMemoryError) and the
grid against CUDA's (ValueError); then, for each loaded kernel, that the driver's static shared memory is the host's
(plus the bytes the system reserves per block, kernels.check_compiled_shared) and that the block's threads are within
the driver's maxThreadsPerBlock for that kernel, which its registers set (kernels.ThreadLimitError).

`problem()` says why the GPU path cannot run here (None when it can); `available()` is `problem() is None`. With
KERNELVIZ_REQUIRE_GPU=1 in the environment (`required()`), the GPU tests, `kernelviz verify` and bench/gpu.py fail
instead of skipping when there is a problem.

Inputs may be NumPy arrays (copied to the GPU) or anything CuPy takes without a copy (CuPy arrays, PyTorch CUDA
tensors, through __cuda_array_interface__).
"""

import functools
import math
import os
from functools import cache

from . import half, kernels, nvrtc, tensor_map
from .descriptor import TensorMap

INSTALL = "pip install -e '.[gpu]'"
RESERVED_SHARED_ATTRIBUTE = 111  # cudaDevAttrReservedSharedMemoryPerBlock
OPTIN_SHARED_ATTRIBUTE = 97  # cudaDevAttrMaxSharedMemoryPerBlockOptin


@cache
def problem():
    """Why the GPU path cannot run here, as a sentence with the error that says so and what would fix it; None when
    CuPy imports, NVRTC loads, CuPy sees a GPU and the driver is new enough for NVRTC's cubins."""
    try:
        import cupy
    except Exception as e:  # ImportError, or CuPy's own error when its CUDA libraries do not load
        return f"CuPy does not import ({type(e).__name__}: {e}); {INSTALL}"
    found = nvrtc.version()
    if found is None:
        return f"NVRTC does not load ({nvrtc.problem()}); {INSTALL}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
        driver = cupy.cuda.runtime.driverGetVersion()
    except Exception as e:  # cupy's CUDARuntimeError: no driver, no device, a driver too old for this CuPy
        return f"CuPy cannot reach a GPU ({type(e).__name__}: {e})"
    if count < 1:
        return "CuPy sees no NVIDIA GPU"
    if driver // 1000 < found[0]:
        return (
            f"the NVIDIA driver supports CUDA {driver // 1000}.{driver % 1000 // 10}, older than NVRTC "
            f"{found[0]}.{found[1]}, whose cubins it cannot load: update the driver"
        )
    return None


def available():
    """Whether the GPU path can run here (see problem() for why not)."""
    return problem() is None


def required():
    """Whether KERNELVIZ_REQUIRE_GPU=1 asks that a missing GPU path be a failure, not a skip."""
    return os.environ.get("KERNELVIZ_REQUIRE_GPU", "") not in ("", "0")


def architecture():
    """The current device's architecture as NVRTC names it, e.g. "sm_90"."""
    import cupy

    return f"sm_{cupy.cuda.Device().compute_capability}"


def kernel_arch(kernel):
    """The architecture to build `kernel` for on the current device: the device's ("sm_90"), or its variant with the
    architecture-specific instructions ("sm_90a") where the kernel is built for that. Raises ValueError for a kernel
    built only for such variants (fa3: Hopper's wgmma, TMA, setmaxnreg) on another device."""
    arch, own = architecture(), kernels.archs(kernel)
    if f"{arch}a" in own:
        return f"{arch}a"
    if all(a.endswith("a") for a in own) and arch not in own:
        raise ValueError(f"{kernel} is built for {', '.join(own)} only (Hopper's own instructions); this GPU is {arch}")
    return arch


@cache
def _module(kernel, names, arch):
    import cupy

    built = nvrtc.build(kernel, names, arch)
    return cupy.RawModule(path=str(built.cubin)), built.lowered


def function(kernel, name, names):
    """The CuPy kernel for template instance `name` of `kernel`'s file, built with the instances `names`."""
    module, lowered = _module(kernel, tuple(names), kernel_arch(kernel))
    return module.get_function(lowered[name])


@cache
def shared_limit():
    """Bytes of static shared memory a block may declare on the current device."""
    import cupy

    return cupy.cuda.Device().attributes["MaxSharedMemoryPerBlock"]


@cache
def dynamic_shared_limit():
    """Bytes of dynamic shared memory a block may opt in to on the current device (sm_80: 163 KiB; sm_90: 227 KiB)."""
    import cupy

    return cupy.cuda.runtime.deviceGetAttribute(OPTIN_SHARED_ATTRIBUTE, cupy.cuda.Device().id)


@cache
def reserved_shared():
    """Bytes of shared memory the system reserves per block on the current device (1 KiB on sm_80 and later)."""
    import cupy

    return cupy.cuda.runtime.deviceGetAttribute(RESERVED_SHARED_ATTRIBUTE, cupy.cuda.Device().id)


def check_function(launch, fn, reserved):
    """Check a loaded kernel (`fn`: CuPy's Function, read for shared_size_bytes, max_threads_per_block, num_regs)
    against its `launch`: RuntimeError if its shared memory is not the host's (plus `reserved`), ThreadLimitError
    if the launch has more threads than the driver allows this kernel."""
    kernels.check_compiled_shared(launch, fn.shared_size_bytes, reserved)
    why = f"the driver's maxThreadsPerBlock for it, with {fn.num_regs} registers a thread"
    kernels.check_threads(launch, fn.max_threads_per_block, why)


def device_address(x):
    """The device address of CuPy array x's first element (what kernels.check_inputs checks the alignment of)."""
    return x.data.ptr


def sixteen_bit(x, dtype, kernel=None):
    """`x` as a CuPy uint16 array of `dtype`'s bits ("fp16" or "bf16"): a PyTorch tensor of that dtype as it is
    (viewed as int16), anything else rounded to it (half.bits, on the device for device arrays). Raises ValueError for
    a PyTorch tensor of the other 16-bit dtype (naming `kernel`, the kernel it was given to)."""
    import cupy

    found = str(getattr(x, "dtype", ""))
    if found in ("torch.float16", "torch.bfloat16"):
        if found != {"fp16": "torch.float16", "bf16": "torch.bfloat16"}[dtype]:
            raise ValueError(f"{kernel} was asked for {dtype} and given a tensor of {found}")
        import torch

        return cupy.asarray(x.contiguous().view(torch.int16)).view(cupy.uint16)
    if found == "float16" and dtype == "fp16":
        return cupy.asarray(x).view(cupy.uint16)
    return half.bits(cupy.asarray(x), dtype, xp=cupy)


def prepare(kernel, *arrays, causal=False, scale=None, tiles=None, threads=None, n_splits=1, dtype=None, **options):
    """Check and compile `kernel` for its inputs `arrays` (in the order of kernels.inputs, as cpu.run takes them;
    device arrays: CuPy, or PyTorch CUDA tensors, or NumPy to copy) and return (go, out): go() enqueues its launches
    on the current stream, out is {name: CuPy array} it writes. A kernel on 16-bit inputs (its record's
    sixteen_bit): `dtype` "fp16" (its default) or "bf16", its inputs taken by sixteen_bit and its 16-bit outputs
    uint16 bits. `threads`: default GPU_THREADS, or the threads the kernel's record fixes; `options`: the kernel's own
    template options (its record's `options`, e.g. stages=1). A launch with dynamic shared memory gets it, and the
    attribute that allows it past 48 KiB (cudaFuncAttributeMaxDynamicSharedMemorySize). Raises SharedMemoryError
    before anything runs when the tiles do not fit the device, ValueError for bad shapes, for what the kernel would
    read out of bounds or misaligned (kernels.check_inputs, the checks cpu.run makes) or a grid too large,
    ThreadLimitError for more threads than a loaded kernel can run, RuntimeError if the compiled kernel's shared
    memory is not what the host computed."""
    import cupy

    given, record = arrays, kernels.kernel(kernel)
    dtype = record.dtype(dtype)
    names = list(kernels.inputs(kernel, 1, 1, 1))
    wide = [i < len(names) and names[i] in record.sixteen_bit for i in range(len(arrays))]
    arrays = [
        cupy.ascontiguousarray(sixteen_bit(x, dtype, kernel) if w else cupy.asarray(x, dtype=t))
        for x, t, w in zip(arrays, kernels.dtypes(kernel, arrays), wide, strict=True)
    ]
    bh, n, d, n_kv = kernels.sizes(kernel, arrays)
    kv_heads = kernels.kv_heads(kernel, arrays)
    kernels.check_inputs(kernel, given, arrays, lambda x: cupy.asnumpy(cupy.asarray(x)), device_address)
    tiles = kernels.tiles_for(kernel, arrays, d, tiles)
    threads = threads or record.threads or kernels.GPU_THREADS
    limits = {"limit": shared_limit(), "dynamic_limit": dynamic_shared_limit()}
    launches = kernels.plan(kernel, bh, n, d, tiles, threads, n_splits, dtype=dtype, **limits, **options)
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    shapes = kernels.outputs(kernel, bh, n, d, n_splits, tiles)
    wide = {"unsigned short": cupy.uint16, "float": cupy.float32}
    out = {name: cupy.empty(shape, dtype=wide[kernels.element_type(kernel, name)]) for name, shape in shapes.items()}
    names = [launch.name for launch in launches]
    fns = [function(kernel, name, names) for name in names]
    for launch, fn in zip(launches, fns, strict=True):
        check_function(launch, fn, reserved_shared())
        if launch.dynamic_bytes:  # cudaFuncSetAttribute(MaxDynamicSharedMemorySize): needed past 48 KiB
            fn.max_dynamic_shared_size_bytes = launch.dynamic_bytes
    arrays = {**dict(zip(kernels.inputs(kernel, bh, n, d, n_kv), arrays, strict=True)), **out}
    launch_args = kernels.arguments(kernel, n, scale, causal, n_splits, n_kv, kv_heads, bc=tiles[1])
    args = [tuple(argument(a, arrays) for a in spec) for spec in launch_args]
    calls = []
    for launch, fn, a, spec in zip(launches, fns, args, launch_args, strict=True):
        grid = tuple(launch.grid) + (1,) * (3 - len(launch.grid))
        if any(isinstance(x, TensorMap) for x in spec):  # tensor maps by value: through cuLaunchKernel
            calls.append(tensor_map.launcher(fn, grid, launch.threads, launch.dynamic_bytes, a))
        else:
            calls.append(functools.partial(fn, grid, (launch.threads, 1, 1), a, shared_mem=launch.dynamic_bytes))

    def go():
        for call in calls:
            call()

    return go, out


def argument(a, arrays):
    """A launch argument as the kernel takes it: a name of `arrays` ({name: CuPy array}) its array, a
    descriptor.TensorMap the tensor map of its array (tensor_map.encode), a scalar as it is."""
    if isinstance(a, str):
        return arrays[a]
    if isinstance(a, TensorMap):
        x = arrays[a.name]
        return tensor_map.encode(a, x.data.ptr, x.shape, x.itemsize)
    return a


def run(kernel, *arrays, **options):
    """Run `kernel` on the GPU and return {name: NumPy float32 array} (16-bit outputs read from their bits); the
    arguments are cpu.run's (and prepare's). Raises SharedMemoryError before launching when the tiles do not fit the
    device."""
    import cupy

    go, out = prepare(kernel, *arrays, **options)
    go()
    cupy.cuda.get_current_stream().synchronize()
    found = {name: cupy.asnumpy(x) for name, x in out.items()}
    record = kernels.kernel(kernel)
    for name in set(found) & set(record.sixteen_bit):  # 16-bit outputs' bits, read as float32
        found[name] = half.values(found[name], record.dtype(options.get("dtype")))
    return found
