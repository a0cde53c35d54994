"""Every page at a phone (390×844, touch), a portrait tablet (820×1180) and a laptop (1366×768), light and dark:
nothing wider than the screen, the figure's drawing in view while the reader reads, no layout shift from load to the
first step (nor when the editors' stylesheet comes late), axe-core (from web/node_modules, injected; nothing
fetched) finds no serious or critical violation, and the dark theme reaches the page and the figure. Then the
keyboard: a walk from the top of the page reaches a step bullet and plays it, and Space scrolls the page unless the
focus is on the player.

One browser; one context per screen size, reused by every page at that size. Pyodide is not wanted here: its
requests are refused, so the editors mount and Python reports it could not load."""

import time
from pathlib import Path

import pytest
from figure_page import PAGES
from python_intent import mount_editors

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
SCREENS = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "tablet": {"viewport": {"width": 820, "height": 1180}},
    "laptop": {"viewport": {"width": 1366, "height": 768}},
}
MAX_CLS = 0.1

# Cumulative layout shift as browsers define it: shifts not caused by the reader's input, grouped in session windows
# (each shift less than 1 s after the previous one, a window at most 5 s long); CLS is the largest window's sum.
SHIFTS = """
window.kvShift = 0;
window.kvShifts = [];
let windowSum = 0, first = 0, last = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.hadRecentInput) continue;
    const rect = (r) => JSON.stringify(r);
    const what = (s) => `${s.node?.className || s.node?.nodeName} ${rect(s.previousRect)} -> ${rect(s.currentRect)}`;
    window.kvShifts.push(`${e.startTime | 0} ms ${e.value.toFixed(3)}: ${e.sources.map(what).join('; ')}`);
    if (e.startTime - last < 1000 && e.startTime - first < 5000) windowSum += e.value;
    else [windowSum, first] = [e.value, e.startTime];
    last = e.startTime;
    window.kvShift = Math.max(window.kvShift, windowSum);
  }
}).observe({ type: 'layout-shift', buffered: true });
"""

AXE_RUN = """async () => {
  const r = await axe.run(document, { resultTypes: ['violations'] });
  return r.violations.filter((v) => ['serious', 'critical'].includes(v.impact))
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.length} × ${v.nodes[0].target.join(' ')}`
      + ` ${v.nodes[0].failureSummary}`);
}"""

# The hint shown on an editor while its code has the focus.
HINT = """(() => { const keys = document.activeElement.closest('.kv-editor')?.querySelector('.kv-editor-keys');
  return keys?.checkVisibility() ? keys.textContent : ''; })()"""

# How light a computed colour is (0 black .. 1 white), from its sRGB channels.
LIGHTNESS = """(c) => {
  const m = c.match(/[\\d.]+/g).map(Number);
  return (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255;
}"""


@pytest.fixture(scope="module", params=list(SCREENS))
def screen(request, browser):
    context = browser.new_context(**SCREENS[request.param])
    context.route("**/pyodide/**", lambda route: route.abort())
    context.add_init_script(SHIFTS)
    context.add_init_script("localStorage.removeItem('kv-theme')")  # each page starts in the system's (light) theme
    context.screen = request.param
    yield context
    context.close()


def mount_editors_in_view(pg):
    """Scroll the last editor into view, then mount the editors as a reader's reach would (python_intent's
    mount_editors): a mount that moved anything in view would count as a shift. A page without editors is left."""
    if not pg.locator(".kv-editor").count():
        return
    pg.evaluate("[...document.querySelectorAll('.kv-editor')].at(-1).scrollIntoView({ block: 'center' })")
    mount_editors(pg)


