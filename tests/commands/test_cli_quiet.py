"""The command line's manners: `python -m kernelviz`; Ctrl-C ends any command quietly with status 130; `run` says
when the editors drew nothing and names pie's API when a bare name of it fails; trace and roofline take --d and
--dtype alike."""

import json
import signal
import subprocess
import sys
import time

import pytest

from kernelviz.cli import main, parser


def kernelviz(*args, module="kernelviz"):
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, check=False)


def test_python_dash_m_kernelviz_is_the_command():
    out = kernelviz("--help")
    assert out.returncode == 0 and out.stdout.startswith("usage: kernelviz") and "roofline" in out.stdout


def test_ctrl_c_in_run_ends_quietly_with_130(tmp_path):
    started, editor = tmp_path / "started", tmp_path / "a.py"
    editor.write_text(f"open({str(started)!r}, 'w').close()\nwhile True:\n    pass\n")
    child = subprocess.Popen(
        [sys.executable, "-m", "kernelviz", "run", str(editor)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(600):  # the editor has started (at most a minute on a busy machine)
            if started.exists() or child.poll() is not None:
                break
            time.sleep(0.1)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130 and "Traceback" not in err and err.strip() == "" and out == ""


@pytest.mark.parametrize("command", ["run", "trace", "roofline", "build"])
def test_ctrl_c_in_any_command_is_130_without_a_traceback(capsys, monkeypatch, command):
    from kernelviz import cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli._module(command), "main", interrupted)
    argv = {"run": ["a.py"], "trace": ["fa2", "--N", "8"], "roofline": ["--N", "8"], "build": []}[command]
    assert main([command, *argv]) == 130
    assert capsys.readouterr().err == "\n"


def test_run_says_when_nothing_was_drawn(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("x = 1\nprint('computed', x)\n")
    out = kernelviz("run", str(a))
    assert out.returncode == 0 and json.loads(out.stdout)["nodes"] == []
    assert f"kernelviz run: {a} drew nothing (the Scene has no nodes)" in out.stderr and "computed 1" in out.stderr
    a.write_text("pie.point(0, 0)\n")
    assert "drew nothing" not in kernelviz("run", str(a)).stderr


def test_a_bare_name_of_pie_says_to_write_pie_dot(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("x = 2\nrectangle((0, 0), 1, 1)\n")
    out = kernelviz("run", str(a))
    assert out.returncode == 1
    assert f"{a}:2: NameError: name 'rectangle' is not defined (it is pie's: write pie.rectangle(...))" in out.stderr
    a.write_text("rectangl((0, 0), 1, 1)\n")  # not pie's: no such hint
    assert "it is pie's" not in kernelviz("run", str(a)).stderr


def test_run_help_names_the_api_and_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "pie.rectangle(...)" in text and "a bare rectangle(...) is a NameError" in text
    assert "Exit status: 0 when every file ran (an empty Scene, nothing drawn, is said on stderr), 1" in text
    assert "130 when interrupted" in text


def _option(command, dest):
    sub = next(a for a in parser()._actions if a.dest == "command").choices[command]
    return next(a for a in sub._actions if a.dest == dest)


def test_trace_and_roofline_take_d_and_dtype_alike(capsys):
    for dest in ("d", "dtype"):
        trace, roofline = _option("trace", dest), _option("roofline", dest)
        assert (trace.required, trace.choices and set(trace.choices)) == (
            roofline.required,
            roofline.choices and set(roofline.choices),
        )
    assert _option("trace", "d").default == _option("roofline", "d").default == 64
    assert main(["roofline", "--N", "128", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["d"] == 64
    assert main(["roofline", "--N", "128", "--dtype", "bfloat16", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["algorithms"]
    assert [row["algorithm"] for row in rows] == ["fa2-mma", "fa2-pipe", "fa3"]  # bfloat16: tensor cores only
