"""`kernelviz roofline` and `kernelviz trace --gpu`: the bound from the measured ledger and from the closed forms
agree, and the table reads."""

import json

import pytest

from kernelviz.attention import FLOP_FORMULAS, FORMULAS, formulas
from kernelviz.cli import main
from kernelviz.roofline import GPUS, bound


def run(capsys, *argv):
    status = main(list(argv))
    out = capsys.readouterr()
    assert status == 0, out.err
    return out.out


@pytest.mark.parametrize("algo", ["standard", "fa1", "fa2", "flash-decoding"])
def test_trace_gpu_bound_comes_from_the_measured_ledger(capsys, algo):
    argv = ["trace", algo, "--N", "40", "--N-kv", "56", "--d", "8", "--Br", "16", "--Bc", "16", "--causal"]
    report = json.loads(run(capsys, *argv, "--splits", "2", "--gpu", "h100", "--json"))
    roof = report["roofline"]
    assert roof["bytes"] == report["total_bytes"]
    assert roof["flops"] == sum(report["flops"].values())
    assert roof == json.loads(json.dumps(bound(report["total_bytes"], report["flops"], GPUS["h100"])))
    extra = {"n_splits": 2} if algo == "flash-decoding" else {}
    assert report["flops"] == FLOP_FORMULAS[algo](40, 8, 16, 16, N_kv=56, causal=True, **extra)


def test_trace_names_an_unknown_gpu(capsys):
    assert main(["trace", "fa2", "--N", "8", "--d", "4", "--gpu", "tpu"]) == 2
    assert "gpu: expected one of a100, h100, h200, b200, got 'tpu'" in capsys.readouterr().err


def test_trace_table_says_the_bound(capsys):
    out = run(capsys, "trace", "fa2", "--N", "64", "--d", "16", "--gpu", "a100")
    assert "FLOPs: " in out and "on a100:" in out and "bound by memory" in out


def test_roofline_json_covers_every_algorithm_and_gpu_at_a_realistic_size(capsys):
    report = json.loads(run(capsys, "roofline", "--N", "4096", "--d", "128", "--batch-heads", "32", "--json"))
    dense = [name for name in FORMULAS if name != "paged-decoding"]  # paged decoding's sizes are a batch, not N
    assert [row["algorithm"] for row in report["algorithms"]] == dense
    for row in report["algorithms"]:
        extra = {"n_splits": 4} if row["algorithm"] == "flash-decoding" else {}
        sizes = dict(N_kv=4096, causal=False, batch_heads=32, **extra)
        assert row["bytes"] == formulas.total(FORMULAS[row["algorithm"]](4096, 128, 64, 64, itemsize=2, **sizes))
        assert set(row["bounds"]) == set(GPUS)
    by_name = {row["algorithm"]: row for row in report["algorithms"]}
    assert by_name["fa2"]["bytes"] < by_name["standard"]["bytes"]  # the N x N matrices never reach HBM
    assert by_name["fa2-mma"]["bytes"] == by_name["fa2"]["bytes"]  # tensor cores move the same bytes
    fp32 = json.loads(run(capsys, "roofline", "--N", "64", "--d", "16", "--dtype", "float32", "--json"))
    assert "fa2-mma" not in [row["algorithm"] for row in fp32["algorithms"]]  # it takes 16-bit operands only


def test_decoding_is_memory_bound_on_every_gpu(capsys):
    """One query row against a long cache does ~1 FLOP per byte, far under every ridge point."""
    argv = ["roofline", "--N", "1", "--N-kv", "32768", "--d", "128", "--Br", "1", "--json"]
    report = json.loads(run(capsys, *argv))
    for row in report["algorithms"]:
        for point in row["bounds"].values():
            assert point["bound"] == "memory" and point["intensity"] < 2


def test_roofline_table(capsys):
    out = run(capsys, "roofline", "--N", "1024", "--d", "64", "--gpu", "h200")
    lines = out.splitlines()
    assert lines[0].startswith("roofline: N=1024 N_kv=1024 d=64")
    assert any(line.startswith("fa2") and "memory" in line for line in lines)
    assert "H200 SXM 141GB" in lines[1]


def test_trace_gpu_of_a_paged_batch_comes_from_its_ledger(capsys):
    """Paged decoding takes --gpu too (the roofline section of its page is checked against it)."""
    argv = ["trace", "paged-decoding", "--seq-lens", "5,17", "--page-size", "4", "--H-q", "4", "--H-kv", "2"]
    report = json.loads(run(capsys, *argv, "--splits", "2", "--d", "8", "--gpu", "h200", "--json"))
    assert report["roofline"] == json.loads(json.dumps(bound(report["total_bytes"], report["flops"], GPUS["h200"])))
    assert report["flops"] == FLOP_FORMULAS["paged-decoding"]([5, 17], 8, 4, 4, 2, n_splits=2)
    assert "on h200:" in run(capsys, *argv, "--d", "8", "--gpu", "h200")
    assert main([*argv, "--gpu", "tpu"]) == 2
    assert "got 'tpu'" in capsys.readouterr().err


def test_roofline_answers_at_a_billion_rows_from_the_closed_forms(capsys, monkeypatch):
    """N = 1e9 (scientific notation reads as the whole number): nothing walks the tiles (tiles_visited would raise),
    and fa2's FLOPs are the textbook 4 N^2 d, its bytes the closed form's in fp16."""

    def walked(*args, **kwargs):
        raise AssertionError("the roofline walked the tiles")

    monkeypatch.setattr(formulas, "tiles_visited", walked)
    report = json.loads(run(capsys, "roofline", "--N", "1e9", "--d", "64", "--gpu", "h100", "--json"))
    N = 10**9
    assert report["params"]["N"] == N
    fa2 = next(row for row in report["algorithms"] if row["algorithm"] == "fa2")
    assert fa2["flops"]["matmul"] == 4 * N * N * 64
    assert fa2["bytes"] == formulas.total(formulas.fa2(N, 64, 64, 64, itemsize=2))
    text = run(capsys, "roofline", "--N", "1e9", "--d", "64", "--gpu", "h100")
    assert "3.5 EiB" in text and "days" in text  # K, V read N / 64 times: 4e18 B = 3.47 EiB


@pytest.mark.parametrize("bad", ["1.5", "1e-3", "0", "-2", "inf", "nan", "1e400", "ten"])
def test_sizes_refuse_what_is_not_a_whole_number(capsys, bad):
    with pytest.raises(SystemExit) as e:
        main(["roofline", "--N", bad, "--d", "64"])
    assert e.value.code == 2 and f"argument --N: invalid positive integer value: '{bad}'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("dtype", "want"),
    [
        ("float32", ["standard", "fa1", "fa2", "flash-decoding", "fa2-backward", "standard-backward"]),
        ("bfloat16", ["fa2-mma", "fa2-pipe", "fa3"]),  # tensor cores' 16-bit operands
    ],
)
def test_roofline_rows_are_the_algorithms_on_q_k_v_that_take_the_storage(capsys, dtype, want):
    """The rows come from the records (their inputs and dtypes), not from a list of names: in float32 every
    tensor-core algorithm is left out (fa2-pipe and fa3 as well as fa2-mma), and paged decoding (a batch, not N)
    always is."""
    report = json.loads(run(capsys, "roofline", "--N", "64", "--d", "16", "--dtype", dtype, "--json"))
    assert [row["algorithm"] for row in report["algorithms"]] == want
