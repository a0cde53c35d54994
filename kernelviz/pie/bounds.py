"""What the browser can draw in time, read from ``scene.schema.json`` (its one home): pie refuses anything beyond.

The schema states each bound once; the browser's checker (web/src/figure/check.js) enforces it through the
validator generated from the same file, and pie checks it here before a value enters the Scene, so the error names
the call and the argument instead of the browser refusing the whole figure. The bottom of pie: it imports nothing
of ours.
"""

import json
import math
import re
from importlib import resources


def schema():
    """The Scene's JSON Schema, as a dict."""
    return json.loads(resources.files(__package__).joinpath("scene.schema.json").read_text())


def is_number(x):
    """A finite int or float (not a bool). Every int is finite, however large (``math.isfinite(10**400)`` would
    raise OverflowError: the range check then says what is wrong)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    return isinstance(x, int) or math.isfinite(x)


_SCHEMA = schema()
_DEFS = _SCHEMA["$defs"]


def _range(name):
    return _DEFS[name]["minimum"], _DEFS[name]["maximum"]


COORDINATE = _range("coordinate")  # every number of the Scene: positions, sizes, scalar values
FONT = _range("font")  # a text's or an item's font size, px
UNIT = _range("unit")  # the canvas unit, px per canvas unit
OPACITY = _range("opacity")  # the grid opacity
WRAP = _range("wrap")  # an item's wrap width, canvas units
INDEX = _range("index")  # a step's loop indices (`at`)
STAGGER = _DEFS["step"]["properties"]["stagger"]["items"]["items"]["maximum"]  # a stagger's n and count
STRING = _DEFS["string"]["maxLength"]  # characters of a label, caption, key, id
NODES = _SCHEMA["properties"]["nodes"]["maxItems"]
ITEMS = _DEFS["diagram"]["properties"]["items"]["maxItems"]
STEPS = _DEFS["step_list"]["properties"]["steps"]["maxItems"]
AT_NAMES = _DEFS["step"]["properties"]["at"]["maxProperties"]
COLOR = re.compile(_DEFS["color"]["pattern"])  # a CSS colour or "@name" of the palette (fullmatch it)
KEY = re.compile(_DEFS["step"]["properties"]["key"]["pattern"])  # a step's key: no square brackets (fullmatch it)


def within(value, bounds):
    low, high = bounds
    return low <= value <= high


def describe(bounds):
    low, high = bounds
    return f"between {low:g} and {high:g}"
