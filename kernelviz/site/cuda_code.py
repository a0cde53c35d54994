"""Lines of a .cu file, highlighted by Pygments, with each name declared on another line of the file linked to that
line of the kernel's page (``<a class="n kv-ref" href="fa2.cu.html#L19" title="tid: declared on line 19: …">``):

- `lines_html`, for the whole-kernel page: one ``kv-line`` span a line,
  ``<span class="kv-line [kv-region|kv-marker]" id="L42"><a class="kv-ln" href="fa2.cu.html#L42">42</a>code</span>``;
- `tokens`, for a page's CUDA blocks: each line as its tokens, ``[class, text, class, text, ...]`` (class ``""`` for
  plain text, ``"n@19"`` for a name linked to line 19), which web/src/page/cuda-code.js turns into the same spans,
  and the step's values with them, when the reader opens a block.
"""

import functools
import html
import re

from markdown_it.common.utils import escapeHtml

from ..cuda.scope import Source
from . import highlight

_NAME_SPAN = re.compile(r'(?<!<span class="p">\.</span>)<span class="n">([A-Za-z_]\w*)</span>')
_TOKEN = re.compile(
    r'<a class="(\w+) kv-ref" href="[^"#]*#L(\d+)"[^>]*>([^<]*)</a>|<span class="([^"]+)">([^<]*)</span>|([^<]+)'
)


def page_of(filename):
    """The whole-kernel page of a .cu file: ``fa2.cu`` -> ``fa2.cu.html``."""
    return f"{filename}.html"


def lines_html(source, filename, numbers, *, kind=lambda n: "", anchors=False):
    """The HTML of lines `numbers` (from 1) of `source` (a scope.Source of `filename`), one ``kv-line`` span each,
    joined by newlines. `kind(n)`: extra classes of line n; `anchors`: give each line its id ``L<n>``."""
    linked, page, out = _linked(source, filename), page_of(filename), []
    for n in numbers:
        classes = " ".join(x for x in ("kv-line", kind(n)) if x)
        ident = f' id="L{n}"' if anchors else ""
        out.append(f'<span class="{classes}"{ident}><a class="kv-ln" href="{page}#L{n}">{n}</a>{linked[n - 1]}</span>')
    return "\n".join(out)


def tokens(source, filename, numbers):
    """{line: [class, text, ...]} of the lines `numbers` of `source` and of the lines their links lead to (whose
    text the browser shows in the link's title)."""
    linked, out = _linked(source, filename), {}
    todo = list(numbers)
    while todo:
        n = todo.pop()
        if n in out:
            continue
        out[n] = []
        for m in _TOKEN.finditer(linked[n - 1]):
            if m.group(1):
                out[n] += [f"{m.group(1)}@{m.group(2)}", html.unescape(m.group(3))]
                todo.append(int(m.group(2)))
            elif m.group(4):
                out[n] += [m.group(4), html.unescape(m.group(5))]
            else:
                out[n] += ["", html.unescape(m.group(6))]
    return dict(sorted(out.items()))


def _linked(source, filename):
    """[the HTML of each line of `source`], highlighted, names linked (see the module docstring)."""
    return _linked_text(tuple(line.text for line in source.lines), filename)


@functools.lru_cache(maxsize=16)  # a build shows each kernel in many blocks
def _linked_text(texts, filename):
    source = Source("\n".join(texts))
    code = highlight.cuda("\n".join(texts)).split("\n")
    if len(code) != len(texts) or any(c.count("<span") != c.count("</span>") for c in code):
        code = [escapeHtml(t) for t in texts]  # a token over two lines: plain text
    page = page_of(filename)
    return [_link_names(html, source, n, page) for n, html in enumerate(code, 1)]


def _link_names(html, source, n, page):
    """`html` (line n, highlighted) with each name declared on another line linked to that line."""

    def link(m):
        at = source.visible(m.group(1), n)
        if at is None or at == n:
            return m.group()
        declared = escapeHtml(source.line(at).text.strip())
        title = f"{m.group(1)}: declared on line {at}: {declared}"
        return f'<a class="n kv-ref" href="{page}#L{at}" title="{title}">{m.group(1)}</a>'

    return _NAME_SPAN.sub(link, html)
