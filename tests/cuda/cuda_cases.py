"""Helpers for the CUDA tests: `kernelviz verify`'s inputs, error measures and tolerance (one definition for both),
skips for missing compilers, and the fragment probe's inputs and checks (fragment_probe.cuh, run on the CPU shim by
test_cuda_fragments.py and on a GPU by test_cuda_gpu.py)."""

import numpy as np
import pytest

from kernelviz.cuda import compile, cpu, fragments, half, nvrtc
from kernelviz.cuda.verify import TOL, lse_err, rel_err
from kernelviz.cuda.verify import inputs as qkv

__all__ = [
    "EXPECTED", "TIES", "TOL", "check_probe", "lse_err", "needs_gxx", "needs_nvcc", "needs_nvrtc", "probe_inputs",
    "qkv", "rel_err",
]  # fmt: skip

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


# Values to round: ties to even and not, a subnormal, overflow, NaN (the rest random).
TIES = {
    "fp16": [1 + 2**-11, 1 + 3 * 2**-11, 1 / 3, 70000.0, 2**-20, float("nan")],
    "bf16": [1 + 2**-8, 1 + 3 * 2**-8, 1 / 3, 3.4e38, 2**-130, float("nan")],
}
EXPECTED = {  # their bits, worked by hand (fp16's 1/3 is also what g++'s _Float16 gives)
    "fp16": [0x3C00, 0x3C02, 0x3555, 0x7C00, 0x0010, 0x7FFF],
    "bf16": [0x3F80, 0x3F82, 0x3EAB, 0x7F80, 0x0008, 0x7FFF],
}


def probe_inputs(dtype):
    """(M, N, F): two 16×16 matrices of small integers (exact in fp16 and bf16) and 64 floats to round (TIES, then
    random), all float32."""
    rng = np.random.default_rng(3)
    m, n = (rng.integers(-8, 9, (16, 16)).astype(np.float32) for _ in range(2))
    return m, n, np.concatenate([TIES[dtype], rng.standard_normal(58)]).astype(np.float32)


def check_probe(dtype, m, n, f, regs, acc, shuffled, packed):
    """Assert what the probe wrote (regs uint32 [32][3][4], acc float [32][4][4], shuffled float [32][2], packed
    uint32 [32]) for probe_inputs(dtype): every lane's fragments are fragments.py's layout of M and N, the mma
    accumulators NumPy's products of them, the shuffles lane ^ 1 and lane ^ 2, the packs half.bits of F's pairs."""
    halves = np.stack([regs & 0xFFFF, regs >> 16], -1).reshape(32, 3, 8)  # element i: register i // 2, low half first
    got = half.values(halves.astype(np.uint16), dtype)
    for lane in range(32):
        for i in range(8):
            assert got[lane, 0, i] == m[fragments.mma_a(lane, i)], ("A from Qi", lane, i)
        for i in range(4):
            k, col = fragments.mma_b(lane, i)  # B = Kj^T: its (k, col) is Kj[col][k]; regs 2, 3: keys 8..15
            assert got[lane, 1, i] == n[col, k] and got[lane, 1, 4 + i] == n[8 + col, k], ("B from Kj", lane, i)
            assert got[lane, 2, i] == n[k, col] and got[lane, 2, 4 + i] == n[k, 8 + col], ("B from Vj", lane, i)
    scores, pv = m @ n.T, m @ n
    for lane in range(32):
        for e in range(4):
            r, c = fragments.mma_c(lane, e)
            assert acc[lane, :, e].tolist() == [scores[r, c], scores[r, 8 + c], pv[r, c], pv[r, 8 + c]], (lane, e)
    assert shuffled.tolist() == [[100.0 + (lane ^ 1), 100.0 + (lane ^ 2)] for lane in range(32)]
    expected = half.bits(f, dtype).astype(np.uint32)
    assert (packed == (expected[0::2] | expected[1::2] << 16)).all()
