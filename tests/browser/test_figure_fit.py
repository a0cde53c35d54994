"""The figure fits its box (issue 12, item 7): on every kernel page at 1366×768 and 1920×1080, at every step, the
drawing fills at least 70 % of the canvas's width or height, nothing drawn falls outside the canvas, and no label
renders below 11 px on screen (its font size times the SVG's zoom)."""

import pytest
from figure_page import KERNEL_PAGES, SCREENS, open_figure, without_python

# Plays every step (reduced motion: each is drawn at once) and measures what is displayed, in client px.
MEASURE_EVERY_STEP = """async () => {
  const host = document.getElementById('kv-figure');
  const svg = host.querySelector('svg');
  const last = host.querySelectorAll('.kv-step-items button').length - 1;
  let box = null, smallest = Infinity;
  const outside = [];
  for (let k = 0; k <= last; k++) {
    await window.kernelviz.goTo(k);
    const zoom = svg.getScreenCTM().a;
    const c = svg.getBoundingClientRect(); // (playing a step may scroll the page to its bullet)
    for (const el of svg.querySelectorAll('.kv-nodes :is(rect, line, text, circle)')) {
      if (el.closest('[display="none"]')) continue;
      const b = el.getBoundingClientRect();
      if (b.width === 0 && b.height === 0) continue;
      if (b.left < c.left - 0.5 || b.top < c.top - 0.5 || b.right > c.right + 0.5 || b.bottom > c.bottom + 0.5)
        outside.push(`step ${k}: ${el.tagName} ${el.textContent}`.trim());
      const [l, t, r, d] = [b.left - c.left, b.top - c.top, b.right - c.left, b.bottom - c.top];
      box = box ? [Math.min(box[0], l), Math.min(box[1], t), Math.max(box[2], r), Math.max(box[3], d)] : [l, t, r, d];
      if (el.tagName === 'text') smallest = Math.min(smallest, parseFloat(el.getAttribute('font-size')) * zoom);
    }
  }
  const c = svg.getBoundingClientRect();
  const drawing = [box[2] - box[0], box[3] - box[1]];
  return { canvas: [c.width, c.height], drawing, outside, smallest, steps: last + 1 };
}"""


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_figure_fills_its_canvas_clips_nothing_and_stays_legible_on_every_kernel_page(browser, site_url, screen):
    context = browser.new_context(viewport=SCREENS[screen], reduced_motion="reduce")
    page = without_python(context.new_page())
    for slug in KERNEL_PAGES:
        open_figure(page, f"{site_url}/{slug}.html")
        m = page.evaluate(MEASURE_EVERY_STEP)
        fill = max(m["drawing"][0] / m["canvas"][0], m["drawing"][1] / m["canvas"][1])
        assert m["steps"] > 1, slug
        assert fill >= 0.7, f"{slug} at {screen}: the drawing fills {fill:.0%} of the canvas {m['canvas']}"
        assert m["outside"] == [], f"{slug} at {screen}: drawn outside the canvas"
        assert m["smallest"] >= 11 - 0.01, f"{slug} at {screen}: a label renders at {m['smallest']:.2f} px"
    context.close()
