"""Python editor blocks: a fence ```` ```pie title="Drawing helpers" ````.

The page's editors run in page order through ``kernelviz.runner`` (at build time in CPython, and again in the
browser when the reader edits them). Each renders as

    <div class="kv-editor" data-editor="I" data-title="…">
      <pre class="kv-code" tabindex="0" role="region" aria-label="Python editor: …">highlighted code</pre></div>

(on one line). The <pre> is focusable, so a keyboard reader reaching it loads the editors at once as a click does
(main.js listens for focusin); the editor that replaces it takes the focus. The page lists them as JSON in
``#kv-editors``: ``[{"title", "code", "first_line"}]``, `first_line` being the line of the page file where the code
starts, so errors point into the page. Above the first editor that imports ``kernelviz.figlib``, a link "Library
source" opens the library's own source, read-only (site.library names it, site.library_page writes it).
"""

from dataclasses import dataclass

from markdown_it.common.utils import escapeHtml

from .. import highlight, library
from . import fence_info


@dataclass
class Editor:
    index: int
    title: str
    code: str
    first_line: int  # the line of the page file where the code starts, from 1

    def to_json(self):
        return {"title": self.title, "code": self.code, "first_line": self.first_line}


def plugin(md):
    md.core.ruler.push("kv_editors", _collect)


def _collect(state):
    editors = []
    for token in state.tokens:
        if token.type != "fence":
            continue
        lang, attrs, _ = fence_info.parse(token.info)
        if lang != "pie":
            continue
        title = attrs.get("title") or f"Editor {len(editors) + 1}"
        editor = Editor(len(editors), title, token.content, token.map[0] + 2)
        escaped = escapeHtml(editor.title)
        first = library.uses_library(editor.code) and not any(library.uses_library(e.code) for e in editors)
        link = (
            f'<p class="kv-library"><a href="{library.OUTPUT}">Library source</a>: the figure library these '
            "editors draw with, read-only</p>\n"
            if first
            else ""
        )
        token.meta["html"] = link + (
            f'<div class="kv-editor" data-editor="{editor.index}" data-title="{escaped}">'
            f'<pre class="kv-code" tabindex="0" role="region" aria-label="Python editor: {escaped}">'
            f"{highlight.python(editor.code)}</pre></div>\n"
        )
        editors.append(editor)
    state.env["editors"] = editors
