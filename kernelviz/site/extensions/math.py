"""``$…$`` (inline) and ``$$…$$`` (display) math, typeset to MathML by Temml at build time (see ``site.mathml``).

Parsing is mdit-py-plugins' dollarmath (no space inside the dollars, no digit outside them, so prices are not
math). The build collects the formulas of every page (``formulas``), typesets them in one call (in-process) and
hands the results back (``apply``); a formula Temml rejects is a warning naming the page and line, and is shown as
its source.
A ``$`` or ``$$`` left unpaired in a paragraph (a formula that never closes) is a warning naming the page and line;
an escaped ``\\$`` and a price (``$`` before a digit) are text.
A control character in a formula (any but the line break: a TAB, a form feed, a NUL, a C1 control) is a warning
naming the page and the line it is on: Temml takes a TAB for a space, so ``\\times`` read through a non-raw Python
string typesets as "g imes" without a complaint. The warning names the escape that probably swallowed it (``\\t``
in ``\\times``, ``\\f`` in ``\\frac``, ``\\b`` in ``\\beta``, ``\\v`` in ``\\vec``).
"""

import re
import unicodedata

from markdown_it.common.utils import escapeHtml
from mdit_py_plugins.dollarmath import dollarmath_plugin

from ..tokens import walk
from .math_symbols import tag

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


# The control characters that a Python string literal makes of a backslash and a letter: "\\times" -> TAB + "imes"
SWALLOWED = {"\a": "a", "\b": "b", "\t": "t", "\v": "v", "\f": "f", "\r": "r"}


def control_characters(tex):
    """[(offset, message)] for each control character of `tex` (a formula's source), the line break aside."""
    found = []
    for offset, ch in enumerate(tex):
        if ch == "\n" or unicodedata.category(ch) != "Cc":
            continue
        name = {"\t": "TAB", "\f": "form feed", "\b": "backspace", "\v": "vertical tab", "\0": "NUL"}.get(ch)
        what = f"control character U+{ord(ch):04X}" + (f" ({name})" if name else "")
        if ch in SWALLOWED:
            word = re.match(r"[A-Za-z]*", tex[offset + 1 :]).group(0)
            what += f": an escape swallowed by a non-raw string? write \\{SWALLOWED[ch]}{word}"
        found.append((offset, what))
    return found


def check_characters(page, found, diagnostics):
    """Warn, on the line it is written on, about each control character in the formulas `found` by ``formulas``."""
    for token, line in found:
        for offset, what in control_characters(token.content):
            at = None if line is None else line + token.content.count("\n", 0, offset)
            diagnostics.warn(page.file, at, f"{what}, in the formula ${_shown(token.content)}$")


def _shown(tex):
    """`tex` on one line, each control character written as <U+XXXX> (a TAB printed as is would hide it)."""
    return "".join(
        f"<U+{ord(ch):04X}>" if unicodedata.category(ch) == "Cc" and ch != "\n" else ch for ch in tex.strip()
    ).replace("\n", " ")


def apply(page, found, results, diagnostics):
    """Attach Temml's `results` to the tokens `found` by ``formulas(page)``; warn about each failure and each control
    character (``check_characters``)."""
    check_characters(page, found, diagnostics)
    for (token, line), result in zip(found, results, strict=True):
        token.meta["html"] = tag(result.html) if result.html else result.html  # symbols of the figure's slots
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
