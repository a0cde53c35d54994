"""`kernelviz trace`: the table, --json against the closed forms, and --save checked independently."""

import io
import json
import tracemalloc

import numpy as np
import pytest

from kernelviz.attention import attention_fp64, formulas
from kernelviz.cli import main


def trace(capsys, *argv):
    status = main(["trace", *argv])
    return status, capsys.readouterr()


@pytest.mark.parametrize("algo", ["standard", "fa1", "fa2", "flash-decoding"])
def test_json_matches_the_closed_form(capsys, algo):
    argv = [algo, "--N", "50", "--N-kv", "70", "--d", "8", "--Br", "16", "--Bc", "32", "--causal", "--json"]
    status, out = trace(capsys, *argv, "--dtype", "float16", "--batch-heads", "2", "--splits", "2")
    assert status == 0
    report = json.loads(out.out)
    sizes = dict(N_kv=70, causal=True, itemsize=2, batch_heads=2)
    extra = {"n_splits": 2} if algo == "flash-decoding" else {}
    expected = {"standard": formulas.standard, "fa1": formulas.fa1, "fa2": formulas.fa2}.get(algo)
    expected = (expected or formulas.flash_decoding)(50, 8, 16, 32, **extra, **sizes)
    assert report["per_tensor"] == expected
    assert report["total_bytes"] == formulas.total(expected) and isinstance(report["total_bytes"], int)
    standard = formulas.total(formulas.standard(50, 8, 16, 32, **sizes))
    assert report["vs_standard"] == pytest.approx(report["total_bytes"] / standard)


def test_table(capsys):
    status, out = trace(capsys, "fa2", "--N", "128", "--d", "16")
    assert status == 0
    lines = out.out.splitlines()
    assert lines[0].startswith("fa2: N=128 N_kv=128 d=16")
    assert any(line.split()[:1] == ["K"] and "16,384" in line for line in lines)  # 2 blocks of Q: K read twice
    assert "vs standard attention" in out.out and "vs compulsory minimum" in out.out


@pytest.mark.parametrize("algo, has_lse", [("fa2", True), ("flash-decoding", False)])
def test_save_lets_anyone_check_the_result(tmp_path, capsys, algo, has_lse):
    path = tmp_path / "run.npz"
    status, _ = trace(capsys, algo, "--N", "40", "--d", "8", "--Br", "16", "--causal", "--save", str(path))
    assert status == 0
    saved = np.load(path)
    o_ref, lse_ref = attention_fp64(saved["q"], saved["k"], saved["v"], causal=True)
    assert np.abs(saved["o"] - o_ref).max() <= 1e-5 * np.abs(o_ref).max()
    assert ("lse" in saved) == has_lse
    if has_lse:
        np.testing.assert_allclose(saved["lse"], lse_ref, rtol=1e-5)


def test_errors_are_reported(capsys):
    status, out = trace(capsys, "flash-decoding", "--N", "10", "--d", "4", "--splits", "5")
    assert status == 2 and "n_splits:" in out.err
    status, out = trace(capsys, "fa2", "--N", "10", "--d", "4", "--sram-budget", "100")
    assert status == 2 and "SRAM" in out.err
    with pytest.raises(SystemExit):
        trace(capsys, "fa2", "--N", "0", "--d", "4")


def test_a_run_that_cannot_fit_is_refused_before_any_allocation(capsys, monkeypatch):
    from kernelviz.attention import footprint

    monkeypatch.setattr(footprint, "available", lambda: 16 * 2**30)
    tracemalloc.start()
    try:
        status, out = trace(capsys, "standard", "--N", "65536", "--d", "64")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status == 2 and peak < 2**20  # S and P alone would be 32 GiB
    assert "needs about 3" in out.err and "16.0 GiB is available" in out.err and "smaller --N" in out.err
    assert "Traceback" not in out.err


def test_a_negative_seed_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        trace(capsys, "fa2", "--N", "4", "--d", "4", "--seed", "-1")
    assert e.value.code == 2 and "--seed: '-1' is not a whole number >= 0" in capsys.readouterr().err


