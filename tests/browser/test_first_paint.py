"""The figure at first paint: each kernel page of the built site carries its figure as inline SVG, with its controls
(drawn at build time by the browser's own renderer, kernelviz/site/figure_svg.py), so it is drawn with JavaScript
off, and the runtime takes those elements over instead of drawing them again, and its controls' places: nothing in
the figure moves when the runtime starts."""

import pytest
from figure_page import KERNEL_PAGES, without_python

# The shapes of the figure as drawn: every shape element of the SVG that is displayed (not display: none), with its
# text without spaces (the browser may break a label into other lines than the build's measure did).
SHAPES = """() => [...document.querySelectorAll('#kv-figure svg .kv-nodes :is(rect, line, path, text, circle)')]
  .filter((e) => getComputedStyle(e).display !== 'none' && !e.closest('[display="none"]'))
  .map((e) => e.localName + ':' + e.textContent.replace(/\\s+/g, ''))"""

# Step 0 of a kernel page draws its HBM tiles ruled into their rows, its SRAM and their labels: 56 to 87 shapes at
# the sizes the pages open with (the other tiles appear as the steps play). Fewer than this is a figure not drawn.
LEAST_SHAPES = 50


@pytest.fixture
def no_script_page(browser):
    context = browser.new_context(java_script_enabled=False)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("slug", KERNEL_PAGES)
def test_figure_is_drawn_with_javascript_off_as_the_runtime_draws_step_0(no_script_page, page, site_url, slug):
    no_script_page.goto(f"{site_url}/{slug}.html")
    static = no_script_page.evaluate(SHAPES)
    assert len(static) >= LEAST_SHAPES
    box = no_script_page.locator("#kv-figure svg").bounding_box()
    assert box and box["width"] > 100 and box["height"] > 100  # laid out by the stylesheet, not collapsed
    controls = "#kv-figure :is(.kv-settings, .kv-sizes, .kv-dock, button, input)"
    assert no_script_page.locator(controls).count() > 0  # drawn with the page, but hidden: they would do nothing
    assert no_script_page.evaluate(f"[...document.querySelectorAll('{controls}')].every((e) => !e.checkVisibility())")
    assert not no_script_page.locator(".kv-theme").is_visible()  # it needs a script too

    without_python(page).goto(f"{site_url}/{slug}.html")
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    assert page.evaluate("window.kernelviz.step()") == 0
    assert sorted(page.evaluate(SHAPES)) == sorted(static)


# Before any script runs: note the prerendered SVG and every element removed from or added to the figure's SVG.
WATCH = """document.addEventListener('DOMContentLoaded', () => {
  const svg = document.querySelector('#kv-figure svg');
  window.__prerendered = svg;
  window.__elements = svg ? svg.querySelectorAll('*:not(tspan)').length : 0; // (lines may differ: see below)
  window.__changes = [];
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.removedNodes) if (n.nodeType === 1) window.__changes.push('-' + n.localName);
      for (const n of r.addedNodes) if (n.nodeType === 1) window.__changes.push('+' + n.localName);
    }
  }).observe(svg, { childList: true, subtree: true });
});"""


@pytest.mark.parametrize("slug", KERNEL_PAGES)
def test_the_runtime_takes_over_the_prerendered_figure_without_drawing_it_again(page, site_url, slug):
    page.add_init_script(WATCH)
    without_python(page).goto(f"{site_url}/{slug}.html")
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    page.wait_for_timeout(200)  # a late resize redraw, if any
    assert page.evaluate("document.querySelector('#kv-figure svg') === window.__prerendered")
    assert page.locator("#kv-figure svg[data-prerendered]").count() == 0  # the runtime owns it now
    assert page.evaluate("document.querySelectorAll('#kv-figure svg *:not(tspan)').length") == page.evaluate(
        "window.__elements"
    )
    # no shape is removed or added: only a label the browser measures otherwise may get other lines (tspans)
    assert [c for c in page.evaluate("window.__changes") if c[1:] != "tspan"] == []


