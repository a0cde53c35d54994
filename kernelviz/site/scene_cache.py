"""The prerendered scenes kept between builds, so that a rebuild runs only what changed.

A scene is kept under the hash of what draws it: the page's editors, the sizes, and the source of the runner, pie,
figlib and the glossary of sizes. The folder is ``CACHE`` ($KERNELVIZ_CACHE, else ~/.cache/kernelviz/scenes), a file
KEY.json a scene; the text kept is the Scene's JSON, or "" for sizes the kernel refused (remembered as such).

    drawing = drawing_digest()              # once a build
    k = key(page_digest(editors, drawing), sizes)
    get(k) -> text or None;  keep(k, text)
"""

import hashlib
import json
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("KERNELVIZ_CACHE") or Path.home() / ".cache" / "kernelviz") / "scenes"


def drawing_digest():
    """The hash of the code that draws every page's scenes: the runner, pie, figlib and the glossary."""
    h = hashlib.sha256()
    drawing = [*(PACKAGE / "pie").glob("*.py"), *(PACKAGE / "pie").glob("*.json"), *(PACKAGE / "figlib").glob("*.py")]
    for path in sorted([PACKAGE / "runner.py", PACKAGE / "glossary.py", *drawing]):
        h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()


def page_digest(editors, drawing):
    """What a page's scenes depend on besides their sizes: its `editors` (their code) and the `drawing` digest."""
    h = hashlib.sha256(drawing.encode())
    for e in editors:
        h.update(e.code.encode())
    return h.hexdigest()


def key(digest, sizes):
    """The name of the scene of a page (its `digest`) at `sizes`."""
    return hashlib.sha256((digest + json.dumps(sizes)).encode()).hexdigest()[:32]


def get(key):
    """The text kept under `key`, or None."""
    try:
        return (CACHE / f"{key}.json").read_text(encoding="utf-8")
    except OSError:
        return None


def keep(key, text):
    """Keep `text` under `key` (written whole, then renamed); a cache that cannot be written only makes the next
    build slower."""
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = CACHE / f".{key}.{os.getpid()}"
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(CACHE / f"{key}.json")
    except OSError:
        pass
