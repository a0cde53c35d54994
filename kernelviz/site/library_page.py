"""The figure library's own source, read-only, one click from every page that draws with it: ``figlib.html`` holds
each module of ``kernelviz/figlib`` (and the palette it colours with), highlighted, with its lines numbered. A page
whose editors import ``kernelviz.figlib`` shows a link to it above its first editor (extensions.editors).
"""

from pathlib import Path

from markdown_it.common.utils import escapeHtml

from . import highlight, render
from .library import OUTPUT, uses_library

FIGLIB = Path(__file__).resolve().parents[1] / "figlib"
PALETTE = Path(__file__).resolve().parents[1] / "pie" / "palette.json"
MODULES = ("__init__.py", "sizing.py", "memory.py", "record.py", "layout.py", "draw.py", "answers.py")


def pages(site, context, stylesheets):
    """{OUTPUT: HTML} when a page of `site` draws with the library, else {}."""
    if not any(uses_library(e.code) for page in site for e in page.editors):
        return {}
    body = [
        "<p>The figure library the kernel pages draw with: the editors on those pages call it, and it records each "
        "call into the current step, lays the figure out from the sizes and hands pie one diagram and its step list. "
        "It is read here as it runs, in CPython at build time and in Pyodide in your browser; to change a figure, "
        "edit the page's own editors.</p>",
        "<ul>" + "".join(f'<li><a href="#{_id(name)}"><code>{name}</code></a></li>' for name in MODULES) + "</ul>",
    ]
    for name in MODULES:
        code = (FIGLIB / name).read_text(encoding="utf-8")
        body.append(f'<h2 id="{_id(name)}"><code>kernelviz/figlib/{name}</code></h2>')
        body.append(f'<pre class="kv-code kv-library-source">{highlight.python(code)}</pre>')
    body.append('<h2 id="palette"><code>kernelviz/pie/palette.json</code></h2>')
    body.append(f'<pre class="kv-code">{escapeHtml(PALETTE.read_text(encoding="utf-8"))}</pre>')
    title = "The figure library: kernelviz.figlib"
    return {OUTPUT: render.plain_page_html("figlib", title, "\n".join(body), context, stylesheets)}


def _id(name):
    return "m-" + name.removesuffix(".py").strip("_")
