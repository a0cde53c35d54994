"""The site's ``assets/``: the browser runtime bundled into ``web/dist`` (main.js, editors.js, the other entries,
their chunks and CSS, KaTeX's CSS and fonts, Pyodide; not ``build-time/``, which only the builder runs), ``site.css``
and the icon, and the Python the browser worker runs:

    assets/py/kernelviz/__init__.py, runner.py, pie/*.py, pie/scene.schema.json, pie/palette.json, figlib/*.py
    assets/py/manifest.json          ["kernelviz/__init__.py", ...]  (paths relative to assets/py/)

Files are hard-linked from web/dist when the file system allows (the Pyodide files are megabytes), else copied.
"""

import json
import os
import shutil
from pathlib import Path

from . import palette
from .diagnostics import BuildError

PACKAGE = Path(__file__).resolve().parents[1]  # kernelviz/
STATIC = Path(__file__).parent / "static"
REQUIRED = ("main.js", "katex/katex.min.css", "build-time/katex.min.js")
BUILD_TIME = "build-time"  # what the builder runs (KaTeX's JS), never copied into a site
SETUP = "run `make setup` (or `cd web && npm ci && node build.mjs`)"


def check_runtime(web_dist):
    """Raise BuildError, saying how to build it, when `web_dist` lacks the runtime."""
    web_dist = Path(web_dist)
    if not web_dist.is_dir():
        raise BuildError(f"the browser runtime is not built: there is no {web_dist}; {SETUP}")
    missing = [name for name in REQUIRED if not (web_dist / name).is_file()]
    if missing:
        raise BuildError(f"the browser runtime in {web_dist} is incomplete (no {', '.join(missing)}); {SETUP}")


def stylesheets(web_dist, scripts=()):
    """The runtime's stylesheets a page links: main.css (the runtime every page loads), then NAME.css for each entry
    NAME in `scripts` (the page's front matter) that has one. Not editors.css: editors.js links it when it loads."""
    names = dict.fromkeys(["main", *scripts])
    return [f"{name}.css" for name in names if (Path(web_dist) / f"{name}.css").is_file()]


def copy(web_dist, assets):
    """Fill `assets` (a new folder): the runtime, site.css, palette.css (made from the palette: site.palette) and
    the worker's Python with its manifest."""
    shutil.copytree(web_dist, assets, copy_function=_link_or_copy, ignore=shutil.ignore_patterns(".*", BUILD_TIME))
    for name in ("site.css", "favicon.svg"):
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
    """The files of the package the browser worker imports: the runner, pie and figlib (standard library only)."""
    pie, figlib = PACKAGE / "pie", PACKAGE / "figlib"
    return [
        PACKAGE / "__init__.py",
        PACKAGE / "runner.py",
        *sorted(pie.glob("*.py")),
        pie / "scene.schema.json",
        pie / "palette.json",
        *sorted(figlib.glob("*.py")),
    ]


def _link_or_copy(source, target):
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
    return target
