"""The Markdown of a page: CommonMark (markdown-it-py) with the plugins and extensions the page format uses.

    md = markdown()
    tokens = md.parse(source, env)       # parse; extensions annotate tokens (token.meta) as they go
    ...                                  # later stages resolve the annotations (steps, regions, math, links)
    html = md.renderer.render(tokens, md.options, env)

A fence whose token carries ``meta["html"]`` (set by an extension: pie editors, CUDA citations, contents) renders
as that HTML; any other fence in a language Pygments knows (```` ```python ````, ```` ```c ````) is highlighted.
"""

import re

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from . import highlight
from .extensions import contents, cuda, editors, links, math, placeholders, steps, toc

# Their parsing rules, registered in this order (math first, so that `$…$` is math before anything else).
EXTENSIONS = (math, steps, placeholders, links, editors, cuda, contents, toc)


def markdown():
    """A MarkdownIt configured for pages (a new one per build: plugins keep no state across pages)."""
    md = MarkdownIt("commonmark", {"html": True, "typographer": False}).enable("table")
    md.use(front_matter_plugin)
    md.use(attrs_block_plugin).use(attrs_plugin)
    md.use(anchors_plugin, min_level=2, max_level=3, slug_func=slug)
    for extension in EXTENSIONS:
        extension.plugin(md)
    md.add_render_rule("fence", _fence)
    return md


def slug(title):
    """A heading's id: 'Tile j = 1' -> 'tile-j-1' (runs of anything but letters and digits become one dash)."""
    return re.sub(r"[\W_]+", "-", title.lower()).strip("-") or "section"


def _fence(renderer, tokens, idx, options, env):
    token = tokens[idx]
    if "html" in token.meta:
        return token.meta["html"]
    language = token.info.split(maxsplit=1)[0] if token.info.strip() else ""
    code = highlight.by_name(token.content, language) if language else None
    if code is None:
        return renderer.fence(tokens, idx, options, env)
    return f'<pre class="kv-code" data-language="{escapeHtml(language)}">{code}</pre>\n'
