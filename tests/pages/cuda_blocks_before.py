"""The CUDA blocks' code as the builder wrote it into every block before the blocks were rendered in the browser
(commit a2bb7c1: kernelviz/site/cuda_code.py, step_at.py and extensions/cuda.py of then), kept as the reference the
browser's rendering (web/src/page/cuda-code.js) is compared with: the same lines, scope, step values, links and
highlighting. The parts of it that are unchanged in the package (the region and its scope, the links, the
highlighter, a step's indices, the C arithmetic) are imported from there.

    pre_html(cite, at, sizes, host)   # the inner HTML of the block's <pre class="kv-code kv-cuda-code">
"""

import re

from markdown_it.common.utils import escapeHtml

from kernelviz.cuda import regions
from kernelviz.cuda.scope import code, declares
from kernelviz.site import cuda_code, cuda_render, highlight
from kernelviz.site.build import WEB_DIST
from kernelviz.site.step_at import initializers, substitute

ELIDED = "⋯"


def evaluate(expr, values):
    return cuda_render.evaluate(expr, values, WEB_DIST)


def pre_html(cite, at, sizes, host):
    """What the block citing `cite` for a step with indices `at` showed at `sizes`, with the kernel arguments `host`
    derives from them (kernels.host_formulas)."""
    excerpt = regions.excerpt(cite)
    sizes = dict(sizes)
    sizes.update({name: evaluate(expr, sizes) for name, expr in host.items()})
    sizes = {name: v for name, v in sizes.items() if v is not None}
    src, first, last = excerpt.source, excerpt.first, excerpt.last
    found = notes(src, excerpt.numbers, at, sizes) if at else {}
    kind = lambda n: "kv-region" if first <= n <= last else "kv-context"  # noqa: E731
    code = lines_html(src, excerpt.filename, excerpt.numbers, kind=kind, notes=found)
    if at:
        banner = escapeHtml("// this step: " + ", ".join(f"{k} = {v}" for k, v in at.items()))
        code = f'<span class="kv-line kv-banner"><span class="kv-ln"></span>{banner}</span>\n{code}'
    return code


def notes(source, numbers, at, sizes):
    out, known, noted = {}, {**sizes, **at}, set(at)
    for n in numbers:
        text = code(source.line(n).text)
        inits = initializers(text)
        for name in declares(text):
            if name in at:
                out.setdefault(n, []).append((name, str(at[name]), at[name]))
            elif name in inits and (over := set(re.findall(r"[A-Za-z_]\w*", inits[name]))) & noted:
                value = evaluate(inits[name], known)
                if value is None and not over & set(at):
                    continue
                out.setdefault(n, []).append((name, substitute(inits[name], at), value))
                noted.add(name)
                if value is not None:
                    known[name] = value
    return out


def lines_html(source, filename, numbers, *, kind, notes):
    numbers = list(numbers)
    code = highlight.cuda("\n".join(source.line(n).text for n in numbers)).split("\n")
    if len(code) != len(numbers) or any(c.count("<span") != c.count("</span>") for c in code):
        code = [escapeHtml(source.line(n).text) for n in numbers]
    page, out, prev = cuda_code.page_of(filename), [], None
    for n, html in zip(numbers, code, strict=True):
        if prev is not None and any(not source.skip(source.line(m).text) for m in range(prev + 1, n)):
            indent = re.match(r"\s*", source.line(n).text).group()
            out.append(f'<span class="kv-line kv-elided"><span class="kv-ln"></span>{indent}{ELIDED}</span>')
        html = cuda_code._link_names(html, source, n, page)
        html = _with_notes(html, notes.get(n, []))
        out.append(f'<span class="kv-line {kind(n)}"><a class="kv-ln" href="{page}#L{n}">{n}</a>{html}</span>')
        prev = n
    return "\n".join(out)


def _with_notes(html, notes):
    if not notes:
        return html
    spans = []
    for name, expr, value in notes:
        text = f"{name} = {expr}" + ("" if value is None or expr == str(value) else f" = {value}")
        attrs = f'data-name="{escapeHtml(name)}" data-expr="{escapeHtml(expr)}"'
        spans.append(f'<span class="kv-note" {attrs}>// {escapeHtml(text)}</span>')
    own = re.search(r'\s*(<span class="c1">)', html)
    gap = html[own.start() : own.start(1)] if own else ""
    added = f'<span class="kv-notes" data-gap="{gap}">  ' + "  ".join(spans) + ("  " if own else "") + "</span>"
    return html[: own.start()] + added + html[own.start(1) :] if own else html + added
