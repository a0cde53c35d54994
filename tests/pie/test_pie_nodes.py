"""Nodes as arguments: the Scene keeps references, `out=` names and replaces, settings have defaults."""

import json

import pytest

from kernelviz import pie


@pytest.fixture(autouse=True)
def fresh():
    pie.clear()
    yield
    pie.clear()


def nodes(scene):
    return {n["id"]: n for n in scene["nodes"]}


def test_references_survive_serialization(validate_scene):
    w = pie.scalar(2.5, out="width")
    corner = pie.point(1, -1, out="corner")
    pie.rectangle(corner, w, 1, fill="#99f6e4")
    pie.text(w, corner and 0, 3)
    scene = validate_scene(json.loads(json.dumps(pie.scene())))
    by_id = nodes(scene)
    [rect] = [n for n in scene["nodes"] if n["kind"] == "rectangle"]
    assert rect["corner"] == {"ref": "corner"} and rect["w"] == {"ref": "width"}
    assert by_id[rect["corner"]["ref"]]["x"] == 1
    [label] = [n for n in scene["nodes"] if n["kind"] == "text"]
    assert label["label"] == {"ref": "width"}


def test_scalar_can_stand_for_a_point_coordinate():
    x = pie.scalar(3)
    p = pie.point(x, 4)
    assert nodes(pie.scene())[p.id]["x"] == {"ref": x.id}


def test_pair_is_a_position():
    pie.rectangle((1, 2), 3, 4)
    [rect] = pie.scene()["nodes"]
    assert rect["corner"] == [1, 2]


def test_out_replaces_earlier_node_in_place_and_references_follow():
    a = pie.scalar(1, out="a")
    pie.point(a, 0)
    pie.scalar(7, out="a")
    scene = pie.scene()
    assert [n["id"] for n in scene["nodes"]].count("a") == 1
    assert scene["nodes"][0] == {"id": "a", "kind": "scalar", "value": 7}
    assert scene["nodes"][1]["x"] == {"ref": "a"}


def test_out_cannot_change_a_nodes_kind():
    pie.scalar(1, out="a")
    with pytest.raises(ValueError, match=r"pie.point: out='a' names a scalar node; a point cannot replace it"):
        pie.point(0, 0, out="a")


def test_settings_default_until_a_node_of_their_name_sets_them():
    scene = pie.scene()
    assert scene["settings"] == pie.SETTINGS
    pie.scalar(50, out="unit")
    pie.scalar("#fafafa", out="canvasColor")
    settings = pie.scene()["settings"]
    assert settings["unit"] == {"ref": "unit"} and settings["canvasColor"] == {"ref": "canvasColor"}
    assert settings["originX"] == pie.SETTINGS["originX"]


@pytest.mark.parametrize(("name", "value"), [("unit", "big"), ("canvasColor", 3), ("originX", "#fff")])
def test_settings_hold_values_of_their_type(name, value):
    with pytest.raises((TypeError, ValueError), match=name if name == "canvasColor" or value != "big" else "unit"):
        pie.scalar(value, out=name)


def test_clear_forgets_everything():
    pie.show_canvas("left")
    pie.scalar(1, out="unit")
    pie.clear()
    scene = pie.scene()
    assert scene["nodes"] == [] and scene["canvas"]["side"] is None and scene["settings"] == pie.SETTINGS


def test_a_node_from_before_clear_is_refused():
    p = pie.point(0, 0)
    pie.clear()
    with pytest.raises(ValueError, match=r"pie.rectangle: corner refers to .* not in the scene"):
        pie.rectangle(p, 1, 1)


def test_step_list_keeps_steps_as_given():
    items = [{"x": 0, "y": 0, "w": 1, "h": 1}, {"x": 2, "y": 0, "w": 1, "h": 1, "label": "K0"}]
    figure = pie.diagram(json.dumps(items), out="fig")
    steps = [
        {"label": "start"},
        {"label": "move", "start": [[1, {"x": 5}]], "move": [[1, {"x": 0}]], "end": [], "stagger": [[0, 0, 2]]},
    ]
    pie.ui.step_list(figure, steps=steps)
    [diagram, step_list] = pie.scene()["nodes"]
    assert step_list["steps"] == steps
    assert diagram["items"][0]["label"] == "" and diagram["items"][1]["label"] == "K0"
    assert set(diagram["items"][0]) == set(pie.diagram.__globals__["ITEM_DEFAULTS"])
