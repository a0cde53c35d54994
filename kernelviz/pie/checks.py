"""Argument checks shared by every drawable: each turns an argument into its Scene value or raises an error
that names the function and the argument, e.g. ``pie.rectangle: w must be a number or a scalar node, got 'abc'``.
"""

import difflib

from . import bounds
from .bounds import is_number
from .palette import PALETTE
from .scene import CURRENT, Node


def shown(value):
    """`value`'s repr, shortened for a message: an int of 400 digits is 'an integer of 401 digits'."""
    text = repr(value)
    if isinstance(value, int) and len(text) > 40:
        return f"an integer of {len(text.lstrip('-'))} digits"
    return text if len(text) <= 80 else text[:77] + "..."


def _node(func, arg, value, kind):
    if CURRENT.lookup(value) is None:
        raise ValueError(f"pie.{func}: {arg} refers to {value!r}, which is not in the scene (cleared since?)")
    if value.kind != kind:
        raise TypeError(f"pie.{func}: {arg} must be a {kind} node here, got {value!r}")
    return value.ref()


def number(func, arg, value, minimum=None, within=bounds.COORDINATE):
    """A finite number `within` the Scene's bounds (and at least `minimum`), or a scalar node holding one within
    them: its Scene value."""
    if isinstance(value, Node):
        ref = _node(func, arg, value, "scalar")
        held = CURRENT.lookup(value)["value"]
        if not is_number(held):
            raise TypeError(f"pie.{func}: {arg} must be a scalar node holding a number, got {value!r}")
        in_range(func, f"{arg} ({value!r} holds {held!r})", held, within)
        return ref
    if not is_number(value):
        raise TypeError(f"pie.{func}: {arg} must be a number or a scalar node, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"pie.{func}: {arg} must be at least {minimum}, got {shown(value)}")
    return in_range(func, arg, value, within)


def in_range(func, arg, value, within):
    """`value`, or a ValueError when it is outside the bounds `within` (what the browser can draw)."""
    if not bounds.within(value, within):
        raise ValueError(
            f"pie.{func}: {arg} must be {bounds.describe(within)} (the most the figure can draw), got {shown(value)}"
        )
    return value


def string(func, arg, value):
    """A string of at most bounds.STRING characters."""
    if len(value) > bounds.STRING:
        raise ValueError(
            f"pie.{func}: {arg} has {len(value):,} characters; the most a figure shows is {bounds.STRING:,}"
        )
    return value


def position(func, arg, value):
    """A point node, or an (x, y) pair of numbers or scalar nodes: its Scene value."""
    if isinstance(value, Node):
        return _node(func, arg, value, "point")
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"pie.{func}: {arg} must be a point node or an (x, y) pair, got {value!r}")
    return [number(func, f"{arg}[0]", value[0]), number(func, f"{arg}[1]", value[1])]


def color(func, arg, value):
    """A CSS color: 'none', a #hex, a name, or rgb()/hsl() (the Scene schema's pattern, ``bounds.COLOR``, which the
    browser's checker applies too); or '@name', a colour of the palette (palette.json)."""
    if isinstance(value, str) and value.startswith("@"):
        if value[1:] not in PALETTE:
            close = difflib.get_close_matches(value[1:], list(PALETTE), n=3, cutoff=0.5)
            known = close or list(PALETTE)
            hint = f"did you mean {' or '.join('@' + c for c in known)}?" if close else f"it has {', '.join(known)}"
            raise ValueError(
                f"pie.{func}: {arg} is {value!r}, which is not a colour of the palette (kernelviz/pie/palette.json); "
                + hint
            )
        return value
    if not isinstance(value, str) or not bounds.COLOR.fullmatch(value):
        raise ValueError(
            f"pie.{func}: {arg} must be a color such as '#1d4ed8', 'teal', 'none' or '@q' (the palette), got {value!r}"
        )
    return value


def label(func, arg, value):
    """A text label, or a scalar node whose value is shown."""
    if isinstance(value, Node):
        return _node(func, arg, value, "scalar")
    if not isinstance(value, str):
        raise TypeError(f"pie.{func}: {arg} must be a string or a scalar node, got {value!r}")
    return string(func, arg, value)


def flag(func, arg, value):
    if not isinstance(value, bool):
        raise TypeError(f"pie.{func}: {arg} must be True or False, got {value!r}")
    return value
