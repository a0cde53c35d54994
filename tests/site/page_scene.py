"""The Scene a built page opens with, as the browser gets it: the file its head preloads (``<link rel="preload"
href="scenes/SLUG.json" ... id="kv-scene">``, render.py), read from the built site, not from the browser, and unpacked
(kernelviz/site/scene_file.py)."""

import json
import re
from pathlib import Path

from kernelviz.site import scene_file as packing

PRELOAD = re.compile(r'<link rel="preload" href="([^"]+)" as="fetch" crossorigin id="kv-scene">')


def scene_file(html):
    """The path (relative to the site) of the Scene `html` preloads, or None when it preloads none."""
    match = PRELOAD.search(html)
    return match.group(1) if match else None


def page_scene(page):
    """The Scene of the built page at `page` (a path to its HTML); an AssertionError when it has none."""
    page = Path(page)
    file = scene_file(page.read_text(encoding="utf-8"))
    assert file, f"{page.name} preloads no Scene"
    return packing.unpack(json.loads((page.parent / file).read_text(encoding="utf-8")))
