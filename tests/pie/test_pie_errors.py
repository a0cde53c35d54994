"""Every kind of bad argument raises an error naming the function, the argument (or item, step, field)."""

import json

import pytest

from kernelviz import pie


@pytest.fixture(autouse=True)
def fresh():
    pie.clear()
    yield
    pie.clear()


def figure(n=3):
    return pie.diagram(json.dumps([{"x": i} for i in range(n)]), out="fig")


CASES = [
    # (call, error type, message)
    (
        lambda: pie.rectangle((0, 0), "abc", 1),
        TypeError,
        "pie.rectangle: w must be a number or a scalar node, got 'abc'",
    ),
    (lambda: pie.rectangle((0, 0), 1, -2), ValueError, "pie.rectangle: h must be at least 0, got -2"),
    (lambda: pie.rectangle((0, 0), True, 1), TypeError, "pie.rectangle: w must be a number or a scalar node, got True"),
    (lambda: pie.rectangle((0, 0), float("nan"), 1), TypeError, "pie.rectangle: w must be a number"),
    (lambda: pie.rectangle(5, 1, 1), TypeError, "pie.rectangle: corner must be a point node or an (x, y) pair, got 5"),
    (lambda: pie.rectangle((0, "y"), 1, 1), TypeError, "pie.rectangle: corner[1] must be a number"),
    (lambda: pie.rectangle(pie.scalar(1), 1, 1), TypeError, "pie.rectangle: corner must be a point node here"),
    (lambda: pie.rectangle((0, 0), pie.point(0, 0), 1), TypeError, "pie.rectangle: w must be a scalar node here"),
    (
        lambda: pie.rectangle((0, 0), pie.scalar("x"), 1),
        TypeError,
        "pie.rectangle: w must be a scalar node holding a number",
    ),
    (lambda: pie.rectangle((0, 0), 1, 1, fill="url(javascript:1)"), ValueError, "pie.rectangle: fill must be a color"),
    (lambda: pie.rectangle((0, 0), 1, 1, stroke=3), ValueError, "pie.rectangle: stroke must be a color"),
    (lambda: pie.point(0, 0, hidden="yes"), TypeError, "pie.point: hidden must be True or False, got 'yes'"),
    (lambda: pie.point(None, 0), TypeError, "pie.point: x must be a number or a scalar node, got None"),
    (lambda: pie.text(3, 0, 0), TypeError, "pie.text: label must be a string or a scalar node, got 3"),
    (lambda: pie.text("a", 0, 0, size=-1), ValueError, "pie.text: size must be at least 0"),
    (lambda: pie.scalar([1]), TypeError, "pie.scalar: value must be a number or a scalar node, got [1]"),
    (lambda: pie.scalar(1, out=""), ValueError, "pie.scalar: out must be a non-empty name"),
    (lambda: pie.show_canvas("top"), ValueError, "pie.show_canvas: side must be 'left' or 'right', got 'top'"),
    (lambda: pie.diagram("[{"), ValueError, "pie.diagram: items_json is not valid JSON"),
    (lambda: pie.diagram("[" * 100_000 + "]" * 100_000), ValueError, "pie.diagram: items_json nests too deep"),
    (lambda: pie.diagram('{"x": 1}'), TypeError, "pie.diagram: items_json must be a JSON array of items"),
    (lambda: pie.diagram("[3]"), TypeError, "pie.diagram: item 0 must be an object, got 3"),
    (lambda: pie.diagram('[{}, {"size": 3}]'), ValueError, "pie.diagram: item 1 has an unknown field 'size'"),
    (lambda: pie.diagram('[{"x": "1"}]'), TypeError, "pie.diagram: item 0.x must be a finite number, got '1'"),
    (lambda: pie.diagram('[{"font": -1}]'), TypeError, "pie.diagram: item 0.font must be a finite number >= 0"),
    (lambda: pie.diagram('[{"label": 5}]'), TypeError, "pie.diagram: item 0.label must be a string, got 5"),
    (lambda: pie.diagram('[{"line": 1}]'), TypeError, "pie.diagram: item 0.line must be True or False, got 1"),
    (lambda: pie.diagram('[{"fill": "<b>"}]'), ValueError, "pie.diagram: item 0.fill must be a color"),
    (
        lambda: pie.ui.step_list(pie.scalar(1), steps=[{"label": "a"}]),
        TypeError,
        "pie.ui.step_list: figure must be a diagram node",
    ),
    (lambda: pie.ui.step_list(figure(), steps=[]), TypeError, "pie.ui.step_list: steps must be a non-empty list"),
    (lambda: pie.ui.step_list(figure(), steps=[{"label": 1}]), TypeError, "pie.ui.step_list: step 0.label must be a"),
    (
        lambda: pie.ui.step_list(figure(), steps=[{"label": "a", "when": []}]),
        ValueError,
        "pie.ui.step_list: step 0 has unknown keys ['when']",
    ),
    (
        lambda: pie.ui.step_list(figure(), steps=[{"label": "a"}, {"label": "b", "move": [[3, {"x": 1}]]}]),
        ValueError,
        "pie.ui.step_list: step 1.move[0] names item 3, but the figure has items 0 to 2",
    ),
    (
        lambda: pie.ui.step_list(figure(), steps=[{"label": "a"}, {"label": "b", "end": [[0, {"z": 1}]]}]),
        ValueError,
        "pie.ui.step_list: step 1.end[0] (item 0) has an unknown field 'z'",
    ),
    (
        lambda: pie.ui.step_list(figure(), steps=[{"label": "a"}, {"label": "b", "start": [[0, {"x": "1"}]]}]),
        TypeError,
        "pie.ui.step_list: step 1.start[0] (item 0).x must be a finite number",
    ),
    (
        lambda: pie.ui.step_list(figure(), steps=[{"label": "a"}, {"label": "b", "start": [0]}]),
        TypeError,
        "pie.ui.step_list: step 1.start[0] must be [item index, {field: value}]",
    ),
    (
        lambda: pie.ui.step_list(figure(), steps=[{"label": "a"}, {"label": "b", "stagger": [[0, 2, 2]]}]),
        ValueError,
        "pie.ui.step_list: step 1.stagger[0] must be [item, n, count] with 0 <= n < count, got [0, 2, 2]",
    ),
    (
        lambda: pie.ui.step_list(figure(), steps=[{"label": "a"}, {"label": "b", "stagger": [[7, 0, 2]]}]),
        ValueError,
        "pie.ui.step_list: step 1.stagger[0] names item 7",
    ),
    (
        lambda: pie.point(10**400, 0),  # an int too large for a float: no OverflowError from deep inside
        ValueError,
        "pie.point: x must be between -1e+06 and 1e+06 (the most the figure can draw), got an integer of 401 digits",
    ),
    (lambda: pie.rectangle((0, 0), 1, -(10**400)), ValueError, "pie.rectangle: h must be at least 0, got an integer"),
    (lambda: pie.scalar(10**400), ValueError, "pie.scalar: value must be between -1e+06 and 1e+06"),
]


@pytest.mark.parametrize(("call", "error", "message"), CASES, ids=[c[2][:60] for c in CASES])
def test_bad_argument_is_named(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


KINDS = {
    "rectangle": "rectangle",
    "point": "point",
    "text": "text",
    "scalar": "scalar",
    "diagram": "diagram",
    "ui.step_list": "step_list",
    "show_canvas": None,
}


@pytest.mark.parametrize(("call", "message"), [(c[0], c[2]) for c in CASES], ids=[c[2][:60] for c in CASES])
def test_a_failed_call_adds_nothing_and_the_scene_stays_valid(call, message, validate_scene):
    kind = KINDS[message.split(":")[0].removeprefix("pie.")]
    count = lambda: sum(n["kind"] == kind for n in pie.scene()["nodes"])  # noqa: E731
    before = count()
    with pytest.raises((TypeError, ValueError)):
        call()
    assert count() == before
    validate_scene(pie.scene())
