"""The Scene file a page preloads, packed (kernelviz/site/scene_file.py): unpacked, the same Scene, on what a default
could be confused with (the real pages' Scenes: test_site_real_pages.py)."""

import json

from kernelviz.site import scene_file


def test_values_that_only_look_alike_stay_apart_and_refs_are_never_defaults():
    items = [
        {"x": 0, "line": False, "font": 12, "w": {"ref": "w"}},
        {"x": 0, "line": False, "font": 12.0, "w": {"ref": "w"}},
        {"x": False, "line": 0, "font": 12, "w": {"ref": "w"}},
        {"x": 0, "line": False, "font": 12, "w": 1},
    ]
    scene = {"version": 1, "nodes": [{"id": "d", "kind": "diagram", "items": items}, {"id": "s", "kind": "scalar"}]}
    packed = json.loads(json.dumps(scene_file.pack(scene)))
    assert packed["defaults"]["d"] == {"x": 0, "line": False, "font": 12}  # no ref among them
    back = scene_file.unpack(packed)
    assert json.dumps(back, sort_keys=True) == json.dumps(scene, sort_keys=True)  # 0 is not false, 12.0 not 12
    assert [type(i["x"]) for i in back["nodes"][0]["items"]] == [int, int, bool, int]
    assert scene_file.unpack(scene) is scene  # a plain Scene is read as it is


def test_an_optional_field_shared_by_some_items_is_not_made_a_default():
    """A timeline's bars share one kv ("timeline copies"); the items without kv must not get it back from unpack."""
    from kernelviz.site import scene_file

    items = [{"x": 0, "fill": "none"}, {"x": 0, "fill": "none", "kv": "timeline copies"},
             {"x": 1, "fill": "none", "kv": "timeline copies"}]  # fmt: skip
    scene = {"nodes": [{"id": "d", "kind": "diagram", "items": items}]}
    assert scene_file.unpack(scene_file.pack(scene)) == scene
