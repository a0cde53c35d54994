"""Run the kernels on an NVIDIA GPU through CuPy (an optional dependency, imported only here and only when called).

`run(kernel, q, k, v, ...)` takes the same arguments as cpu.run and returns the same {name: float32 array};
`prepare` returns a function that only enqueues the launches, for timing.
NVRTC compiles each .cu once per process (CuPy also caches it on disk); the template instances are named with
`name_expressions`. Before each launch the host checks the block's shared memory, computed from the tiles, against
the device's limit and raises kernels.SharedMemoryError if it does not fit.

Inputs may be NumPy arrays (copied to the GPU) or anything CuPy takes without a copy (CuPy arrays, PyTorch CUDA
tensors, through __cuda_array_interface__).
"""

import math
from functools import cache

import numpy as np

from . import kernels


def available():
    """Whether CuPy is installed and sees a GPU."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


@cache
def _module(kernel, names):
    import cupy

    source = (kernels.FOLDER / kernels.FILES[kernel]).read_text()
    return cupy.RawModule(code=source, options=("-std=c++17",), name_expressions=names)


def function(kernel, name, names):
    """The CuPy kernel for template instance `name` of `kernel`'s file, compiled with the instances `names`."""
    return _module(kernel, tuple(names)).get_function(name)


@cache
def shared_limit():
    """Bytes of static shared memory a block may declare on the current device."""
    import cupy

    return cupy.cuda.Device().attributes["MaxSharedMemoryPerBlock"]


def prepare(kernel, q, k, v, *, causal=False, scale=None, tiles=None, threads=kernels.GPU_THREADS, n_splits=1):
    """Check and compile `kernel` for these inputs (device arrays: CuPy, or PyTorch CUDA tensors, or NumPy to
    copy) and return (go, out): go() enqueues its launches on the current stream, out is {name: CuPy array} it
    writes. Raises SharedMemoryError before anything runs when the tiles do not fit the device, ValueError for
    bad shapes, RuntimeError if the compiled kernel's shared memory is not what the host computed."""
    import cupy

    q, k, v = (cupy.ascontiguousarray(cupy.asarray(x, dtype=cupy.float32)) for x in (q, k, v))
    bh, n, d = k.shape
    expected_q = (bh, 1, d) if kernel == "flash_decoding" else (bh, n, d)
    if q.shape != expected_q or v.shape != k.shape:
        raise ValueError(f"{kernel}: q {q.shape}, k {k.shape}, v {v.shape}; q must be {expected_q}, v like k")
    launches = kernels.plan(kernel, bh, n, d, tiles, threads, n_splits, limit=shared_limit())
    scale = np.float32(1.0 / math.sqrt(d) if scale is None else scale)
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
    n32, causal32 = np.int32(n), np.int32(bool(causal))
    if kernel == "fa2":
        args = [(q, k, v, out["O"], out["L"], n32, scale, causal32)]
    elif kernel == "fa1":
        args = [(q, k, v, out["O"], out["l"], out["m"], n32, scale, causal32)]
    else:
        s = np.int32(kernels.split_size(n, n_splits))
        partial = (out["O_partial"], out["m_partial"], out["l_partial"])
        args = [(q, k, v, *partial, n32, scale, np.int32(n_splits), s), (*partial, out["O"], np.int32(n_splits))]
    calls = [
        (fn, tuple(launch.grid) + (1,) * (3 - len(launch.grid)), (launch.threads, 1, 1), a)
        for launch, fn, a in zip(launches, fns, args, strict=True)
    ]

    def go():
        for fn, grid, block, a in calls:
            fn(grid, block, a)

    return go, out


def run(kernel, q, k, v, **options):
    """Run `kernel` on the GPU and return {name: NumPy float32 array}; the arguments are cpu.run's (and
    prepare's). Raises SharedMemoryError before launching when the tiles do not fit the device."""
    import cupy

    go, out = prepare(kernel, q, k, v, **options)
    go()
    cupy.cuda.get_current_stream().synchronize()
    return {name: cupy.asnumpy(x) for name, x in out.items()}
