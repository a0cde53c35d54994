"""A parsed, resolved page to its HTML (``templates/page.html``), per the page contract:

    <body data-page="SLUG">  skip links  nav  <main class="kv-page" data-canvas-side="right|left|">
      <aside class="kv-figure" id="kv-figure" tabindex="-1" aria-label="Figure: TITLE">  (pages with editors)
        <details class="kv-settings" data-prerendered>, the size form, <div class="kv-canvas"><svg
        data-prerendered>: the figure at its first step, <div class="kv-dock" data-prerendered>: its step list; drawn
        at build time (figure_svg), which the runtime takes over
      </aside>
      <script type="application/json" id="kv-scene-error">"why"</script>  (when the editors failed: the runtime
                                                             shows it where the figure would be)
      <script type="module" async src="assets/main.js">  (the runtime: see below)
      <article class="kv-prose" id="kv-text"> h1, table of sections, prerequisites, the Markdown </article>
    </main>
    <script type="application/json" id="kv-cuda-source">{"sizes", "files"}</script>  (what the CUDA blocks are
                                                           rendered from when opened: extensions/cuda.py)
    <script type="application/json" id="kv-editors">[{"title", "code", "first_line"}, ...]</script>

The Scene of the build-time run is a file of its own, ``scenes/SLUG.json`` (figures.scene_path, packed:
scene_file.py), preloaded from the head (``<link rel="preload" as="fetch" crossorigin id="kv-scene">``): it arrives
beside the runtime, not in the document, so the HTML carries only what is shown (the figure is drawn at build time)
and the text.

The figure comes before the text in the document, so that the browser has parsed it by its first paint (the CSS
places it beside the text, or docked above it on a narrow screen). The runtime comes before the text too
(preloaded from the head, async): it runs as soon as it has arrived and the figure is parsed, and takes the Scene
from its preload, so the figure plays before the text has come (web/src/entries/main.js binds the text once it has).
Every link is relative, so a site works from any folder.
"""

import html
import json
import re
from pathlib import Path
from string import Template
from types import SimpleNamespace
from urllib.parse import quote

from markdown_it.common.utils import escapeHtml

from . import answers, assets, figures, nav
from .extensions import cuda, toc

TEMPLATE = Template((Path(__file__).parent / "templates" / "page.html").read_text(encoding="utf-8"))
# The site's icon, in the page itself: an icon at a URL is fetched again at every change of the page's URL (each step
# the figure plays writes its hash).
ICON = "data:image/svg+xml," + quote((Path(__file__).parent / "static" / "favicon.svg").read_text("utf-8").strip())
# The math's CSS (Temml's and the site's: its fonts), linked by the text of a page with math, after its title (see
# assets.py). Chromium and Safari parse no further until a stylesheet in the body has come; the empty script makes
# other browsers wait for it too (a script runs only once the stylesheets before it have), so no formula is shown
# without its CSS.
MATH = f'<link rel="stylesheet" href="assets/{assets.MATH_CSS[0]}"><script> </script>'


def page_html(page, md, context, stylesheets):
    """The HTML of `page`; `context` has the build's `nav` entries and `pages` ({slug: Page}). `stylesheets`: the
    stylesheets under assets/ to link (the builder's pages link one: assets.stylesheet)."""
    scene = page.scene
    side = (scene or {}).get("canvas", {}).get("side") or ""
    scripts = "\n".join(
        f'<script type="module" src="assets/{escapeHtml(name)}.js"></script>' for name in page.meta.get("scripts", [])
    )
    embedded, preload = "", ""
    if page.failure:
        embedded = f'<script type="application/json" id="kv-scene-error">{json_for_html(page.failure)}</script>\n'
    elif (file := figures.scene_path(page)) is not None:
        preload = f'<link rel="preload" href="{escapeHtml(file)}" as="fetch" crossorigin id="kv-scene">\n'
    data = ""
    if (source := cuda.source_data(page)) is not None:
        data += f'<script type="application/json" id="kv-cuda-source">{json_for_html(source)}</script>\n'
    if (values := answers.table(page)) is not None:  # the figure's values at the page's sizes (site.answers)
        data += f'<script type="application/json" id="kv-answers">{json_for_html(values)}</script>\n'
    if page.editors:
        editors = [e.to_json() for e in page.editors]
        data += f'<script type="application/json" id="kv-editors">{json_for_html(editors)}</script>\n'
    return _document(
        page.title,
        page.slug,
        stylesheets,
        description=page.meta.get("description"),
        toc=toc.render(page, md),
        prerequisites=prerequisites_html(page, context),
        body=md.renderer.render(page.tokens, md.options, page.env),
        scripts=scripts,
        nav=nav_html(context.nav, page, home="index" in context.pages),
        side=side,
        skip=skip_link(page),
        figure=figure_html(page),
        scene=embedded,
        preload=preload,
        data=data,
    )


def plain_page_html(slug, title, body, context, stylesheets):
    """A page the builder writes itself (no Markdown, no figure, no editors): `title` as text, `body` as HTML, in the
    site's template with its nav; `context` and `stylesheets` as in `page_html`."""
    return _document(
        title,
        slug,
        stylesheets,
        toc="",
        prerequisites="",
        body=body,
        scripts="",
        nav=nav_html(context.nav, SimpleNamespace(slug=slug), home="index" in context.pages),
        side="",
        skip=skip_link(SimpleNamespace(editors=[])),
        figure="",
        scene="",
        preload="",
        data="",
    )


DESCRIPTION_CHARS = 200  # a link preview shows about this much
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
_DROPPED = re.compile(r"<sup\b[^>]*>.*?</sup>", re.S)  # a citation's number: [1]
_TAG = re.compile(r"<[^>]+>")


