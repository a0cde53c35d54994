"""The last step of a build: every relative ``href`` and ``src`` of every written page must reach a file of the
site, and a ``#fragment`` an id of its page. A broken link is a warning naming the page file and, for a link written
in its Markdown, the line.
"""

import posixpath
import re
from html.parser import HTMLParser
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

EXTERNAL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|//)")


class _Refs(HTMLParser):
    """The ids and the relative href/src values of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.refs = set(), []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            elif name in ("href", "src") and value is not None and not EXTERNAL.match(value):
                self.refs.append(value)


def check(out, pages, diagnostics):
    """Check the links of `pages` (Pages whose HTML is written under `out`)."""
    parsed = {}
    for page in pages:
        refs = _Refs()
        refs.feed((out / page.output).read_text(encoding="utf-8"))
        parsed[page.output] = refs
    for page in pages:
        lines = {}
        for href, line in page.links:
            lines.setdefault(href, line)
        for ref in dict.fromkeys(parsed[page.output].refs):
            problem = _problem(out, page.output, ref, parsed)
            if problem:
                diagnostics.warn(page.file, lines.get(ref), f"broken link {ref!r}: {problem}")


def _problem(out, source, ref, parsed):
    parts = urlsplit(ref)
    path = unquote(parts.path)
    target = source if not path else posixpath.normpath(str(PurePosixPath(source).parent / path))
    if path.endswith("/") or path == ".":
        target = posixpath.join(target, "index.html")
    file = out / target
    if not file.resolve().is_relative_to(out.resolve()):
        return "it leaves the site's folder"
    if not file.is_file():
        return f"no file {target} in the site"
    if parts.fragment and target in parsed and unquote(parts.fragment) not in parsed[target].ids:
        return f"{target} has no id {parts.fragment!r}"
    return None
