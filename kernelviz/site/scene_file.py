"""The Scene a page opens with, as the file the page preloads (``scenes/SLUG.json``, figures.scene_file): packed.

A diagram's items each carry every field (the schema requires them), most at the same value (``w: 0``,
``fill: "none"``, ``label: ""``, ...): a third of a Scene's bytes. The file holds each diagram's most common values
once and its items without them::

    {"packedScene": 1, "defaults": {"DIAGRAM_ID": {"x": 0, "fill": "none", ...}}, "scene": SCENE, items stripped}

``unpack`` (and the runtime's twin, web/src/figure/page/packed-scene.js) restores the Scene exactly: each item is its
diagram's defaults overlaid with what it has. Anything else (a plain Scene) is returned as it is.
"""

from collections import Counter

MARK = "packedScene"


def pack(scene):
    """`scene` as the file's JSON value (see the module docstring)."""
    defaults, nodes = {}, []
    for node in scene.get("nodes", []):
        if node.get("kind") != "diagram" or not node.get("items"):
            nodes.append(node)
            continue
        common = {}
        for key in dict.fromkeys(k for item in node["items"] for k in item):
            if not all(key in item for item in node["items"]):  # an optional field (kv): a default would add it
                continue
            counted = Counter(_key(item[key]) for item in node["items"] if key in item and _plain(item[key]))
            if counted and (top := counted.most_common(1)[0])[1] > 1:
                common[key] = top[0][1]
        defaults[node["id"]] = common
        items = [{k: v for k, v in item.items() if not _same(common, k, v)} for item in node["items"]]
        nodes.append({**node, "items": items})
    return {MARK: 1, "defaults": defaults, "scene": {**scene, "nodes": nodes}}


def unpack(data):
    """The Scene of a file's JSON value `data`: packed (``pack``) or plain."""
    if not isinstance(data, dict) or data.get(MARK) != 1:
        return data
    defaults, scene = data["defaults"], data["scene"]

    def node(n):
        if n.get("kind") != "diagram" or n.get("id") not in defaults:
            return n
        return {**n, "items": [{**defaults[n["id"]], **item} for item in n["items"]]}

    return {**scene, "nodes": [node(n) for n in scene["nodes"]]}


def _same(common, key, value):
    """Whether `value` of an item's `key` is the diagram's default for it."""
    return key in common and _plain(value) and _key(value) == _key(common[key])


def _plain(value):
    """Whether `value` is a JSON string, number, boolean or null (a default is one of those: a ref is not)."""
    return isinstance(value, (str, int, float, bool, type(None)))


def _key(value):
    """A key for a plain JSON value that tells 0 from false and 1 from 1.0 (as JSON does): (type, value)."""
    return (type(value).__name__, value)
