"""The palette: named colours, defined once in ``palette.json`` beside this file.

``palette.json`` maps a name to ``{"light": "#rrggbb", "dark": "#rrggbb"}``. A colour argument of pie (and a
colour field of a diagram item) may be ``"@name"`` for a name of the palette; the renderer draws it as
``var(--kv-name)``, and the site's stylesheet defines ``--kv-name`` from this file for the light and dark themes.
Names are lowercase letters, digits and dashes, starting with a letter (``q``, ``q-fill``, ``o-1``).
"""

import json
import re
from importlib import resources

NAME = re.compile(r"^[a-z][a-z0-9-]*$")
HEX = re.compile(r"^#[0-9a-f]{6}$")


def load(text):
    """The palette of `text` (palette.json's content), checked: {name: {"light": hex, "dark": hex}}."""
    palette = json.loads(text)
    if not isinstance(palette, dict) or not palette:
        raise ValueError("palette.json must be a non-empty object of name -> {light, dark}")
    for name, entry in palette.items():
        if not NAME.match(name):
            raise ValueError(f"palette.json: {name!r} is not a colour name (lowercase letters, digits, dashes)")
        if not isinstance(entry, dict) or set(entry) != {"light", "dark"}:
            raise ValueError(f"palette.json: {name!r} must be an object with exactly the keys light and dark")
        for theme, value in entry.items():
            if not isinstance(value, str) or not HEX.match(value):
                raise ValueError(f"palette.json: {name}.{theme} must be a lowercase #rrggbb colour, got {value!r}")
    return palette


PALETTE = load(resources.files(__package__).joinpath("palette.json").read_text())