# Before any script runs: every layout shift whose moved elements lie in the figure, as "ms: element y0 -> y1".
FIGURE_SHIFTS = """window.__figureShifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    for (const s of e.sources)
      if (s.node && s.node.parentElement?.closest('#kv-figure'))
        window.__figureShifts.push(`${e.startTime | 0} ms: ${s.node.className || s.node.nodeName} `
          + `${s.previousRect.y} -> ${s.currentRect.y}`);
}).observe({ type: 'layout-shift', buffered: true });"""
SCREENS = {"laptop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("slug", KERNEL_PAGES)
def test_the_runtime_puts_its_controls_where_the_drawn_ones_were(browser, site_url, slug, screen):
    context = browser.new_context(viewport=SCREENS[screen], reduced_motion="reduce")
    context.add_init_script(FIGURE_SHIFTS)
    page = without_python(context.new_page())
    page.goto(f"{site_url}/{slug}.html")
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    page.wait_for_timeout(300)
    assert page.locator("#kv-figure :is(svg, .kv-settings, .kv-dock)[data-prerendered]").count() == 0  # taken over
    assert page.locator("#kv-figure .kv-settings").count() == 1 and page.locator("#kv-figure .kv-dock").count() == 1
    assert page.locator("#kv-figure .kv-range").count() == page.locator("#kv-figure input[type=number]").count()
    assert page.evaluate("document.querySelector('#kv-figure .kv-settings').open") is False  # folded at first
    assert page.evaluate("window.__figureShifts") == []
    context.close()


# Before any script runs: for each of the page's first frames, [the figure's SVG is in the document, the text's
# first block is rendered (null: not parsed yet)], read in the frame's animation callbacks (its style as drawn).
FRAMES = """window.__frames = [];
requestAnimationFrame(function look() {
  const first = document.querySelector('#kv-text > *');
  window.__frames.push([!!document.querySelector('#kv-figure svg'), first ? first.checkVisibility() : null]);
  if (window.__frames.length < 40) requestAnimationFrame(look);
});"""


@pytest.mark.parametrize("slug", KERNEL_PAGES)
def test_the_figure_paints_first_and_the_text_a_frame_later(browser, no_script_page, site_url, slug):
    context = browser.new_context(viewport=SCREENS["laptop"])
    context.add_init_script(FRAMES)
    page = without_python(context.new_page())
    page.goto(f"{site_url}/{slug}.html")
    page.wait_for_function("window.__frames.length >= 40")
    frames = page.evaluate("window.__frames")
    assert frames[0][0], "the first frame has the figure"
    assert frames[0][1] is not True, "the text waits for the frame after the figure's"
    shown = [n for n, (_, text) in enumerate(frames) if text]
    assert shown and shown[0] <= 3, f"the text is drawn within 3 frames of the figure: {frames[:5]}"
    assert all(text for _, text in frames[shown[0] :])  # and stays drawn
    context.close()

    no_script_page.goto(f"{site_url}/{slug}.html")  # the CSS does it: without JavaScript the text shows too
    assert no_script_page.locator("#kv-text h1").is_visible()


# Before any script: when the first formula enters the document, the last rule of the math's stylesheet by then (the
# site's math fonts: site-math.css, after Temml's CSS), or '' without the stylesheet.
FIRST_FORMULA = """window.__formula = null;
new MutationObserver((records, observer) => {
  if (!document.querySelector('#kv-text math')) return;
  const sheet = [...document.styleSheets].find((s) => s.href && s.href.endsWith('/assets/math.css'));
  window.__formula = { last: sheet && sheet.cssRules.length ? sheet.cssRules[sheet.cssRules.length - 1].cssText : '' };
  observer.disconnect();
}).observe(document, { childList: true, subtree: true });"""


def test_the_figure_does_not_wait_for_the_maths_stylesheet_and_no_formula_comes_before_it(browser, site_url):
    """The math's CSS (Temml's and the site's math fonts) is linked by the text, not the head: held back by the test,
    it holds back neither the figure nor its frames, and the text after it is parsed only once it has come."""
    context = browser.new_context(viewport=SCREENS["laptop"])
    context.add_init_script(FRAMES)
    context.add_init_script(FIRST_FORMULA)
    held = []
    context.route("**/assets/math.css", lambda route: held.append(route))
    page = without_python(context.new_page())
    page.goto(f"{site_url}/flash-attention-2.html", wait_until="commit")
    page.wait_for_function("window.__frames.length >= 10")
    assert len(held) == 1, "the page asks for the math's stylesheet"
    assert page.evaluate("window.__frames")[0][0], "the figure is in the first frame"
    assert page.locator("#kv-text h1").is_visible()  # the title comes before the link
    assert page.evaluate("window.__formula") is None, "no formula while the math's stylesheet is held back"
    held[0].continue_()
    page.wait_for_function("window.__formula !== null")
    assert "Latin Modern Math" in page.evaluate("window.__formula")["last"]  # the first formula came with its fonts
    context.close()