def drawing_in_view(pg):
    """None when the figure's drawing lies inside the viewport (and inside its canvas), else what sticks out."""
    return pg.evaluate("""() => {
        const svg = document.querySelector('#kv-figure svg.kv-svg');
        const box = svg.getBoundingClientRect();
        const nodes = svg.querySelector('.kv-nodes').getBoundingClientRect();
        const inside = (r, o) =>
            r.left >= o.left - 1 && r.right <= o.right + 1 && r.top >= o.top - 1 && r.bottom <= o.bottom + 1;
        const viewport = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
        if (!inside(box, viewport)) return `the canvas ${JSON.stringify(box)} is not inside the viewport`;
        if (nodes.width && !inside(nodes, box)) return `the drawing ${JSON.stringify(nodes)} overflows its canvas`;
        return null;
    }""")


@pytest.mark.slow
@pytest.mark.parametrize("name", PAGES)
def test_every_page_fits_every_screen_light_and_dark(screen, site_url, name):
    pg = screen.new_page()
    pg.goto(f"{site_url}/{name}.html")
    figure = pg.locator("#kv-figure").count() == 1
    if figure:
        pg.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    mount_editors_in_view(pg)
    if figure:
        pg.evaluate("window.kernelviz.goTo(1)")
        pg.wait_for_function("document.getElementById('kv-figure').dataset.animating === 'false'")
    pg.wait_for_timeout(200)
    shifts = pg.evaluate("window.kvShifts")
    assert pg.evaluate("window.kvShift") <= MAX_CLS, f"{name} on a {screen.screen}: layout shift: {shifts}"

    # clientWidth, not innerWidth: on a phone the layout viewport grows to the content's width (then zooms out)
    width = pg.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1], f"{name} on a {screen.screen} is {width[0]} px wide in a {width[1]} px window"
    if figure:
        pg.evaluate("scrollTo(0, 0)")
        assert drawing_in_view(pg) is None
        pg.evaluate("scrollTo(0, document.documentElement.scrollHeight / 2)")  # reading, half way down
        pg.wait_for_timeout(100)
        assert drawing_in_view(pg) is None, f"{name} on a {screen.screen}: the figure is out of view while reading"

    audit = screen.screen != "tablet"  # axe at phone and desktop sizes: the tablet's layout is the phone's
    if audit:
        pg.add_script_tag(path=str(AXE))
        assert pg.evaluate(AXE_RUN) == [], f"{name} on a {screen.screen}, light"
    assert theme_button(pg) == ["Switch to the Dark theme", "Dark"]
    pg.locator(".kv-theme").click()
    assert pg.evaluate("document.documentElement.dataset.theme") == "dark"
    assert theme_button(pg) == ["Switch to the Light theme", "Light"]
    lightness = pg.evaluate(f"({LIGHTNESS})(getComputedStyle(document.body).backgroundColor)")
    assert lightness < 0.2, f"{name}: the page stays light in the dark theme"
    if figure:
        canvas = pg.evaluate(f"({LIGHTNESS})(getComputedStyle(document.querySelector('.kv-background')).fill)")
        steps = pg.evaluate(f"({LIGHTNESS})(getComputedStyle(document.querySelector('.kv-steps')).backgroundColor)")
        assert canvas < 0.2 and steps < 0.2, f"{name}: the figure stays light in the dark theme"
    if audit:
        assert pg.evaluate(AXE_RUN) == [], f"{name} on a {screen.screen}, dark"
    pg.close()


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_every_other_built_page_passes_axe_light_and_dark(browser, built_site, site_url, size, scheme):
    """The pages the builder writes beside the textbook's (each kernel's whole .cu file, FILE.cu.html; the figure
    library's reference, figlib.html) have no serious or critical axe violation either, in the system's light and
    dark. (The textbook's pages are audited above, at each screen.)"""
    others = sorted(p.name for p in built_site.glob("*.html") if p.stem not in PAGES)
    assert len([n for n in others if n.endswith(".cu.html")]) >= 7, others  # every kernel the pages quote
    context = browser.new_context(**SCREENS[size], color_scheme=scheme)
    found = {}
    for name in others:
        pg = context.new_page()
        pg.goto(f"{site_url}/{name}")
        pg.add_script_tag(path=str(AXE))
        if violations := pg.evaluate(AXE_RUN):
            found[name] = violations
        pg.close()
    context.close()
    assert found == {}, f"on a {size}, {scheme}"


