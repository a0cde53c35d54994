"""Python on intent (issue 13, item 8), on the built site in Chromium: a reader who reads, plays steps, scrolls and
picks a prerendered size fetches nothing under pyodide/ (the worker's requests included); a pointer in an editor,
an edit, Run, or a size that was not drawn in advance fetches it; while it downloads, the editors' status line
shows a progress bar in MB that reaches the total; a Run pressed while Python loads runs once it is ready; a
failed download says so, keeps the reader's edit, and Run tries again."""

from figure_page import SIZE_FORM, sizes_key, wait_applied
from python_intent import PYTHON_READY_S, mount_editors

PAGE = "flash-attention-2.html"
STATE = "kernelvizEditors.python.state"


def pyodide(page):
    return [u for u in page.requested if "/pyodide/" in u]


def untied(form):
    """The form's ranges but the sizes tied to another (N_kv follows N while they are equal: changing either
    changes two boxes)."""
    tied = {*form["tied"], *form["tied"].values()}
    return {name: r for name, r in form["ranges"].items() if name not in tied}


def open_page(page, site_url):
    page.goto(f"{site_url}/{PAGE}")
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")


def test_reading_playing_and_prerendered_sizes_fetch_no_python(page, site_url):
    open_page(page, site_url)
    mount_editors(page)  # the editors are there to edit, with no Python behind them
    steps = page.evaluate("window.kernelviz.scene().nodes.find((n) => n.kind === 'step_list').steps.length")
    for k in range(min(steps, 6)):
        page.evaluate("(k) => window.kernelviz.goTo(k)", k)
    page.mouse.wheel(0, 2000)
    page.keyboard.press("Tab")  # a keyboard reader passing by: focus alone does not fetch 14 MB
    form = page.evaluate(SIZE_FORM)
    name, (lo, hi) = next(iter(untied(form).items()))
    value = next(
        v
        for v in range(lo, hi + 1)
        if sizes_key({**form["sizes"], name: v}) in form["prerendered"] and v != form["sizes"][name]
    )
    page.locator(f"form.kv-sizes input[name={name}]").fill(str(value))
    wait_applied(page, {**form["sizes"], name: value}, timeout_s=30)  # prerendered: no Python to wait for
    page.wait_for_timeout(1000)
    assert pyodide(page) == [] and page.evaluate(STATE) == "idle"
    assert "MB" in page.locator(".kv-editor-status").first.inner_text()  # says what Python would cost
    assert page.errors == []


def test_a_pointer_in_an_editor_fetches_python_with_a_progress_bar_in_mb(page, site_url):
    open_page(page, site_url)
    mount_editors(page)
    page.evaluate("""() => { window.__seen = [];
      const bar = document.querySelector('.kv-editor-progress'), text = document.querySelector('.kv-editor-status');
      new MutationObserver(() => { if (!bar.hidden) window.__seen.push([bar.value, bar.max, text.textContent]); })
        .observe(text, { subtree: true, childList: true, characterData: true, attributes: true }); }""")
    assert pyodide(page) == []
    page.locator(".kv-editor .cm-content").first.click()
    page.wait_for_function(f"{STATE} === 'ready'", timeout=PYTHON_READY_S * 1000)
    assert any(u.endswith("/pyodide/pyodide.asm.wasm") for u in pyodide(page))  # the worker's fetches are seen
    seen = page.evaluate("window.__seen")
    assert seen, "no progress bar was shown while Python loaded"
    assert all("MB" in text and value <= total for value, total, text in seen)
    assert [v for v, _, _ in seen] == sorted(v for v, _, _ in seen)
    progress = page.evaluate("kernelvizEditors.python.progress")
    assert progress["total"] > 10e6 and progress["loaded"] == progress["total"]
    assert page.locator(".kv-editor-progress").first.is_hidden()
    assert page.errors == []


def test_run_pressed_before_python_loads_runs_once_it_is_ready(page, site_url):
    open_page(page, site_url)
    mount_editors(page)
    assert page.evaluate(STATE) == "idle"
    outcome = page.evaluate("kernelvizEditors.runAll()")
    assert outcome["ok"], outcome
    assert any(u.endswith("/pyodide/pyodide.asm.wasm") for u in pyodide(page))


def test_a_size_not_prerendered_starts_python(page, site_url):
    open_page(page, site_url)
    form = page.evaluate(SIZE_FORM)
    name, value = next(
        (name, v)
        for name, (lo, hi) in untied(form).items()
        for v in range(lo, hi + 1)
        if sizes_key({**form["sizes"], name: v}) not in form["prerendered"]
    )
    assert pyodide(page) == []
    page.locator(f"form.kv-sizes input[name={name}]").fill(str(value))
    wait_applied(page, {**form["sizes"], name: value})
    assert pyodide(page) != []


def test_a_failed_download_is_named_keeps_the_edit_and_run_tries_again(page, site_url):
    failing = {"on": True}

    def manifest(route):
        if failing["on"]:
            route.fulfill(status=503, body="")
        else:
            route.continue_()

    page.context.route("**/py/manifest.json", manifest)  # the worker fetches it first
    open_page(page, site_url)
    mount_editors(page)
    page.locator(".kv-editor .cm-content").first.click()
    page.keyboard.type("# mine\n")
    page.wait_for_function(f"{STATE} === 'failed'", timeout=PYTHON_READY_S * 1000)
    status = page.locator(".kv-editor-status").first.inner_text()
    assert "Python failed" in status and "manifest.json: HTTP 503" in status and "Run tries again" in status
    assert "# mine" in page.evaluate("kernelvizEditors.editors[0].code()")
    failing["on"] = False
    outcome = page.evaluate("kernelvizEditors.runAll()")
    assert outcome["ok"], outcome
    assert "# mine" in page.evaluate("kernelvizEditors.editors[0].code()")
