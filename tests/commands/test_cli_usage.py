"""Bare `kernelviz` prints the help; `bench NAME -- ARGS` passes ARGS on; every command writing into a closed pipe
(`kernelviz run A.py | head`) stops quietly: status 141 (as if killed by SIGPIPE, like Unix tools), no traceback."""

import os
import subprocess
import sys

import pytest


def closed_pipe_run(*args):
    """Run `kernelviz ARGS` with stdout a pipe whose reading end is already closed: every write fails (EPIPE)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "kernelviz.cli", *args], stdout=write, stderr=subprocess.PIPE, text=True, timeout=120
        )
    finally:
        os.close(write)


def test_bare_kernelviz_prints_the_help_and_succeeds():
    done = subprocess.run([sys.executable, "-m", "kernelviz.cli"], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.startswith("usage: kernelviz") and "COMMAND" in done.stdout
    for name in ("serve", "build", "run", "trace", "verify", "bench"):
        assert f"    {name} " in done.stdout


@pytest.mark.parametrize(
    "args",
    [[], ["--help"], ["trace", "fa2", "--N", "64", "--d", "16"], ["trace", "fa2", "--N", "64", "--d", "16", "--json"]],
    ids=["bare", "help", "trace", "trace-json"],
)
def test_a_command_writing_into_a_closed_pipe_exits_quietly(args):
    done = closed_pipe_run(*args)
    # argparse swallows a failed write of the help itself (then the status is 0); anything else stops with 141
    assert done.returncode in ((0, 141) if args in ([], ["--help"]) else (141,)), done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def test_run_into_a_closed_pipe_exits_quietly(tmp_path):
    source = tmp_path / "a.py"
    source.write_text("for i in range(300):\n    pie.rectangle(pie.point(i, i, hidden=True), 3, 4)\n")
    done = closed_pipe_run("run", str(source), str(source))
    assert done.returncode == 141 and done.stderr == "", done.stderr


def test_bench_passes_what_follows_the_double_dash_to_the_benchmark():
    done = subprocess.run(
        [sys.executable, "-m", "kernelviz.cli", "bench", "attention", "--", "--N", "64", "96", "--d", "16"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split()[0] for line in done.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert rows == ["64", "96"] and "d=16" in done.stdout


def test_a_command_that_takes_nothing_after_the_double_dash_says_so():
    done = subprocess.run(
        [sys.executable, "-m", "kernelviz.cli", "trace", "fa2", "--N", "8", "--d", "4", "--", "x"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "trace takes nothing after --" in done.stderr
