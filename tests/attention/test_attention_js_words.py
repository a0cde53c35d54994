"""web/.gen/words.js, which the roofline's words.js says bytes and times with, holds words.py's tables of units
(kernelviz.attention.js_words); tests/roofline/test_roofline_words.py holds what the two sides then print equal."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelviz.attention import js_words
from kernelviz.attention.words import BINARY_UNITS, TIME_UNITS, size

GEN = Path(__file__).resolve().parents[2] / "web" / ".gen" / "words.js"
NODE = shutil.which("node")


def test_the_generated_tables_are_words_py_s():
    if NODE is None or not GEN.exists():
        pytest.skip("node, or web/.gen/words.js (run `cd web && node build.mjs`), is missing")
    script = f"const w = await import({json.dumps(GEN.as_uri())}); console.log(JSON.stringify(w));"
    out = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got == {"BINARY_UNITS": list(BINARY_UNITS), "TIME_UNITS": [list(t) for t in TIME_UNITS]}


def test_a_changed_table_changes_the_generated_module_and_python_s_words(monkeypatch):
    """Planted: another unit of bytes is what both sides then say (size reads the same table)."""
    monkeypatch.setattr(js_words, "BINARY_UNITS", ("B", "kB"))
    assert 'export const BINARY_UNITS = ["B", "kB"];' in js_words.module_text()
    monkeypatch.setattr("kernelviz.attention.words.BINARY_UNITS", ("B", "kB"))
    assert size(2048) == "2.0 kB" and size(2**40) == f"{2**30:.1f} kB"
