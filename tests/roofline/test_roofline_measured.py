"""The results file bench/gpu.py writes is the one the site builder reads (kernelviz.roofline.measured), with the
machine named; without one, or with a file that is not one, the builder says so."""

import importlib.util
import json
from pathlib import Path

import pytest

from kernelviz.roofline import measured

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gpu.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_gpu", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # imports nothing of the GPU's until it runs
    return module


def test_the_bench_s_results_file_reads_back_as_the_builder_reads_it(bench, tmp_path, monkeypatch, capsys):
    runs = [
        {**bench.run_record("fa2", "float32", 16, 4096, 64), "seconds": 0.004},
        {**bench.run_record("flash_decoding", "float32", 32, 1, 128, n_kv=65536, splits=16), "seconds": 5e-4},
    ]
    path = tmp_path / "results" / "gpu.json"
    bench.write_results(path, "NVIDIA H200", runs)
    assert "2 runs" in capsys.readouterr().out
    monkeypatch.setenv("KERNELVIZ_GPU_RESULTS", str(path))
    results = measured.load()
    assert (results["machine"], results["gpu"]) == ("NVIDIA H200", "h200")
    fa2 = measured.runs(results, ["fa2", "standard"])
    assert [r["algorithm"] for r in fa2["runs"]] == ["fa2"]
    run = fa2["runs"][0]
    assert (run["N"], run["N_kv"], run["d"], run["batch_heads"], run["dtype"], run["seconds"]) == (
        4096,
        4096,
        64,
        16,
        "float32",
        0.004,
    )
    from kernelviz.cuda import kernels

    assert (run["Br"], run["Bc"]) == kernels.default_tiles("fa2", 64)  # the tiles the kernel ran with
    decode = measured.runs(results, ["flash-decoding"])["runs"][0]
    assert (decode["N"], decode["N_kv"], decode["splits"]) == (1, 65536, 16)


def test_a_machine_outside_the_table_is_named_without_a_gpu_key(bench):
    assert bench.gpu_key("NVIDIA A100-SXM4-80GB") == "a100"
    assert bench.gpu_key("NVIDIA GeForce RTX 4090") is None


def test_no_file_is_nothing_measured_and_a_bad_one_is_an_error_naming_it(tmp_path):
    assert measured.load(tmp_path / "none.json") is None
    assert measured.runs(None, ["fa2"]) is None
    bad = tmp_path / "gpu.json"
    bad.write_text(json.dumps({"runs": []}))
    with pytest.raises(ValueError, match=r"gpu\.json: expected \{'machine'"):
        measured.load(bad)
