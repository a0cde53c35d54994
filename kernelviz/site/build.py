"""``kernelviz build``: pages/*.md to a static site, in one pipeline you can read top to bottom.

    collect pages → parse → run editors → resolve (steps, trace numbers, links, CUDA regions, contents, sections)
    → typeset math (KaTeX, in-process) → render, and a page per kernel the pages cite → write, with the assets
    → check links → strict? → precompressed siblings (``kernelviz build``: NAME.gz for static hosts) → publish

The site is written to a staging folder beside `out` and moved into place only when the build succeeds, so a failed
build leaves the last good site as it was (what ``kernelviz serve`` keeps serving). Warnings name the page file and
line; ``strict`` fails the build on any.
"""

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..progress import bar
from ..runner import Source
from . import (
    assets,
    figure_svg,
    katex,
    kernel_pages,
    library_page,
    linkcheck,
    locations,
    nav,
    pages,
    palette,
    precompress,
    prerender,
    render,
    scenes,
)
from .diagnostics import BuildError, Diagnostics
from .extensions import contents, cuda, links, math, references, steps, toc, trace
from .isolated import Job, run_batches
from .markdown import markdown

WEB_DIST = locations.WEB_DIST  # the bundled runtime: web/dist in a checkout, kernelviz/bundled/web in a wheel
PAGES = locations.PAGES
MARKER = ".kernelviz-site"  # in every site we write; a folder without it is never replaced
RESOLVE = (steps, trace, links, cuda, contents, references, toc)


@dataclass
class Context:
    """What a page's extensions may look at beyond the page: the other pages, the nav, where to warn."""

    diagnostics: Diagnostics
    pages: dict  # slug -> Page
    nav: list  # nav.Entry
    cited: dict = field(default_factory=dict)  # .cu file -> [(page, region, step, index)], from the CUDA blocks
    web_dist: Path = WEB_DIST  # the runtime, whose build-time scripts the extensions may run


@dataclass
class BuildResult:
    out: Path
    pages: list  # the slugs written
    warnings: list = field(default_factory=list)
    seconds: float = 0.0


def build(
    pages_dir=PAGES,
    out="site",
    *,
    strict=False,
    web_dist=WEB_DIST,
    log=print,
    limits=None,
    progress=False,
    precompressed=False,
):
    """Build the site of `pages_dir` into `out`. Returns a BuildResult; raises BuildError when the build cannot be
    done, or under `strict` when there is any warning (then `out` is left as it was). `limits`: the editors' time
    and memory limits (``isolated.Limits``; None: the defaults). `progress`: show a bar of the stages on a terminal
    (``kernelviz.progress``; a build takes seconds, mostly running the editors), cleared when it ends.
    `precompressed`: write a NAME.gz beside each text asset for a static host to serve (``precompress``; about a
    second more; ``kernelviz serve`` compresses as it serves instead)."""
    with bar(total=len(STAGES), desc="build", unit="stage", enabled=progress, delay=0) as stages:
        return _build(pages_dir, Path(out), Path(web_dist), strict, log, limits, stages, precompressed)


STAGES = ("parse", "editors", "resolve", "math", "render", "write", "links", "compress")


