"""The site's ``assets/``: the browser runtime bundled into ``web/dist`` (main.js, editors.js, the other entries,
their chunks and CSS, Temml's CSS for MathML and its font, Pyodide; not ``build-time/``, which only the builder runs),
the site's styles (``SITE_CSS``), the one stylesheet each page links, and the Python the browser worker runs:

    assets/page.css                  palette.css, SITE_CSS, main.css, in that order (every page)
    assets/math.css                  Temml's CSS for MathML, then site-math.css (the pages with math)
    assets/page-NAME.css             the same, then NAME.css of an entry a page's front matter loads (scripts)
    assets/py/kernelviz/__init__.py, glossary.py, runner.py, pie/*.py, pie/scene.schema.json, pie/palette.json,
                                     figlib/*.py
    assets/py/manifest.json          ["kernelviz/__init__.py", ...]  (paths relative to assets/py/)

A page links one stylesheet in its head, so that nothing but its HTML and that one file holds back its first paint
(the parts stay beside it, for pages that are not the builder's). The math's CSS is ``assets/math.css``, which a page
with math links in its text, after the title (see render.py): the figure's first frame does not wait for it, and the
text after it is parsed only once it has come, so no formula shows in another font first. The math is MathML, laid out
by the browser in a math font of the reader's system (site-math.css names them): no font is fetched for it but
Temml's own small one (9 KB, ``temml/Temml.woff2``: its primes and script capitals), and only by a page that uses them.

Files are hard-linked from web/dist when the file system allows (the Pyodide files are megabytes), else copied.
"""

import json
import os
import re
import shutil
from pathlib import Path

from . import palette
from .diagnostics import BuildError

PACKAGE = Path(__file__).resolve().parents[1]  # kernelviz/
STATIC = Path(__file__).parent / "static"
REQUIRED = ("main.js", "temml/temml.css", "build-time/temml.min.js")
BUILD_TIME = "build-time"  # what the builder runs (Temml's JS, ...), never copied into a site
SETUP = "run `make setup` (or `cd web && npm ci && node build.mjs`)"


def check_runtime(web_dist):
    """Raise BuildError, saying how to build it, when `web_dist` lacks the runtime."""
    web_dist = Path(web_dist)
    if not web_dist.is_dir():
        raise BuildError(f"the browser runtime is not built: there is no {web_dist}; {SETUP}")
    missing = [name for name in REQUIRED if not (web_dist / name).is_file()]
    if missing:
        raise BuildError(f"the browser runtime in {web_dist} is incomplete (no {', '.join(missing)}); {SETUP}")


SITE_CSS = ("site.css", "site-code.css", "site-drawn.css")  # static/: the site's styles, in cascade order
COMMON_CSS = ("palette.css", *SITE_CSS)
MATH_CSS = ("math.css", ["temml/temml.css", "site-math.css"])  # (name, parts), as `stylesheet` gives them
# a url() in a part that is relative to the part's own folder (not data:, not absolute, not a fragment)
RELATIVE_URL = re.compile(r"""url\((['"]?)(?![a-z][a-z0-9+.-]*:|/|#)""", re.I)


def stylesheet(web_dist, scripts=()):
    """(name, parts) of the one stylesheet a page links in its head, ``assets/NAME``: palette.css, site.css and the
    runtime's main.css, then NAME.css for each entry NAME in `scripts` (the page's front matter) that has one. Not
    editors.css: editors.js links it when it loads. `parts` are paths under assets/, in the order they cascade."""
    names = [name for name in dict.fromkeys(["main", *scripts]) if (Path(web_dist) / f"{name}.css").is_file()]
    extra = [name for name in names if name != "main"]
    return "-".join(["page", *extra]) + ".css", [*COMMON_CSS, *(f"{name}.css" for name in names)]


def write_stylesheet(assets, name, parts):
    """Write ``assets/NAME``: the files `parts` (under `assets`) one after another, each url() relative to a part's
    own folder rewritten relative to assets/ (Temml's font: ``url('Temml.woff2')`` in temml/ is
    ``url('temml/Temml.woff2')``)."""
    texts = []
    for part in parts:
        folder = Path(part).parent.as_posix()
        text = (Path(assets) / part).read_text(encoding="utf-8")
        if folder != ".":
            text = RELATIVE_URL.sub(rf"url(\g<1>{folder}/", text)
        texts.append(f"/* {part} */\n{text.strip()}\n")
    (Path(assets) / name).write_text("".join(texts), encoding="utf-8")


def copy(web_dist, assets):
    """Fill `assets` (a new folder): the runtime, site.css and site-math.css, palette.css (made from the palette:
    site.palette) and the worker's Python with its manifest."""
    shutil.copytree(web_dist, assets, copy_function=_link_or_copy, ignore=shutil.ignore_patterns(".*", BUILD_TIME))
    for name in (*SITE_CSS, "site-math.css"):
        shutil.copy2(STATIC / name, assets / name)
    (assets / "palette.css").write_text(palette.css(), encoding="utf-8")
    manifest = []
    for source in python_files():
        relative = source.relative_to(PACKAGE.parent).as_posix()
        target = assets / "py" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        manifest.append(relative)
    (assets / "py" / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def python_files():
    """The files of the package the browser worker imports: the runner, pie and figlib, and the glossary of sizes
    (standard library only)."""
    pie, figlib = PACKAGE / "pie", PACKAGE / "figlib"
    return [
        PACKAGE / "__init__.py",
        PACKAGE / "glossary.py",
        PACKAGE / "runner.py",
        *sorted(pie.glob("*.py")),
        pie / "scene.schema.json",
        pie / "palette.json",
        *sorted(figlib.glob("*.py")),
        PACKAGE / "roofline" / "gpus.json",  # figlib.rates reads the GPUs' rates from it
    ]


def _link_or_copy(source, target):
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
    return target
