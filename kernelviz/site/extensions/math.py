"""``$…$`` (inline) and ``$$…$$`` (display) math, typeset to MathML by Temml at build time (see ``site.mathml``).

Parsing is mdit-py-plugins' dollarmath (no space inside the dollars, no digit outside them, so prices are not
math). The build collects the formulas of every page (``formulas``), typesets them in one call (in-process) and
hands the results back (``apply``); a formula Temml rejects is a warning naming the page and line, and is shown as
its source.
A ``$`` or ``$$`` left unpaired in a paragraph (a formula that never closes) is a warning naming the page and line;
an escaped ``\\$`` and a price (``$`` before a digit) are text.
"""

import re

from markdown_it.common.utils import escapeHtml
from mdit_py_plugins.dollarmath import dollarmath_plugin

from ..tokens import walk

DISPLAY = {"math_block": True, "math_block_label": True, "math_inline_double": True, "math_inline": False}


LONE_DOLLAR = re.compile(r"\$\$|\$(?!\d)")  # a `$$`, or a `$` that does not start a price


def plugin(md):
    dollarmath_plugin(md, allow_space=False, allow_digits=False, double_inline=True)
    for kind in DISPLAY:
        md.add_render_rule(kind, _render)
    md.core.ruler.before("text_join", "kv_unpaired_dollars", _unpaired)


def _unpaired(state):
    """Record in env["unpaired_math"] (line, delimiter) for each paragraph whose text, once the math is parsed, still
    has a `$$` or an odd number of lone `$` (escapes are separate tokens here, before text_join, so they are not
    counted)."""
    found = state.env.setdefault("unpaired_math", [])
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        line = token.map[0] + 1 if token.map else None
        marks = []  # (line, delimiter) of each lone dollar in the text
        for child in token.children:
            if child.type == "text":
                marks += [(line, m.group(0)) for m in LONE_DOLLAR.finditer(child.content)]
            elif child.type in ("softbreak", "hardbreak") and line is not None:
                line += 1
        double = next((mark for mark in marks if mark[1] == "$$"), None)
        if double:
            found.append(double)
        elif len(marks) % 2:
            found.append(marks[0])


def check_delimiters(page, diagnostics):
    """Warn about each unpaired `$`/`$$` that parsing `page` recorded."""
    for line, delimiter in page.env.get("unpaired_math", []):
        what = "display math" if delimiter == "$$" else "inline math"
        message = f"unpaired {delimiter}: {what} that never closes (write \\$ for a dollar sign)"
        diagnostics.warn(page.file, line, message)


def formulas(page):
    """[(token, line)] of every formula of `page`, in page order."""
    return [(t, line) for t, line in walk(page.tokens) if t.type in DISPLAY]


def tex_of(token):
    return token.content.strip(), DISPLAY[token.type]


def apply(page, found, results, diagnostics):
    """Attach Temml's `results` to the tokens `found` by ``formulas(page)``; warn about each failure."""
    for (token, line), result in zip(found, results, strict=True):
        token.meta["html"] = result.html
        if result.error:
            diagnostics.warn(page.file, line, f"cannot typeset ${token.content.strip()}$: {result.error}")
        for w in result.warnings:
            diagnostics.warn(page.file, line, f"Temml's strict mode, in ${token.content.strip()}$: {w}")


def _render(renderer, tokens, idx, options, env):
    token = tokens[idx]
    display = DISPLAY[token.type]
    html = token.meta.get("html")
    if html is None:
        html = f'<code class="kv-math-error">{escapeHtml(token.content)}</code>'
    if not display:
        return html
    anchor = f' id="{escapeHtml(token.info)}"' if token.type == "math_block_label" and token.info else ""
    return f'<div class="kv-math"{anchor}>{html}</div>\n'