def theme_button(pg):
    """[accessible name, the word shown] of the theme button: what it does, in the theme in force."""
    snapshot = pg.locator(".kv-theme").aria_snapshot()  # - button "Switch to the Dark theme"
    shown = pg.locator(".kv-theme").evaluate(
        "(b) => [...b.children].filter((s) => s.checkVisibility()).map((s) =>"
        " [...s.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(''))"
    )
    assert len(shown) == 1, f"the button shows {shown}"
    return [snapshot.split('"')[1], shown[0]]


def test_the_theme_is_remembered_and_follows_the_system_until_chosen(browser, site_url):
    context = browser.new_context(color_scheme="dark")
    pg = context.new_page()
    pg.goto(f"{site_url}/flash-attention-2.html")
    assert theme_button(pg) == ["Switch to the Light theme", "Light"]  # the system's dark, not chosen
    assert pg.get_by_role("button", name="Switch to the Light theme").is_visible()
    assert pg.evaluate("document.documentElement.dataset.theme") is None
    pg.locator(".kv-theme").click()  # the reader picks light
    assert theme_button(pg) == ["Switch to the Dark theme", "Dark"]
    pg.goto(f"{site_url}/overview.html")
    assert pg.evaluate("document.documentElement.dataset.theme") == "light"
    assert theme_button(pg) == ["Switch to the Dark theme", "Dark"]
    assert pg.get_by_role("button", name="Switch to the Dark theme").is_visible()
    white = pg.evaluate("getComputedStyle(document.body).backgroundColor")
    assert white == "rgb(255, 255, 255)"
    context.close()


def test_a_keyboard_reaches_and_plays_a_bullet_and_space_scrolls(browser, site_url):
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.route("**/pyodide/**", lambda route: route.abort())
    pg = context.new_page()
    pg.goto(f"{site_url}/flash-attention-2.html")
    pg.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    pg.keyboard.press("Tab")
    assert pg.evaluate("document.activeElement.className") == "kv-skip"
    assert pg.evaluate("document.activeElement.textContent") == "Skip to the text"  # past the figure, first in order
    assert pg.locator(".kv-skip").first.is_visible()
    pg.keyboard.press("Enter")
    for _ in range(60):  # the toc, the prerequisites' links, ... then the first bullet
        if pg.evaluate("document.activeElement.matches('.cm-content')"):
            pg.wait_for_function(f"{HINT}.includes('Escape then Tab')")  # the way out, as the editor shows it
            pg.keyboard.press("Escape")
        pg.keyboard.press("Tab")
        if pg.evaluate("document.activeElement.matches('li[data-step], li[data-step-key]')"):
            break
    else:
        pytest.fail("60 Tabs from the top never reached a step bullet")
    bullet = pg.evaluate("document.activeElement.dataset.step")
    pg.evaluate("document.getElementById('kv-figure').dataset.duration = '30'")
    pg.keyboard.press("Enter")
    pg.wait_for_function(f"window.kernelviz.step() === {bullet}")
    pg.locator("h1").click()  # on the prose, Space scrolls and leaves the figure alone
    before = pg.evaluate("[scrollY, window.kernelviz.step()]")
    pg.keyboard.press(" ")
    pg.wait_for_function(f"scrollY > {before[0]}")
    assert pg.evaluate("window.kernelviz.step()") == before[1]
    pg.keyboard.press("Shift+Tab")  # back at the top, the second skip link takes the focus to the figure
    pg.evaluate("document.querySelector('.kv-skip[href=\"#kv-figure\"]').focus()")
    pg.keyboard.press("Enter")
    assert pg.evaluate("document.activeElement.id") == "kv-figure"
    name = pg.locator("#kv-figure svg.kv-svg").get_attribute("aria-label")
    assert name.startswith("Figure of Flash Attention 2, step ") and ": " in name
    context.close()


