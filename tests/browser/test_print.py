"""Printing a page (web/src/page/print.css, web/src/page/print.js). Under print media (`emulate_media`), every page
of the built site, kernel pages, the home page, the library source and the whole-kernel sources, is a clean
document, read from the real computed styles and boxes:

- no control is displayed: no button, input, select, textarea, skip link, the figure's settings, size form or step
  list, the editors' bars, and of the nav only its home link;
- code is whole: no pre, CodeMirror scroller or content, editor or editor output scrolls or clips (its scroll size
  fits its box, across and down), and none is wider than the page;
- every CUDA block prints its code while its <details> stays closed, as it was on screen;
- the figure's SVG is displayed once, non-zero, at most about half as tall as wide, in a figure that is neither
  sticky nor fixed (a fixed box prints on every page), at the step the reader left it on (step 5: the same step, the
  same labels and caption, the same count);
- in the dark theme (the system's or the reader's choice) the printed page, prose and figure are light.

Then the real print path: a PDF of the FA2 page, its editors mounted, dark, at step 5, is a PDF of several pages;
when its print began every CUDA block was open and the figure fitted to a canvas half as tall as wide, and after it
the figure still shows step 5 and the CUDA blocks are closed again; `beforeprint` (what a print sends
first) opens the closed CUDA blocks and fits the figure to a canvas half as tall as wide, `afterprint` undoes both.
"""

import re
from pathlib import Path

import pytest

from kernelviz.cuda.kernels import FILES
from tests.browser.figure_page import KERNEL_PAGES, open_figure, without_python
from tests.browser.figure_page import PAGES as TEXT_PAGES

# each kernel's source has its page, and so has each header a page's CUDA block cites (cite="mma_sm80.h#mma")
PAGES_MD = (Path(__file__).resolve().parents[2] / "pages").glob("*.md")
CITED_HEADERS = sorted({h for md in PAGES_MD for h in re.findall(r'cite="([\w.]+\.h)#', md.read_text())})
PAGES = [*TEXT_PAGES, "figlib", *sorted(FILES.values()), *CITED_HEADERS]
STEP = 5

# Everything wrong with the page as printed now (under print media), as sentences.
PRINT_PROBLEMS = """() => {
  const problems = [];
  const shown = (el) => el.getClientRects().length > 0;
  const name = (el) => {
    const classes = typeof el.className === 'string' ? el.className.trim().split(/\\s+/) : [];
    return [el.tagName.toLowerCase(), ...classes].join('.') + ` "${el.textContent.trim().slice(0, 30)}"`;
  };
  const controls = 'button, input, select, textarea, .kv-skip, .kv-settings, form.kv-sizes, .kv-step-items, '
    + '.kv-editor-bar, .kv-editor-status, .kv-nav ol, .kv-theme';
  for (const el of document.querySelectorAll(controls)) if (shown(el)) problems.push(`a control prints: ${name(el)}`);
  const page = document.documentElement.clientWidth;
  const code = 'pre, .cm-editor, .cm-scroller, .cm-content, .kv-editor, .kv-editor-stdout';
  for (const el of document.querySelectorAll(code)) {
    if (!shown(el)) continue;
    const [w, h] = [el.clientWidth, el.clientHeight];
    if (el.scrollWidth > w + 1) problems.push(`code cut across: ${name(el)} ${el.scrollWidth} > ${w}`);
    if (el.scrollHeight > h + 1) problems.push(`code cut down: ${name(el)} ${el.scrollHeight} > ${h}`);
    const box = el.getBoundingClientRect();
    if (box.right > page + 1) problems.push(`code wider than the page: ${name(el)} ends at ${box.right} of ${page}`);
  }
  for (const details of document.querySelectorAll('details.kv-cuda')) {
    const pre = details.querySelector('pre');
    const box = pre.getBoundingClientRect();
    if (details.open) problems.push(`a CUDA block is open on screen: ${details.dataset.cite}`);
    if (!(box.width > 0 && box.height > 0)) problems.push(`a CUDA block prints no code: ${details.dataset.cite}`);
  }
  const title = document.querySelector('h1'), figure = document.getElementById('kv-figure');
  if (title && figure && shown(figure) && figure.getBoundingClientRect().top < title.getBoundingClientRect().top)
    problems.push('the figure prints above the title');
  const ink = getComputedStyle(document.body);
  if (ink.backgroundColor !== 'rgb(255, 255, 255)') problems.push(`the page prints on ${ink.backgroundColor}`);
  const prose = document.querySelector('.kv-prose, main');
  const text = getComputedStyle(prose).color;
  const [r, g, b] = text.match(/[\\d.]+/g).map(Number);
  if ((0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 > 0.4) problems.push(`the text prints in ${text}`);
  return problems;
}"""

