"""Run the kernels on an NVIDIA GPU through CuPy (an optional dependency, imported only here and only when called).

`run(kernel, q, k, v, ...)` (online softmax: `run("online_softmax", x, v, ...)`) takes the same arguments as cpu.run and
returns the same {name: float32 array}; `prepare` returns a function that only enqueues the launches, for timing. The
cubin comes from nvrtc.build for the device's architecture (the same compile the tests run without a GPU, cached on
disk) and CuPy loads it; each launch's arguments come from kernels.arguments. Before each launch the host checks the
block's shared memory, computed from the tiles, against the device's limit and raises kernels.SharedMemoryError if it
does not fit, and checks that the loaded kernel declares exactly that much.

Inputs may be NumPy arrays (copied to the GPU) or anything CuPy takes without a copy (CuPy arrays, PyTorch CUDA
tensors, through __cuda_array_interface__).
"""

import math
from functools import cache

from . import kernels, nvrtc


def available():
    """Whether CuPy and NVRTC are installed and CuPy sees a GPU."""
    try:
        import cupy

        return nvrtc.version() is not None and cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def architecture():
    """The current device's architecture as NVRTC names it, e.g. "sm_90"."""
    import cupy

    return f"sm_{cupy.cuda.Device().compute_capability}"


@cache
def _module(kernel, names, arch):
    import cupy

    built = nvrtc.build(kernel, names, arch)
    return cupy.RawModule(path=str(built.cubin)), built.lowered


def function(kernel, name, names):
    """The CuPy kernel for template instance `name` of `kernel`'s file, built with the instances `names`."""
    module, lowered = _module(kernel, tuple(names), architecture())
    return module.get_function(lowered[name])


@cache
def shared_limit():
    """Bytes of static shared memory a block may declare on the current device."""
    import cupy

    return cupy.cuda.Device().attributes["MaxSharedMemoryPerBlock"]


def prepare(kernel, *arrays, causal=False, scale=None, tiles=None, threads=kernels.GPU_THREADS, n_splits=1):
    """Check and compile `kernel` for its inputs `arrays` (q, k, v; online softmax: x, v; device arrays: CuPy, or
    PyTorch CUDA tensors, or NumPy to copy) and return (go, out): go() enqueues its launches on the current
    stream, out is {name: CuPy array} it writes. Raises SharedMemoryError before anything runs when the tiles do
    not fit the device, ValueError for bad shapes, RuntimeError if the compiled kernel's shared memory is not what
    the host computed."""
    import cupy

    arrays = [cupy.ascontiguousarray(cupy.asarray(x, dtype=cupy.float32)) for x in arrays]
    bh, n, d = kernels.sizes(kernel, arrays)
    launches = kernels.plan(kernel, bh, n, d, tiles, threads, n_splits, limit=shared_limit())
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    shapes = kernels.outputs(kernel, bh, n, d, n_splits)
    out = {name: cupy.empty(shape, dtype=cupy.float32) for name, shape in shapes.items()}
    names = [launch.name for launch in launches]
    fns = [function(kernel, name, names) for name in names]
    for launch, fn in zip(launches, fns, strict=True):
        if fn.shared_size_bytes != launch.shared_bytes:
            raise RuntimeError(
                f"{launch.name}: compiled with {fn.shared_size_bytes} bytes of shared memory, "
                f"the host computed {launch.shared_bytes}"
            )
    arrays = {**dict(zip(kernels.inputs(kernel, bh, n, d), arrays, strict=True)), **out}
    args = [
        tuple(arrays[a] if isinstance(a, str) else a for a in launch_args)
        for launch_args in kernels.arguments(kernel, n, scale, causal, n_splits)
    ]
    calls = [
        (fn, tuple(launch.grid) + (1,) * (3 - len(launch.grid)), (launch.threads, 1, 1), a)
        for launch, fn, a in zip(launches, fns, args, strict=True)
    ]

    def go():
        for fn, grid, block, a in calls:
            fn(grid, block, a)

    return go, out


def run(kernel, *arrays, **options):
    """Run `kernel` on the GPU and return {name: NumPy float32 array}; the arguments are cpu.run's (and
    prepare's). Raises SharedMemoryError before launching when the tiles do not fit the device."""
    import cupy

    go, out = prepare(kernel, *arrays, **options)
    go()
    cupy.cuda.get_current_stream().synchronize()
    return {name: cupy.asnumpy(x) for name, x in out.items()}
