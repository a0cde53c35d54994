"""Docked on a phone the figure takes half the screen; the reader can fold it to its player's row and read the text
in the rest (issue 38, item 2): a disclosure button at the end of the row, reached by keyboard, its state said
(aria-expanded, and the figure's live region) and remembered across pages and reloads; shown only while docked."""

from figure_page import open_figure, without_python

PHONE = {"width": 390, "height": 844}
PAGE = "flash-attention-2-tensor-cores"  # its pictures of fragments are the tallest things in the text

STATE = """() => { const f = document.getElementById('kv-figure'); const b = f.querySelector('.kv-fold');
  return { folded: f.dataset.folded, expanded: b.getAttribute('aria-expanded'), label: b.getAttribute('aria-label'),
           height: f.getBoundingClientRect().height, canvas: getComputedStyle(f.querySelector('.kv-canvas')).display,
           said: b.nextElementSibling.textContent, bar: f.querySelector('.kv-steps-bar').getBoundingClientRect().height,
           tallest: Math.max(...[...document.querySelectorAll('figure.kv-frag-figure')].map(
             (e) => e.getBoundingClientRect().height)) }; }"""


def test_the_docked_figure_folds_to_its_player_by_keyboard_and_stays_folded(browser, site_url):
    context = browser.new_context(viewport=PHONE, reduced_motion="reduce")
    page = without_python(context.new_page())
    open_figure(page, f"{site_url}/{PAGE}.html")
    before = page.evaluate(STATE)
    assert before["folded"] == "false" and before["expanded"] == "true" and before["canvas"] != "none"
    assert before["tallest"] > PHONE["height"] - before["height"], "the pictures fit beside the dock: nothing to test"

    page.locator("#kv-figure .kv-next").focus()
    page.keyboard.press("Tab")  # past Follow, Link, SVG, PNG: the fold button ends the row
    for _ in range(4):
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "kv-fold"
    page.keyboard.press("Enter")
    folded = page.evaluate(STATE)
    assert folded["folded"] == "true" and folded["expanded"] == "false" and folded["label"] == "Unfold the figure"
    assert folded["canvas"] == "none"
    assert "folded" in folded["said"]
    assert folded["height"] < folded["bar"] + 20  # the player's row, and its padding
    assert folded["tallest"] <= PHONE["height"] - folded["height"]  # the tallest picture now fits under it

    page.reload()  # (folded: the drawing is there, hidden)
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0 && window.kernelviz")
    assert page.evaluate(STATE)["folded"] == "true"  # remembered
    page.locator("#kv-figure .kv-fold").press("Space")
    again = page.evaluate(STATE)
    assert again["folded"] == "false" and again["expanded"] == "true" and again["canvas"] != "none"
    assert abs(again["height"] - before["height"]) < 1
    page.wait_for_selector("#kv-figure svg:not([data-prerendered])")  # drawn, and shown again
    context.close()


def test_on_a_wide_screen_there_is_nothing_to_fold(browser, site_url):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    page = without_python(context.new_page())
    page.add_init_script("localStorage.setItem('kv-figure-folded', 'true')")  # folded on a phone before
    open_figure(page, f"{site_url}/{PAGE}.html")
    assert not page.locator("#kv-figure .kv-fold").is_visible()
    assert page.locator("#kv-figure .kv-canvas").is_visible()
    context.close()