def test_a_step_link_on_a_phone_shows_the_bullet_below_the_figure(browser, site_url):
    context = browser.new_context(**SCREENS["phone"])
    context.route("**/pyodide/**", lambda route: route.abort())
    pg = context.new_page()
    pg.goto(f"{site_url}/flash-attention-2.html#step=6")
    pg.wait_for_function("window.kernelviz && window.kernelviz.step() === 6")
    pg.wait_for_timeout(800)  # the smooth scroll to the bullet
    bullet, dock = pg.evaluate("""() => [
        document.querySelector('.kv-prose li.kv-current').getBoundingClientRect().toJSON(),
        document.getElementById('kv-figure').getBoundingClientRect().toJSON()]""")
    assert bullet["top"] >= dock["bottom"] - 1 and bullet["bottom"] <= 844, (bullet, dock)
    assert drawing_in_view(pg) is None
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_background_setting_shows_the_colour_the_canvas_has(browser, site_url, scheme):
    """The canvas is the palette's paper (@paper): the Background box shows that colour in the theme shown."""
    context = browser.new_context(color_scheme=scheme)
    pg = context.new_page()
    pg.goto(f"{site_url}/online-softmax.html")
    pg.wait_for_selector("#kv-figure input[name=canvasColor]", state="attached")  # (folded away at first)
    pg.wait_for_function("document.querySelector('#kv-figure input[name=canvasColor]').value !== ''")
    swatch = pg.locator("#kv-figure input[name=canvasColor]").input_value()
    background = pg.evaluate("getComputedStyle(document.querySelector('#kv-figure .kv-canvas svg')).backgroundColor")
    paper = pg.evaluate(
        "(() => { const s = document.createElement('span'); s.style.color = 'var(--kv-paper)'; document.body.append(s);"
        " const c = getComputedStyle(s).color; s.remove(); return c; })()"
    )
    as_rgb = "rgb({}, {}, {})".format(*(int(swatch[k : k + 2], 16) for k in (1, 3, 5)))
    assert as_rgb == paper, (swatch, paper, background)
    assert paper == ("rgb(255, 255, 255)" if scheme == "light" else "rgb(24, 24, 27)")  # palette.json's paper
    context.close()


@pytest.mark.parametrize("screen", ["phone", "laptop"])
def test_the_canvas_settings_are_folded_at_first_and_stay_as_the_reader_leaves_them(browser, site_url, screen):
    """Folded on every screen at first: on a 1366×768 laptop the step list then starts above the fold. Opened, they
    take a row from the canvas, and the next page opens with them open, until the reader folds them again."""
    context = browser.new_context(**SCREENS[screen])
    pg = context.new_page()

    def open_figure(slug):
        pg.goto(f"{site_url}/{slug}.html")
        pg.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
        return pg.locator("#kv-figure details.kv-settings")

    settings = open_figure("flash-attention-2")
    height = lambda: pg.locator("#kv-figure .kv-canvas").bounding_box()["height"]  # noqa: E731
    assert not settings.evaluate("(d) => d.open")
    assert not pg.locator("#kv-figure input[name=unit]").is_visible()
    if screen == "laptop":
        first = pg.locator("#kv-figure .kv-step-items > *").first.bounding_box()
        assert first["y"] + first["height"] <= SCREENS[screen]["viewport"]["height"], first  # steps above the fold
    folded = height()
    settings.locator("summary").click()
    assert pg.locator("#kv-figure input[name=unit]").is_visible()
    canvas = "document.querySelector('#kv-figure .kv-canvas').getBoundingClientRect().height"
    pg.wait_for_function(f"{canvas} < {folded - 10}")  # the settings took a row from the canvas
    settings = open_figure("flash-decoding")  # remembered: open on the next page
    assert settings.evaluate("(d) => d.open") and pg.locator("#kv-figure input[name=unit]").is_visible()
    settings.locator("summary").click()
    # (the details' toggle event, which stores the state, is a task of its own: the next page is opened after it)
    pg.wait_for_function("localStorage.getItem('kv-canvas-settings') === 'folded'")
    assert not open_figure("flash-attention-2").evaluate("(d) => d.open")  # and folded once folded
    context.close()


