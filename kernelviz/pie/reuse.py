"""Checks that need the whole scene: its size, the canvas settings, and a name reused by ``out=``.

A node named by ``out=`` that already exists is replaced in place, and every node that refers to it then takes the
new one's value: so the new node must suit them all (a scalar a rectangle uses as its width must keep holding a
number; a diagram must keep every item its step lists change). Each error names the call and what refers to it.
"""

from . import bounds
from .bounds import is_number

# (kind, field) -> the bounds a scalar it refers to must hold a number within; the label takes any scalar
NUMBER_FIELDS = {
    ("point", "x"): bounds.COORDINATE,
    ("point", "y"): bounds.COORDINATE,
    ("text", "x"): bounds.COORDINATE,
    ("text", "y"): bounds.COORDINATE,
    ("text", "size"): bounds.FONT,
    ("rectangle", "w"): bounds.COORDINATE,
    ("rectangle", "h"): bounds.COORDINATE,
}
SETTING_BOUNDS = {"unit": bounds.UNIT, "gridOpacity": bounds.OPACITY}


def check_count(func, count):
    if count >= bounds.NODES:
        raise ValueError(f"pie.{func}: the scene already has {count:,} nodes, the most a figure draws in time")


def check_setting(func, name, kind, fields):
    """A canvas setting (out='unit', ...) must be a scalar holding a number within its bounds, or a colour string."""
    value = fields.get("value")
    wants_color = name == "canvasColor"
    if kind != "scalar" or isinstance(value, str) != wants_color:
        what = "a color string" if wants_color else "a number"
        raise ValueError(f"pie.{func}: the canvas setting {name!r} must be a scalar holding {what}")
    within = SETTING_BOUNDS.get(name)
    if within and not bounds.within(value, within):
        raise ValueError(f"pie.{func}: the canvas setting {name!r} must be {bounds.describe(within)}, got {value!r}")


def _uses(node, node_id):
    """(field, bounds or None) of each place `node` refers to `node_id` (None: any value, e.g. a label)."""

    def refers(value):
        return isinstance(value, dict) and value.get("ref") == node_id

    kind = node["kind"]
    for field, value in node.items():
        if refers(value):
            yield field, NUMBER_FIELDS.get((kind, field))
    if kind == "rectangle" and isinstance(node["corner"], list):
        for i, value in enumerate(node["corner"]):
            if refers(value):
                yield f"corner[{i}]", bounds.COORDINATE


def check_dependents(func, node_id, fields, nodes):
    """Refuse replacing node `node_id` by one with `fields` that a node referring to it could not use."""
    for node in nodes:
        if node["kind"] == "step_list" and node["figure"]["ref"] == node_id:
            needed = _items_needed(node)
            if len(fields["items"]) < needed:
                raise ValueError(
                    f"pie.{func}: out={node_id!r} replaces the diagram that step list {node['id']!r} plays on, "
                    f"whose steps change items up to {needed - 1}; the new one has {len(fields['items'])} items"
                )
        for field, within in _uses(node, node_id):
            value = fields.get("value")
            if within is not None and not (is_number(value) and bounds.within(value, within)):
                raise ValueError(
                    f"pie.{func}: out={node_id!r} replaces the scalar that {node['kind']} {node['id']!r} uses as its "
                    f"{field}, which needs a number {bounds.describe(within)}; got {value!r}"
                )


def _items_needed(step_list):
    """1 + the highest item index the steps of `step_list` change or stagger (0 when none)."""
    indices = [0]
    for step in step_list["steps"]:
        for phase in ("start", "move", "end"):
            indices += [index + 1 for index, _ in step.get(phase, [])]
        indices += [index + 1 for index, _, _ in step.get("stagger", [])]
    return max(indices)
