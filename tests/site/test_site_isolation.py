"""Editors run isolated at build time (kernelviz.site.isolated): whatever a page's code does, the build finishes,
names the editor and line, fails --strict, and the page says why where its figure would be."""

import json
import os
import re
import subprocess
import sys
import time

import pytest

from kernelviz.runner import OUTPUT_LIMIT, Source
from kernelviz.site import isolated
from kernelviz.site.diagnostics import BuildError
from kernelviz.site.isolated import Job, Limits, run_batches, run_isolated

FAST = Limits(seconds=1.5, memory_mb=1024)


def page_with(code):
    body = f'```pie title="Helpers"\nx = 1\n```\n\n```pie title="Kernel"\npie.show_canvas(\'right\')\n{code}\n```\n'
    return f"---\ntitle: P\n---\n{body}"


def failure_of(out):
    """The message the page embeds in place of its Scene (None when it embeds a Scene)."""
    text = (out / "p.html").read_text()
    m = re.search(r'<script type="application/json" id="kv-scene-error">(.*?)</script>', text, re.S)
    assert (m is None) == ('id="kv-scene"' in text)
    return None if m is None else json.loads(m.group(1))


@pytest.mark.parametrize(
    "code, expected",
    [
        ("raise ValueError('bad tile')", "editor 2 (Kernel) failed: ValueError: bad tile"),
        ("while True:\n    pass", "editor 2 (Kernel) failed: EditorTimeout: the editors ran past the time limit"),
        ("raise KeyboardInterrupt", "editor 2 (Kernel) failed: KeyboardInterrupt"),
        ("a = bytearray(8 << 30)", "editor 2 (Kernel) failed: MemoryError: "),
    ],
    ids=["raises", "loops", "interrupt", "memory"],
)
def test_a_failing_editor_is_a_warning_at_its_line_and_the_page_says_so(build_site, tmp_path, code, expected, line):
    source = page_with(code)
    result, out = build_site({"p.md": source}, limits=FAST)
    (w,) = result.warnings
    assert w.line == line(source, code.splitlines()[0]) and w.message.startswith(expected), str(w)
    assert expected in failure_of(out) and "p.md" in failure_of(out)
    with pytest.raises(BuildError, match=re.escape(expected)):
        build_site({"p.md": source}, strict=True, out=tmp_path / "strict", limits=FAST)


def test_an_editor_that_ends_the_process_is_reported_and_the_build_goes_on(build_site, line):
    source = page_with("import os\nos._exit(0)")
    result, out = build_site({"p.md": source, "q.md": "---\ntitle: Q\n---\nfine\n"}, limits=FAST)
    (w,) = result.warnings
    assert w.line == line(source, "pie.show_canvas('right')")  # no line of its own: the first of the editor's
    assert "editor 2 (Kernel) failed: the process running the editors exited with status 0" in w.message
    assert "exited with status 0" in failure_of(out)
    assert (out / "q.html").exists()


def test_an_editor_that_ignores_its_alarm_is_killed_after_the_grace(monkeypatch):
    monkeypatch.setattr(isolated, "GRACE", 0.5)
    code = "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True: pass"
    started = time.monotonic()
    stuck, after = run_batches([[Job([code]), Job(["pie.scalar(2, out='b')"])]], Limits(seconds=0.5))[0]
    assert time.monotonic() - started < 10
    assert stuck.error.editor == 0 and "did not stop when interrupted" in stuck.error.message
    assert after.ok and after.scene["nodes"][0]["value"] == 2  # the batch goes on in a fresh child


def test_huge_output_is_cut_with_a_note():
    result = run_isolated([Source("print('x' * 3_000_000)")], FAST)
    assert result.ok
    assert len(result.stdout) < OUTPUT_LIMIT + 200 and result.stdout.startswith("x" * 1000)
    assert "output cut: 2,800,001 more characters not shown" in result.stdout
    assert len(result.outputs[0]) < OUTPUT_LIMIT + 200


def test_a_batch_runs_its_jobs_in_order_each_from_a_cleared_scene():
    jobs = [Job([f"pie.scalar({k}, out='a{k}')"]) for k in range(3)]
    (results,) = run_batches([jobs])
    assert [[n["id"] for n in r.scene["nodes"]] for r in results] == [["a0"], ["a1"], ["a2"]]


@pytest.mark.parametrize("bad", [dict(seconds=0), dict(seconds=float("nan")), dict(memory_mb=1)])
def test_limits_are_checked(bad):
    with pytest.raises(ValueError, match="editor (time|memory) limit"):
        Limits(**bad)


def test_a_memory_limit_out_of_range_states_both_bounds(capsys):
    from kernelviz import cli

    with pytest.raises(SystemExit) as stopped:
        cli.main(["build", "--editor-memory-mb", "99999999999"])
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert "--editor-memory-mb" in said and "expected 64 to 1073741824 MB" in said and "99999999999" in said


