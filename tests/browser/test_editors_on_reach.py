"""The editors bundle is fetched only when the reader reaches for an editor (issue 26, item 3), on the built FA2 page
in Chromium: a read-only visit requests no editors.js; the page's code is there to read as static highlighted text,
which the keyboard reaches; focusing it requests the bundle once, and CodeMirror takes over with every editor block
where it was, at the size it was (bounding boxes equal to the pixel), and the focus in the editor. In the editor, Tab
indents (an edit, kept) and the way out (Escape, then Tab) is shown; an indent alone does not start Python's 13.6 MB
download (issue 32, item 7); a change to the code does."""

import pytest
from playwright.sync_api import expect

FA2 = "flash-attention-2.html"
SCREENS = {"laptop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}
BOXES = """() => [...document.querySelectorAll('.kv-editor')].map((e) => {
  const r = e.getBoundingClientRect();
  return [r.left, r.top + scrollY, r.width, r.height]; })"""
FOCUS_IN_EDITOR = "document.activeElement?.closest?.('.kv-editor') ? document.activeElement.tagName : null"


def bundle_requests(pg):
    return [u for u in pg.requested if u.endswith("/assets/editors.js")]


@pytest.mark.parametrize("screen", list(SCREENS))
def test_a_read_only_visit_fetches_no_editors_and_a_focus_fetches_them_once_with_no_shift(
    browser, site_url, screen, record_page
):
    context = browser.new_context(viewport=SCREENS[screen])
    pg = record_page(context.new_page())
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


KEYS_SHOWN = """() => { const keys = document.activeElement.closest('.kv-editor')?.querySelector('.kv-editor-keys');
  if (!keys?.checkVisibility()) return null;
  const r = keys.getBoundingClientRect();
  const inView = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  return { text: keys.textContent, inView };
}"""


def test_tab_passes_through_untyped_code_shows_the_way_out_and_starts_no_python_until_the_code_changes(page, site_url):
    """A keyboard reader passing through: Tab leaves code they have not typed in (CodeMirror's tab-focus mode), edits
    nothing and starts no Python (issue 38, item 3); the hint says so at the foot of the code."""
    page.context.route("**/pyodide/**", lambda route: route.abort())  # a start is seen by its requests, not awaited
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{site_url}/{FA2}")
    page.wait_for_function("performance.getEntriesByName('kv:text-bound').length > 0")
    page.locator(".kv-editor pre").nth(1).focus()  # as a keyboard reaches it (no pointer: that wants Python)
    page.wait_for_function("window.kernelvizEditors && document.activeElement.classList.contains('cm-content')")
    shown = page.evaluate(KEYS_SHOWN)  # shown from the moment the code has the focus
    assert shown["inView"] and "Escape then Tab" in shown["text"], shown
    before = page.evaluate("kernelvizEditors.editors[1].code()")
    page.keyboard.press("Tab")
    assert page.evaluate("kernelvizEditors.editors[1].code()") == before  # not indented
    assert not page.evaluate("document.activeElement.classList.contains('cm-content')")  # moved on
    assert page.locator(".kv-editor").nth(1).locator(".kv-editor-edited").is_hidden()
    assert page.evaluate("localStorage.getItem('kernelviz:edit:flash-attention-2:1')") is None
    page.wait_for_timeout(300)
    assert page.evaluate("kernelvizEditors.python.state") == "idle"
    assert [u for u in page.requested if "/pyodide/" in u] == []
    # CodeMirror drops .cm-focused a few milliseconds after the blur (it waits out focus flicker): awaited, not sampled
    expect(page.locator(".kv-editor-keys").first).to_be_hidden()
    expect(page.locator(".kv-editor-keys").nth(1)).to_be_hidden()
    page.locator(".kv-editor").nth(1).locator(".cm-content").focus()
    page.keyboard.type("x = 1")  # a change to the code: the reader means to run it
    page.wait_for_function("kernelvizEditors.python.state !== 'idle'")
    for _ in range(100):  # the worker's requests (aborted here)
        if any("/pyodide/" in u for u in page.requested):
            break
        page.wait_for_timeout(100)
    assert any("/pyodide/" in u for u in page.requested)