def _build(pages_dir, out, web_dist, strict, log, limits, stages, precompressed=False):
    started = time.perf_counter()

    def stage(name):
        stages.n = STAGES.index(name)  # the stages before it are done
        stages.set_postfix_str(name)  # redraws the bar (on a terminal, when progress is on)

    diagnostics = Diagnostics(log)
    assets.check_runtime(web_dist)
    md = markdown()

    # collect and parse
    stage("parse")
    site = [pages.parse(path, md, diagnostics) for path in pages.collect(pages_dir)]
    context = Context(diagnostics, {p.slug: p for p in site}, nav.entries(site), web_dist=web_dist)

    # run each page's editors, as the browser will, to embed the figure: in a child process per page, with limits
    stage("editors")
    run_editors(site, diagnostics, limits)
    scenes.check(site, web_dist, diagnostics)  # by the browser's own checker: what it would refuse is a warning
    figure_svg.prerender(site, web_dist)  # the figure each page opens with, drawn by the browser's own renderer
    scene_files = prerender.prerender(site, diagnostics, limits)  # the size forms' scenes (figure contract D)

    # resolve what depends on the figure, the files and the other pages
    stage("resolve")
    for page in site:
        for extension in RESOLVE:
            extension.resolve(page, context)
        page.links += [(f"assets/{name}.js", page.meta_line) for name in page.meta.get("scripts", [])]

    # typeset every formula of the build in one call to KaTeX (in-process, in the embedded V8)
    stage("math")
    found = [(page, math.formulas(page)) for page in site]
    tex = [math.tex_of(t) for _, formulas in found for t, _ in formulas]
    typeset = katex.typeset(tex, web_dist, macros=palette.macros())  # \kvm{…}: the palette's colours
    for page, formulas in found:
        math.apply(page, formulas, typeset[: len(formulas)], diagnostics)
        math.check_delimiters(page, diagnostics)
        typeset = typeset[len(formulas) :]

    # render, write beside `out` with the assets, check the links
    stage("render")
    # {name: parts} of the stylesheets the pages link: one a page in its head (assets.stylesheet), and the math's
    sheets = dict([assets.MATH_CSS])

    def stylesheet(scripts=()):
        name, sheets[name] = assets.stylesheet(web_dist, scripts)
        return [name]

    html = {page.output: render.page_html(page, md, context, stylesheet(page.meta.get("scripts", []))) for page in site}
    viewed = kernel_views(context, diagnostics, stylesheet())
    html.update(viewed)
    html.update(scene_files)
    library = library_page.pages(site, context, stylesheet())  # figlib.html, when used
    html.update(library)
    stage("write")
    staging = out.parent / f".{out.name}.building"
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(staging, ignore_errors=True)
    assets.copy(web_dist, staging / "assets")
    for name, parts in sheets.items():
        assets.write_stylesheet(staging / "assets", name, parts)
    for name, text in html.items():
        (staging / name).parent.mkdir(parents=True, exist_ok=True)
        (staging / name).write_text(text, encoding="utf-8")
    (staging / MARKER).write_text("written by kernelviz build; the whole folder is replaced on the next build\n")
    stage("links")
    linkcheck.check(staging, [*site, *(kernel_pages.written_page(name) for name in [*viewed, *library])], diagnostics)

    try:
        diagnostics.fail_if_strict(strict)
    except BuildError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if precompressed:
        stage("compress")
        precompress.siblings(staging)
    publish(staging, out)
    result = BuildResult(out, [p.slug for p in site], diagnostics.warnings, time.perf_counter() - started)
    if log:
        n = len(result.warnings)
        log(f"built {len(site)} pages into {out} in {result.seconds:.2f} s ({n} warning{'' if n == 1 else 's'})")
    return result


def run_editors(site, diagnostics, limits=None):
    """Run each page's editors in order through the runner, isolated (``isolated``: a child process per page, side
    by side, under `limits`). An error is a warning at its line of the page file, naming the editor; the page then
    shows it where the figure would be (``render``)."""
    with_editors = [page for page in site if page.editors]
    batches = [[Job([Source(e.code, page.file, e.first_line) for e in page.editors])] for page in with_editors]
    for page, (result,) in zip(with_editors, run_batches(batches, limits), strict=True):
        page.run = result
        error = result.error
        if error is None:
            continue
        if error.editor is None:  # the run stopped outside any editor's line (killed, exited)
            warning = diagnostics.warn(page.file, page.editors[0].first_line, f"the editors failed: {error.message}")
        else:
            title = page.editors[error.editor].title
            failure = f"{error.kind}: {error.message}" if error.message else error.kind
            warning = diagnostics.warn(
                page.file, error.file_line, f"editor {error.editor + 1} ({title}) failed: {failure}"
            )
        page.failure = f"the page's editors failed when the site was built ({warning}); edit and run them to draw it"


def kernel_views(context, diagnostics, stylesheets):
    """{file: HTML} of the whole-kernel pages of the .cu files the pages cite; a compiler that fails, or a checked-in
    report older than the kernels, is a warning."""
    from ..cuda import kernels, report

    try:
        tables = report.tables() if set(context.cited) & set(kernels.FILES.values()) else []
    except RuntimeError as e:
        diagnostics.warn("kernelviz/cuda", None, f"the compiler report failed: {e}")
        tables = report.checked_in()
    for message in kernel_pages.stale_warnings(tables):
        diagnostics.warn(str(report.REPORT), None, message)
    return kernel_pages.pages(context.cited, context, stylesheets, tables)


def publish(staging, out):
    """Move the built `staging` folder to `out`, replacing the site there (never a folder we did not write)."""
    if out.exists() and not (out / MARKER).exists() and any(out.iterdir()):
        shutil.rmtree(staging, ignore_errors=True)
        raise BuildError(f"{out} is not empty and was not written by kernelviz build; choose another --out")
    old = out.parent / f".{out.name}.old"
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)
