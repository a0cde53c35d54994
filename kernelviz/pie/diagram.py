"""A Diagram: many shapes in one node, which a step list can change item by item.

An item is a box with (x, y) its bottom-left corner and size w by h, or, with ``line``, a segment from (x, y) to
(x + w, y + h); y is up, in canvas units. A box of size 0 draws only its label, centred at (x, y). ``font`` is the
label's size in pixels; ``wrap`` > 0 wraps the label at that many canvas units; ``color`` is the label's color.
``kv`` (optional, a non-empty string, no default) names what the item shows, for the page: the renderer copies it
onto the item's SVG element as ``data-kv`` (the HBM counter is the item with ``kv`` "hbm-bytes").
"""

import json

from . import bounds, checks
from .scene import CURRENT, Node

ITEM_DEFAULTS = {
    "x": 0,
    "y": 0,
    "w": 0,
    "h": 0,
    "fill": "none",
    "stroke": "none",
    "label": "",
    "font": 12,
    "wrap": 0,
    "line": False,
    "color": "#27272a",
}
NUMBERS, COLORS = ("x", "y", "w", "h", "font", "wrap"), ("fill", "stroke", "color")
BOUNDS = {"font": bounds.FONT, "wrap": bounds.WRAP}  # the others: bounds.COORDINATE
OPTIONAL = ("kv",)  # fields with no default: an item has them only where they are given


def field_value(func, where, key, value):
    """Check one item field; `where` names the item (and step) in the error."""
    if key not in ITEM_DEFAULTS and key not in OPTIONAL:
        fields = ", ".join([*ITEM_DEFAULTS, *OPTIONAL])
        raise ValueError(f"pie.{func}: {where} has an unknown field {key!r}; the fields are {fields}")
    arg = f"{where}.{key}"
    if key in NUMBERS:
        if not bounds.is_number(value) or (key in ("font", "wrap") and value < 0):
            raise TypeError(
                f"pie.{func}: {arg} must be a finite number{' >= 0' if key in ('font', 'wrap') else ''}, got {value!r}"
            )
        return checks.in_range(func, arg, value, BOUNDS.get(key, bounds.COORDINATE))
    if key in COLORS:
        return checks.color(func, arg, value)
    if key in ("label", "kv"):
        if not isinstance(value, str) or (key == "kv" and not value):
            raise TypeError(f"pie.{func}: {arg} must be a {'non-empty ' if key == 'kv' else ''}string, got {value!r}")
        return checks.string(func, arg, value)
    return checks.flag(func, arg, value)


def parse_items(func, items_json):
    """The items of `items_json` (a JSON array of objects, or the list itself), checked and completed."""
    items = items_json
    if isinstance(items_json, str):
        try:
            items = json.loads(items_json)
        except json.JSONDecodeError as e:
            raise ValueError(f"pie.{func}: items_json is not valid JSON: {e}") from None
        except RecursionError:  # arrays in arrays past Python's recursion limit: no diagram nests so deep
            raise ValueError(
                f"pie.{func}: items_json nests too deep to read (arrays or objects in each other)"
            ) from None
    if not isinstance(items, list):
        raise TypeError(f"pie.{func}: items_json must be a JSON array of items, got {type(items).__name__}")
    if len(items) > bounds.ITEMS:
        raise ValueError(f"pie.{func}: items_json has {len(items):,} items; a diagram draws at most {bounds.ITEMS:,}")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise TypeError(f"pie.{func}: item {i} must be an object, got {item!r}")
        where = f"item {i}"
        checked = {
            key: field_value(func, where, key, item[key]) if key in item else d for key, d in ITEM_DEFAULTS.items()
        }
        for key in item:
            if key not in ITEM_DEFAULTS:
                checked[key] = field_value(func, where, key, item[key])  # an optional field, or raises
        out.append(checked)
    return out


def diagram(items_json, out=None):
    """A Diagram node of the items in `items_json` (see the module docstring)."""
    return CURRENT.add("diagram", "diagram", {"items": parse_items("diagram", items_json)}, out)


def items_of(func, figure):
    """The items of the diagram node `figure`."""
    if not isinstance(figure, Node) or figure.kind != "diagram":
        raise TypeError(f"pie.{func}: figure must be a diagram node, got {figure!r}")
    node = CURRENT.lookup(figure)
    if node is None:
        raise ValueError(f"pie.{func}: figure {figure!r} is not in the scene (cleared since?)")
    return node["items"]
