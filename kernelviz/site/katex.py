"""Math typeset at build time by KaTeX: every formula of a build in ONE node process (``katex_render.mjs``).

    results = typeset([("m_i", False), (r"\\textcolor{#1d4ed8}{m_i}", True)], web_dir)
    results[0].html    # KaTeX's HTML (and MathML), or None when it could not typeset it
    results[0].error   # KaTeX's message, e.g. "KaTeX parse error: Undefined control sequence: \\foo at position 1"

KaTeX comes from ``web/node_modules/katex`` (installed by ``make setup``); node must be on PATH.
"""

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import BuildError

SCRIPT = Path(__file__).with_name("katex_render.mjs")


@dataclass
class Typeset:
    html: str | None
    error: str | None = None
    warnings: list = field(default_factory=list)


def typeset(formulas, web_dir):
    """Typeset `formulas`, a list of (tex, display), in order. Equal formulas are typeset once.
    Raises BuildError when node or KaTeX is missing or the process fails."""
    if not formulas:
        return []
    unique = list(dict.fromkeys(formulas))
    node = shutil.which("node")
    module = Path(web_dir) / "node_modules" / "katex" / "dist" / "katex.mjs"
    if node is None:
        raise BuildError("the page math is typeset by KaTeX under node, and node is not on PATH (make setup)")
    if not module.is_file():
        raise BuildError(f"KaTeX is not installed at {module}: run `make setup` (or `cd web && npm ci`)")
    payload = json.dumps([{"tex": tex, "display": display} for tex, display in unique])
    proc = subprocess.run(
        [node, str(SCRIPT), str(module)], input=payload, capture_output=True, text=True, encoding="utf-8"
    )
    if proc.returncode != 0:
        raise BuildError(f"KaTeX (node {SCRIPT.name}) failed:\n{proc.stderr.strip()}")
    done = {
        key: Typeset(r.get("html"), r.get("error"), r.get("warnings", []))
        for key, r in zip(unique, json.loads(proc.stdout), strict=True)
    }
    return [done[f] for f in formulas]
