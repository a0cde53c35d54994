"""The figure answers, on the built Flash Attention 2 page: pointing at a slot shows what it holds at the step shown
(its values the NumPy run at the page's sizes gives, computed here from the inputs alone, not from the page's code
path), who holds it and the bytes it took; the keyboard alone reaches the same panel; a symbol of the math marks its
slot and pointing at the slot lights up the symbol; the scrubber reaches every step, and the URL follows it."""

import re

import numpy as np
import pytest
from figure_page import STEP_KEYS, without_python

from kernelviz.attention import runs

SIZES = dict(N=8, d=4, Br=4, Bc=4)  # the page's figure (its trace entry `fig`)
PANEL = "#kv-figure .kv-answer"
SLOT = "#kv-figure svg g[data-slot^='{}|']"  # the items that draw slot NAME (kernelviz/figlib/answers.py)


@pytest.fixture(scope="module")
def fa2(browser, site_url):
    """The FA2 page at a laptop's size, reduced motion, Python kept out; its step keys."""
    context = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    page = without_python(context.new_page())
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{site_url}/flash-attention-2.html")
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0 && window.kernelviz")
    yield page, page.evaluate(STEP_KEYS)
    assert page.errors == []
    context.close()


def reference():
    """S of block 1 against tile 1, and its carries m, l and O after tiles 0 and 1: plain NumPy on the run's inputs."""
    q, k, v = (x[0].astype(np.float32).astype(np.float64) for x in runs.run("standard", **SIZES).inputs.values())
    S = q @ k.T / np.sqrt(SIZES["d"])
    rows = S[4:8]  # block 1's query rows, against every key (tiles 0 and 1)
    m = rows.max(axis=1)
    p = np.exp(rows - m[:, None])
    return {"S11": S[4:8, 4:8], "m": m, "l": p.sum(axis=1), "O": p @ v}


def numbers(text):
    """The numbers of a panel's text, as written there (− for minus)."""
    return [float(x.replace("−", "-")) for x in re.findall(r"−?\d+(?:\.\d+)?(?:e[+−-]?\d+)?", text)]


def go(page, keys, key):
    page.evaluate("(k) => window.kernelviz.goTo(k)", keys.index(key))
    page.wait_for_function("document.getElementById('kv-figure').dataset.animating === 'false'")


def test_a_cell_and_the_carries_show_the_values_numpy_gives(fa2):
    page, keys = fa2
    want = reference()
    go(page, keys, "fill Sij i=1 j=1")
    page.locator(SLOT.format("Sij 2,3")).last.hover()
    text = page.locator(PANEL).inner_text()
    assert "Sij 2,3 · shared memory · block 1" in text and "computed on chip" in text, text
    value = numbers(text.split("value:")[1])[0]
    assert value == pytest.approx(want["S11"][2, 3], rel=5e-3, abs=1e-3)  # shown to 3 significant digits

    go(page, keys, "update m,l,O i=1 j=1")
    for name, ref in (("mi", want["m"]), ("li", want["l"]), ("Oi", want["O"][:, :4])):
        page.locator(SLOT.format(name)).last.hover()
        text = page.locator(PANEL).inner_text()
        shown = numbers(text.split("values")[1].split(":", 1)[1])
        assert shown == pytest.approx(np.ravel(ref).tolist(), rel=5e-3, abs=1e-3), (name, text)

    page.locator(SLOT.format("K1")).first.hover()  # a tile in HBM: its bytes (4 rows of d = 4 float32)
    assert "K1 · HBM" in page.locator(PANEL).inner_text() and "64 B in HBM" in page.locator(PANEL).inner_text()
    go(page, keys, "load K,V i=1 j=1")
    page.locator(SLOT.format("Kj")).last.hover()
    text = page.locator(PANEL).inner_text()
    assert "read from HBM: K1" in text and "· 64 B over HBM" in text, text
    page.mouse.move(2, 2)  # away from the figure: the panel goes
    assert page.locator(PANEL).is_hidden()


def test_the_keyboard_alone_reaches_the_answers(fa2):
    page, keys = fa2
    go(page, keys, "update m,l,O i=0 j=0")
    page.locator("h1").click()  # (the text comes after the figure: back up to it)
    svg = page.locator("#kv-figure .kv-canvas > svg")
    for _ in range(80):  # Shift+Tab until the canvas has the focus
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement === document.querySelector('#kv-figure .kv-canvas > svg')"):
            break
    else:
        pytest.fail("Shift+Tab never reaches the figure's canvas")
    step = page.evaluate("window.kernelviz.step()")
    seen = []
    for _ in range(60):
        page.keyboard.press("ArrowRight")
        text = page.locator(PANEL).inner_text()
        seen.append(text.split("\n")[0].split(" · ")[0])
        if seen[-1] == "mi":
            break
    assert seen[-1] == "mi", seen
    assert page.evaluate("window.kernelviz.step()") == step  # the arrows walked the slots, not the steps
    panel = page.locator(PANEL)
    assert panel.get_attribute("aria-live") == "polite"
    assert svg.get_attribute("aria-describedby") == panel.get_attribute("id")
    assert "values" in panel.inner_text()
    page.keyboard.press("Escape")
    assert panel.is_hidden()


def test_a_symbol_marks_its_slot_and_the_slot_lights_up_the_symbol(fa2):
    page, keys = fa2
    go(page, keys, "update m,l,O i=0 j=1")
    symbol = page.locator("#kv-text [data-kv-slot='mi']").first
    symbol.scroll_into_view_if_needed()
    symbol.hover()
    assert page.evaluate("document.querySelector('#kv-figure .kv-canvas').dataset.linked") == "mi"
    mark = page.locator("#kv-figure .kv-answer-link").bounding_box()
    slot = page.locator(SLOT.format("mi")).last.bounding_box()
    assert mark["x"] <= slot["x"] and mark["x"] + mark["width"] >= slot["x"] + slot["width"]
    assert mark["y"] <= slot["y"] and mark["y"] + mark["height"] >= slot["y"] + slot["height"]
    page.locator(SLOT.format("li")).last.hover()  # the reverse: the slot lights up its symbols, and only them
    lit = page.locator("#kv-text .kv-sym-on")
    assert lit.count() > 0 and {lit.nth(n).get_attribute("data-kv-slot") for n in range(lit.count())} == {"li"}


def test_the_scrubber_reaches_every_step_with_the_url(fa2):
    page, keys = fa2
    page.evaluate("window.kernelviz.goTo(0)")
    scrub = page.locator("#kv-figure .kv-scrub")
    assert scrub.get_attribute("max") == str(len(keys) - 1)
    scrub.focus()
    for k in range(1, len(keys)):
        page.keyboard.press("ArrowRight")
        assert page.evaluate("window.kernelviz.step()") == k and page.url.endswith(f"#step={k}")
    page.evaluate("window.kernelviz.goTo(3)")  # and it follows the player
    assert scrub.input_value() == "3"
    page.locator("#kv-figure .kv-speed").select_option("4")
    assert page.locator("#kv-figure .kv-speed").input_value() == "4"
