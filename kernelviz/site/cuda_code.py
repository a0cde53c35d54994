"""Lines of a .cu file as HTML, the same for a page's CUDA block and for the whole-kernel page:

    <span class="kv-line [kv-context|kv-region]" [id="L42"]><a class="kv-ln" href="fa2.cu.html#L42">42</a>code</span>
    <span class="kv-line kv-elided"><span class="kv-ln"></span>    ⋯</span>        (lines left out)

highlighted by Pygments; a name declared on another line of the file links to that line of the kernel's page
(``<a class="n kv-ref" href="fa2.cu.html#L19" title="tid: declared on line 19">``). `notes` add a comment after a
line: the values the step gives its declarations (step_at.notes), each a ``<span class="kv-note" data-name="col0"
data-expr="1*Bc">`` that web/src/page/cuda-notes.js computes again when the reader picks other sizes. A line's notes
and the spaces around them are one ``<span class="kv-notes" data-gap="   ">``, whose data-gap is the spaces the source
had there, so that a copy of the code (web/src/page/copy-code.js) is the source's lines exactly.
"""

import re

from markdown_it.common.utils import escapeHtml

from . import highlight

ELIDED = "⋯"
_NAME_SPAN = re.compile(r'(?<!<span class="p">\.</span>)<span class="n">([A-Za-z_]\w*)</span>')


def page_of(filename):
    """The whole-kernel page of a .cu file: ``fa2.cu`` -> ``fa2.cu.html``."""
    return f"{filename}.html"


def lines_html(source, filename, numbers, *, kind=lambda n: "", notes=None, anchors=False):
    """The HTML of lines `numbers` (sorted, from 1) of `source` (a scope.Source of `filename`), one ``kv-line``
    span each, joined by newlines, with an elision line wherever lines are left out (other than the lines `source`
    skips, the region markers). `kind(n)`: extra classes of line n; `notes`: {line: [(name, expression, value or
    None)]}; `anchors`: give each line its id ``L<n>``."""
    numbers = list(numbers)
    if not numbers:
        return ""
    code = highlight.cuda("\n".join(source.line(n).text for n in numbers)).split("\n")
    if len(code) != len(numbers) or any(c.count("<span") != c.count("</span>") for c in code):
        code = [escapeHtml(source.line(n).text) for n in numbers]  # a token over two lines: plain text
    page, out, prev = page_of(filename), [], None
    for n, html in zip(numbers, code, strict=True):
        if prev is not None and any(not source.skip(source.line(m).text) for m in range(prev + 1, n)):
            indent = re.match(r"\s*", source.line(n).text).group()
            out.append(f'<span class="kv-line kv-elided"><span class="kv-ln"></span>{indent}{ELIDED}</span>')
        html = _link_names(html, source, n, page)
        html = _with_notes(html, (notes or {}).get(n, []))
        classes = " ".join(x for x in ("kv-line", kind(n)) if x)
        ident = f' id="L{n}"' if anchors else ""
        out.append(f'<span class="{classes}"{ident}><a class="kv-ln" href="{page}#L{n}">{n}</a>{html}</span>')
        prev = n
    return "\n".join(out)


def _with_notes(html, notes):
    """`html` with a comment per note after its code, before the line's own comment if it has one."""
    if not notes:
        return html
    spans = []
    for name, expr, value in notes:
        text = f"{name} = {expr}" + ("" if value is None or expr == str(value) else f" = {value}")
        attrs = f'data-name="{escapeHtml(name)}" data-expr="{escapeHtml(expr)}"'
        spans.append(f'<span class="kv-note" {attrs}>// {escapeHtml(text)}</span>')
    own = re.search(r'\s*(<span class="c1">)', html)
    gap = html[own.start() : own.start(1)] if own else ""  # the source's own spaces before its comment
    added = f'<span class="kv-notes" data-gap="{gap}">  ' + "  ".join(spans) + ("  " if own else "") + "</span>"
    return html[: own.start()] + added + html[own.start(1) :] if own else html + added


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
