"""The GPU launcher's checks, without a GPU: what the driver reports for a loaded kernel is checked against the launch
(stand-ins for CuPy's Function carry the driver's figures), `problem()` says why the GPU path cannot run (stand-ins
for CuPy fail the ways it does), and KERNELVIZ_REQUIRE_GPU=1 turns the GPU tests' and bench/gpu.py's skips into
failures."""

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from kernelviz.cuda import kernels, launch, nvrtc

ROOT = Path(__file__).resolve().parents[2]
FA2 = kernels.plan("fa2", 2, 130, 64)[0]  # fa2<32, 32, 64>: 4 * (2*32*64 + 2*32*64 + 32*32 + 2*32) = 37,120 bytes


def loaded(shared, max_threads=1024, registers=56):
    """A stand-in for CuPy's Function: the three attributes the launcher reads from the driver."""
    return types.SimpleNamespace(shared_size_bytes=shared, max_threads_per_block=max_threads, num_regs=registers)


def test_the_shared_memory_check_accepts_the_systems_reserved_kilobyte():
    assert FA2.shared_bytes == 37120
    launch.check_function(FA2, loaded(38144), reserved=1024)  # sm_90: the cubin's 37,120 B and 1 KiB reserved
    launch.check_function(FA2, loaded(37120), reserved=1024)  # a driver that does not count the reserved part
    launch.check_function(FA2, loaded(37120), reserved=0)  # a device that reserves nothing
    for wrong, reserved in ((37124, 1024), (36096, 1024), (38144, 0)):
        with pytest.raises(RuntimeError, match=f"compiled with {wrong} bytes of static shared memory"):
            launch.check_function(FA2, loaded(wrong), reserved=reserved)


def test_the_launcher_takes_the_drivers_thread_limit_for_the_kernel():
    fd = kernels.plan("flash_decoding", 2, 130, 64, threads=1024, n_splits=2)[0]
    with pytest.raises(kernels.ThreadLimitError, match="at most 672 threads .*maxThreadsPerBlock.* 92 registers"):
        launch.check_function(fd, loaded(fd.shared_bytes, max_threads=672, registers=92), reserved=0)
    launch.check_function(FA2, loaded(37120, max_threads=672, registers=92), reserved=0)  # 128 threads fit


@pytest.fixture
def fresh(monkeypatch):
    """problem() asked anew, with a stand-in `cupy` module built by the test (None: CuPy does not import)."""

    def use(cupy, nvrtc_version=(13, 0)):
        monkeypatch.setitem(sys.modules, "cupy", cupy)
        monkeypatch.setattr(nvrtc, "_probe", lambda: (nvrtc_version, None if nvrtc_version else "OSError: no lib"))
        launch.problem.cache_clear()
        return launch.problem()

    yield use
    launch.problem.cache_clear()


def fake_cupy(devices=1, driver=13000, error=None):
    def count():
        if error:
            raise error
        return devices

    runtime = types.SimpleNamespace(getDeviceCount=count, driverGetVersion=lambda: driver)
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime))


def test_problem_says_why_the_gpu_path_cannot_run(fresh):
    assert fresh(None).startswith("CuPy does not import (ModuleNotFoundError: ") and fresh(None).endswith(".[gpu]'")
    assert fresh(fake_cupy(), nvrtc_version=None) == "NVRTC does not load (OSError: no lib); pip install -e '.[gpu]'"
    error = RuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient")
    assert fresh(fake_cupy(error=error)) == f"CuPy cannot reach a GPU (RuntimeError: {error})"
    assert fresh(fake_cupy(devices=0)) == "CuPy sees no NVIDIA GPU"
    assert "supports CUDA 12.4, older than NVRTC 13.0" in fresh(fake_cupy(driver=12040))
    assert fresh(fake_cupy(driver=13010)) is None and launch.available()


@pytest.mark.parametrize(("value", "required"), [("1", True), ("yes", True), ("0", False), ("", False)])
def test_the_switch(monkeypatch, value, required):
    monkeypatch.setenv("KERNELVIZ_REQUIRE_GPU", value)
    assert launch.required() is required


def run(*argv, require):
    env = {k: v for k, v in os.environ.items() if k != "KERNELVIZ_REQUIRE_GPU"}
    if require:
        env["KERNELVIZ_REQUIRE_GPU"] = "1"
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.skipif(launch.available(), reason="a GPU path is here: the GPU tests run")
def test_without_a_gpu_path_the_gpu_tests_skip_and_under_the_switch_fail():
    pytest_argv = ["-m", "pytest", "tests/cuda/test_cuda_gpu.py", "-x", "-q", "-p", "no:cacheprovider", "-rs"]
    pytest_argv += ["-k", "tiles_too_big"]  # one test: collecting the file is what takes the time
    skipped = run(*pytest_argv, require=False)
    assert skipped.returncode == 0 and " skipped" in skipped.stdout and "no GPU path: " in skipped.stdout
    failed = run(*pytest_argv, require=True)
    assert failed.returncode == 1 and "KERNELVIZ_REQUIRE_GPU=1 and no GPU path: " in failed.stdout
    for bench, code, word in (
        (run("bench/gpu.py", require=False), 0, "skipped"),
        (run("bench/gpu.py", require=True), 1, "FAILED"),
    ):
        assert bench.returncode == code and bench.stdout.startswith(f"bench/gpu.py: {word}: "), bench.stdout
