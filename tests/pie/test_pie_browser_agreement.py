"""One validation, both sides: every Scene pie accepts, the browser's own checker (web/src/figure/check.js, run in
the builder's embedded V8) accepts; and what the browser cannot draw, pie refuses, naming the call and argument.

The property test writes random pie programs: nodes named with `out=` from a small pool (so names are reused, by
the same kind and by others, the canvas settings among them), nodes that refer to earlier ones, and values at and
beyond the bounds (0, negatives, 1e308, infinities, NaN, strings where numbers go)."""

import contextlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernelviz import pie
from kernelviz.site import scenes
from kernelviz.site.build import WEB_DIST


def browser_problem(scene):
    return scenes.problem(json.loads(json.dumps(scene, allow_nan=False)), WEB_DIST)


NAMES = st.sampled_from([None, None, "a", "b", "figure", "unit", "gridOpacity", "canvasColor", "originX"])
EDGES = [0, -40, 0.05, 1, 50, 999, 1000.5, 1e6, -1e6, 1e7, 1e308, -1e308, float("inf"), float("nan"), 2**60]
NUMBERS = st.one_of(st.sampled_from(EDGES), st.floats(-2e6, 2e6, allow_nan=False), st.integers(-3, 3))
SCALARS = st.one_of(NUMBERS, st.sampled_from(["#fff", "teal", "nope", "", "x" * 20]))
COLORS = st.sampled_from(["none", "#1d4ed8", "teal", "@q", "@nope", "url(x)"])
ITEM = st.dictionaries(
    st.sampled_from(["x", "y", "w", "h", "font", "wrap", "fill", "label", "kv", "line"]),
    st.one_of(NUMBERS, COLORS, st.booleans(), st.text(max_size=3)),
    max_size=4,
)
STEP = st.fixed_dictionaries(
    {"label": st.text(max_size=4)},
    optional={
        "key": st.sampled_from(["load K i=0", "a[b]", ""]),
        "at": st.dictionaries(st.sampled_from("ij"), st.sampled_from([0, 1, -1, 10**12, 2**70])),
        "caption": st.text(max_size=4),
        "move": st.lists(st.tuples(st.integers(-1, 6), ITEM), max_size=2),
        "stagger": st.lists(
            st.tuples(st.integers(0, 6), st.integers(0, 3), st.sampled_from([1, 3, 10**7])), max_size=2
        ),
    },
)
REF = st.integers(0, 20)  # which earlier node (from the end), when there is one of the kind wanted
CALLS = st.lists(
    st.one_of(
        st.tuples(st.just("scalar"), SCALARS, NAMES),
        st.tuples(st.just("point"), NUMBERS, st.one_of(NUMBERS, REF), NAMES),
        st.tuples(st.just("text"), st.one_of(st.text(max_size=3), REF), NUMBERS, st.one_of(NUMBERS, REF), NAMES),
        st.tuples(st.just("rectangle"), st.one_of(REF, st.tuples(NUMBERS, NUMBERS)), st.one_of(NUMBERS, REF), NAMES),
        st.tuples(st.just("diagram"), st.lists(ITEM, max_size=5), NAMES),
        st.tuples(st.just("step_list"), REF, st.lists(STEP, min_size=1, max_size=3), NAMES),
        st.tuples(st.just("canvas"), st.sampled_from(["left", "right", "up"])),
    ),
    max_size=14,
)


def node(made, kind, k):
    """The k-th latest node of `kind` made so far (an int stands for a reference), else None."""
    of_kind = [n for n in made if n.kind == kind]
    return of_kind[-1 - k % len(of_kind)] if of_kind else None


def value(made, v, kind="scalar"):
    return (node(made, kind, v) or 0) if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 20 else v


def attempt(call, made):
    kind, *args = call
    if kind == "scalar":
        made.append(pie.scalar(args[0], out=args[1]))
    elif kind == "point":
        made.append(pie.point(args[0], value(made, args[1]), out=args[2]))
    elif kind == "text":
        made.append(pie.text(value(made, args[0]), args[1], 0, size=value(made, args[2]), out=args[3]))
    elif kind == "rectangle":
        corner = value(made, args[0], "point") if isinstance(args[0], int) else args[0]
        made.append(pie.rectangle(corner, value(made, args[1]), 1, out=args[2]))
    elif kind == "diagram":
        made.append(pie.diagram(json.dumps(args[0]), out=args[1]))
    elif kind == "step_list":
        steps = [dict(s, **{p: [list(e) for e in s[p]] for p in ("move", "stagger") if p in s}) for s in args[1]]
        made.append(pie.ui.step_list(node(made, "diagram", args[0]), steps=steps, out=args[2]))
    else:
        pie.show_canvas(args[0])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CALLS)
def test_every_scene_pie_accepts_the_browser_draws(calls):
    pie.clear()
    made = []
    for call in calls:
        with contextlib.suppress(TypeError, ValueError):  # pie's errors, each naming the call and the argument
            attempt(call, made)
    assert browser_problem(pie.scene()) is None


def scene_with_rect(w):
    pie.clear()
    pie.rectangle((0, 0), w, 1)


