"""footprint.estimate bounds what a `kernelviz trace` run allocates, as tracemalloc measures it (numpy reports its
arrays to tracemalloc), and is not so loose that it refuses runs that would fit."""

import contextlib
import io
import math
import tracemalloc
from pathlib import Path

import pytest

from kernelviz.attention import footprint
from kernelviz.attention._inputs import itemsize
from kernelviz.cli import main

CASES = [  # algo, N, N_kv, d, batch*heads, Br, Bc, dtype: some where the ledger dominates, some the arrays
    ("standard", 300, 300, 16, 2, 16, 16, "float32"),
    ("standard", 64, 2000, 128, 1, 64, 64, "float16"),
    ("fa1", 300, 300, 16, 2, 16, 16, "float32"),
    ("fa1", 400, 400, 256, 1, 64, 64, "float32"),
    ("fa2", 300, 300, 16, 2, 16, 16, "float32"),
    ("fa2", 800, 800, 256, 2, 64, 64, "float32"),
    ("flash-decoding", 1, 5000, 16, 4, 1, 16, "float32"),
    ("flash-decoding", 4, 8000, 128, 2, 4, 64, "float16"),
    ("fa2-backward", 300, 300, 16, 2, 16, 16, "float32"),
    ("fa2-backward", 600, 400, 128, 1, 64, 64, "float16"),
    ("standard-backward", 300, 300, 16, 2, 16, 16, "float32"),
    ("standard-backward", 64, 2000, 128, 1, 64, 64, "float16"),
    ("fa2-mma", 300, 300, 16, 2, 16, 16, "float16"),
    ("fa2-mma", 800, 800, 256, 2, 64, 64, "bfloat16"),
]


def quiet_trace(*argv):
    with contextlib.redirect_stdout(io.StringIO()):
        return main(["trace", *argv])


@pytest.mark.parametrize(("algo", "n", "n_kv", "d", "bh", "br", "bc", "dtype"), CASES)
def test_the_estimate_bounds_the_measured_peak(algo, n, n_kv, d, bh, br, bc, dtype):
    assert quiet_trace(algo, "--N", "4", "--d", "2", "--Br", "4") == 0  # imports done before measuring
    argv = [algo, "--N", n, "--N-kv", n_kv, "--d", d, "--batch-heads", bh, "--Br", br, "--Bc", bc, "--dtype", dtype]
    tracemalloc.start()
    try:
        assert quiet_trace(*map(str, argv)) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    splits = min(4, math.ceil(n_kv / bc))
    estimate, parts = footprint.estimate(algo, n, n_kv, d, bh, br, bc, itemsize(dtype), splits)
    assert estimate == sum(parts.values())
    assert peak <= estimate <= 3 * peak + footprint.MARGIN, (peak, parts)


def test_standard_attention_at_64k_needs_its_two_64k_squared_matrices():
    estimate, parts = footprint.estimate("standard", 65536, 65536, 64)
    assert parts["S and P (N x N_kv each)"] >= 2 * 4 * 65536**2  # float32 S and P: 32 GiB
    assert footprint.estimate("fa2", 65536, 65536, 64)[0] < estimate / 20  # FA2 never stores them


def test_available_memory_is_the_least_the_system_and_the_cgroup_allow(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24000000 kB\nMemAvailable:   20000000 kB\n")
    cgroup = tmp_path / "cgroup"
    cgroup.mkdir()
    assert footprint.available(meminfo, cgroup) == 20000000 * 1024  # no cgroup files: MemAvailable alone
    (cgroup / "memory.max").write_text("max\n")
    assert footprint.available(meminfo, cgroup) == 20000000 * 1024
    (cgroup / "memory.max").write_text(f"{8 * 2**30}\n")
    (cgroup / "memory.current").write_text(f"{2**30}\n")
    assert footprint.available(meminfo, cgroup) == 7 * 2**30


def test_available_memory_is_what_this_system_reports():
    def mem_available():
        lines = Path("/proc/meminfo").read_text().splitlines()
        return int(dict(line.split(":", 1) for line in lines)["MemAvailable"].split()[0]) * 1024

    before = mem_available()
    have = footprint.available()
    after = mem_available()
    assert 0 < have <= max(before, after)  # memory comes and goes between the reads; never more than the system says
