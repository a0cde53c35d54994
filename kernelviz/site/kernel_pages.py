"""The whole-kernel pages: for each .cu file a page cites, ``FILE.cu.html`` with the whole file, line numbers (ids
``L<n>``), its regions marked (each starts at the id of its name and says which pages quote it, at which step),
and the compilers' report on its instances (cuda.report: registers, shared memory, spills, stack, per
architecture). Every CUDA block of a page links to its region here (extensions.cuda).
"""

from types import SimpleNamespace

from markdown_it.common.utils import escapeHtml

from ..cuda import kernels, regions
from ..cuda import report as reports
from . import cuda_code, render

COLUMNS = ("instance", "arch", "registers", "shared memory (bytes)", "spill stores", "spill loads", "stack (bytes)")


def pages(cited, context, stylesheets, tables=None):
    """{output file: HTML} of the whole-kernel page of each file of `cited` ({file: [(page, region, step, step
    index)]}, in the order first cited). `tables`: the compilers' Tables (default: cuda.report.tables(), computed
    once)."""
    if not cited:
        return {}
    tables = reports.tables() if tables is None else tables
    out = {}
    for filename, uses in cited.items():
        out[cuda_code.page_of(filename)] = page_html(filename, uses, context, stylesheets, tables, set(cited))
    return out


def written_page(output):
    """A whole-kernel page as linkcheck takes a page: its output file, no Markdown links, named by its file."""
    return SimpleNamespace(output=output, links=[], file=output)


def stale_warnings(tables):
    """The sentences to warn with when a checked-in table is older than the .cu files it describes."""
    return [
        f"the compiler report ({t.compiler}, {t.origin}) predates changes to {', '.join(t.stale)}: run "
        "kernelviz verify --compile --write-report where nvcc or NVRTC is installed"
        for t in tables
        if t.stale
    ]


def page_html(filename, uses, context, stylesheets, tables, cited=()):
    """The whole-file page of `filename`: a kernel's .cu, with the compilers' report on it, or a header the kernels
    include (mma_sm80.h), with links to theirs (those of `cited`, the files whose pages the site has)."""
    kernel = next((k for k, f in kernels.FILES.items() if f == filename), None)
    title = f"{filename}: the whole {'header' if filename.endswith('.h') else 'kernel'}"
    body = [
        f"<p>The whole of <code>kernelviz/cuda/{escapeHtml(filename)}</code>, as the pages quote it: each region a "
        "page cites is marked, from its <code>// region:</code> line to its <code>// endregion</code>, with the "
        "steps that quote it. A name links to the line that declares it.</p>",
        _regions_list(filename, uses),
        _includers_html(filename, cited) if filename.endswith(".h") else _report_html(kernel, tables),
        '<h2 id="source">Source</h2>',
        f'<pre class="kv-code kv-cuda-file">{_source_html(filename)}</pre>',
    ]
    return render.plain_page_html(filename, title, "\n".join(body), context, stylesheets)


def _regions_list(filename, uses):
    """The regions of the file, each with the pages and steps that quote it."""
    quoted = {}  # region -> {page slug: (page, [(step, index)])}
    for page, name, step, k in uses:
        quoted.setdefault(name, {}).setdefault(page.slug, (page, []))[1].append((step, k))
    items = []
    for name, (first, last, _) in regions.regions(filename).items():
        by = []
        for page, steps in quoted.get(name, {}).values():
            bound = [
                f'<a href="{escapeHtml(page.output)}#step={k}">{escapeHtml(step)}</a>'
                for step, k in steps
                if step is not None and k is not None
            ]
            link = f'<a href="{escapeHtml(page.output)}">{escapeHtml(page.title)}</a>'
            by.append(
                link + (f" (steps {', '.join(bound)})" if len(bound) > 1 else f" (step {bound[0]})" if bound else "")
            )
        items.append(
            f'<li><a href="#{escapeHtml(name)}"><code>{escapeHtml(name)}</code></a>, lines {first}–{last}'
            + (f": quoted by {', '.join(by)}" if by else "")
            + "</li>"
        )
    return f'<h2 id="regions">Regions</h2><ul class="kv-region-list">{"".join(items)}</ul>'


def includers(header):
    """The .cu files of the kernels that #include `header` (a file beside them), in the registry's order."""
    line = f'#include "{header}"'
    return [f for f in kernels.FILES.values() if line in (kernels.FOLDER / f).read_text()]


def _includers_html(header, cited):
    """A header's stand-in for the report: the kernels it is compiled into, each linked to its whole-kernel page
    where the site has one (a kernel of `cited`)."""

    def name(f):
        code = f"<code>{escapeHtml(f)}</code>"
        return f'<a href="{cuda_code.page_of(f)}">{code}</a>' if f in cited else code

    links = ", ".join(name(f) for f in includers(header))
    return (
        '<h2 id="report">What the compiler reports</h2><p>A header: the compilers build it as part of each kernel '
        f"that includes it ({links or 'none'}), whose page reports registers, shared memory and spills.</p>"
    )


def _report_html(kernel, tables):
    """The compilers' rows for `kernel`, one table per compiler, each saying where its numbers came from."""
    parts = ['<h2 id="report">What the compiler reports</h2>']
    found = [t for t in tables if kernel in t.rows]
    if not found:
        parts.append("<p>No compiler report: this build found neither nvcc nor NVRTC, nor a report checked in.</p>")
    for t in found:
        head = "".join(f"<th>{c}</th>" for c in COLUMNS)
        rows = "".join(
            f"<tr><td><code>{escapeHtml(r.kernel)}</code></td><td>{r.arch}</td><td>{r.registers}</td>"
            f"<td>{r.shared_bytes}</td><td>{r.spill_stores}</td><td>{r.spill_loads}</td><td>{r.stack_bytes}</td></tr>"
            for r in t.rows[kernel]
        )
        note = f"ptxas, through {escapeHtml(t.compiler)}; {escapeHtml(t.origin)}."
        if t.stale:
            note += f" The .cu files changed since: {escapeHtml(', '.join(t.stale))}."
        parts.append(
            f'<table class="kv-report"><caption>{note}</caption><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table>"
        )
    return "\n".join(parts)


def _source_html(filename):
    """Every line of the file, numbered, with an id per line and per region, region lines marked."""
    src = regions.source(filename)
    found = regions.regions(filename)
    inside = {n for first, last, _ in found.values() for n in range(first, last + 1)}
    starts = {first - 1: name for name, (first, _, _) in found.items()}  # the // region: NAME line
    numbers = range(1, len(src.lines) + 1)

    def kind(n):
        return "kv-marker" if regions.is_marker(src.line(n).text) else ("kv-region" if n in inside else "")

    lines = cuda_code.lines_html(src, filename, numbers, kind=kind, anchors=True).split("\n")
    for n, name in starts.items():
        lines[n - 1] = f'<span class="kv-region-start" id="{escapeHtml(name)}"></span>{lines[n - 1]}'
    return "\n".join(lines)
