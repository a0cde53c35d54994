"""`kernelviz trace` before long work: it counts the tile steps from the closed forms and refuses, exit 2, a run
past runs.WORK_LIMIT (saying how long it would take and what answers at once) unless --allow-long; it says on stderr
how long a run of seconds will take; and --warps past a block's 32 is refused."""

import pytest

from kernelviz.attention import formulas, runs
from kernelviz.cli import main


def trace(capsys, *argv):
    try:
        status = main(["trace", *map(str, argv)])
    except SystemExit as e:
        status = e.code
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return status, out


@pytest.mark.parametrize(
    "argv, steps",
    [
        (["fa2", "--N", "200000"], 3125**2),  # ceil(200000 / 64) blocks, as many tiles each
        (["fa2-backward", "--N", "100000"], 2 * 1563**2),  # its forward and its own
        (["fa2-mma", "--N", "100000", "--d", "256"], 1563**2),
        (["standard", "--N", "65536", "--causal"], 1024**2),  # standard skips nothing under the mask
    ],
)
def test_work_past_the_limit_is_refused_at_once_with_what_to_do(capsys, monkeypatch, argv, steps):
    def ran(*args, **kwargs):
        raise AssertionError("the run started")

    monkeypatch.setattr("kernelviz.attention.run", ran)
    monkeypatch.setattr("kernelviz.attention.footprint.available", lambda: 2**50)  # memory is not the reason here
    status, out = trace(capsys, *argv)
    assert status == 2 and out.out == ""
    assert f"kernelviz trace: error: {argv[0]} at N={argv[2]}" in out.err
    assert f"computes {steps:,} tile steps of 64x64" in out.err and f"past the {runs.WORK_LIMIT:,}" in out.err
    d = argv[argv.index("--d") + 1] if "--d" in argv else "64"
    roofline = f"kernelviz roofline --N {argv[2]} --d {d}" + (" --causal" if "--causal" in argv else "")
    assert f"{roofline} gives every algorithm's bytes and FLOPs" in out.err and "--allow-long" in out.err


def test_allow_long_runs_past_the_limit(capsys, monkeypatch):
    monkeypatch.setattr(runs, "WORK_LIMIT", 3)  # 16 steps: N = 16 in tiles of 4
    status, out = trace(capsys, "fa2", "--N", "16", "--d", "4", "--Br", "4", "--Bc", "4")
    assert status == 2 and "computes 16 tile steps of 4x4" in out.err and "past the 3 " in out.err
    status, out = trace(capsys, "fa2", "--N", "16", "--d", "4", "--Br", "4", "--Bc", "4", "--allow-long", "--json")
    assert status == 0 and '"total_bytes"' in out.out


def test_a_run_of_seconds_says_how_long_on_stderr(capsys, monkeypatch):
    monkeypatch.setattr("kernelviz.commands.trace.ESTIMATE_FROM", 0.0)
    status, out = trace(capsys, "fa2", "--N", "12", "--d", "4", "--Br", "4", "--Bc", "4", "--causal")
    steps = formulas.tile_interactions(12, 4, 4, causal=True)
    assert steps == 1 + 2 + 3  # the lower triangle of 3 x 3 tiles
    assert status == 0 and f"kernelviz trace: fa2 computes {steps} tile steps of 4x4: about 1 s" in out.err
    assert out.out.startswith("fa2: N=12")  # the report alone on stdout


def test_a_short_run_says_nothing_of_time(capsys):
    status, out = trace(capsys, "fa2", "--N", "64", "--d", "8")
    assert status == 0 and out.err == ""


@pytest.mark.parametrize("warps", [33, 1_000_000])
def test_warps_past_a_block_are_refused(capsys, warps):
    status, out = trace(capsys, "fa2-mma", "--N", "8", "--d", "4", "--warps", warps)
    assert status == 2 and f"argument --warps: {warps:,} warps do not make a block" in out.err
    assert "at most 32 warps (1024 threads)" in out.err
    with pytest.raises(ValueError, match="at most 32 warps"):
        runs.run("fa2-mma", N=8, d=4, Br=4, Bc=4, warps=warps)


def test_thirty_two_warps_make_a_block(capsys):
    status, out = trace(capsys, "fa2-mma", "--N", "64", "--d", "4", "--warps", 32, "--json")
    assert status == 0 and '"warps": 32' in out.out


def test_a_page_size_too_large_is_named_with_what_would_do(capsys, monkeypatch):
    """Pages of 10^8 tokens for sequences of 5 and 9: the pool is 2 pages of 10^8 rows, nearly all empty; the refusal
    says so of --page-size itself (not 'shorter --seq-lens, a smaller --d')."""
    monkeypatch.setattr("kernelviz.attention.footprint.available", lambda: 2**30)
    status, out = trace(capsys, "paged-decoding", "--seq-lens", "5,9", "--page-size", "100000000")
    assert status == 2 and out.err.startswith("kernelviz trace: error: --page-size 100,000,000: each sequence takes")
    assert "the longest has 9, so the pool is mostly empty rows" in out.err
    assert "use a --page-size of at most 9" in out.err and "--seq-lens, a smaller --d" not in out.err
    status, out = trace(capsys, "paged-decoding", "--seq-lens", "5,9", "--page-size", "8", "--json")
    assert status == 0  # pages of 8: 3 pages, 24 rows for 14 tokens
