"""site.step_at: a step's loop indices, and the values they give the declarations a CUDA block shows."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelviz.cuda import regions
from kernelviz.site import step_at


def test_indices_come_from_at_else_from_the_label():
    assert step_at.indices({"label": "anything", "at": {"i": 0, "j": 1}}) == {"i": 0, "j": 1}
    assert step_at.indices({"label": "block 1 · j = 0 · fill Sij"}) == {"i": 1, "j": 0}
    assert step_at.indices({"label": "split 1 · j = 1 · load K3, V3"}) == {"s": 1, "j": 1}
    assert step_at.indices({"label": "tile 2 · new max"}) == {"i": 2}
    assert step_at.indices({"label": "setup · O = 0, l = 0, m = -inf in HBM"}) == {}  # values, not indices


def test_notes_put_the_indices_into_the_declarations_and_compute_what_the_sizes_allow():
    e = regions.excerpt("fa1.cu#scores")
    notes = step_at.notes(e.source, e.numbers, {"j": 1, "i": 1}, {"Br": 4, "Bc": 4})
    flat = {name: (expr, value) for found in notes.values() for name, expr, value in found}
    assert flat == {"j": ("1", 1), "col0": ("1*Bc", 4), "i": ("1", 1), "row0": ("1*Br", 4)}
    without_sizes = step_at.notes(e.source, e.numbers, {"j": 1, "i": 0}, {})
    assert ("col0", "1*Bc", None) in [x for found in without_sizes.values() for x in found]


def test_evaluate_is_cs_integer_arithmetic_or_nothing():
    assert step_at.evaluate("(N + Bc - 1)/Bc", {"N": 9, "Bc": 4}) == 3
    assert step_at.evaluate("min(Bc, N - col0)", {"Bc": 4, "N": 10, "col0": 8}) == 2
    assert step_at.evaluate("j*Bc", {"j": 1}) is None  # Bc unknown
    assert step_at.evaluate("causal ? a : b", {"causal": 1, "a": 1, "b": 2}) is None
    assert step_at.evaluate("__import__('os')", {}) is None
    assert step_at.substitute("n_start + j*Bc", {"j": 1}) == "n_start + 1*Bc"


ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
CASES = [
    ("(N + Bc - 1)/Bc", {"N": 9, "Bc": 4}),
    ("min(Bc, N - col0)", {"Bc": 4, "N": 10, "col0": 8}),
    ("max(1, 2*Bc) % 5", {"Bc": 4}),
    ("-3 + 1*Br", {"Br": 4}),
    ("1*Bc", {}),
    ("n_start + 0*Bc", {"Bc": 4}),
    ("a ? b : c", {"a": 1, "b": 2, "c": 3}),
    ("7/0", {}),
]


@pytest.mark.skipif(NODE is None, reason="node is missing")
def test_the_browsers_evaluate_is_the_builders():
    """web/src/page/cuda-notes.js recomputes the notes when the sizes change: the same arithmetic as step_at."""
    script = (
        f"import {{ evaluate }} from '{ROOT / 'web/src/page/cuda-notes.js'}';"
        f"console.log(JSON.stringify({json.dumps(CASES)}.map(([e, v]) => evaluate(e, v))));"
    )
    done = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [step_at.evaluate(e, v) for e, v in CASES]
    assert [step_at.evaluate(e, v) for e, v in CASES][:4] == [3, 2, 3, 1]
