"""bench/units.py, the microbenchmark that measures each unit's rate on a GPU, checked without one: its kernels
compile with nvcc for Ampere and Hopper with no spills, and the figure it compares mma.sync against is gpus.json's
rate per clock per SM (the FA3 paper's 2/3 of Hopper's 4096 FLOPs a clock)."""

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelviz.roofline import GPUS

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "units.py"
_spec = importlib.util.spec_from_file_location("bench_units", SCRIPT)
units = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(units)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("arch", [80, 90])
def test_the_unit_kernels_compile_with_no_spills(arch, tmp_path):
    cubin = units.compile_cubin(arch, tmp_path)
    assert cubin.stat().st_size > 0
    log = subprocess.run(
        ["nvcc", "-cubin", f"-arch=sm_{arch}", "-Xptxas", "-v", "-o", str(tmp_path / "v.cubin"), str(units.SOURCE)],
        capture_output=True, text=True, check=True,
    ).stderr  # fmt: skip
    functions = re.findall(r"Compiling entry function '(\w+)'", log)
    assert sorted(functions) == sorted(units.SASS)
    assert re.findall(r"(\d+) bytes spill stores", log) == ["0"] * len(units.SASS)


def test_the_source_and_the_script_agree_on_the_chains():
    assert re.search(r"#define CHAINS (\d+)", units.SOURCE.read_text()).group(1) == str(units.CHAINS)


def test_mma_sync_per_clock_is_the_tables_rate_over_sms_and_clock():
    h100 = GPUS["h100"]
    per_clock = units._mma_sync_per_clock(h100)
    assert per_clock == pytest.approx(h100.tensor_flops_per_s_by_instruction["mma.sync"] / (h100.sms * h100.clock_hz))
    assert per_clock == pytest.approx(2 / 3 * h100.tensor_flops_per_clock_per_sm, rel=0.02)  # the FA3 paper's 2/3
    assert units._mma_sync_per_clock(None) is None


MEASURED = SCRIPT.parent / "results" / "units.json"


@pytest.mark.skipif(not MEASURED.is_file(), reason="no bench/results/units.json (bench/units.py writes it on a GPU)")
def test_the_measured_unit_rates_reach_the_tables_figures():
    """The per-clock rates bench/units.py measured (at the clock the kernel read) are gpus.json's within 10 % below
    and 2 % above: the table's MUFU, shared-memory and mma.sync figures are what an SM of that GPU delivers."""
    results = json.loads(MEASURED.read_text())
    gpu = GPUS[results["gpu"]]
    listed = {"mma_sync": units._mma_sync_per_clock(gpu), "ex2": gpu.sfu_ops_per_clock_per_sm,
              "lds": gpu.shared_bytes_per_clock_per_sm}  # fmt: skip
    rows = {row["unit"]: row for row in results["rows"]}
    assert set(rows) == set(listed)
    for name, figure in listed.items():
        assert 0.90 * figure <= rows[name]["per_clock_per_sm"] <= 1.02 * figure, name
    # mma.sync stops well under the wgmma roof that cuBLAS's product approaches (the FA3 paper's point)
    assert rows["mma_sync"]["rate"] < 0.75 * gpu.tensor_flops_per_s
