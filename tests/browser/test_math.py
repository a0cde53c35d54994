"""The math of the built site, as the browser lays it out: MathML (typeset at build time by Temml,
kernelviz/site/mathml.py), drawn by the browser itself, so it shows on screen with the runtime running, with
JavaScript off and on paper: every formula of the text has a box of its own size, a display formula is a block as
wide as the text and taller than a line of it, a formula in a line is about as tall as the line, and the palette's
colour classes colour it. No font is fetched for it but Temml's own 9 KB one (its primes and script capitals: a
system math font lays out the rest), and nothing of KaTeX is asked for."""

import pytest

# Every formula of the text: its box, whether it is a display formula, and the line height of its paragraph.
FORMULAS = """() => [...document.querySelectorAll('#kv-text math')].map((m) => {
  const box = m.getBoundingClientRect();
  const block = m.getAttribute('display') === 'block';
  const line = parseFloat(getComputedStyle(m.parentElement).fontSize);
  return { w: box.width, h: box.height, block, line, text: m.textContent.slice(0, 40) };
})"""

# The colour of each element of the palette's classes in the math, against the palette's custom property.
COLOURS = """() => [...document.querySelectorAll('#kv-text math [class^="kv-c-"]')].map((e) => {
  const name = e.getAttribute('class').slice(5);
  const probe = document.createElement('span');
  probe.style.color = `var(--kv-${name})`;
  document.body.append(probe);
  const want = getComputedStyle(probe).color;
  probe.remove();
  return [name, getComputedStyle(e).color, want];
})"""

PAGES = ["flash-attention-2", "overview"]
COLOURED = {"flash-attention-2"}  # the pages whose math uses the palette's macros (\\kvm{m_i}, ...)


def check_formulas(page, slug):
    found = page.evaluate(FORMULAS)
    assert len(found) > 20, f"{slug}: the text has its formulas as MathML"
    empty = [f["text"] for f in found if f["w"] < 4 or f["h"] < 8]
    assert empty == [], f"{slug}: formulas with no box of their own"
    blocks = [f for f in found if f["block"]]
    assert blocks and all(f["h"] > 1.2 * f["line"] for f in blocks)  # a display formula stands on its own lines
    inline = [f for f in found if not f["block"]]
    assert inline and all(f["h"] < 4 * f["line"] for f in inline)  # laid out in the line, not as a block
    return found


@pytest.fixture(scope="module")
def contexts(browser):
    made = {
        "script": browser.new_context(viewport={"width": 1366, "height": 900}),
        "no script": browser.new_context(viewport={"width": 390, "height": 800}, java_script_enabled=False),
    }
    yield made
    for context in made.values():
        context.close()


@pytest.mark.parametrize("slug", PAGES)
@pytest.mark.parametrize("mode", ["script", "no script", "print"])
def test_every_formula_is_laid_out_on_screen_without_javascript_and_in_print(contexts, site_url, slug, mode):
    page = contexts["script" if mode == "print" else mode].new_page()
    fetched = []
    page.on("request", lambda r: fetched.append(r.url))
    if mode == "print":
        page.emulate_media(media="print")
    page.goto(f"{site_url}/{slug}.html", wait_until="load")
    check_formulas(page, slug)
    colours = page.evaluate(COLOURS)
    assert bool(colours) == (slug in COLOURED)
    assert all(got == want for _, got, want in colours), colours
    if colours:
        assert len({got for _, got, _ in colours}) > 1  # the colours differ: not all one inherited text colour
    assert not [u for u in fetched if "katex" in u.lower()]
    fonts = [u.split("/assets/", 1)[1] for u in fetched if u.endswith((".woff2", ".woff", ".ttf", ".otf"))]
    assert set(fonts) <= {"temml/Temml.woff2"}, "no font but Temml's own small one (primes, script capitals)"
    page.close()