# The figure as printed now: its displayed SVGs, the first one's box, the figure's position, what it shows.
FIGURE = """() => {
  const host = document.getElementById('kv-figure');
  const svgs = [...host.querySelectorAll('svg')].filter((s) => s.getClientRects().length > 0);
  const box = svgs[0]?.getBoundingClientRect();
  const fixed = [];
  for (let el = host; el; el = el.parentElement) {
    const p = getComputedStyle(el).position;
    if (p === 'sticky' || p === 'fixed') fixed.push(`${el.tagName} ${p}`);
  }
  const background = host.querySelector('svg .kv-background');
  return {
    svgs: svgs.length,
    size: box ? [box.width, box.height] : null,
    fixed,
    step: window.kernelviz.step(),
    current: host.dataset.currentStep,
    count: host.querySelector('.kv-count')?.textContent,
    countShown: host.querySelector('.kv-count')?.getClientRects().length > 0,
    labels: [...host.querySelectorAll('svg .kv-nodes text')].filter((t) => !t.closest('[display="none"]'))
      .map((t) => t.textContent).join('').replace(/\\s+/g, ''),
    paper: background ? getComputedStyle(background).fill : null,
  };
}"""


# Records, when a print begins (after print.js's and cuda-blocks.js's own beforeprint), how many CUDA blocks are
# still closed, how many still show their plain text (not rendered) and the shape of the figure's viewBox, in
# window.kvAtPrint.
AT_PRINT = """() => addEventListener('beforeprint', () => {
  const b = document.querySelector('#kv-figure svg').viewBox.baseVal;
  const closed = document.querySelectorAll('details.kv-cuda:not([open])').length;
  const plain = document.querySelectorAll('details.kv-cuda pre:not(:has(.kv-line))').length;
  window.kvAtPrint = { closed, plain, ratio: b.width / b.height };
})"""


def reach_editors(pg):
    """Reach for the last editor (as a focus would) and wait until every editor of the page is mounted."""
    pg.evaluate("""() => [...document.querySelectorAll('.kv-editor')].at(-1)
        .dispatchEvent(new FocusEvent('focusin', { bubbles: true }))""")
    pg.wait_for_function(
        "document.querySelectorAll('.kv-editor-live').length === document.querySelectorAll('.kv-editor').length",
        timeout=30_000,
    )


def at_step(pg, k):
    pg.evaluate(f"window.kernelviz.goTo({k})")
    pg.wait_for_function(
        f"window.kernelviz.step() === {k} && document.getElementById('kv-figure').dataset.animating === 'false'"
    )


def printed(pg):
    """Switch `pg` to print media and let the page lay out again (the figure refits on its canvas's resize)."""
    pg.emulate_media(media="print")
    pg.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


@pytest.fixture(scope="module", params=["light", "dark"])
def scheme(request, browser):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, color_scheme=request.param)
    context.route("**/pyodide/**", lambda route: route.abort())
    context.scheme = request.param
    yield context
    context.close()


def test_every_page_is_listed(built_site):
    assert sorted(PAGES) == sorted(p.stem for p in built_site.glob("*.html"))


