"""Text fits its box, in Chromium, over every figure the built pages draw, at every step, at two window sizes: the
label of every diagram box is drawn inside the box (as drawn on screen, turned or not), or not shown at all
(data-fit="hidden": never printed over what lies beside the box). Whatever the pages draw: the check reads the SVG,
not a list of labels."""

import pytest

from tests.browser.figure_page import KERNEL_PAGES as FIGURE_PAGES
from tests.browser.figure_page import open_figure, without_python

SIZES = [(1600, 1000), (1024, 768)]

OVERFLOWS = """async () => {
  const figure = document.getElementById('kv-figure');
  figure.dataset.duration = '1';
  const steps = Math.max(figure.querySelectorAll('.kv-step-items button').length, 1);
  const out = [];
  for (let k = 0; k < steps; k++) {
    await kernelviz.goTo(k);
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    for (const g of figure.querySelectorAll('g[data-item]')) {
      const rect = g.querySelector(':scope > rect');
      const text = g.querySelector(':scope > text');
      if (!rect || !text || !text.textContent.trim()) continue;
      if (rect.getAttribute('display') === 'none' || text.getAttribute('display') === 'none') continue;
      const r = rect.getBoundingClientRect();
      const t = text.getBoundingClientRect();
      const tol = 0.5;
      const inside =
        t.left >= r.left - tol && t.right <= r.right + tol && t.top >= r.top - tol && t.bottom <= r.bottom + tol;
      const clear = text.dataset.fit === 'hidden' && getComputedStyle(text).visibility === 'hidden';
      if (!inside && !clear) {
        out.push({ step: k, item: g.dataset.item, label: text.textContent, fit: text.dataset.fit || null,
          text: [t.width, t.height].map(Math.round), box: [r.width, r.height].map(Math.round) });
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", FIGURE_PAGES)
def test_every_box_label_fits_its_box_at_every_step(page, site_url, name, size):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{site_url}/{name}.html")
    page.wait_for_selector("#kv-figure svg:not([data-prerendered]) g[data-item] text", state="attached")
    overflows = page.evaluate(OVERFLOWS)
    assert overflows == [], f"{name}: {len(overflows)} labels overflow their box, e.g. {overflows[:5]}"
    assert page.errors == []


def test_fitting_wraps_shrinks_turns_or_hides_as_the_box_allows(page, site_url):
    """The rule on one scene of four boxes, each allowing one way, in a frame that sets the zoom near 1 (so the
    smallest legible size is near 11 px: the shrunk label stays above it, the turned one would not)."""
    item = dict(fill="#eeeeee", stroke="#333333", font=16, wrap=0, line=False, color="#000000")
    frame = dict(item, x=-6, y=-4, w=12, h=8, fill="none", label="")
    boxes = [
        dict(item, x=-5, y=1, w=1.6, h=2, label="two words"),  # too wide on one line: wraps
        dict(item, x=-2, y=1, w=1.35, h=0.6, label="×0.1353"),  # one word, a little too wide: shrinks
        dict(item, x=1, y=-2, w=0.45, h=3, label="m_local"),  # tall and narrow: turns a quarter
        dict(item, x=3, y=1, w=0.15, h=0.15, label="much too long"),  # nothing legible fits: not shown
    ]
    scene = {
        "version": 1,
        "canvas": {"side": "right"},
        "settings": {"unit": 40, "gridOpacity": 0, "canvasColor": "#ffffff", "originX": 0, "originY": 0},
        "nodes": [{"id": "d", "kind": "diagram", "items": [frame, *boxes]}],
    }
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.goto(f"{site_url}/flash-attention-2.html")
    page.wait_for_selector("#kv-figure svg:not([data-prerendered])")
    assert page.evaluate("(s) => window.kernelviz.setScene(s)", scene) is True
    fits = page.locator("#kv-figure g[data-item] text").evaluate_all("(ts) => ts.map((t) => t.dataset.fit)")
    assert fits == ["wrap", "shrink", "turn", "hidden"]
    hidden = page.locator("#kv-figure g[data-item='4'] text")
    assert hidden.text_content() == "much too long"
    assert hidden.evaluate("(t) => getComputedStyle(t).visibility") == "hidden"
    assert page.locator("#kv-figure g[data-item='1'] text tspan").count() == 2
    assert page.evaluate(OVERFLOWS) == []


# Every pair of the figure's shown text labels whose boxes, as drawn on screen, meet (by more than 1 px each way),
# at every step: [{step, a, b}]. Hidden labels (display none, visibility hidden, empty) are not drawn, so not counted.
OVERLAPPING_LABELS = """async () => {
  const svg = document.querySelector('#kv-figure svg');
  const last = document.querySelectorAll('#kv-figure .kv-step-items button').length - 1;
  const pairs = [];
  for (let k = 0; k <= last; k++) {
    await window.kernelviz.goTo(k);
    const shown = [];
    for (const t of svg.querySelectorAll('.kv-nodes text')) {
      if (t.closest('[display="none"]') || !t.textContent.trim()) continue;
      if (getComputedStyle(t).visibility === 'hidden') continue;
      const b = t.getBoundingClientRect();
      if (b.width > 0 && b.height > 0) shown.push([t.textContent, b]);
    }
    for (let i = 0; i < shown.length; i++)
      for (let j = i + 1; j < shown.length; j++) {
        const [[a, p], [c, q]] = [shown[i], shown[j]];
        const dx = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const dy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (dx > 1 && dy > 1) pairs.push({ step: k, a, b: c });
      }
  }
  return pairs;
}"""


# The step's caption (the scene's steps[k].caption, as drawn: its words, wrapped or not) against every box shown at
# step k, each as drawn on screen: [{step, box}] where the two meet by more than 1 px each way.
CAPTION_OVER_BOXES = """async () => {
  const find = (o) => {
    if (Array.isArray(o)) {
      if (o.length && o[0] && typeof o[0] === 'object' && 'caption' in o[0] && 'key' in o[0]) return o;
      for (const v of o) { const f = find(v); if (f) return f; }
    } else if (o && typeof o === 'object') for (const v of Object.values(o)) { const f = find(v); if (f) return f; }
    return null;
  };
  const steps = find(window.kernelviz.scene()) || [];
  const svg = document.querySelector('#kv-figure svg');
  const shown = (el) => !el.closest('[display="none"]') && getComputedStyle(el).visibility !== 'hidden';
  const out = [];
  for (let k = 0; k < steps.length; k++) {
    await window.kernelviz.goTo(k);
    const words = steps[k].caption.replace(/\\s+/g, '');
    const caption = [...svg.querySelectorAll('.kv-nodes text')].find(
      (t) => shown(t) && t.textContent.replace(/\\s+/g, '') === words);
    if (!caption) { out.push({ step: k, box: 'no caption drawn' }); continue; }
    const p = caption.getBoundingClientRect();
    for (const g of svg.querySelectorAll('.kv-nodes g[data-item]')) {
      const rect = g.querySelector(':scope > rect');
      if (!rect || !shown(rect) || rect.getAttribute('display') === 'none') continue;
      const q = rect.getBoundingClientRect();
      if (q.width <= 0 || q.height <= 0) continue;
      const dx = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const dy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (dx > 1 && dy > 1) out.push({ step: k, box: g.dataset.item, by: [dx, dy].map(Math.round) });
    }
  }
  return out;
}"""


@pytest.mark.parametrize("name", FIGURE_PAGES)
def test_no_two_labels_meet_on_a_phone_at_any_step(browser, site_url, name):
    """Docked on a 390 x 844 phone the figure is drawn at about half the pages' scale while no label goes under
    11 px: its labels grow against the drawing, and must still not print over each other (issue 38, item 1), nor
    the step's caption over a box (paged decoding's caption grew onto the combine's registers)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, reduced_motion="reduce")
    page = without_python(context.new_page())
    open_figure(page, f"{site_url}/{name}.html")
    pairs = page.evaluate(OVERLAPPING_LABELS)
    covered = page.evaluate(CAPTION_OVER_BOXES)
    context.close()
    assert pairs == [], f"{name} at 390 px: {len(pairs)} pairs of labels meet, e.g. {pairs[:6]}"
    assert covered == [], f"{name} at 390 px: the caption meets {len(covered)} boxes, e.g. {covered[:6]}"
