"""TMA tensor maps for the GPU launcher: a descriptor.TensorMap argument of a kernel, encoded for a device array by the
CUDA driver's cuTensorMapEncodeTiled (through ctypes on libcuda, loaded only when called), and the launch of a
kernel that takes one: CUDA passes a tensor map by value (128 bytes, `const __grid_constant__ CUtensorMap`), so such
a kernel is launched through the driver's cuLaunchKernel with a pointer to each argument's bytes.

The encoding follows the CUDA driver API's reference for cuTensorMapEncodeTiled: dims innermost first, byte strides
of dims 1.. (multiples of 16), the global address 16-byte aligned, a box of at most 256 elements a dim whose inner
extent is at most the swizzle's bytes, elements out of bounds read as zeros (OOB fill NONE).
"""

import ctypes
from functools import cache

UINT16 = 1  # CU_TENSOR_MAP_DATA_TYPE_UINT16: 16-bit elements (fp16 or bf16 bits; the TMA only moves them)
SWIZZLES = {0: 0, 32: 1, 64: 2, 128: 3}  # bytes -> CU_TENSOR_MAP_SWIZZLE_*
L2_PROMOTION_128B = 2  # CU_TENSOR_MAP_L2_PROMOTION_L2_128B
MAX_DYNAMIC_SHARED = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
MAP_BYTES = 128


@cache
def _driver():
    return ctypes.CDLL("libcuda.so.1")


def encode(spec, address, shape, elem_bytes=2):
    """The 128 bytes of the tensor map `spec` (descriptor.TensorMap) of a row-major array of `shape` at device
    `address`, as a ctypes array. Raises ValueError naming the array when the driver refuses it."""
    dims = spec.dims(shape)
    rank = len(dims)
    strides = [elem_bytes]
    for d in dims[:-1]:
        strides.append(strides[-1] * d)
    out = (ctypes.c_uint64 * (MAP_BYTES // 8))()
    status = _driver().cuTensorMapEncodeTiled(
        ctypes.byref(out),
        ctypes.c_int(UINT16 if elem_bytes == 2 else 7),  # 7: FLOAT32
        ctypes.c_uint32(rank),
        ctypes.c_void_p(address),
        (ctypes.c_uint64 * rank)(*dims),
        (ctypes.c_uint64 * max(1, rank - 1))(*strides[1:]),
        (ctypes.c_uint32 * rank)(*spec.box),
        (ctypes.c_uint32 * rank)(*([1] * rank)),
        ctypes.c_int(0),  # no interleave
        ctypes.c_int(SWIZZLES[spec.swizzle]),
        ctypes.c_int(L2_PROMOTION_128B),
        ctypes.c_int(0),  # out of bounds: zeros
    )
    if status != 0:
        raise ValueError(
            f"cuTensorMapEncodeTiled refused the tensor map of {spec.name} (dims {dims}, box {spec.box}, swizzle "
            f"{spec.swizzle} bytes, address {address:#x}): CUresult {status}"
        )
    return out


def as_c(value):
    """A kernel argument as the ctypes object whose bytes cuLaunchKernel copies: a device array's pointer (anything
    with .data.ptr), a 128-byte tensor map as it is, an np.int32 as int, an np.float32 as float."""
    import numpy as np

    if hasattr(value, "data") and hasattr(value.data, "ptr"):
        return ctypes.c_void_p(value.data.ptr)
    if isinstance(value, ctypes.Array):
        return value
    if isinstance(value, np.float32):
        return ctypes.c_float(float(value))
    return ctypes.c_int32(int(value))


def launcher(fn, grid, threads, shared_bytes, args):
    """A function that enqueues CuPy Function `fn` on the current stream through cuLaunchKernel, with `shared_bytes`
    of dynamic shared memory (allowed beyond 48 KiB first) and `args` (as_c of each)."""
    import cupy

    handle = getattr(fn, "kernel", fn).ptr  # a RawKernel's compiled Function, or a Function
    cupy.cuda.driver.funcSetAttribute(handle, MAX_DYNAMIC_SHARED, shared_bytes)
    values = [as_c(a) for a in args]
    params = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])

    def go():
        stream = cupy.cuda.get_current_stream().ptr
        cupy.cuda.driver.launchKernel(handle, *grid, threads, 1, 1, shared_bytes, stream, ctypes.addressof(params), 0)
        go.keep = (values, params)  # alive while the launch may read them

    return go
