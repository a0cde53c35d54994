"""The home page's list of pages: a fence ```` ```contents ```` whose lines are ``SLUG: description``.

It renders the nav's pages in order, each with its description: a link where the page exists, marked "coming"
where it does not yet (so the home page never has a broken link). A slug the nav does not know is a warning.
"""

from markdown_it.common.utils import escapeHtml

from .. import nav
from ..tokens import walk
from . import fence_info


def plugin(md):
    pass  # a plain fence; rendered in resolve, once the pages of the build are known


def resolve(page, context):
    for token, line in walk(page.tokens):
        if token.type == "fence" and fence_info.parse(token.info)[0] == "contents":
            token.meta["html"] = _render(page, token, line, context)


def _render(page, token, line, context):
    described = {}
    for n, text in enumerate(token.content.splitlines()):
        slug, sep, description = text.partition(":")
        if text.strip() and not sep:
            context.diagnostics.warn(page.file, line + 1 + n, f"contents: expected 'SLUG: description', got {text!r}")
        elif sep:
            described[slug.strip()] = description.strip()
    entries = context.nav
    unknown = sorted(set(described) - {e.slug for e in entries} - {s for _, s, _ in nav.PLANNED})
    for slug in unknown:
        context.diagnostics.warn(page.file, line, f"contents: no page {slug!r} in the nav")
    items = []
    for e in entries:
        description = escapeHtml(described.get(e.slug, ""))
        if e.href:
            head = f'<a href="{escapeHtml(e.href)}">{escapeHtml(e.text)}</a>'
            items.append(f"<li>{head}<p>{description}</p></li>")
        else:
            head = f'<span class="kv-contents-title">{escapeHtml(e.text)}</span> <em class="kv-coming-tag">coming</em>'
            items.append(f'<li class="kv-coming">{head}<p>{description}</p></li>')
    return f'<ol class="kv-contents">{"".join(items)}</ol>\n'
