"""Links between pages: write them to the Markdown file, ``[Flash decoding](flash-decoding.md#combine)``; they are
rewritten to the built page, ``flash-decoding.html#combine``. Every relative link of a page is recorded with its
line (``page.links``), so the build's link check can name the line of a broken one.
"""

import re

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
    for token, line in walk(page.tokens):
        for attr in ("href", "src"):
            value = token.attrGet(attr) if token.attrs else None
            if isinstance(value, str) and not EXTERNAL.match(value):
                value = rewrite(value)
                token.attrSet(attr, value)
                page.links.append((value, line))
