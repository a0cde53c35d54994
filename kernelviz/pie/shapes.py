"""The basic drawables. Every argument but a color can be a node: a scalar where a number goes, a point where a
position goes. The Scene keeps the reference, so the renderer moves dependents when the node changes."""

from . import bounds, checks
from .scene import CURRENT


def scalar(value, out=None):
    """A value: a number, or a string (the canvas setting `canvasColor` holds a color string)."""
    if isinstance(value, str):
        value = (
            checks.color("scalar", "value", value) if out == "canvasColor" else checks.string("scalar", "value", value)
        )
    else:
        value = checks.number("scalar", "value", value)
    return CURRENT.add("scalar", "scalar", {"value": value}, out)


def point(x, y, hidden=False, out=None):
    """A point at (x, y) in canvas units, y up. A visible point can be dragged; what refers to it follows."""
    fields = {"x": checks.number("point", "x", x), "y": checks.number("point", "y", y)}
    fields["hidden"] = checks.flag("point", "hidden", hidden)
    return CURRENT.add("point", "point", fields, out)


def text(label, x, y, size=12, stroke="#27272a", fill=None, out=None):
    """`label` centred at (x, y), `size` pixels high, drawn in `stroke` (and `fill`, by default the same)."""
    fields = {
        "label": checks.label("text", "label", label),
        "x": checks.number("text", "x", x),
        "y": checks.number("text", "y", y),
        "size": checks.number("text", "size", size, minimum=0, within=bounds.FONT),
        "stroke": checks.color("text", "stroke", stroke),
        "fill": checks.color("text", "fill", stroke if fill is None else fill),
    }
    return CURRENT.add("text", "text", fields, out)


def rectangle(corner, w, h, fill="none", stroke="#27272a", out=None):
    """A `w` by `h` rectangle whose bottom-left corner is `corner` (a point node or an (x, y) pair)."""
    fields = {
        "corner": checks.position("rectangle", "corner", corner),
        "w": checks.number("rectangle", "w", w, minimum=0),
        "h": checks.number("rectangle", "h", h, minimum=0),
        "fill": checks.color("rectangle", "fill", fill),
        "stroke": checks.color("rectangle", "stroke", stroke),
    }
    return CURRENT.add("rectangle", "rectangle", fields, out)
