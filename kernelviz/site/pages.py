"""Collect the page sources and parse them: ``pages/NAME.md`` → ``Page``.

A page is YAML front matter between ``---`` lines, then Markdown (see ``markdown``). Front matter:

    title: Flash Attention 2          # the page's h1 and <title> (required)
    description: One block ...        # for link previews (meta description, og:description); else the 1st paragraph
    summary: Swap the loops: ...      # the page's line in the home page's contents (its place: nav.PLANNED)
    prerequisites: [How attention works, online-softmax]   # a string that is a page slug becomes a link
    scripts: [explorer]               # extra entry bundles to load: assets/NAME.js
    trace: {algo: fa2, N: 8, d: 4, Br: 4, Bc: 4}            # sizes for {{ trace.EXPR }} (extensions.trace)
    roofline: {algorithms: [fa2, standard], d: 4}          # what {{ roofline }} plots (extensions.roofline)

The slug is the file's stem (``index.md`` is the home page); the page is written to ``SLUG.html``.
"""

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .diagnostics import BuildError

FIELDS = {
    "title": str,
    "description": str,
    "summary": str,
    "prerequisites": list,
    "scripts": list,
    "trace": dict,
    "sizes": dict,
    "prerender": dict,
    "roofline": dict,
}


@dataclass
class Page:
    path: Path
    file: str  # the path as warnings name it
    slug: str
    source: str
    meta: dict = field(default_factory=dict)
    meta_line: int = 1  # the line of the front matter, for warnings about it
    tokens: list = field(default_factory=list)
    env: dict = field(default_factory=dict)
    editors: list = field(default_factory=list)  # extensions.editors.Editor, in page order
    figure: object = None  # figures.Figure, once the figures stage ran the editors (pages with editors)
    toc: list = field(default_factory=list)  # (level, id, inline token) of the ## and ### headings
    links: list = field(default_factory=list)  # (href, line) of the relative links written in the page

    @property
    def title(self):
        return self.meta.get("title") or self.slug

    @property
    def output(self):
        return f"{self.slug}.html"

    @property
    def run(self):
        """The runner's RunResult of the page's editors (None before the figures stage, or without editors)."""
        return self.figure.run if self.figure is not None else None

    @property
    def failure(self):
        """Why the page has no figure (the build's warning), shown where it would be; None when it has one."""
        return self.figure.failure if self.figure is not None else None

    @property
    def scene(self):
        return self.run.scene if self.run is not None and self.run.ok else None

    def steps(self):
        """{name: index} of the first step list of the page's Scene ({} without one): each step's key (when it
        has one) and its label name it; the first step of a name wins, keys before labels."""
        for node in (self.scene or {}).get("nodes", []):
            if node.get("kind") == "step_list":
                out = {}
                for k, step in enumerate(node["steps"]):
                    if "key" in step:
                        out.setdefault(step["key"], k)
                for k, step in enumerate(node["steps"]):
                    out.setdefault(step["label"], k)
                return out
        return {}

    def step_label(self, k):
        """The label of step `k` of the page's figure (see ``steps``), or None."""
        for node in (self.scene or {}).get("nodes", []):
            if node.get("kind") == "step_list":
                return node["steps"][k].get("label") if 0 <= k < len(node["steps"]) else None
        return None

    def step_keys(self):
        """The keys of the steps of the page's figure (see ``steps``)."""
        for node in (self.scene or {}).get("nodes", []):
            if node.get("kind") == "step_list":
                return {step["key"] for step in node["steps"] if "key" in step}
        return set()


def display_name(path):
    """`path` relative to the working directory when it is under it (shorter warnings), else as given."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def collect(pages_dir):
    """The ``*.md`` files of `pages_dir`, sorted by name. Raises BuildError, naming the folder looked for (as given
    and absolute), when it is missing or holds no page."""
    pages_dir = Path(pages_dir)
    where = f"{pages_dir} (looked for {pages_dir.resolve()})"
    if not pages_dir.is_dir():
        raise BuildError(f"no pages folder at {where}; pass --pages DIR, a folder of NAME.md pages")
    found = sorted(pages_dir.glob("*.md"))
    if not found:
        raise BuildError(f"the pages folder {where} has no .md page; a page is NAME.md with front matter")
    return found


def parse(path, md, diagnostics):
    """Read and parse one page. A front matter that is not YAML is a BuildError; a wrong field is a warning."""
    data = path.read_bytes()
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        where = f"{display_name(path)}:{line}"
        raise BuildError(f"{where}: not UTF-8 text (byte 0x{data[e.start]:02x}); save it as UTF-8") from None
    page = Page(path, display_name(path), path.stem, source)
    page.env = {"page": page}
    page.tokens = md.parse(source, page.env)
    page.editors = page.env.get("editors", [])
    front = next((t for t in page.tokens if t.type == "front_matter"), None)
    if front is None:
        diagnostics.warn(page.file, 1, "no front matter: a page starts with ---, a title: line and ---")
        return page
    page.meta_line = front.map[0] + 1
    try:
        meta = yaml.safe_load(front.content) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = page.meta_line + 1 + mark.line if mark else page.meta_line
        raise BuildError(f"{page.file}:{line}: the front matter is not valid YAML: {e}") from e
    if not isinstance(meta, dict):
        raise BuildError(f"{page.file}:{page.meta_line}: the front matter must be a mapping of fields")
    page.meta = _checked(meta, page, diagnostics)
    return page


def _checked(meta, page, diagnostics):
    """`meta` without the fields of a wrong type, each dropped field a warning; an unknown field is a warning."""
    out = {}
    for key, value in meta.items():
        expected = FIELDS.get(key)
        if expected is None:
            known = ", ".join(FIELDS)
            retired = (
                " (a page's place in the book is its line in kernelviz/site/nav.py's PLANNED)" if key == "nav" else ""
            )
            diagnostics.warn(page.file, page.meta_line, f"unknown front matter field {key!r}{retired} (known: {known})")
        elif not isinstance(value, expected) or isinstance(value, bool):
            diagnostics.warn(
                page.file, page.meta_line, f"front matter {key!r} must be a {expected.__name__}, got {value!r}"
            )
        elif expected is list and not all(isinstance(x, str) for x in value):
            diagnostics.warn(page.file, page.meta_line, f"front matter {key!r} must be a list of strings")
        else:
            out[key] = value
    if "title" not in out:
        diagnostics.warn(page.file, page.meta_line, "the front matter has no title")
    return out
