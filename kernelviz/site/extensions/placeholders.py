"""Placeholders: ``{{ NAME... }}`` in prose, in ``$…$`` math and in a chart's caption, replaced at build time by what
the extension its first word names makes of it, one rule for all of them:

    {{ trace.reads.K }}     a number of the page's runs (``extensions.trace``; any other first word asks it too,
                            and its warning names what the trace has)
    {{ roofline }}          alone in a paragraph: the roofline section (``extensions.roofline``), the paragraph
                            replaced by it

``BLOCKS`` maps a first word to the extension that draws a section for a paragraph holding only that placeholder
(``section(page, context, line)`` -> HTML); ``VALUES`` one to the extension that gives its text
(``value(page, expr, line, context)`` -> text, or None having warned). Each looks up what it needs when asked
(the page's runs are computed once, by whoever asks first: ``trace.numbers_of``), so neither depends on the order
the extensions resolve in; a chart's caption is filled by ``fill`` whenever the chart is drawn.
"""

import re

from markdown_it.common.utils import escapeHtml

from ..tokens import walk
from . import roofline, trace

PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
TOKEN = "kv_trace"  # the placeholder's token type (its first users were trace's numbers)
BLOCKS = {"roofline": roofline}
VALUES = {"trace": trace}
DEFAULT = trace  # for a first word no extension claims: it says which names there are


def plugin(md):
    md.inline.ruler.before("escape", TOKEN, _placeholder)
    md.add_render_rule(TOKEN, _render)


def _placeholder(state, silent):
    if not state.src.startswith("{{", state.pos):
        return False
    m = PLACEHOLDER.match(state.src, state.pos)
    if not m:
        return False
    if not silent:
        token = state.push(TOKEN, "", 0)
        token.content = m.group(1)
    state.pos = m.end()
    return True


def _render(renderer, tokens, idx, options, env):
    token = tokens[idx]
    if "text" not in token.meta:
        return f'<span class="kv-trace kv-missing">{{{{ {escapeHtml(token.content)} }}}}</span>'
    return f'<span class="kv-trace" title="{escapeHtml(token.content)}">{escapeHtml(token.meta["text"])}</span>'


def resolve(page, context):
    """Sections first (a paragraph that is one placeholder of BLOCKS), then every other placeholder's text, in prose
    and in math."""
    tokens = page.tokens
    for k, token in enumerate(tokens):
        if token.type == "inline" and (extension := BLOCKS.get(_alone(token))):
            line = token.map[0] + 1 if token.map else page.meta_line
            token.children[0].type = "html_inline"
            token.children[0].content = extension.section(page, context, line)
            for around in (tokens[k - 1], tokens[k + 1]):  # no <p> around a <section>
                if around.type.startswith("paragraph_"):
                    around.hidden = True
    for token, line in walk(page.tokens):
        if token.type == TOKEN:
            text = value(page, token.content, line, context)
            if text is not None:
                token.meta["text"] = text
        elif token.type.startswith("math_") and "{{" in token.content:
            token.content = fill(token.content, page, line, context)


def _alone(token):
    """The placeholder a paragraph's inline token holds alone (its text), or None."""
    kids = [c for c in token.children or [] if not (c.type == "text" and not c.content.strip())]
    return kids[0].content.strip() if len(kids) == 1 and kids[0].type == TOKEN else None


def value(page, expr, line, context):
    """The text of placeholder `expr` (its first word's extension's), or None with a warning at `line`."""
    return VALUES.get(expr.split(".")[0], DEFAULT).value(page, expr, line, context)


def fill(text, page, line, context):
    """`text` with each placeholder replaced by its text ('?' when unknown, with a warning at `line`)."""
    return PLACEHOLDER.sub(lambda m: value(page, m.group(1), line, context) or "?", text)
