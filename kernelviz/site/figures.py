"""The build's figures stage: from each page's editors to the figure its HTML opens with, and the size form's scenes.

    files = figures.stage(site, web_dist, diagnostics, limits)   # {path in the site: JSON} of the scene files

For every page with editors, in four steps over the whole site, it stores on the page (``page.figure``) a Figure:
1. run the editors, as the browser will, in a child process per page under `limits` (``isolated``): ``run``; an
   error is a warning at its line of the page file, naming the editor, and the page's ``failure``;
2. check the Scene with the browser's own checker (``scenes``): what the browser would refuse is a warning and
   the page's ``failure``;
3. draw the Scene that can be drawn, at its first step, with the browser's own renderer (``figure_svg``):
   ``drawn``;
4. prerender the sizes of the page's size form (``prerender``): ``form``, and the scene files returned, with the
   Scene the page opens with (``scene_path``, packed: ``scene_file``; the page preloads it, render.py).

The page then shows its figure, or its failure where the figure would be (``render``).
"""

import json
from dataclasses import dataclass

from ..runner import Source
from . import figure_svg, prerender, scene_file, scenes
from .isolated import Job, run_batches


@dataclass
class Figure:
    """What the figures stage made of a page's editors."""

    run: object  # the runner's RunResult
    failure: str | None = None  # why there is no figure (with the build's warning), shown where it would be
    drawn: figure_svg.Prerendered | None = None  # the figure and its controls at the first step, drawn at build time
    form: str = ""  # the size form's HTML, on a page with one


def stage(site, web_dist, diagnostics, limits=None, on_page=None):
    """The four steps of the module docstring over `site`; returns {path in the site: JSON text} of the size forms'
    scene files. `on_page(page, done, pages)`: see ``run_editors``."""
    run_editors(site, diagnostics, limits, on_page)
    for page in site:  # by the browser's own checker: what it would refuse is a warning
        if page.scene is not None and (found := scenes.problem(page.scene, web_dist)):
            line = page.editors[0].first_line if page.editors else None
            warning = diagnostics.warn(page.file, line, f"the browser cannot draw the Scene the editors made: {found}")
            page.figure.failure = f"the page's figure cannot be drawn ({warning})"
    for page in site:  # the figure each page opens with, drawn by the browser's own renderer
        if page.scene is not None and not page.failure:
            page.figure.drawn = figure_svg.figure(page.scene, web_dist, title=page.title)
    forms, files = prerender.prerender(site, diagnostics, limits)  # the size forms' scenes (figure contract D)
    for page in site:
        if page.slug in forms:
            page.figure.form = forms[page.slug]
        if (file := scene_path(page)) is not None:
            files[file] = json.dumps(scene_file.pack(page.scene), separators=(",", ":"), ensure_ascii=False)
    return files


def scene_path(page):
    """The path in the site of the Scene `page` opens with (``scenes/SLUG.json``, which the page preloads, packed:
    site.scene_file), or None when it has none (no editors, or they failed)."""
    return f"scenes/{page.slug}.json" if page.scene is not None and not page.failure else None


def run_editors(site, diagnostics, limits=None, on_page=None):
    """Run each page's editors in order through the runner, isolated (``isolated``: a child process per page, side
    by side, under `limits`), and give the page its Figure. An error is a warning at its line of the page file,
    naming the editor; the page then shows it where the figure would be (``render``). `on_page(page, done, pages)`,
    when given, is called as each page's editors are done (the build's progress, page by page)."""
    with_editors = [page for page in site if page.editors]
    batches = [[Job([Source(e.code, page.file, e.first_line) for e in page.editors])] for page in with_editors]

    def done(i):
        if on_page is not None:
            on_page(with_editors[i], i + 1, len(with_editors))

    for page, (result,) in zip(with_editors, run_batches(batches, limits, done), strict=True):
        page.figure = Figure(result)
        error = result.error
        if error is None:
            continue
        if error.editor is None:  # the run stopped before any editor started
            warning = diagnostics.warn(page.file, page.editors[0].first_line, f"the editors failed: {error.message}")
        elif error.file_line is None:  # the process stopped (killed, exited) while this editor ran
            editor = page.editors[error.editor]
            message = f"editor {error.editor + 1} ({editor.title}) failed: {error.message}"
            warning = diagnostics.warn(page.file, editor.first_line, message)
        else:
            title = page.editors[error.editor].title
            failure = f"{error.kind}: {error.message}" if error.message else error.kind
            warning = diagnostics.warn(
                page.file, error.file_line, f"editor {error.editor + 1} ({title}) failed: {failure}"
            )
        page.figure.failure = (
            f"the page's editors failed when the site was built ({warning}); edit and run them to draw it"
        )
