"""Fuzz: each sub-command, given arguments drawn from its own options and from values that are wrong in every way
we know (out of range, not numbers, folders for files, missing folders, non-UTF-8 files, unknown options), ends
with an exit status and at most a message: never an exception, never a traceback on stderr.

In-process and bounded: sizes are tiny or far beyond any memory (refused before allocating); what would run for
long or not return is stubbed: serve's server loop, verify's kernel runs and compile tables, the benchmarks."""

import contextlib
import io
import socket

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernelviz.cli import main

HUGE = str(2**40)
NUMBERS = ["0", "-1", "1", "3", HUGE, "1e3", "x", "", "99999999999999999999", "-0", "2.5"]


def places(root):
    """Paths that are wrong as inputs or outputs in each way, and a few that are right."""
    (root / "folder").mkdir(exist_ok=True)
    (root / "folder" / "note.txt").write_text("not written by kernelviz\n")
    (root / "pages").mkdir(exist_ok=True)
    (root / "pages" / "a.md").write_text("---\ntitle: A\n---\n\nHello.\n")
    (root / "latin1").mkdir(exist_ok=True)
    (root / "latin1" / "b.md").write_bytes(b"---\ntitle: caf\xe9\n---\n")
    (root / "good.py").write_text("pie.point(1, 2)\n")
    (root / "bad.py").write_bytes(b"x = 'caf\xe9'\n")
    (root / "empty.py").write_text("")
    (root / "file.txt").write_text("a file\n")
    names = ["folder", "pages", "latin1", "good.py", "bad.py", "empty.py", "file.txt", "missing", "missing/x.json"]
    return [str(root / n) for n in names] + ["", "-", "/", "out.json", "site", "/proc/kernelviz-nowhere/out"]


def grammar(paths):
    """{command: (positionals, {option: values})}; a flag's values are [None]."""
    sizes = {o: NUMBERS for o in ("--N", "--N-kv", "--d", "--Br", "--Bc", "--splits", "--batch-heads", "--seed")}
    sizes["--warps"] = NUMBERS
    flags = {"--causal": [None], "--json": [None], "--p-in-shared": [None]}
    site = {"--out": paths, "--web-dist": paths, "--strict": [None]}
    site |= {"--editor-seconds": NUMBERS + ["inf", "nan"], "--editor-memory-mb": NUMBERS}
    return {
        "trace": (
            ["standard", "fa1", "fa2", "flash-decoding", "fa2-mma", "paged-decoding", "fa3", "", "x"],
            {**sizes, **flags, "--dtype": ["float16", "bfloat16", "float64", ""], "--sram-budget": NUMBERS}
            | {"--save": paths}
            | {o: NUMBERS for o in ("--page-size", "--H-q", "--H-kv")}
            | {"--seq-lens": ["5,17,9", "1", "0", "3,,4", "", HUGE, f"1,{HUGE}"]},
        ),
        "run": (paths, {"--out": paths}),
        "build": ([], site),
        "serve": ([], {**site, "--port": NUMBERS + ["65536", "65535", "0"], "--host": ["::1", "nohost", ""]}),
        "verify": ([], {"--compile": [None], "--no-run": [None], "--backend": ["auto", "gpu", "cpu", "tpu", ""]}),
        "bench": (["nope", "site.py", "../x", "", "--", *NUMBERS], {"-h": [None]}),
    }


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    paths = places(root)
    return root, grammar(paths), paths


@pytest.fixture
def stubbed(monkeypatch, world):
    """What would not return, or would take minutes, replaced by something that returns at once."""
    import kernelviz.commands.bench as bench
    from kernelviz.cuda import compile, launch, nvrtc, verify
    from kernelviz.site import serve

    monkeypatch.setattr(serve, "serve", bind_only)
    monkeypatch.setattr(verify, "checks", lambda *a, **k: [])
    monkeypatch.setattr(compile, "compile_all", lambda *a, **k: {})
    monkeypatch.setattr(nvrtc, "build_all", lambda *a, **k: {})
    monkeypatch.setattr(launch, "problem", lambda: "no GPU (stubbed)")
    monkeypatch.setattr(bench, "BENCH", world[0] / "no-bench")
    monkeypatch.chdir(world[0])


def bind_only(pages, out, *, host, port, **options):
    """serve, less the build and the loop: only what binds the address (an OSError is the real one's exit 1)."""
    try:
        with socket.create_server((host, port)):
            return 0
    except OSError:
        return 1


def command_line(command, world):
    positionals, options = world[1][command]
    pair = st.sampled_from(sorted(options)).flatmap(
        lambda o: st.sampled_from(options[o]).map(lambda v: [o] if v is None else [o, v])
    )
    words = st.lists(st.sampled_from(positionals), min_size=1, max_size=2) if positionals else st.just([])
    required = st.just([])
    if command == "trace":  # --N and --d, mostly small, so that most lines get past argparse
        size = st.one_of(st.sampled_from(["1", "3", "5"]), st.sampled_from(NUMBERS))
        rows = st.sampled_from([["--N"], ["--seq-lens"]])  # the dense algorithms' size, or paged decoding's
        required = st.tuples(rows, size, size).map(lambda t: [*t[0], t[1], "--d", t[2]])
    if command in ("build", "serve"):  # always --pages: the default is the whole textbook, minutes to build
        required = st.sampled_from(world[2]).map(lambda pages: ["--pages", pages])
    stray = st.sampled_from([[], [], [], ["--bogus"]])
    parts = st.tuples(words, required, st.lists(pair, max_size=5), stray)
    return parts.map(lambda t: [command, *t[0], *t[1], *(w for p in t[2] for w in p), *t[3]])


@pytest.mark.parametrize("command", ["trace", "run", "build", "serve", "verify", "bench"])
def test_bad_arguments_end_in_a_message_not_a_traceback(command, world, stubbed):
    root = world[0]

    examples = 100 if command == "trace" else 40  # trace has the most options; its runs take milliseconds

    @settings(max_examples=examples, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(command_line(command, world))
    def check(argv):
        places(root)  # as they were: an earlier example may have written over one
        before = set(root.rglob("*"))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as e:
                status = e.code
        assert status in (0, 1, 2), (argv, status, err.getvalue())
        assert "Traceback" not in err.getvalue() + out.getvalue(), (argv, err.getvalue())
        if status == 2:
            assert err.getvalue().strip(), argv  # a refusal says why
        if command == "trace":  # it writes only the file --save names
            assert {str(p) for p in set(root.rglob("*")) - before} <= set(argv), argv

    check()
