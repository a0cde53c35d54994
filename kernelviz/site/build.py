"""``kernelviz build``: pages/*.md to a static site, in one pipeline you can read top to bottom.

    collect pages → parse → figures (run the editors, check and draw the Scene, prerender the sizes: site.figures)
    → resolve (steps, trace numbers and charts, fragment pictures, links, CUDA regions, contents, sections)
    → math to MathML (Temml, in-process)
    → render, and a page per kernel the pages cite → write, with the assets → check links → strict?
    → precompressed siblings (``kernelviz build``: NAME.gz for static hosts) → publish

The site is written to a staging folder beside `out` and moved into place only when the build succeeds, so a failed
build leaves the last good site as it was (what ``kernelviz serve`` keeps serving). Warnings name the page file and
line; ``strict`` fails the build on any.
"""

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..progress import bar
from . import (
    assets,
    explorer_drawn,
    figures,
    kernel_pages,
    library_page,
    linkcheck,
    locations,
    mathml,
    nav,
    pages,
    palette,
    precompress,
    render,
)
from .diagnostics import BuildError, Diagnostics
from .exchange import exchange
from .extensions import contents, cuda, fragments, links, math, placeholders, references, steps, tiles_chart, toc
from .markdown import markdown

WEB_DIST = locations.WEB_DIST  # the bundled runtime: web/dist in a checkout, kernelviz/bundled/web in a wheel
PAGES = locations.PAGES
MARKER = ".kernelviz-site"  # in every site we write; a folder without it is never replaced
RESOLVE = (steps, placeholders, tiles_chart, fragments, links, cuda, contents, references, toc)


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
    on_stage=None,
    on_page=None,
):
    """Build the site of `pages_dir` into `out`. Returns a BuildResult; raises BuildError when the build cannot be
    done, or under `strict` when there is any warning (then `out` is left as it was). `limits`: the editors' time
    and memory limits (``isolated.Limits``; None: the defaults). `progress`: show a bar of the stages on a terminal
    (``kernelviz.progress``; a build takes seconds, mostly running the editors), cleared when it ends.
    `precompressed`: write a NAME.gz beside each text asset for a static host to serve (``precompress``; about a
    second more; ``kernelviz serve`` compresses as it serves instead). `on_stage(name)`, when given, is called as
    each stage of STAGES starts (``kernelviz build`` logs them where there is no terminal for the bar), and
    `on_page(page, done, pages)` as each page's editors are done (the bar names the pages done: figures 5/14)."""
    with bar(total=len(STAGES), desc="build", unit="stage", enabled=progress, delay=0) as stages:
        calls = (on_stage, on_page)
        return _build(pages_dir, Path(out), Path(web_dist), strict, log, limits, stages, precompressed, calls)


STAGES = ("parse", "figures", "resolve", "math", "render", "write", "links", "compress")


def _build(pages_dir, out, web_dist, strict, log, limits, stages, precompressed=False, calls=(None, None)):
    started = time.perf_counter()
    on_stage, on_page = calls

    def stage(name):
        stages.n = STAGES.index(name)  # the stages before it are done
        stages.set_postfix_str(name)  # redraws the bar (on a terminal, when progress is on)
        if on_stage is not None:
            on_stage(name)

    def page_done(page, done, pages):
        stages.set_postfix_str(f"figures {done}/{pages} pages")
        if on_page is not None:
            on_page(page, done, pages)

    diagnostics = Diagnostics(log)
    assets.check_runtime(web_dist)
    md = markdown()
    stage("parse")
    site = [pages.parse(path, md, diagnostics) for path in pages.collect(pages_dir)]
    context = Context(diagnostics, {p.slug: p for p in site}, nav.entries(site), web_dist=web_dist)
    stage("figures")  # each page's editors run as the browser will run them, to embed the figure (site.figures)
    scene_files = figures.stage(site, web_dist, diagnostics, limits, page_done)
    explorer_drawn.prerender(site, web_dist)  # the overview's explorer, drawn as the browser draws it
    stage("resolve")
    resolve(site, context)
    stage("math")
    typeset_math(site, web_dist, diagnostics)
    stage("render")
    html, sheets, written = render_site(site, md, context, web_dist, diagnostics)
    stage("write")
    staging = write(out, web_dist, {**html, **scene_files}, sheets)
    stage("links")
    linkcheck.check(staging, [*site, *(kernel_pages.written_page(name) for name in written)], diagnostics)

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


def resolve(site, context):
    """Resolve what depends on the figure, the files and the other pages: each extension of RESOLVE, in order."""
    for page in site:
        for extension in RESOLVE:
            extension.resolve(page, context)
        page.links += [(f"assets/{name}.js", page.meta_line) for name in page.meta.get("scripts", [])]


def typeset_math(site, web_dist, diagnostics):
    """Typeset every formula of the build to MathML in one call to Temml (in-process, in the embedded V8), with the
    palette's colours as macros (palette.macros)."""
    found = [(page, math.formulas(page)) for page in site]
    tex = [math.tex_of(t) for _, formulas in found for t, _ in formulas]
    typeset = mathml.typeset(tex, web_dist, macros=palette.macros())
    for page, formulas in found:
        math.apply(page, formulas, typeset[: len(formulas)], diagnostics)
        math.check_delimiters(page, diagnostics)
        typeset = typeset[len(formulas) :]


def render_site(site, md, context, web_dist, diagnostics):
    """({file: HTML} of the pages, the whole-kernel pages they cite and the library's page; {name: parts} of the
    stylesheets they link, one a page in its head (assets.stylesheet) and the math's; the files of the pages the
    builder wrote itself)."""
    sheets = dict([assets.MATH_CSS])

    def stylesheet(scripts=()):
        name, sheets[name] = assets.stylesheet(web_dist, scripts)
        return [name]

    html = {page.output: render.page_html(page, md, context, stylesheet(page.meta.get("scripts", []))) for page in site}
    viewed = kernel_views(context, diagnostics, stylesheet())
    library = library_page.pages(site, context, stylesheet())  # figlib.html, when used
    return {**html, **viewed, **library}, sheets, [*viewed, *library]


def write(out, web_dist, files, sheets):
    """Write `files` ({name: text}), the runtime's assets and the `sheets` into a staging folder beside `out`;
    returns that folder (``publish`` moves it into place)."""
    staging = out.parent / f".{out.name}.building"
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(staging, ignore_errors=True)
    assets.copy(web_dist, staging / "assets")
    for name, parts in sheets.items():
        assets.write_stylesheet(staging / "assets", name, parts)
    for name, text in files.items():
        (staging / name).parent.mkdir(parents=True, exist_ok=True)
        (staging / name).write_text(text, encoding="utf-8")
    (staging / MARKER).write_text("written by kernelviz build; the whole folder is replaced on the next build\n")
    return staging


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
    """Move the built `staging` folder to `out`, replacing the site there (never a folder we did not write): in one
    step where the system can swap two folders (``exchange``), so a server reading `out` never finds it missing."""
    if out.exists() and not (out / MARKER).exists() and any(out.iterdir()):
        shutil.rmtree(staging, ignore_errors=True)
        raise BuildError(f"{out} is not empty and was not written by kernelviz build; choose another --out")
    if out.is_dir() and not out.is_symlink() and exchange(staging, out):  # one step: `out` is never missing
        shutil.rmtree(staging, ignore_errors=True)  # now the old site
        return
    old = out.parent / f".{out.name}.old"
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)
