"""The figure each page opens with, drawn at build time as inline SVG with its controls, so that it is on screen at
the first paint and without JavaScript; the runtime then takes the SVG's elements over instead of drawing them
again, and puts its own controls where these are, at the same size (nothing moves when it starts).

The drawing and the controls are the browser's own (web/src/figure/render/, web/src/figure/ui/), bundled by
web/build.mjs with a small DOM shim into the runtime's ``build-time/render-figure.js`` and run in the builder's
embedded V8 (``js``): no second implementation. Text is measured there with Helvetica's widths; the browser
measures with its own font and re-fits a label whose lines come out otherwise.

    figure(scene, web_dist, step=0, title="")  # Prerendered(svg='<svg class="kv-svg" ... data-prerendered>…',
                                               #   settings='<details class="kv-settings" … data-prerendered>…',
                                               #   dock='<div class="kv-dock" data-prerendered>…')
    svg(scene, web_dist, step=0)               # its svg alone
"""

from pathlib import Path
from typing import NamedTuple

from . import js

RENDERER = Path("build-time") / "render-figure.js"  # relative to the runtime folder (web/dist)
SIZE = (645, 300)  # px: the canvas on a laptop (1366×768); the browser fits the drawing again to its real canvas


class Prerendered(NamedTuple):
    svg: str  # the drawing, at the step asked
    settings: str  # the canvas settings panel, folded (as a reader first sees it)
    dock: str  # the step list, its live region and the figure's tools (empty when the scene has no step list)


def figure(scene, web_dist, step=0, title="", size=SIZE):
    """The markup of `scene` (one the Scene checker accepts) at step `step`, fitted to a canvas of `size` (width,
    height) px, and of its controls; `title` names the drawing ("Figure of TITLE, step …"). Raises BuildError when
    the runtime has no renderer or the renderer throws."""
    js.load(js.runtime_script(web_dist, RENDERER.name, "The figure's build-time renderer"))
    args = {"scene": scene, "step": step, "width": size[0], "height": size[1], "title": title}
    return Prerendered(**js.call("kvRenderFigure", args))


def svg(scene, web_dist, step=0, size=SIZE):
    """The <svg> markup of `figure(scene, web_dist, step)`."""
    return figure(scene, web_dist, step, size=size).svg
