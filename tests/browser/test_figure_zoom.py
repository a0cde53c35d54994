"""Zoom and pan on a phone: the tensor-core page's register table, too dense to read at 390 px, opens up when the
reader zooms in on it (Ctrl + wheel, as a trackpad's pinch sends it): no two labels in view overlap and none is under
11 px on screen; the keys zoom and pan the focused canvas; the reset button brings back the fitted figure exactly."""

from figure_page import without_python

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
CANVAS = "#kv-figure .kv-canvas"

# The labels drawn in the canvas's view ([left, top, right, bottom, text, font px on screen]) and how many pairs of
# them overlap by more than half a pixel both ways.
LABELS = """() => {
  const svg = document.querySelector('#kv-figure svg');
  const c = document.querySelector('#kv-figure .kv-canvas').getBoundingClientRect();
  const boxes = [];
  for (const t of svg.querySelectorAll('text')) {
    if (t.closest('[display="none"]') || !t.textContent) continue;
    const b = t.getBoundingClientRect();
    if (b.width === 0 || b.right < c.left || b.left > c.right || b.bottom < c.top || b.top > c.bottom) continue;
    const px = parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM().a;
    boxes.push([b.left, b.top, b.right, b.bottom, t.textContent, px]);
  }
  let overlaps = 0;
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, b] = [boxes[i], boxes[j]];
    const across = Math.min(a[2], b[2]) - Math.max(a[0], b[0]), down = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
    if (across > 0.5 && down > 0.5) overlaps++;
  }
  return { boxes, overlaps };
}"""
# The centre of the register table (client px): the union of the slots the figure says are registers (memory r:
# kernelviz/figlib/answers.py).
REGISTERS = """() => {
  const gs = [...document.querySelectorAll('#kv-figure svg g[data-slot]')]
    .filter((g) => g.dataset.slot.split('|')[1] === 'r' && g.getBoundingClientRect().width > 0);
  const bs = gs.map((g) => g.getBoundingClientRect());
  const x = (Math.min(...bs.map((b) => b.left)) + Math.max(...bs.map((b) => b.right))) / 2;
  const y = (Math.min(...bs.map((b) => b.top)) + Math.max(...bs.map((b) => b.bottom))) / 2;
  return [x, y, gs.length];
}"""
VIEWBOX = "document.querySelector('#kv-figure svg').getAttribute('viewBox')"


def test_zooming_in_on_the_register_table_makes_its_labels_legible_and_reset_restores(browser, site_url):
    context = browser.new_context(**PHONE, reduced_motion="reduce")
    page = without_python(context.new_page())
    page.goto(f"{site_url}/flash-attention-2-tensor-cores.html#step=12")
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0 && window.kernelviz")
    page.wait_for_timeout(200)
    fitted = page.evaluate(VIEWBOX)
    x, y, registers = page.evaluate(REGISTERS)
    assert registers >= 8  # the table is in view at this step: two warps' rows
    page.mouse.move(x, y)
    page.keyboard.down("Control")
    for _ in range(2):  # e^(100/200) a notch: 2.7 times
        page.mouse.wheel(0, -100)
    page.keyboard.up("Control")
    zoom = float(page.evaluate(f"document.querySelector('{CANVAS}').dataset.zoom"))
    assert zoom > 2
    seen = page.evaluate(LABELS)
    texts = [b[4] for b in seen["boxes"]]
    assert "Registers" in texts and any("·" in t for t in texts), texts  # the table's head and its slots' labels
    assert seen["overlaps"] == 0, seen["boxes"]
    assert min(b[5] for b in seen["boxes"]) >= 11 - 0.01

    page.locator("#kv-figure .kv-canvas > svg").focus()  # the keys: + zooms further, Shift + → pans, 0 resets
    page.keyboard.press("+")
    assert float(page.evaluate(f"document.querySelector('{CANVAS}').dataset.zoom")) > zoom
    before = page.evaluate(VIEWBOX)
    page.keyboard.press("Shift+ArrowRight")
    assert page.evaluate(VIEWBOX) != before and page.evaluate("window.kernelviz.step()") == 12
    page.locator("#kv-figure .kv-zoom-reset").click()
    assert page.evaluate(f"document.querySelector('{CANVAS}').dataset.zoom") == "1"
    assert page.evaluate(VIEWBOX) == fitted
    context.close()
