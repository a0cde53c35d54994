"""Math typeset at build time by KaTeX, in-process: KaTeX's own build (``katex.min.js``, shipped in the runtime at
``web/dist/build-time/``) runs in the builder's embedded V8 (``site.js``), so building needs no node.

    results = typeset([("m_i", False), (r"\\frac{1}{2}", True)], web_dist)
    results[0].html    # KaTeX's HTML (and MathML), or None when it could not typeset it
    results[0].error   # KaTeX's message, e.g. "KaTeX parse error: Undefined control sequence: \\foo at position 1"

`macros` (name -> expansion, e.g. {"\\kvq": "\\textcolor{blue}{#1}"}; a # that is not an argument is written ##)
are KaTeX's ``macros`` option, given afresh to every formula.
"""

from dataclasses import dataclass, field
from pathlib import Path

from . import js

WRAPPER = Path(__file__).with_name("katex_typeset.js")
KATEX = Path("build-time") / "katex.min.js"  # relative to the runtime folder (web/dist)


@dataclass
class Typeset:
    html: str | None
    error: str | None = None
    warnings: list = field(default_factory=list)


def script(web_dist):
    """The KaTeX build the runtime at `web_dist` carries. Raises BuildError when it has none."""
    return js.runtime_script(web_dist, KATEX.name, "KaTeX")


def typeset(formulas, web_dist, macros=None):
    """Typeset `formulas`, a list of (tex, display), in order. Equal formulas are typeset once.
    Raises BuildError when KaTeX or the JavaScript engine is missing."""
    if not formulas:
        return []
    unique = list(dict.fromkeys(formulas))
    js.load(script(web_dist))
    js.load(WRAPPER)
    items = [{"tex": tex, "display": display} for tex, display in unique]
    results = js.call("kvTypeset", {"items": items, "macros": dict(macros or {})})
    done = {
        key: Typeset(r.get("html"), r.get("error"), r.get("warnings", []))
        for key, r in zip(unique, results, strict=True)
    }
    return [done[f] for f in formulas]
