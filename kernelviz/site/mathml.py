"""Math typeset at build time to MathML by Temml, in-process: Temml's own build (``temml.min.js``, shipped in the
runtime at ``web/dist/build-time/``) runs in the builder's embedded V8 (``site.js``), so building needs no node. The
browser lays the MathML out itself (MathML Core: Chromium, Firefox, Safari), with a math font of the reader's system
(``assets/math.css``), so a page carries no typeset boxes and fetches no font for its math but Temml's own 9 KB one
(primes, script capitals).

    results = typeset([("m_i", False), (r"\\frac{1}{2}", True)], web_dist)
    results[0].html    # '<math>…</math>', or None when it could not typeset it
    results[0].error   # Temml's message, e.g. "Temml parse error: Undefined control sequence: \\foo at position 1…"
    results[0].warnings  # what Temml's strict mode objected to in a formula it still typeset

`macros` (name -> expansion, e.g. {"\\kvq": "\\class{kv-c-q}{#1}"}; a # that is not an argument is written ##)
are Temml's ``macros`` option, given afresh to every formula.
"""

from dataclasses import dataclass, field
from pathlib import Path

from . import js

WRAPPER = Path(__file__).with_name("mathml_typeset.js")
TEMML = Path("build-time") / "temml.min.js"  # relative to the runtime folder (web/dist)


@dataclass
class Typeset:
    html: str | None
    error: str | None = None
    warnings: list = field(default_factory=list)


def script(web_dist):
    """The Temml build the runtime at `web_dist` carries. Raises BuildError when it has none."""
    return js.runtime_script(web_dist, TEMML.name, "Temml (the math typesetter)")


def typeset(formulas, web_dist, macros=None):
    """Typeset `formulas`, a list of (tex, display), in order. Equal formulas are typeset once.
    Raises BuildError when Temml or the JavaScript engine is missing."""
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
