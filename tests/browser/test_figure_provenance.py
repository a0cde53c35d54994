"""The figure always says which code drew it, in Chromium, on a page with the seed FA2 page's two editors (assembled
as test_editors_ui assembles it, with the real runtime): after a reload with an edit kept, the figure is the page's
and says so, with Run; Run draws the edit and says so; Reset brings back the page's figure with the page's code.
Expected figures come from CPython's runner on the same code, not from the page."""

import pytest

from kernelviz.runner import Source, run
from tests.browser.test_editors_ui import PYTHON_READY_S, code_of, editor, make_site, open_page, set_code
from tests.seeds import seed_editors

EDIT = "\npie.text('edited here', 0, 0, 14)\n"  # one more label: a figure that differs from the page's


@pytest.fixture(scope="module")
def site(tmp_path_factory, seeds_dir, serve_dir):
    helpers, kernel = seed_editors(next(seeds_dir.glob("000_*.txt")).read_text())
    path = tmp_path_factory.mktemp("provenance-site")
    scenes, runtime = make_site(path, {"fa2": [helpers, kernel]})
    if not runtime:
        pytest.skip("the figure runtime (assets/main.js) is not built")
    edited = run([Source(helpers, "Editor 1"), Source(kernel + EDIT, "Editor 2")])
    assert edited.ok, edited.error
    assert edited.scene != scenes["fa2"]
    return {"url": serve_dir(path), "page": scenes["fa2"], "edited": edited.scene, "kernel": kernel}


@pytest.fixture
def page(shared_page):
    yield shared_page
    if shared_page.url.startswith("http"):
        shared_page.evaluate("localStorage.clear()")


def badge(page):
    """(data-state, sentence, whether its Run button shows) of the figure's provenance badge."""
    b = page.locator("#kv-figure .kv-figure-source")
    said = b.locator(".kv-figure-source-text").text_content()
    return b.get_attribute("data-state"), said, b.locator("button").is_visible()


def scene(page):
    return page.evaluate("kernelviz.scene()")


def wait_run_over(page):
    page.wait_for_function(
        "!document.querySelector('.kv-running') && kernelvizEditors.python.state !== 'loading'",
        timeout=PYTHON_READY_S * 1000,
    )


def test_after_a_reload_with_an_edit_the_figure_says_it_is_the_pages_and_run_draws_the_edit(page, site):
    open_page(page, site)
    assert badge(page) == ("page", "Figure: from the page's code.", False)
    set_code(page, 1, site["kernel"] + EDIT)
    assert badge(page)[0] == "edits-not-run"
    page.reload()
    open_page(page, site)
    assert code_of(page, 1) == site["kernel"] + EDIT  # the edit is kept ...
    state, said, run_shown = badge(page)
    assert state == "edits-not-run" and run_shown  # ... and the figure says it is not what drew it
    assert said == "Figure: from the page's code, not your edits."
    assert scene(page) == site["page"]
    page.locator("#kv-figure .kv-figure-source button").click()
    page.wait_for_function(
        "document.querySelector('#kv-figure .kv-figure-source').dataset.state === 'ran'", timeout=PYTHON_READY_S * 1000
    )
    assert scene(page) == site["edited"]
    assert badge(page) == ("ran", "Figure: from the code as run.", False)


def test_run_then_reset_brings_back_the_pages_figure_with_the_pages_code(page, site):
    open_page(page, site)
    set_code(page, 1, site["kernel"] + EDIT)
    editor(page, 1).locator(".kv-editor-run").click()
    wait_run_over(page)
    assert badge(page)[0] == "ran" and scene(page) == site["edited"]
    set_code(page, 1, site["kernel"] + EDIT + "# one more line\n")
    state, said, run_shown = badge(page)
    assert state == "changed" and "changed since" in said and run_shown
    assert scene(page) == site["edited"]  # the figure is still the run's: the badge says so
    editor(page, 1).locator(".kv-editor-reset").click()
    assert code_of(page, 1) == site["kernel"]
    assert badge(page) == ("page", "Figure: from the page's code.", False)
    assert scene(page) == site["page"]


def test_reset_of_one_editor_while_another_keeps_its_edit_leaves_the_run_figure_and_says_it_changed(page, site):
    open_page(page, site)
    helpers = code_of(page, 0)
    set_code(page, 0, helpers + "\n# a note\n")
    set_code(page, 1, site["kernel"] + EDIT)
    editor(page, 1).locator(".kv-editor-run").click()
    wait_run_over(page)
    assert badge(page)[0] == "ran"
    editor(page, 1).locator(".kv-editor-reset").click()
    assert badge(page)[0] == "changed" and scene(page) == site["edited"]
    editor(page, 0).locator(".kv-editor-reset").click()  # now all of the page's code: the page's figure
    assert badge(page)[0] == "page" and scene(page) == site["page"]