def test_a_scene_the_browser_would_refuse_is_a_warning_and_the_page_says_why(build_site, tmp_path):
    source = page_with(
        "scene = pie.scene\npie.scene = lambda: dict(scene(), settings=dict(scene()['settings'], unit=0))"
    )
    result, out = build_site({"p.md": source})
    (w,) = result.warnings
    assert "the browser cannot draw the Scene the editors made: scene.settings.unit must be >= 0.1" in w.message
    assert "scene.settings.unit must be >= 0.1" in failure_of(out)
    with pytest.raises(BuildError, match="the browser cannot draw"):
        build_site({"p.md": source}, strict=True, out=tmp_path / "strict")


def test_an_interrupted_build_leaves_no_child_running(monkeypatch):
    started = []
    real_start = isolated._Child._start

    def start(self, jobs):
        real_start(self, jobs)
        started.append(self.process)

    def interrupted(self):
        raise KeyboardInterrupt  # Ctrl-C while the builder waits for the first child

    monkeypatch.setattr(isolated._Child, "_start", start)
    monkeypatch.setattr(isolated._Child, "collect", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_batches([[Job(["while True: pass"])], [Job(["while True: pass"])]], FAST)
    assert len(started) == 2 and all(p.poll() is not None for p in started)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie has ended
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_process_an_editor_forks_cannot_write_a_result_nor_outlive_the_limit(tmp_path):
    pid_file = tmp_path / "pid"
    fork = f"""
import os, time
pid = os.fork()
if pid == 0:
    time.sleep(0.3)
    for fd in range(3, 64):  # a late write, to every descriptor it may hold (the results pipe among them)
        try:
            os.write(fd, b'{{"scene": null}}\\n')
        except OSError:
            pass
    time.sleep(60)
    os._exit(0)
open({str(pid_file)!r}, "w").write(str(pid))
pie.scalar(1, out='a')
"""
    started = time.monotonic()
    first, second = run_batches([[Job([fork]), Job(["import time\ntime.sleep(0.8)\npie.scalar(2, out='b')"])]], FAST)[0]
    assert first.ok and second.ok and second.scene["nodes"][0]["value"] == 2  # no stray line taken for a result
    forked = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while alive(forked) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(forked), "the forked process outlived its batch"
    assert time.monotonic() - started < 15


def test_an_editor_that_signals_its_parent_does_not_stop_the_builder(tmp_path):
    """The editors' parent is a guard: SIGTERM (or SIGINT, SIGHUP) sent to it reaches neither the builder (this
    test's process would end) nor the run, which finishes."""
    code = "import os, signal\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):\n    os.kill(os.getppid(), s)"
    result = run_isolated([Source(code + "\npie.scalar(3, out='c')")], FAST)
    assert result.ok and result.scene["nodes"][0]["value"] == 3
    killed = run_isolated([Source("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\npie.scalar(4, out='d')")])
    assert killed.ok  # the guard cannot ignore SIGKILL; the child still answers


def test_a_process_that_dies_names_the_editor_it_died_in():
    sources = [Source("x = 1", "helpers"), Source("y = 2", "kernel"), Source("import os\nos._exit(3)", "third")]
    (result,) = run_batches([[Job(sources)]], FAST)[0]
    assert result.error.editor == 2 and result.error.line is None
    assert "exited with status 3" in result.error.message


ESCAPES = {  # an editor's ways of leaving the group; each writes the pid of a process that sleeps 120 s
    "new session": """
import subprocess, sys
p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], start_new_session=True)
open({pid_file!r}, 'w').write(str(p.pid))
""",
    "daemon": """
import os, signal, time
if os.fork() == 0:  # the classic daemon: setsid, fork again, the middle process ends
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGALRM, signal.SIG_IGN)  # deaf to the alarm a forked process gets
        open({pid_file!r}, 'w').write(str(os.getpid()))
        time.sleep(120)
    os._exit(0)
time.sleep(0.5)
""",
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a subreaper is Linux's (elsewhere: the group only)")
@pytest.mark.parametrize("how", ESCAPES)
def test_a_process_that_leaves_the_group_does_not_outlive_the_build(tmp_path, how):
    """A process an editor starts in a session of its own is not in the group the builder kills; before the guard
    became its subreaper it lived on after the build (a sleep of 120 s: it would still be running). Now it ends
    with its batch; the test waits for that up to 10 s."""
    pid_file = tmp_path / "pid"
    code = ESCAPES[how].format(pid_file=str(pid_file)) + "pie.scalar(1, out='a')"
    result = run_isolated([Source(code)], FAST)
    assert result.ok, result.error
    escaped = int(pid_file.read_text())
    try:
        deadline = time.monotonic() + 10
        while alive(escaped) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(escaped), f"the {how} process outlived its batch"
    finally:
        if alive(escaped):
            os.kill(escaped, 9)


def test_descendants_follow_the_parent_chain():
    """descendants reads /proc: this process's child and grandchild, and nothing of another tree."""
    if not os.path.isdir("/proc"):
        assert isolated.descendants(os.getpid()) == []
        return
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', "
            "'import time; time.sleep(60)']); time.sleep(60)",
        ]
    )
    try:
        deadline = time.monotonic() + 20
        while len(isolated.descendants(child.pid)) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        (grandchild,) = isolated.descendants(child.pid)
        assert set(isolated.descendants(os.getpid())) >= {child.pid, grandchild}
        assert isolated.kill_descendants(child.pid) and not alive(grandchild)
    finally:
        child.kill()
        child.wait()
