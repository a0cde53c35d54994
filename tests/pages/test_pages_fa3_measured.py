"""The FA3 page's measured figures are the committed results' (bench/results/units.json and gpu.json, what
bench/units.py and bench/gpu.py wrote on an H200), recomputed here from the raw rows: a rerun of a benchmark that
changes a figure fails this until the page says the new one."""

import json
from pathlib import Path

import pytest

from kernelviz.roofline import GPUS

ROOT = Path(__file__).resolve().parents[2]
PAGE = " ".join((ROOT / "pages" / "flash-attention-3.md").read_text().split())  # one line: prose wraps anywhere
UNITS = ROOT / "bench" / "results" / "units.json"
GPU = ROOT / "bench" / "results" / "gpu.json"


@pytest.mark.skipif(not UNITS.is_file(), reason="no bench/results/units.json")
def test_the_unit_rates_the_page_quotes_are_the_measured_ones():
    rows = {row["unit"]: row for row in json.loads(UNITS.read_text())["rows"]}
    mma, ex2, lds = rows["mma_sync"], rows["ex2"], rows["lds"]
    assert f"delivered {mma['rate'] / 1e12:.0f} TFLOP/s" in PAGE
    assert f"{mma['per_clock_per_sm']:.0f} FLOPs a clock an SM" in PAGE
    assert f"{mma['per_clock_per_sm'] / mma['table_per_clock_per_sm']:.2f} of the paper's two" in PAGE
    assert f"{ex2['per_clock_per_sm']:.1f} results a clock an SM" in PAGE
    assert f"memory {lds['per_clock_per_sm']:.0f} bytes a clock" in PAGE


@pytest.mark.skipif(not GPU.is_file(), reason="no bench/results/gpu.json")
def test_the_kernel_rates_the_page_quotes_are_the_measured_ones():
    """TFLOP/s = 4 N N_kv d (batch × heads) / seconds, bench/gpu.py's own count, at N = 16384, d = 128, fp16."""
    runs = json.loads(GPU.read_text())["runs"]
    tflops = {r["kernel"]: 4 * r["N"] * r["N_kv"] * r["d"] * r["batch_heads"] / r["seconds"] / 1e12
              for r in runs if (r["N"], r["d"], r["dtype"]) == (16384, 128, "float16")}  # fmt: skip
    assert f"`fa2_mma.cu` {tflops['fa2_mma']:.0f} TFLOP/s" in PAGE
    assert f"`fa2_pipe.cu` {tflops['fa2_pipe']:.0f}," in PAGE
    assert f"the kernel of this page, {tflops['fa3']:.0f}," in PAGE
    share = tflops["fa3"] * 1e12 / GPUS["h200"].tensor_flops_per_s  # of the dense fp16 peak, to the nearest 5 %
    assert f"about {5 * round(share * 20)} % of the peak" in PAGE
