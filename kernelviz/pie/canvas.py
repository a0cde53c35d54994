"""The canvas: start over, and say where the canvas sits beside the prose."""

from .scene import CURRENT

SIDES = ("left", "right")


def clear():
    """Remove every node; the canvas settings go back to their defaults."""
    CURRENT.clear()


def show_canvas(side="right"):
    """Dock the canvas to `side` of the prose ('left' or 'right'), in view while the prose scrolls."""
    if side not in SIDES:
        raise ValueError(f"pie.show_canvas: side must be 'left' or 'right', got {side!r}")
    CURRENT.side = side
