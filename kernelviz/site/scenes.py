"""The browser's own Scene checker, run at build time on each page's Scene: what the reader's browser would refuse
("The figure cannot be drawn") is a build warning instead, naming the page, and the page says why where the figure
would be.

The checker is web/src/figure/check.js (with the validator generated from kernelviz/pie/scene.schema.json), bundled
by web/build.mjs into the runtime's ``build-time/check-scene.js`` and run in the builder's embedded V8 (``js``).
pie refuses what the browser cannot draw as each call is made; this is the check that the two agree, on every page.

    problem(scene, web_dist)   # None, or the browser's message (the figures stage asks it of each page's Scene)
"""

from pathlib import Path

from . import js

CHECKER = Path("build-time") / "check-scene.js"  # relative to the runtime folder (web/dist)


def problem(scene, web_dist):
    """None when the browser can draw `scene`, else what it would say is wrong. Raises BuildError when the runtime
    has no checker."""
    js.load(js.runtime_script(web_dist, CHECKER.name, "The Scene checker"))
    return js.call("kvSceneProblem", scene)