def test_save_writes_the_file_it_is_given_and_refuses_a_folder(capsys, tmp_path):
    status, _ = trace(capsys, "fa2", "--N", "4", "--d", "4", "--save", str(tmp_path / "arrays"))
    assert status == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["arrays"]  # no "arrays.npz" beside it
    assert set(np.load(tmp_path / "arrays")) == {"q", "k", "v", "o", "lse"}
    for bad, why in ((tmp_path, "is a folder"), (tmp_path / "no" / "x.npz", "does not exist")):
        with pytest.raises(SystemExit) as e:
            trace(capsys, "fa2", "--N", "4", "--d", "4", "--save", str(bad))
        assert e.value.code == 2 and why in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.parent.iterdir() if p.name.startswith(tmp_path.name)) == [tmp_path.name]


@pytest.mark.parametrize("algo", ["fa2-backward", "standard-backward"])
def test_a_backward_pass_meets_its_closed_form_against_the_standard_backward(capsys, algo):
    status, out = trace(capsys, algo, "--N", "8", "--d", "4", "--Br", "4", "--Bc", "4", "--json")
    assert status == 0
    report = json.loads(out.out)
    counts = {"fa2-backward": formulas.fa2_backward, "standard-backward": formulas.standard_backward}[algo]
    expected = counts(8, 4, 4, 4)
    assert report["per_tensor"] == expected and report["total_bytes"] == formulas.total(expected)
    assert set(expected) >= {"Q", "K", "V", "dO", "dQ", "dK", "dV"}
    assert report["standard_bytes"] == formulas.total(formulas.standard_backward(8, 4, 4, 4))
    assert report["compulsory_bytes"] == formulas.total(formulas.compulsory_backward(8, 4))
    status, out = trace(capsys, algo, "--N", "8", "--d", "4", "--Br", "4", "--Bc", "4")
    assert "vs the standard backward" in out.out


def test_save_of_a_backward_pass_lets_anyone_check_the_gradients(tmp_path, capsys):
    from kernelviz.attention import attention_backward_fp64

    path = tmp_path / "grads.npz"
    status, _ = trace(capsys, "fa2-backward", "--N", "20", "--N-kv", "13", "--d", "8", "--Br", "8", "--Bc", "4",
                      "--causal", "--save", str(path))  # fmt: skip
    assert status == 0
    saved = np.load(path)
    ref = attention_backward_fp64(saved["q"], saved["k"], saved["v"], saved["do"], causal=True)
    for name, r in zip(("dq", "dk", "dv"), ref, strict=True):
        assert np.abs(saved[name] - r).max() <= 1e-5 * np.abs(r).max(), name


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("stream, shown", [(Terminal(), True), (io.StringIO(), False)], ids=["terminal", "pipe"])
def test_a_long_trace_shows_the_bytes_moved_on_a_terminal(monkeypatch, stream, shown):
    """The bar counts the bytes the ledger records, up to the closed form's total (shown at once here: DELAY 0)."""
    from kernelviz import progress

    bars = []

    def kept(*args, **kwargs):
        bars.append(made(*args, **kwargs))
        return bars[-1]

    made = progress.bar
    monkeypatch.setattr(progress, "bar", kept)
    monkeypatch.setattr(progress, "DELAY", 0)
    monkeypatch.setattr("sys.stderr", stream)
    status = main(["trace", "fa2", "--N", "256", "--d", "16", "--Br", "32", "--Bc", "32", "--batch-heads", "2"])
    assert status == 0
    drawn = stream.getvalue()
    total = formulas.total(formulas.fa2(256, 16, 32, 32, batch_heads=2))
    (bar,) = bars
    if shown:
        assert bar.total == total and bar.n == total  # every byte the ledger recorded, and no more
        assert drawn.startswith("\rtrace fa2:") and f"/{total / 1000:.0f}k" in drawn and drawn.endswith("\r")
    else:
        assert drawn == ""