@pytest.mark.parametrize(
    "program, message",
    [
        (lambda: pie.scalar(0, out="unit"), "pie.scalar: the canvas setting 'unit' must be between 0.1 and 1000"),
        (lambda: pie.scalar(-40, out="unit"), "pie.scalar: the canvas setting 'unit' must be between 0.1 and 1000"),
        (lambda: pie.scalar(2, out="gridOpacity"), "the canvas setting 'gridOpacity' must be between 0 and 1"),
        (lambda: scene_with_rect(1e308), "pie.rectangle: w must be between -1e+06 and 1e+06"),
        (lambda: scene_with_rect(float("inf")), "pie.rectangle: w must be a number or a scalar node, got inf"),
        (lambda: pie.text("x", 0, 0, size=5000), "pie.text: size must be between 0 and 1000"),
        (lambda: pie.diagram([{"x": 1e9}]), "pie.diagram: item 0.x must be between -1e+06 and 1e+06"),
        (lambda: pie.diagram([{}] * 5001), "pie.diagram: items_json has 5,001 items; a diagram draws at most 5,000"),
        (lambda: pie.text("x" * 10001, 0, 0), "pie.text: label has 10,001 characters"),
    ],
)
def test_what_the_browser_cannot_draw_pie_refuses_naming_call_and_argument(program, message):
    pie.clear()
    with pytest.raises((TypeError, ValueError)) as info:
        program()
    assert message in str(info.value)


def test_a_name_reused_so_that_a_referrer_breaks_is_refused():
    pie.clear()
    w = pie.scalar(2, out="w")
    pie.rectangle((0, 0), w, 1)
    with pytest.raises(ValueError, match="pie.scalar: out='w' replaces the scalar that rectangle '_1' uses as its w"):
        pie.scalar("wide", out="w")
    size = pie.scalar(12, out="size")
    pie.text("t", 0, 0, size=size)
    with pytest.raises(ValueError, match="uses as its size, which needs a number between 0 and 1000; got 5000"):
        pie.scalar(5000, out="size")
    figure = pie.diagram([{}, {}, {}], out="figure")
    pie.ui.step_list(figure, steps=[{"label": "a", "end": [[2, {"fill": "teal"}]]}])
    with pytest.raises(ValueError, match="change items up to 2; the new one has 1 items"):
        pie.diagram([{}], out="figure")
    with pytest.raises(ValueError, match="out='w' names a scalar node; a point cannot replace it"):
        pie.point(0, 0, out="w")
    assert browser_problem(pie.scene()) is None
    pie.scalar(3, out="w")  # what the referrers can use is fine
    pie.diagram([{}, {}, {"x": 1}], out="figure")
    assert browser_problem(pie.scene()) is None


def test_the_browser_checker_refuses_what_pie_would_not_make():
    pie.clear()
    pie.rectangle((0, 0), 1, 1)
    good = pie.scene()
    assert browser_problem(good) is None
    assert "unit" in browser_problem(dict(good, settings=dict(good["settings"], unit=0)))
    assert "nodes" in browser_problem(dict(good, nodes=good["nodes"] * 5001))
    huge = dict(good["nodes"][0], w=1e308)
    assert browser_problem(dict(good, nodes=[huge])) is not None


EDGE_COLORS = ["none", "#abc", "#1d4ed8ff", "teal", "rgb(1, 2, 3)", "hsla(1,2%,3%,0.5)", "@q", "#ab", "#123456789"]
EDGE_COLORS += ["teal\n", " teal", "url(x)", "rgb(1;2)", "", "@Q", "te al", "red;", "<b>"]


@pytest.mark.parametrize("color", EDGE_COLORS)
def test_pie_and_the_browser_take_the_same_colours(color):
    """pie reads the colour pattern from the schema (bounds.COLOR): a colour is refused by both or by neither."""
    pie.clear()
    pie.rectangle((0, 0), 1, 1)
    scene = pie.scene()
    browser_ok = browser_problem(dict(scene, nodes=[dict(scene["nodes"][0], fill=color)])) is None
    pie.clear()
    try:
        pie.rectangle((0, 0), 1, 1, fill=color)
    except ValueError:
        pie_ok = False
    else:
        pie_ok = True
    assert pie_ok == browser_ok, (color, pie_ok, browser_ok)


@pytest.mark.parametrize("key", ["load K i=0", "a\nb", "a[0]", "x]", "é", "  "])
def test_pie_and_the_browser_take_the_same_step_keys(key):
    """A blank key pie refuses (it would name nothing) may pass the schema; every other key agrees."""
    pie.clear()
    figure = pie.diagram([{}])
    step = {"label": "s", "key": key}
    try:
        pie.ui.step_list(figure, steps=[step])
    except ValueError:
        pie_ok = False
    else:
        pie_ok = True
    pie.clear()
    figure = pie.diagram([{}])
    pie.ui.step_list(figure, steps=[{"label": "s", "key": "k"}])
    scene = pie.scene()
    node = scene["nodes"][-1]
    scene["nodes"][-1] = dict(node, steps=[dict(node["steps"][0], key=key)])
    browser_ok = browser_problem(scene) is None
    assert pie_ok == (browser_ok and bool(key.strip())), (key, pie_ok, browser_ok)
