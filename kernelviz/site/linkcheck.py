"""The last step of a build: every relative ``href`` and ``src`` of every written page must reach a file of the
site, and a ``#fragment`` an id of its page (or, written ``#step=7``, the state of the figure the page has). A
broken link is a warning naming the page file and, for a link written in its Markdown, the line.

External links (the sources of ``extensions.references``, any ``https://`` link in a page) are checked for form, never
fetched: an http(s) URL with a host name, a mailto: with an address, or data:; anything else (a typo'd scheme, a
space, a host without a dot) is a warning.
"""

import posixpath
import re
from html import unescape
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from .extensions.links import EXTERNAL

TAG = re.compile(r"<[a-zA-Z][^>]*>")  # the builder's HTML quotes every attribute and escapes > in values
ATTR = re.compile(r"""\s(id|href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


class _Refs:
    """The ids, the relative href/src values and the external ones of a page."""

    def __init__(self, text):
        self.ids, self.refs, self.external = set(), [], []
        for tag in TAG.finditer(text):
            for m in ATTR.finditer(tag.group(0)):
                value = unescape(m.group(2) if m.group(2) is not None else m.group(3))
                if m.group(1) == "id":
                    self.ids.add(value)
                elif not EXTERNAL.match(value):
                    self.refs.append(value)
                else:
                    self.external.append(value)


def check(out, pages, diagnostics):
    """Check the links of `pages` (Pages whose HTML is written under `out`)."""
    parsed = {}
    for page in pages:
        parsed[page.output] = _Refs((out / page.output).read_text(encoding="utf-8"))
    for page in pages:
        lines = {}
        for href, line in page.links:
            lines.setdefault(href, line)
        for ref in dict.fromkeys(parsed[page.output].refs):
            problem = _problem(out, page.output, ref, parsed)
            if problem:
                diagnostics.warn(page.file, lines.get(ref), f"broken link {ref!r}: {problem}")
        for url in dict.fromkeys(parsed[page.output].external):
            problem = external_problem(url)
            if problem:
                line = next((n for n, text in enumerate(page.source.splitlines(), 1) if url in text), None)
                diagnostics.warn(page.file, line, f"malformed external link {url!r}: {problem}")


HOST = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$")


def external_problem(url):
    """What is wrong with the form of the external link `url`, or None. Nothing is fetched."""
    if any(c.isspace() or ord(c) < 32 for c in url):
        return "it has a space or a control character"
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        host = (parts.hostname or "").lower()
        if not HOST.match(host):
            return f"{host or 'no host'} is not a host name (name.domain)"
        return None
    if scheme == "mailto":
        return None if re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", parts.path) else "not an e-mail address"
    if scheme == "data":
        return None
    return f"a reader's browser cannot follow {scheme or 'a protocol-relative'}: links (use https:)"


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
    if "=" in parts.fragment and target in parsed:  # a figure's state (#step=7, #N=12&step=7), read by the runtime
        return None if "kv-figure" in parsed[target].ids else f"{target} has no figure for {parts.fragment!r}"
    if parts.fragment and target in parsed and unquote(parts.fragment) not in parsed[target].ids:
        return f"{target} has no id {parts.fragment!r}"
    return None
