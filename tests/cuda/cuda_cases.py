"""Helpers for the CUDA tests: inputs, the error measure, and skips for missing compilers."""

import numpy as np
import pytest

from kernelviz.cuda import compile, cpu

TOL = 1e-5  # max |o - o_ref| over max |o_ref|: the float32 tolerance of tests/attention


def qkv(bh, n, d, decode=False, seed=0):
    """Random float32 q, k, v of shape (bh, n, d); q has one row per (batch·head) when `decode`."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((bh, 1 if decode else n, d)).astype(np.float32)
    return q, rng.standard_normal((bh, n, d)).astype(np.float32), rng.standard_normal((bh, n, d)).astype(np.float32)


def rel_err(x, ref):
    """max |x - ref| / max |ref|, inf if x has a NaN or inf."""
    x = np.asarray(x, dtype=np.float64)
    if not np.isfinite(x).all():
        return float("inf")
    return float(np.abs(x - ref).max() / (np.abs(ref).max() or 1.0))


needs_gxx = pytest.mark.skipif(
    cpu.compiler() is None, reason="g++ is missing: apt-get install g++ (12 or newer, for C++20 <barrier>)"
)
needs_nvcc = pytest.mark.skipif(
    compile.nvcc() is None,
    reason="nvcc is missing: install the CUDA toolkit (apt-get install nvidia-cuda-toolkit, or NVIDIA's "
    "cuda-nvcc package); compiling needs no GPU",
)