@pytest.mark.parametrize("name", PAGES)
def test_a_page_prints_as_a_document(scheme, site_url, name):
    pg = scheme.new_page()
    try:
        kernel = name in KERNEL_PAGES
        if name != "flash-attention-2":
            without_python(pg)
        open_figure(pg, f"{site_url}/{name}.html") if kernel else pg.goto(f"{site_url}/{name}.html")
        pg.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
        if name == "flash-attention-2":
            reach_editors(pg)
        assert pg.locator("details.kv-cuda").count() > 0 or not kernel
        if kernel:
            at_step(pg, STEP)
            before = pg.evaluate(FIGURE)
        on_screen = pg.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (on_screen == "rgb(255, 255, 255)") == (scheme.scheme == "light"), on_screen
        printed(pg)
        assert pg.evaluate(PRINT_PROBLEMS) == []
        if name == "flash-attention-2":
            assert pg.locator(".cm-content").count() >= 2, "the editors are mounted, and printed"
        if kernel:
            after = pg.evaluate(FIGURE)
            assert after["svgs"] == 1 and after["fixed"] == [], after
            width, height = after["size"]
            assert width > 600 and 0 < height <= 0.6 * width, f"the figure prints {width} x {height}"
            assert after["step"] == STEP and after["current"] == str(STEP)
            assert after["count"] == before["count"] and after["countShown"]
            assert after["labels"] == before["labels"] and after["labels"], "the figure still shows the same step"
            assert after["paper"] == "rgb(255, 255, 255)", "the figure prints on white"
    finally:
        pg.close()


def test_a_pdf_of_a_kernel_page_in_the_dark_theme(browser, site_url):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, color_scheme="dark")
    context.route("**/pyodide/**", lambda route: route.abort())
    context.add_init_script("localStorage.setItem('kv-theme', 'dark')")
    pg = context.new_page()
    try:
        open_figure(pg, f"{site_url}/flash-attention-2.html")
        assert pg.evaluate("document.documentElement.dataset.theme") == "dark"
        reach_editors(pg)
        at_step(pg, STEP)
        before = pg.evaluate(FIGURE)
        pg.evaluate(AT_PRINT)
        pdf = pg.pdf(format="A4")
        at_print = pg.evaluate("window.kvAtPrint")
        assert at_print["closed"] == 0 and at_print["plain"] == 0 and at_print["ratio"] == pytest.approx(2, rel=0.02), (
            at_print
        )
        assert pdf.startswith(b"%PDF-") and len(pdf) > 50_000
        pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))
        assert pages > 1, f"{pages} pages"
        assert pg.evaluate(FIGURE)["step"] == STEP and pg.evaluate(FIGURE)["labels"] == before["labels"]
        assert pg.evaluate("document.querySelectorAll('details.kv-cuda[open]').length") == 0, "closed again"
    finally:
        context.close()


def test_beforeprint_opens_the_cuda_blocks_and_fits_the_figure_to_paper(browser, site_url):
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    pg = without_python(context.new_page())
    try:
        open_figure(pg, f"{site_url}/flash-decoding.html")
        at_step(pg, STEP)
        assert pg.locator("details.kv-cuda pre:has(.kv-line)").count() == 0, "a block is rendered when it is opened"
        pg.evaluate("document.querySelector('details.kv-cuda').open = true")  # the reader opened one
        ratio = "(({ width, height }) => width / height)(document.querySelector('#kv-figure svg').viewBox.baseVal)"
        screen = pg.evaluate(ratio)
        labels = pg.evaluate(FIGURE)["labels"]
        pg.evaluate("dispatchEvent(new Event('beforeprint'))")
        assert pg.evaluate("[...document.querySelectorAll('details.kv-cuda')].every((d) => d.open)")
        assert pg.locator("details.kv-cuda pre:not(:has(.kv-line))").count() == 0, "every block rendered to print"
        assert pg.evaluate(ratio) == pytest.approx(2, rel=0.02) and screen != pytest.approx(2, rel=0.02)
        assert pg.evaluate(FIGURE)["step"] == STEP and pg.evaluate(FIGURE)["labels"] == labels
        pg.evaluate("dispatchEvent(new Event('afterprint'))")
        assert pg.evaluate("[...document.querySelectorAll('details.kv-cuda')].map((d) => d.open)").count(True) == 1
        assert pg.evaluate(ratio) == pytest.approx(screen, rel=0.001)
        assert pg.evaluate("document.querySelector('details.kv-cuda').open"), "the block the reader opened stays open"
    finally:
        context.close()
