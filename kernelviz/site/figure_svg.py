"""The figure each page opens with, drawn at build time as inline SVG, so that it is on screen at the first paint
and without JavaScript; the runtime then takes its elements over instead of drawing them again.

The drawing is the browser's own renderer (web/src/figure/render/), bundled by web/build.mjs with a small DOM shim
into the runtime's ``build-time/render-figure.js`` and run in the builder's embedded V8 (``js``): no second
implementation. Text is measured there with Helvetica's widths; the browser measures with its own font and re-fits
a label whose lines come out otherwise.

    svg(scene, web_dist, step=0)   # '<svg class="kv-svg" ... data-prerendered>...</svg>'
"""

from pathlib import Path

from . import js

RENDERER = Path("build-time") / "render-figure.js"  # relative to the runtime folder (web/dist)
SIZE = (645, 300)  # px: the canvas on a laptop (1366×768); the browser fits the drawing again to its real canvas


def svg(scene, web_dist, step=0, size=SIZE):
    """The <svg> markup of `scene` (one the Scene checker accepts) at step `step`, fitted to a canvas of `size`
    (width, height) px. Raises BuildError when the runtime has no renderer or the renderer throws."""
    js.load(js.runtime_script(web_dist, RENDERER.name, "The figure's build-time renderer"))
    return js.call("kvRenderFigure", {"scene": scene, "step": step, "width": size[0], "height": size[1]})


def prerender(site, web_dist):
    """Give each page with a Scene that can be drawn its figure's SVG (``page.figure_svg``), at its first step."""
    for page in site:
        if page.scene is not None and not page.failure:
            page.figure_svg = svg(page.scene, web_dist)
