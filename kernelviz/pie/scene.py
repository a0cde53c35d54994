"""The Scene: the one document pie builds and the browser draws.

A Scene is JSON::

    {"version": 1,
     "canvas": {"side": "left" | "right" | null},
     "settings": {"unit": Value, "gridOpacity": Value, "canvasColor": Value, "originX": Value, "originY": Value},
     "nodes": [{"id": str, "kind": str, ...}, ...]}

where a Value is a literal or ``{"ref": id}``, a reference to a node that the renderer resolves, so that a
dependent follows when the node it names changes. ``scene.schema.json`` beside this file is the contract
(``bounds.schema`` reads it); ``SETTINGS`` below holds the defaults of the canvas settings.
"""

import json

from . import reuse

VERSION = 1

SETTINGS = {
    "unit": 40,  # pixels per canvas unit
    "gridOpacity": 0.25,  # 0 hides the grid
    "canvasColor": "#ffffff",
    "originX": 0,  # where the canvas origin sits, in pixels right of the canvas centre
    "originY": 0,  # ... and in pixels above it
}


class Node:
    """A handle on a node of the current scene: pass it wherever a value of its kind goes."""

    __slots__ = ("id", "kind")

    def __init__(self, id, kind):
        self.id, self.kind = id, kind

    def __repr__(self):
        return f"<pie {self.kind} {self.id!r}>"

    def ref(self):
        return {"ref": self.id}


class Scene:
    """The nodes drawn so far, in drawing order, keyed by id."""

    def __init__(self):
        self.clear()

    def clear(self):
        self.nodes = {}
        self.side = None
        self._count = 0

    def add(self, func, kind, fields, out):
        """Add a node of `kind`; `out` names it, replacing (in place) an earlier node of that name and kind."""
        if out is None:
            self._count += 1
            node_id = f"_{self._count}"
        elif not isinstance(out, str) or not out or out.startswith("_") or len(out) > 10000:
            raise ValueError(f"pie.{func}: out must be a non-empty name not starting with '_', got {out!r}")
        else:
            node_id = out
            old = self.nodes.get(out)
            if old is not None and old["kind"] != kind:
                raise ValueError(f"pie.{func}: out={out!r} names a {old['kind']} node; a {kind} cannot replace it")
        if node_id not in self.nodes:
            reuse.check_count(func, len(self.nodes))
        if node_id in SETTINGS:
            reuse.check_setting(func, node_id, kind, fields)
        if node_id in self.nodes:
            reuse.check_dependents(func, node_id, fields, self.nodes.values())
        self.nodes[node_id] = {"id": node_id, "kind": kind, **fields}
        return Node(node_id, kind)

    def lookup(self, node):
        """The node `node` refers to now (a later node of the same name may have replaced it)."""
        return self.nodes.get(node.id)

    def to_dict(self):
        settings = {name: ({"ref": name} if name in self.nodes else value) for name, value in SETTINGS.items()}
        return {
            "version": VERSION,
            "canvas": {"side": self.side},
            "settings": settings,
            "nodes": [dict(n) for n in self.nodes.values()],
        }

    def to_json(self, indent=None):
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


CURRENT = Scene()
