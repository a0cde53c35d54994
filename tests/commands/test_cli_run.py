"""`kernelviz run`: the Scene on stdout, or the error with file and line on stderr and exit status 1."""

import json
import subprocess
import sys


def kernelviz(*args):
    return subprocess.run([sys.executable, "-m", "kernelviz.cli", *args], capture_output=True, text=True, check=False)


def test_run_prints_the_scene(tmp_path, validate_scene):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("corner = pie.point(1, 2, hidden=True)\nprint('hello')\n")
    b.write_text("pie.rectangle(corner, 3, 4, fill='#99f6e4')\n")
    out = kernelviz("run", str(a), str(b))
    assert out.returncode == 0, out.stderr
    scene = validate_scene(json.loads(out.stdout))
    assert [n["kind"] for n in scene["nodes"]] == ["point", "rectangle"]
    assert "hello" in out.stderr


def test_run_writes_the_scene_to_out(tmp_path):
    a, target = tmp_path / "a.py", tmp_path / "scene.json"
    a.write_text("pie.show_canvas('left')\n")
    out = kernelviz("run", str(a), "--out", str(target))
    assert out.returncode == 0 and json.loads(target.read_text())["canvas"]["side"] == "left"


def test_run_reports_file_and_line(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("\n\npie.point(x, 'up')\n")
    out = kernelviz("run", str(a), str(b))
    assert out.returncode == 1 and out.stdout == ""
    assert f"{b}:3: TypeError: pie.point: y must be a number or a scalar node, got 'up'" in out.stderr


def test_run_names_a_missing_file(tmp_path):
    out = kernelviz("run", str(tmp_path / "nope.py"))
    assert out.returncode == 2 and "nope.py" in out.stderr
