"""The home page's list of pages: an empty fence ```` ```contents ```` marks where it goes.

It renders the nav's pages in reading order (``nav.PLANNED``), each with its ``summary`` (front matter): a link where
the page exists, marked "coming" where it does not yet (so the home page never has a broken link). A written page
without a summary, or a line inside the fence, is a warning: the list and the summaries have one home each.
"""

from markdown_it.common.utils import escapeHtml

from ..tokens import walk
from . import fence_info


def plugin(md):
    pass  # a plain fence; rendered in resolve, once the pages of the build are known


def resolve(page, context):
    for token, line in walk(page.tokens):
        if token.type == "fence" and fence_info.parse(token.info)[0] == "contents":
            token.meta["html"] = _render(page, token, line, context)


def _render(page, token, line, context):
    if token.content.strip():
        context.diagnostics.warn(
            page.file,
            line + 1,
            "contents: the fence stays empty; the order is kernelviz/site/nav.py's PLANNED and each line is its"
            " page's front matter 'summary'",
        )
    items = []
    for e in context.nav:
        written = context.pages.get(e.slug)
        summary = written.meta.get("summary", "") if written else ""
        if written and not summary:
            context.diagnostics.warn(page.file, line, f"contents: page {e.slug!r} has no 'summary' in its front matter")
        description = escapeHtml(summary)
        if e.href:
            head = f'<a href="{escapeHtml(e.href)}">{escapeHtml(e.text)}</a>'
            items.append(f"<li>{head}<p>{description}</p></li>")
        else:
            head = f'<span class="kv-contents-title">{escapeHtml(e.text)}</span> <em class="kv-coming-tag">coming</em>'
            items.append(f'<li class="kv-coming">{head}<p>{description}</p></li>')
    return f'<ol class="kv-contents">{"".join(items)}</ol>\n'
