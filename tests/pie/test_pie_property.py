"""pie never emits a Scene that fails the schema: random drawings, valid or not, leave a valid Scene."""

import contextlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kernelviz import pie

numbers = st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False), st.text(max_size=2), st.none())
colors = st.sampled_from(["none", "#123", "#1d4ed8", "teal", "rgb(1, 2, 3)", "<x>", "", "url(x)"])
item = st.dictionaries(
    st.sampled_from(["x", "y", "w", "h", "fill", "stroke", "label", "font", "wrap", "line", "color", "bogus"]),
    st.one_of(numbers, colors, st.booleans()),
    max_size=5,
)
calls = st.lists(
    st.one_of(
        st.tuples(st.just("scalar"), numbers),
        st.tuples(st.just("point"), numbers, numbers),
        st.tuples(st.just("rectangle"), numbers, numbers, colors),
        st.tuples(st.just("text"), st.one_of(st.text(max_size=5), numbers), numbers, colors),
        st.tuples(st.just("diagram"), st.lists(item, max_size=4)),
        st.tuples(st.just("steps"), st.lists(st.tuples(st.integers(-1, 5), item), max_size=3)),
    ),
    max_size=12,
)


def attempt(call, made):
    kind, *args = call
    if kind == "scalar":
        made.append(pie.scalar(args[0]))
    elif kind == "point":
        made.append(pie.point(args[0], args[1], hidden=False))
    elif kind == "rectangle":
        made.append(pie.rectangle(made[-1] if made else (0, 0), args[0], args[1], fill=args[2]))
    elif kind == "text":
        made.append(pie.text(args[0], args[1], 0, stroke=args[2]))
    elif kind == "diagram":
        made.append(pie.diagram(json.dumps(args[0]), out="figure"))
    else:
        figure = next((n for n in reversed(made) if n.kind == "diagram"), None)
        moves = [[i, fields] for i, fields in args[0]]
        pie.ui.step_list(figure, steps=[{"label": "start"}, {"label": "go", "move": moves}])


@settings(max_examples=150, deadline=None)
@given(calls)
def test_any_sequence_of_calls_leaves_a_valid_scene(validate_scene, sequence):
    pie.clear()
    made = []
    for call in sequence:
        with contextlib.suppress(TypeError, ValueError):
            attempt(call, made)
    validate_scene(json.loads(json.dumps(pie.scene(), allow_nan=False)))
