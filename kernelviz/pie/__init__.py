"""pie: the drawing library of kernelviz. Standard library only; its one output is the Scene (see ``scene``).

pie.clear(); pie.show_canvas('right')
corner = pie.point(0, 0, hidden=True)
pie.rectangle(corner, 2, 1, fill='#99f6e4')
figure = pie.diagram(json.dumps(items), out='figure')
pie.ui.step_list(figure, steps=steps)
"""

from . import ui
from .canvas import clear, show_canvas
from .diagram import diagram
from .scene import CURRENT as _CURRENT
from .scene import SETTINGS, Node
from .shapes import point, rectangle, scalar, text

__all__ = ["SETTINGS", "Node", "clear", "diagram", "point", "rectangle", "scalar", "scene", "show_canvas", "text", "ui"]


def scene():
    """The Scene drawn so far, as a JSON-ready dict."""
    return _CURRENT.to_dict()