def test_the_editors_mount_at_their_size_when_their_stylesheet_comes_late(browser, site_url):
    """editors.css is linked by the editors bundle, so it does not hold back rendering: the editors wait for it
    before they mount, or a frame would draw one without it (115 px taller on FA2, a 0.137 shift)."""
    context = browser.new_context(**SCREENS["laptop"])
    context.route("**/pyodide/**", lambda route: route.abort())
    context.add_init_script(SHIFTS)

    def late(route):
        response = route.fetch()
        time.sleep(1.5)
        route.fulfill(response=response)

    context.route("**/assets/editors.css", late)
    pg = context.new_page()
    pg.goto(f"{site_url}/flash-attention-2.html")
    pg.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    mount_editors_in_view(pg)
    pg.wait_for_timeout(300)
    shifts = pg.evaluate("window.kvShifts")
    assert [s for s in shifts if "kv-editor" in s] == [] and pg.evaluate("window.kvShift") <= MAX_CLS, shifts
    context.close()


# The step rows of the figure's list that show (any part of them) in the list's box: [label, px shown, px tall].
ROWS_SHOWN = """() => {
  const list = document.querySelector('#kv-figure .kv-step-items').getBoundingClientRect();
  return [...document.querySelectorAll('#kv-figure .kv-step-items button')].map((b) => {
    const r = b.getBoundingClientRect();
    return [b.textContent, Math.min(r.bottom, list.bottom) - Math.max(r.top, list.top), r.height];
  }).filter(([, shown]) => shown > 0.5);
}"""


def test_the_docked_step_list_shows_the_step_shown_alone(browser, site_url):
    """On a phone the docked list is one row, so that the canvas keeps the room: the current step, whole, and no
    sliver of the steps around it."""
    context = browser.new_context(**SCREENS["phone"])
    pg = context.new_page()
    pg.goto(f"{site_url}/flash-decoding.html#step=8")
    pg.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    current = pg.locator("#kv-figure .kv-step-items button[aria-current=step]").text_content()
    for then in (9, 10):
        rows = pg.evaluate(ROWS_SHOWN)
        assert [label for label, _, _ in rows] == [current], rows
        assert rows[0][1] == pytest.approx(rows[0][2], abs=0.5), "the step shown is whole"
        pg.locator("#kv-figure .kv-next").click()
        pg.wait_for_function(f"window.kernelviz.step() === {then}")
        current = pg.locator("#kv-figure .kv-step-items button[aria-current=step]").text_content()
    context.close()


def test_every_page_describes_itself_for_link_previews(built_site):
    """<meta name="description"> and og:description (the first paragraph's text, as tests/site/test_site_description
    holds on fixture pages) and og:title on every built page, the .cu.html pages included."""
    import html
    import re

    for path in sorted(built_site.glob("*.html")):
        head = path.read_text()[: path.read_text().index("</head>")]
        meta = {
            k: html.unescape(v) for k, v in re.findall(r'<meta (?:name|property)="([^"]+)" content="([^"]*)">', head)
        }
        assert len(meta.get("description", "")) >= 40, (path.name, meta)
        assert "<" not in meta["description"] and "[1]" not in meta["description"], (path.name, meta["description"])
        assert meta["og:description"] == meta["description"] and meta["og:title"], (path.name, meta)
    fa1 = (built_site / "flash-attention-1.html").read_text()
    assert 'content="Standard attention computes the whole N×N score matrix S=QK⊤, writes it to HBM' in fa1
    assert (
        'content="The whole of kernelviz/cuda/fa2.cu, as the pages quote it' in (built_site / "fa2.cu.html").read_text()
    )
