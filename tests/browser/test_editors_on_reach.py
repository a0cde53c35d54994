"""The editors bundle is fetched only when the reader reaches for an editor (issue 26, item 3), on the built FA2 page
in Chromium: a read-only visit requests no editors.js; the page's code is there to read as static highlighted text,
which the keyboard reaches; focusing it requests the bundle once, and CodeMirror takes over with every editor block
where it was, at the size it was (bounding boxes equal to the pixel), and the focus in the editor."""

import pytest

FA2 = "flash-attention-2.html"
SCREENS = {"laptop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}
BOXES = """() => [...document.querySelectorAll('.kv-editor')].map((e) => {
  const r = e.getBoundingClientRect();
  return [r.left, r.top + scrollY, r.width, r.height]; })"""
FOCUS_IN_EDITOR = "document.activeElement?.closest?.('.kv-editor') ? document.activeElement.tagName : null"


def bundle_requests(pg):
    return [u for u in pg.requested if u.endswith("/assets/editors.js")]


@pytest.mark.parametrize("screen", list(SCREENS))
def test_a_read_only_visit_fetches_no_editors_and_a_focus_fetches_them_once_with_no_shift(browser, site_url, screen):
    from conftest import recording

    context = browser.new_context(viewport=SCREENS[screen])
    pg = recording(context.new_page())
    pg.goto(f"{site_url}/{FA2}")
    pg.wait_for_function("performance.getEntriesByName('kv:text-bound').length > 0")
    pg.wait_for_load_state("load")
    pg.evaluate("window.kernelviz.goTo(2)")  # reading: playing steps, scrolling
    pg.mouse.wheel(0, 1500)
    pg.wait_for_timeout(800)  # quiet moments pass, when the bundle was once fetched
    assert bundle_requests(pg) == []
    assert pg.evaluate("window.kernelvizEditors") is None
    count = pg.locator(".kv-editor").count()
    assert count >= 2 and pg.locator(".kv-editor pre.kv-code .k").count() > 0  # highlighted, static
    before = pg.evaluate(BOXES)
    # The keyboard reaches the static code: Tab from the top of the page until the focus is in an editor block.
    pg.evaluate("window.scrollTo(0, 0); document.activeElement?.blur()")
    reached = None
    for _ in range(400):
        pg.keyboard.press("Tab")
        reached = pg.evaluate(FOCUS_IN_EDITOR)
        if reached:
            break
    assert reached in ("PRE", "DIV"), "Tab never reached an editor"  # the <pre>, or its editor once mounted
    pg.wait_for_function(
        "window.kernelvizEditors && document.querySelectorAll('.kv-editor-live').length === "
        "document.querySelectorAll('.kv-editor').length",
        timeout=30_000,
    )
    pg.wait_for_timeout(300)
    assert len(bundle_requests(pg)) == 1
    assert pg.evaluate("document.activeElement.classList.contains('cm-content')")  # the editor took the focus
    assert pg.evaluate(BOXES) == before, "an editor moved or changed size when CodeMirror took over"
    assert pg.errors == []
    context.close()


def test_a_pointer_on_the_static_code_fetches_the_editors(page, site_url):
    page.goto(f"{site_url}/{FA2}")
    page.wait_for_function("performance.getEntriesByName('kv:text-bound').length > 0")
    assert bundle_requests(page) == []
    page.locator(".kv-editor pre").nth(1).click()
    page.wait_for_function("window.kernelvizEditors !== undefined", timeout=30_000)
    assert len(bundle_requests(page)) == 1
    assert page.errors == []
