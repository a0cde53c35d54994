"""The figure contract's fields in pie and the Scene schema: a step's key, at and caption; an item's kv; colours
named from the palette ("@q"). Each is checked by pie with an error naming the call and the argument, and the
Scene pie builds with them validates against scene.schema.json (the file the browser's validator is made from)."""

import json

import jsonschema
import pytest

from kernelviz import pie
from kernelviz.pie import palette
from kernelviz.pie.bounds import schema


def _figure(**item):
    pie.clear()
    return pie.diagram(json.dumps([{"w": 1, "h": 1, **item}, {"label": "HBM 0 B", "kv": "hbm-bytes"}]), out="f")


def test_steps_keep_key_at_and_caption_and_the_scene_validates():
    figure = _figure()
    steps = [
        {"label": "start", "caption": "Setup ready"},
        {"label": "load", "key": "load K,V i=0 j=1", "at": {"i": 0, "j": 1}, "caption": "[KV loop: 1] load K1, V1"},
    ]
    pie.ui.step_list(figure, steps=steps)
    scene = pie.scene()
    jsonschema.validate(scene, schema())
    out = scene["nodes"][-1]["steps"]
    expected = {"label": "load", "key": "load K,V i=0 j=1", "at": {"i": 0, "j": 1}, "caption": steps[1]["caption"]}
    assert out[1] == expected
    assert out[0] == {"label": "start", "caption": "Setup ready"}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("key", "write O[i]", "step 1.key must be a non-empty string without square brackets"),
        ("key", "", "step 1.key must be a non-empty string"),
        ("key", 3, "step 1.key must be a non-empty string"),
        ("at", {"i": "0"}, "step 1.at must be a dict of loop indices"),
        ("at", {"i": True}, "step 1.at must be a dict of loop indices"),
        ("at", [0, 1], "step 1.at must be a dict of loop indices"),
        ("caption", None, "step 1.caption must be a string"),
    ],
)
def test_bad_step_fields_are_refused_naming_the_step(field, value, message):
    figure = _figure()
    with pytest.raises((TypeError, ValueError), match=r"^pie\.ui\.step_list: " + message.replace(".", r"\.")):
        pie.ui.step_list(figure, steps=[{"label": "start"}, {"label": "x", field: value}])


def test_the_schema_refuses_what_pie_refuses():
    figure = _figure()
    pie.ui.step_list(figure, steps=[{"label": "start", "key": "ok"}])
    scene = pie.scene()
    scene["nodes"][-1]["steps"][0]["key"] = "write O[0]"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(scene, schema())
    scene["nodes"][-1]["steps"][0]["key"] = "write O i=0"
    scene["nodes"][-1]["steps"][0]["at"] = {"i": 0.5}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(scene, schema())


def test_kv_is_kept_only_where_given_and_checked():
    _figure()
    items = pie.scene()["nodes"][0]["items"]
    assert "kv" not in items[0] and items[1]["kv"] == "hbm-bytes"
    jsonschema.validate(pie.scene(), schema())
    with pytest.raises(TypeError, match=r"pie\.diagram: item 0\.kv must be a non-empty string, got ''"):
        _figure(kv="")
    with pytest.raises(ValueError, match=r"unknown field 'kvv'; the fields are .*, kv$"):
        _figure(kvv="x")


def test_palette_colours_are_accepted_everywhere_a_colour_goes():
    _figure(fill="@q-fill", stroke="@q", color="@ink")
    pie.rectangle((0, 0), 1, 1, fill="@k-fill", stroke="@k")
    pie.text("m", 0, 0, stroke="@m")
    scene = pie.scene()
    jsonschema.validate(scene, schema())
    assert scene["nodes"][0]["items"][0]["fill"] == "@q-fill"
    assert pie.rectangle((0, 0), 1, 1, fill="#ff0000")  # literal colours keep working


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pie.rectangle((0, 0), 1, 1, fill="@qq"), r"pie\.rectangle: fill is '@qq', .*did you mean @q"),
        (lambda: pie.text("a", 0, 0, stroke="@nothing-like-it"), r"pie\.text: stroke is '@nothing-like-it'.*it has "),
        (lambda: _figure(stroke="@kk"), r"pie\.diagram: item 0\.stroke is '@kk', which is not a colour of the palette"),
    ],
)
def test_unknown_palette_names_are_refused_naming_call_and_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_palette_file_is_well_formed_and_has_the_contract_names():
    for name in ("q", "k", "v", "o", "s", "stat", "m", "l", "ink", "edge", "stale", "o-1"):
        assert name in palette.PALETTE
    with pytest.raises(ValueError, match="'Q' is not a colour name"):
        palette.load('{"Q": {"light": "#000000", "dark": "#ffffff"}}')
    with pytest.raises(ValueError, match=r"q\.dark must be a lowercase #rrggbb colour"):
        palette.load('{"q": {"light": "#000000", "dark": "red"}}')
    with pytest.raises(ValueError, match="exactly the keys light and dark"):
        palette.load('{"q": {"light": "#000000"}}')