def page_description(body, given=None):
    """The page's description for link previews (<meta name="description">, og:description): `given` (the front
    matter's `description`), else the text of the body's first paragraph (HTML: its tags, and the citations' numbers,
    dropped; a formula as its MathML's text, N×N), cut at a word to about DESCRIPTION_CHARS with an ellipsis."""
    if given:
        text = str(given)
    else:
        first = _PARAGRAPH.search(body)
        text = html.unescape(_TAG.sub("", _DROPPED.sub("", first[1]))) if first else ""
    text = " ".join(text.split())
    if len(text) > DESCRIPTION_CHARS:
        text = text[: DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return text


def _document(title, slug, stylesheets, toc, prerequisites, body, description=None, **parts):
    """The template filled with what every page has: the icon, its title and slug, its description (`description`:
    the front matter's; else from the body, see `page_description`), the stylesheets its head links, its text (`toc`,
    `prerequisites`, `body`: HTML) with the math's CSS linked when the text has a formula, and `parts`, the template's
    other fields."""
    text = (toc, prerequisites, body)
    return TEMPLATE.substitute(
        icon=ICON,
        title=escapeHtml(title),
        description=escapeHtml(page_description(body, description)),
        slug=escapeHtml(slug),
        stylesheets="\n".join(f'<link rel="stylesheet" href="assets/{escapeHtml(s)}">' for s in stylesheets),
        math=MATH if any("<math" in part for part in text) else "",
        toc=toc,
        prerequisites=prerequisites,
        body=body,
        **parts,
    )


def figure_html(page):
    """The figure's box (pages with editors): named for the page, and a target of the skip link. It holds, as the
    runtime lays it out, the canvas settings, the size form (when the page has one), the canvas and the dock (the
    step list), all drawn at build time when the build's editors drew a Scene."""
    if not page.editors:
        return ""
    label = escapeHtml(f"Figure: {page.title}")
    figure = page.figure  # what the figures stage made of the editors (site.figures)
    form, drawn = (figure.form, figure.drawn) if figure is not None else ("", None)
    parts = [drawn.settings, form, f'<div class="kv-canvas">{drawn.svg}</div>', drawn.dock] if drawn else [form]
    return f'<aside class="kv-figure" id="kv-figure" tabindex="-1" aria-label="{label}">{"".join(parts)}</aside>'


def skip_link(page):
    """The page's first links, shown when focused: on a page with a figure (which comes first in the document, so
    that it is parsed and painted first), to the text after it and to the figure; else to the content."""
    if page.editors:
        return (
            '<a class="kv-skip" href="#kv-text">Skip to the text</a>'
            '<a class="kv-skip" href="#kv-figure">Skip to the figure</a>'
        )
    return '<a class="kv-skip" href="#kv-main">Skip to the content</a>'


def json_for_html(value):
    """`value` as JSON that is safe inside a <script> element (no '<', '>' or '&' that HTML could read)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# The theme button says what it does: in the light theme "☾ Dark" (named "Switch to the dark theme"), in the dark
# theme "☀ Light"; site.css shows the one for the theme in force, from the first paint (the reader's choice, else
# the system's), so that neither the words nor the width change once the page's script runs.
THEME_BUTTON = (
    '<button class="kv-theme" type="button">'
    '<span class="kv-to-dark"><span aria-hidden="true">\u263e\ufe0e </span>'
    '<span class="kv-unseen">Switch to the </span>Dark<span class="kv-unseen"> theme</span></span>'
    '<span class="kv-to-light"><span aria-hidden="true">\u2600\ufe0e </span>'
    '<span class="kv-unseen">Switch to the </span>Light<span class="kv-unseen"> theme</span></span>'
    "</button>"
)


def nav_html(entries, page, home=True):
    items = []
    for e in entries:
        if e.href is None:
            items.append(
                f'<li class="kv-coming"><span>{escapeHtml(e.text)}</span> <em class="kv-coming-tag">coming</em></li>'
            )
        else:
            current = ' aria-current="page"' if e.slug == page.slug else ""
            items.append(f'<li><a href="{escapeHtml(e.href)}"{current}>{escapeHtml(e.text)}</a></li>')
    current = ' aria-current="page"' if page.slug == "index" else ""
    link = f'<a class="kv-home" href="index.html"{current}>kernelviz</a>'
    if not home:
        link = '<span class="kv-home">kernelviz</span>'
    theme = THEME_BUTTON  # main.js wires it
    return f'<nav class="kv-nav" aria-label="Pages">{link}<ol>{"".join(items)}</ol>{theme}</nav>'


def prerequisites_html(page, context):
    """The prerequisites of `page`: a string that is a page slug links to that page (or says it is coming)."""
    wanted = page.meta.get("prerequisites") or []
    if not wanted:
        return ""
    known = nav.by_slug(context.nav)
    items = []
    for text in wanted:
        e = known.get(text)
        other = context.pages.get(text)
        if e is None and other is not None:
            items.append(f'<li><a href="{escapeHtml(other.output)}">{escapeHtml(other.title)}</a></li>')
        elif e is None:
            items.append(f"<li>{escapeHtml(text)}</li>")
        elif e.href is None:
            items.append(f'<li class="kv-coming">{escapeHtml(e.label)} <em class="kv-coming-tag">coming</em></li>')
        else:
            items.append(f'<li><a href="{escapeHtml(e.href)}">{escapeHtml(e.label)}</a></li>')
    return f'<section class="kv-prerequisites"><h2>Prerequisites</h2><ul>{"".join(items)}</ul></section>'
