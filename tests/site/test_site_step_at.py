"""site.step_at: a step's loop indices, and the values they give the declarations a CUDA block shows (computed by
the browser's code, web/src/page/cuda-code.js, which the builder runs in V8: site.cuda_render)."""

from kernelviz.cuda import regions
from kernelviz.site import cuda_code, cuda_render, step_at
from kernelviz.site.build import WEB_DIST
from kernelviz.site.extensions import cuda


def test_indices_come_from_at_else_from_the_label():
    assert step_at.indices({"label": "anything", "at": {"i": 0, "j": 1}}) == {"i": 0, "j": 1}
    assert step_at.indices({"label": "block 1 · j = 0 · fill Sij"}) == {"i": 1, "j": 0}
    assert step_at.indices({"label": "split 1 · j = 1 · load K3, V3"}) == {"s": 1, "j": 1}
    assert step_at.indices({"label": "tile 2 · new max"}) == {"i": 2}
    assert step_at.indices({"label": "setup · O = 0, l = 0, m = -inf in HBM"}) == {}  # values, not indices


def test_notes_put_the_indices_into_the_declarations_over_them():
    e = regions.excerpt("fa1.cu#scores")
    notes = step_at.notes(e.source, e.numbers, {"j": 1, "i": 1})
    flat = {note[1]: note[2:] for note in notes}
    assert {k: v for k, v in flat.items() if k != "masked"} == {
        "j": [],
        "col0": ["1*Bc", ["j"]],
        "i": [],
        "row0": ["1*Br", ["i"]],
    }
    # over noted names only: a candidate, noted where it has a value (a bool of the C above: never)
    assert flat["masked"] == ["col0 + c >= N_kv || (causal && col0 + c > row0 + r + shift)", ["col0", "row0"]]
    assert [n for n, *_ in notes] == sorted(n for n, *_ in notes)  # in the order of the lines


def opened(cite, at, sizes, runs=True):
    """The text of the block citing `cite` for a step with indices `at`, at `sizes`, as the page holds it."""
    e = regions.excerpt(cite)
    block = {"lines": cuda.shown(e), "region": [e.first, e.last], "notes": step_at.notes(e.source, e.numbers, at)}
    file = {"page": "x.html", "lines": cuda_code.tokens(e.source, e.filename, e.numbers)}
    return cuda_render.texts([{**block, "at": at, "host": {}, "runs": runs}], file, sizes, WEB_DIST)[0]


def test_the_values_are_computed_where_the_sizes_allow_and_carried_down():
    text = opened("fa1.cu#scores", {"j": 1, "i": 1}, {"Br": 4, "Bc": 4})
    assert text.startswith("// this step: j = 1, i = 1\n")
    assert "// col0 = 1*Bc = 4" in text and "// row0 = 1*Br = 4" in text and "// j = 1" in text
    assert "// masked" not in text
    without_sizes = opened("fa1.cu#scores", {"j": 1, "i": 0}, {})
    assert "// col0 = 1*Bc" in without_sizes and "// col0 = 1*Bc =" not in without_sizes
    carried = opened("flash_decoding.cu#split_load_kv", {"s": 1, "j": 1}, {"N": 16, "Bc": 4, "tiles_per_split": 1})
    assert "// n_start = 1*tiles_per_split*Bc = 4" in carried and "// col0 = n_start + 1*Bc = 8" in carried


def test_a_step_that_does_not_run_gets_no_values():
    """A step the figure does not have at the sizes shown: its block says so, and gives no values (#32)."""
    text = opened(
        "flash_decoding.cu#split_load_kv", {"s": 1, "j": 1}, {"N": 16, "Bc": 4, "tiles_per_split": 1}, runs=False
    )
    assert text.startswith("// this step: s = 1, j = 1 · this pass does not run at these sizes\n")
    assert "// col0 = n_start + 1*Bc  " in text and "= 8" not in text and "// j = 1" in text


def evaluate(expr, values):
    return cuda_render.evaluate(expr, values, WEB_DIST)


def test_evaluate_is_cs_integer_arithmetic_or_nothing():
    """The one evaluator (web/src/page/c-expr.js), as the builder runs it in V8."""
    assert evaluate("(N + Bc - 1)/Bc", {"N": 9, "Bc": 4}) == 3
    assert evaluate("min(Bc, N - col0)", {"Bc": 4, "N": 10, "col0": 8}) == 2
    assert evaluate("max(1, 2*Bc) % 5", {"Bc": 4}) == 3
    assert evaluate("-3 + 1*Br", {"Br": 4}) == 1
    assert evaluate("j*Bc", {"j": 1}) is None  # Bc unknown
    assert evaluate("causal ? a : b", {"causal": 1, "a": 1, "b": 2}) is None
    assert evaluate("__import__('os')", {}) is None
    assert evaluate("7/0", {}) is None and evaluate("-7/2", {}) is None  # C's division of negatives: not ours
    assert step_at.substitute("n_start + j*Bc", {"j": 1}) == "n_start + 1*Bc"
