"""Helpers for the CUDA tests: `kernelviz verify`'s inputs, error measures and tolerance (one definition for both),
and skips for missing compilers."""

import pytest

from kernelviz.cuda import compile, cpu, nvrtc
from kernelviz.cuda.verify import TOL, lse_err, rel_err
from kernelviz.cuda.verify import inputs as qkv

__all__ = ["TOL", "lse_err", "needs_gxx", "needs_nvcc", "needs_nvrtc", "qkv", "rel_err"]

needs_gxx = pytest.mark.skipif(
    cpu.compiler() is None, reason="g++ is missing: apt-get install g++ (12 or newer, for C++20 <barrier>)"
)
needs_nvcc = pytest.mark.skipif(
    compile.nvcc() is None,
    reason="nvcc is missing: install the CUDA toolkit (apt-get install nvidia-cuda-toolkit, or NVIDIA's "
    "cuda-nvcc package); compiling needs no GPU",
)
needs_nvrtc = pytest.mark.skipif(
    nvrtc.version() is None,
    reason="NVRTC is missing: pip install cuda-bindings nvidia-cuda-nvrtc (make test installs both); no GPU needed",
)
