"""The README's two commands set up what each needs: `make serve` neither installs nor needs Chromium (or root, or
the test tools); `make test` does set Chromium up. Checked on make's own plan (`make -n`, from a state with nothing
set up: -B), so nothing runs."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def plan(target):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    return subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_make_serve_needs_no_browser_no_root_and_no_test_tools():
    steps = plan("serve")
    assert "kernelviz serve" in steps and "node build.mjs" in steps
    for needless in ("chromium", "apt-get", "[dev]", "sudo"):
        assert needless not in steps, needless


def test_make_test_sets_up_chromium_and_the_test_tools():
    steps = plan("test")
    assert "chromium" in steps and "[dev]" in steps and "pytest" in steps
