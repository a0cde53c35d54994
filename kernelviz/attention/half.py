"""fp16 and bf16 as the 16-bit patterns fa2_mma.cu reads and writes (NumPy has float16 but no bfloat16).

Here, below ``cuda`` (which imports it as ``kernelviz.cuda.half``), because the tensor-core algorithm of
``attention.fa2_mma`` rounds with it too.

`bits(x, dtype)` rounds float32 values to nearest even and returns their bits as uint16; `values(b, dtype)` reads bits
back as float32 (exactly: every fp16 and bf16 value is a float32); `round(x, dtype)` is the two together, the values a
kernel reading `bits(x)` computes with. DTYPES names the two: "fp16" (IEEE binary16: 5 exponent bits, 10 fraction
bits, unit roundoff 2^-11) and "bf16" (bfloat16: float32's 8 exponent bits, 7 fraction bits, unit roundoff 2^-8).
"""

import numpy as np

DTYPES = ("fp16", "bf16")
UNIT_ROUNDOFF = {"fp16": 2.0**-11, "bf16": 2.0**-8}


def check(dtype):
    """Raise ValueError unless `dtype` is one of DTYPES."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, not {dtype!r}")


def bits(x, dtype, xp=np):
    """uint16 bits of `x` rounded to `dtype` (nearest even; NaN becomes 0x7fff); `xp`: the array module (NumPy, or
    CuPy for device arrays)."""
    check(dtype)
    x = xp.asarray(x, dtype=xp.float32)
    if dtype == "fp16":
        with np.errstate(over="ignore"):  # beyond 65,504 rounds to inf, as cvt.rn does
            rounded = x.astype(xp.float16).view(xp.uint16)
    else:
        u = x.view(xp.uint32).astype(xp.uint64)
        rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(xp.uint16)
    return xp.where(xp.isnan(x), xp.uint16(0x7FFF), rounded)  # one NaN, as the shim's and the GPU's cvt


def values(b, dtype):
    """float32 values of the uint16 bits `b` of `dtype`."""
    check(dtype)
    b = np.asarray(b, dtype=np.uint16)
    if dtype == "fp16":
        return b.view(np.float16).astype(np.float32)
    return (b.astype(np.uint32) << 16).view(np.float32)


def round(x, dtype):  # noqa: A001 (the module's name says which rounding)
    """`x` rounded to `dtype`, as float32."""
    return values(bits(x, dtype), dtype)
