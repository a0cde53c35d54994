"""Links between pages: write them to the Markdown file, ``[Flash decoding](flash-decoding.md#combine)``; they are
rewritten to the built page, ``flash-decoding.html#combine``. A link to a planned page that is not written yet
(``nav.PLANNED``) shows its text marked "coming" instead of a broken link. Every other relative link of a page is
recorded with its line (``page.links``), so the build's link check can name the line of a broken one.
"""

import re

from .. import nav
from ..tokens import walk

EXTERNAL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|//)")  # http:, mailto:, data:, protocol-relative


def plugin(md):
    pass  # links are parsed by CommonMark; they are rewritten in resolve


def rewrite(href):
    """`href` with a link to a page's Markdown (X.md, X.md#frag) pointing at its HTML instead."""
    if EXTERNAL.match(href):
        return href
    path, hash_, fragment = href.partition("#")
    if path.endswith(".md"):
        path = path[: -len(".md")] + ".html"
    return path + hash_ + fragment


def resolve(page, context):
    page.links = []
    coming = set(nav.SLUGS) - set(context.pages)
    for token, line in walk(page.tokens):
        if token.children:
            _mark_coming(token.children, coming)
        for attr in ("href", "src"):
            value = token.attrGet(attr) if token.attrs else None
            if isinstance(value, str) and not EXTERNAL.match(value):
                value = rewrite(value)
                token.attrSet(attr, value)
                page.links.append((value, line))


def _mark_coming(children, coming):
    """Turn links to coming pages into <span class="kv-coming"> (their text stays)."""
    depth, open_ = 0, None
    for child in children:
        if child.type == "link_open" and open_ is None:
            target = rewrite(child.attrGet("href") or "").partition("#")[0]
            if target.endswith(".html") and target[: -len(".html")] in coming:
                child.tag, child.attrs, open_ = "span", {"class": "kv-coming", "title": "coming soon"}, depth
            depth += 1
        elif child.type == "link_open":
            depth += 1
        elif child.type == "link_close":
            depth -= 1
            if open_ is not None and depth == open_:
                child.tag, open_ = "span", None
