"""cpu/harness.cpp passes a TMA tensor map to a kernel (tensor_map.TensorMap, its argument `t...`), so a kernel
driven by cpu.py, as fa3 is, loads with TMA on the CPU: tma_copy.cu loads a box that runs past the end of a ragged
tensor and reads it back; the rows inside are the tensor's, those outside zeros."""

import subprocess
from pathlib import Path

import numpy as np
import pytest
from cuda_cases import needs_gxx

from kernelviz.cuda import cpu, half
from kernelviz.cuda.tensor_map import TensorMap

KERNEL = Path(__file__).with_name("tma_copy.cu")


@needs_gxx
def test_a_tensor_map_argument_loads_a_box_with_zero_fill(tmp_path):
    exe = tmp_path / "tma_copy"
    build = [cpu.compiler(), *cpu.FLAGS, f"-I{cpu.HERE}", f'-DKV_FILE="{KERNEL}"', "-DKV_ENTRIES=E(tma_copy)"]
    subprocess.run([*build, str(cpu.HERE / "harness.cpp"), "-o", str(exe)], check=True)
    rows = 50
    x = np.random.default_rng(0).standard_normal((rows, 64)).astype(np.float32)
    buffers = [("x", "uint16_t", x.size, False), ("out", "uint16_t", 32 * 64, True)]
    argv = ["backward", "128", "2"]
    for name, _, size, output in buffers:
        argv += [name, "h", str(size), "o" if output else "i"]
    argv += ["1", "tma_copy", "1", "1", "1", "-1", "3", TensorMap("x", (64, rows), (64, 32)).argv(0), "b1", "i32"]
    done = subprocess.run([str(exe), *argv], input=half.bits(x, "fp16").tobytes(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    out = np.frombuffer(done.stdout, np.uint16).reshape(32, 64)
    expected = np.zeros((32, 64), np.uint16)
    expected[: rows - 32] = half.bits(x[32:], "fp16")
    assert np.array_equal(out, expected)


def test_a_tensor_map_names_what_is_wrong():
    with pytest.raises(ValueError, match="tensor map of K: swizzle must be one of"):
        TensorMap("K", (64, 10), (64, 8), swizzle=16)
    with pytest.raises(ValueError, match="same rank"):
        TensorMap("K", (64, 10), (64,))
    assert TensorMap("K", (64, 10, 2), (64, 8, 1)).argv(3) == "t3:64,10,2:64,8,1:128"
