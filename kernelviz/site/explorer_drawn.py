"""The overview's explorer drawn at build time, like the kernel figures: on screen at the first paint and without
JavaScript, then taken over by its runtime as it is, without drawing it again.

The drawing is the explorer's own code (web/src/explorer/), bundled by web/build.mjs with the build-time DOM shim into
the runtime's ``build-time/render-explorer.js`` and run in the builder's embedded V8 (``js``): no second
implementation. A page that loads the explorer (front matter ``scripts: [explorer]``) and holds its mount point
gets the drawing inside it, after the mount point's own content (what a reader without JavaScript is told), which
is kept in a <noscript>:

    <div id="kv-explorer">TEXT</div>  ->  <div id="kv-explorer"><noscript>TEXT</noscript>
                                          <div class="kvx" data-prerendered …>…</div></div>
"""

import re
from pathlib import Path

from . import js

RENDERER = Path("build-time") / "render-explorer.js"  # relative to the runtime folder (web/dist)
MOUNT = re.compile(r'(<div id="kv-explorer">)(.*?)(</div>)', re.S)


def drawn(web_dist):
    """The markup of the explorer at its default settings. Raises BuildError when the runtime has no renderer or
    the renderer throws."""
    js.load(js.runtime_script(web_dist, RENDERER.name, "The explorer's build-time renderer"))
    return js.call("kvRenderExplorer", {})["html"]


def prerender(site, web_dist):
    """Draw the explorer into the mount point of each page that loads it (see the module docstring)."""
    made = []  # the drawing, made once for the build

    def mounted(m):
        made[:] = made or [drawn(web_dist)]
        return f"{m[1]}<noscript>{m[2]}</noscript>{made[0]}{m[3]}"

    for page in site:
        if "explorer" not in page.meta.get("scripts", []):
            continue
        for token in page.tokens:
            if token.type == "html_block":
                token.content = MOUNT.sub(mounted, token.content, 1)
