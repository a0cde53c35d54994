"""`kernelviz trace paged-decoding`: --json against the closed form, the table, --save checked independently, and
the options that do not go with it refused."""

import json

import numpy as np
import pytest
from test_attention_paged import reference

from kernelviz.attention import formulas
from kernelviz.cli import main


def trace(capsys, *argv):
    status = main(["trace", "paged-decoding", *argv])
    return status, capsys.readouterr()


@pytest.mark.parametrize("splits", ["1", "3"])
def test_json_matches_the_closed_form(capsys, splits):
    argv = ["--seq-lens", "5,17,9", "--page-size", "4", "--H-q", "8", "--H-kv", "2", "--d", "16", "--json"]
    status, out = trace(capsys, *argv, "--splits", splits, "--dtype", "float16")
    assert status == 0
    report = json.loads(out.out)
    expected = formulas.paged_decoding([5, 17, 9], 16, 4, 8, 2, int(splits), itemsize=2)
    assert report["per_tensor"] == expected
    assert report["total_bytes"] == formulas.total(expected)
    mha = formulas.total(formulas.paged_decoding([5, 17, 9], 16, 4, 8, 8, int(splits), itemsize=2))
    assert report["mha_bytes"] == mha and report["vs_mha"] == pytest.approx(report["total_bytes"] / mha)
    assert report["params"]["g"] == 4 and report["params"]["pages"] == 2 + 5 + 3


def test_table(capsys):
    status, out = trace(capsys, "--seq-lens", "33", "--page-size", "16", "--H-q", "4", "--H-kv", "1", "--d", "8")
    assert status == 0
    lines = out.out.splitlines()
    assert lines[0].startswith("paged-decoding: seq_lens=33 page_size=16 H_q=4 H_kv=1 (g=4)")
    assert any(line.split()[:2] == ["K", "1,056"] for line in lines)  # 33 tokens x 8 x 4 B, once for 4 heads
    assert "fewer bytes than multi-head attention" in out.out


def test_save_lets_anyone_check_the_result(tmp_path, capsys):
    path = tmp_path / "run.npz"
    status, _ = trace(capsys, "--seq-lens", "3,20", "--page-size", "8", "--H-q", "4", "--H-kv", "2", "--d", "8",
                      "--splits", "2", "--save", str(path))  # fmt: skip
    assert status == 0
    saved = np.load(path)
    ref = reference(saved["q"], saved["k_pages"], saved["v_pages"], saved["block_table"], saved["seq_lens"])
    assert np.abs(saved["o"] - ref).max() <= 1e-5 * np.abs(ref).max()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--d", "8"], "paged-decoding needs --seq-lens"),
        (["--seq-lens", "4", "--d", "8", "--N", "4"], "takes --seq-lens, not --N"),
        (["--seq-lens", "4", "--d", "8", "--H-q", "6", "--H-kv", "4"], "--H-q 6 is not a multiple of --H-kv 4"),
        (["--seq-lens", "40", "--d", "64", "--sram-budget", "100"], "decode: a block needs"),
    ],
)
def test_errors_are_reported(capsys, argv, message):
    status, out = trace(capsys, *argv)
    assert status == 2 and message in out.err and "Traceback" not in out.err


def test_dense_algorithms_refuse_paged_options_and_need_n(capsys):
    assert main(["trace", "fa2", "--d", "4"]) == 2
    assert "fa2 needs --N" in capsys.readouterr().err
    assert main(["trace", "fa2", "--N", "4", "--d", "4", "--seq-lens", "3"]) == 2
    assert "paged-decoding options" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        trace(capsys, "--seq-lens", "5,0", "--d", "4")
