"""The page's editors in Chromium: edit and run, errors at their line, Stop, the time limit, edits kept, Reset.

The site here is assembled as the builder assembles one (the page contract): its assets/ by the builder's own
kernelviz.site.assets.copy (web/dist, site.css, the Python files with their manifest under assets/py/), and a page
with the seed FA2 page's two editors and the Scene CPython computes from them. The tests share one browser context
(Pyodide comes from its caches after the first).
"""

import json
from pathlib import Path

import pytest
from python_intent import mount_editors, start_python

from kernelviz.runner import Source, run
from kernelviz.site import assets as site_assets
from tests.seeds import seed_editors

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "web" / "dist"
PYTHON_READY_S = 60  # a cold Pyodide on a loaded 2-core machine; usually a few seconds

STUB_RUNTIME = """
window.kernelviz = (() => {
  let current = JSON.parse(document.getElementById('kv-scene').textContent);
  return {setScene(s) { current = s; return true; }, scene: () => current, step: () => 0, goTo() {}, onStepChange() {}};
})();
"""


def _script_json(value):
    return json.dumps(value).replace("</", "<\\/")


def _page_html(name, editors, scene, runtime, styles):
    """A page as the builder writes one: editor blocks, the embedded Scene and editors, the runtime script."""
    blocks = "\n".join(
        f'<div class="kv-editor" data-editor="{i}" data-title="{e["title"]}"><pre class="kv-code" tabindex="0" '
        f'role="region" aria-label="Python editor: {e["title"]}">{_escape(e["code"])}</pre></div>'
        for i, e in enumerate(editors)
    )
    if runtime:
        scripts = '<script type="module" src="assets/main.js"></script>'
    else:  # until the runtime lands: a stand-in for window.kernelviz, and the editors loaded directly
        scripts = f'<script>{STUB_RUNTIME}</script><script type="module" src="assets/editors.js"></script>'
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>{name}</title>
{styles}</head>
<body data-page="{name}">
<main class="kv-page" data-canvas-side="right"><article class="kv-prose">
{blocks}
</article><aside class="kv-figure" id="kv-figure"></aside></main>
<script type="application/json" id="kv-scene">{_script_json(scene)}</script>
<script type="application/json" id="kv-editors">{_script_json(editors)}</script>
{scripts}
</body></html>
"""


def _escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def make_site(path, pages):
    """Assemble a site in `path`: assets (web/dist + assets/py) and `pages` {name: [editor code, ...]}."""
    if not (DIST / "editors.js").exists() or not (DIST / "worker.js").exists():
        pytest.skip("web/dist has no editors bundle: run `cd web && node build.mjs`")
    assets = path / "assets"
    site_assets.copy(DIST, assets)  # as `kernelviz build` does: web/dist, site.css, assets/py/ and its manifest
    runtime = (assets / "main.js").exists()
    sheet, parts = site_assets.stylesheet(DIST)  # the one stylesheet the builder's pages link
    site_assets.write_stylesheet(assets, sheet, parts)
    styles = f'<link rel="stylesheet" href="assets/{sheet}">'
    scenes = {}
    for name, codes in pages.items():
        editors = [{"title": f"Editor {i + 1}", "code": code, "first_line": 1} for i, code in enumerate(codes)]
        result = run([Source(e["code"], e["title"]) for e in editors])
        assert result.ok, result.error
        scenes[name] = result.scene
        (path / f"{name}.html").write_text(_page_html(name, editors, result.scene, runtime, styles))
    return scenes, runtime


@pytest.fixture(scope="module")
def site(tmp_path_factory, seeds_dir, serve_dir):
    helpers, kernel = seed_editors(next(seeds_dir.glob("000_*.txt")).read_text())
    path = tmp_path_factory.mktemp("editors-site")
    scenes, runtime = make_site(path, {"fa2": [helpers, kernel]})
    return {"url": serve_dir(path), "scenes": scenes, "helpers": helpers, "kernel": kernel, "runtime": runtime}


@pytest.fixture
def page(shared_page):
    """A recording page in the module's shared context (Pyodide compiled once); the reader's edits and time limit
    are cleared after each test, so every test starts from the page's code."""
    yield shared_page
    if shared_page.url.startswith("http"):
        shared_page.evaluate("localStorage.clear()")


def open_page(page, site, name="fa2"):
    page.goto(f"{site['url']}/{name}.html")
    mount_editors(page)
    return page


def wait_ready(page):
    start_python(page, PYTHON_READY_S)


def editor(page, index):
    return page.locator(f'.kv-editor[data-editor="{index}"]')


def set_code(page, index, code):
    """Replace editor `index`'s code the way a reader's edit does (a CodeMirror transaction from the user)."""
    page.evaluate(
        """([i, code]) => { const v = kernelvizEditors.editors[i].view;
        v.dispatch({changes: {from: 0, to: v.state.doc.length, insert: code}, userEvent: 'input.paste'}); }""",
        [index, code],
    )


def code_of(page, index):
    return page.evaluate("i => kernelvizEditors.editors[i].code()", index)


def click_and_wait(page, index, button):
    """Click `button` ('run', 'runAll') of editor `index` and wait until the run is over."""
    editor(page, index).locator(f".kv-editor-{button}").click()
    page.wait_for_function("!document.querySelector('.kv-running')", timeout=PYTHON_READY_S * 1000)


def test_editors_mount_with_the_page_code(page, site, outside_requests):
    open_page(page, site)
    assert page.locator(".kv-editor .cm-editor").count() == 2
    assert code_of(page, 0) == site["helpers"]
    assert code_of(page, 1) == site["kernel"]
    assert page.locator(".kv-editor .cm-lineNumbers").count() == 2
    # Python highlighting with the page's token classes: `def` is a keyword, comments are comments
    assert editor(page, 0).locator(".cm-content .k", has_text="def").count() > 0
    assert editor(page, 0).locator(".cm-content .c1").count() > 0
    assert outside_requests(page) == []


def test_run_all_gives_the_embedded_scene(page, site, outside_requests):
    open_page(page, site)
    wait_ready(page)
    outcome = page.evaluate("kernelvizEditors.runAll()")
    assert outcome["ok"], outcome
    assert outcome["result"]["scene"] == site["scenes"]["fa2"]
    assert page.evaluate("kernelviz.scene()") == site["scenes"]["fa2"]
    assert outside_requests(page) == []
    requested = {u.split("/assets/")[-1] for u in page.requested if "/assets/" in u}
    assert "pyodide/pyodide.asm.wasm" in requested
    assert "py/kernelviz/runner.py" in requested
    assert page.errors == []


def message(page, index):
    return editor(page, index).locator(".kv-editor-message")


def figure_state(page):
    """What the figure shows now: the runtime's Scene, and the canvas's markup when the real runtime draws it (not
    the badge above it, which says whether the code beside it drew it)."""
    canvas = "(document.querySelector('#kv-figure .kv-canvas') || document.getElementById('kv-figure')).innerHTML"
    return page.evaluate(f"[kernelviz.scene(), {canvas}]")


def error_range_text(page, index):
    """The text CodeMirror marks as an error in editor `index` (the diagnostic's range)."""
    return editor(page, index).locator(".cm-lintRange-error").all_inner_texts()


def test_edited_caption_reaches_the_figure(page, site, outside_requests):
    """The step's label (the step list) and its caption (on the canvas) both say what the reader wrote."""
    old, new = "write O{i}, L{i}", "store O{i} and L{i}"
    assert site["kernel"].count(old) == 2  # step(label, caption)
    open_page(page, site)
    set_code(page, 1, site["kernel"].replace(old, new))
    click_and_wait(page, 1, "run")
    scene = page.evaluate("kernelviz.scene()")
    labels = [s["label"] for s in next(n for n in scene["nodes"] if n["kind"] == "step_list")["steps"]]
    assert "block 1 · store O1 and L1" in labels
    assert "block 1 · write O1, L1" not in labels
    assert "store O1 and L1" in json.dumps(scene)
    assert "ran 2 editors" in message(page, 1).inner_text()
    assert outside_requests(page) == []
    if not site["runtime"]:
        pytest.skip("the figure runtime (assets/main.js) is not built yet: checked the Scene only")
    figure = page.locator("#kv-figure")
    assert figure.get_by_text("block 1 · store O1 and L1").count() > 0  # the step list
    page.evaluate("k => kernelviz.goTo(k)", labels.index("block 1 · store O1 and L1"))
    page.wait_for_function("document.querySelector('#kv-figure svg').textContent.includes('store O1 and L1')")


def test_syntax_error_is_shown_at_its_editor_and_line(page, site):
    lines = site["kernel"].splitlines()
    bad = lines.index("Tr = Tc = 2  # blocks of Q rows; tiles of K and V")
    lines[bad] = "Tr = Tc = = 2"
    open_page(page, site)
    before = figure_state(page)
    set_code(page, 1, "\n".join(lines) + "\n")
    click_and_wait(page, 1, "run")
    text = message(page, 1).inner_text()
    assert f"Line {bad + 1}:" in text and "SyntaxError" in text
    assert error_range_text(page, 1) == ["Tr = Tc = = 2"]
    assert error_range_text(page, 0) == [] and message(page, 0).is_hidden()
    assert figure_state(page) == before
    assert message(page, 1).get_attribute("role") == "alert"


def test_an_editor_after_a_failed_one_says_why_it_did_not_run(page, site):
    open_page(page, site)
    set_code(page, 0, "x = = 1\n" + site["helpers"])
    click_and_wait(page, 1, "run")
    assert "SyntaxError" in message(page, 0).inner_text()
    said = message(page, 1).inner_text()
    assert "did not run: editor 1 (Editor 1) failed at line 1 (SyntaxError)" in said, said
    assert "waiting" not in said and "running" not in said


def test_runtime_error_is_shown_where_it_was_raised(page, site):
    """A helper from editor 1 fails when editor 2 calls it: the error is at the helper's line in editor 1."""
    lines = site["helpers"].splitlines()
    target = "    level = (content(S.cells[0]) or data())['level'] + 1"
    bad = lines.index(target)
    lines[bad] = "    level = no_such_level + 1"
    open_page(page, site)
    before = figure_state(page)
    set_code(page, 0, "\n".join(lines) + "\n")
    click_and_wait(page, 1, "run")
    text = message(page, 0).inner_text()
    assert f"Line {bad + 1}:" in text and "NameError" in text and "no_such_level" in text
    assert error_range_text(page, 0) == ["    level = no_such_level + 1"]
    assert error_range_text(page, 1) == []
    assert "Traceback" in message(page, 0).inner_text()
    assert f"stopped: code it called in editor 1 (Editor 1) failed at line {bad + 1} (NameError)" in (
        message(page, 1).inner_text()
    )
    assert figure_state(page) == before


def test_stdout_appears_under_the_editor_that_printed_it(page, site):
    open_page(page, site)
    set_code(page, 0, site["helpers"] + "print('helpers loaded')\n")
    set_code(page, 1, "print('kernel', 1 + 1)\n" + site["kernel"])
    click_and_wait(page, 0, "runAll")
    assert editor(page, 0).locator(".kv-editor-stdout").inner_text().strip() == "helpers loaded"
    assert editor(page, 1).locator(".kv-editor-stdout").inner_text().strip() == "kernel 2"


def test_run_runs_this_editor_and_those_before_it(page, site):
    """Ctrl+Enter in the first editor runs it alone: its helpers draw nothing, so the figure is emptied."""
    open_page(page, site)
    wait_ready(page)
    editor(page, 0).locator(".cm-content").click()
    page.keyboard.press("Control+Enter")
    page.wait_for_function("kernelviz.scene().nodes.length === 0", timeout=PYTHON_READY_S * 1000)
    assert "ran this editor" in message(page, 0).inner_text()
    assert code_of(page, 0) == site["helpers"]  # Ctrl+Enter ran; it did not insert a line


def _wait_running(page):
    page.wait_for_function("kernelvizEditors.python.state === 'running'", timeout=PYTHON_READY_S * 1000)


WATCH_STOP = """() => { const stop = document.querySelector('[data-editor="1"] .kv-editor-stop');
  const note = document.querySelector('[data-editor="1"] .kv-editor-message');
  window.__stop = {};
  stop.addEventListener('click', () => { window.__stop.clicked = performance.now(); }, {capture: true});
  new MutationObserver(() => { if (note.textContent.includes('stopped')) window.__stop.shown ??= performance.now(); })
    .observe(note, {childList: true, subtree: true, characterData: true}); }"""

RESPONSIVE = """async () => { const t0 = performance.now(); await new Promise((r) => setTimeout(r, 0));
  const tick = performance.now() - t0; await kernelviz.goTo(3); return [tick, kernelviz.step()]; }"""


def test_stop_ends_an_endless_loop_and_python_restarts(page, site, outside_requests):
    open_page(page, site)
    set_code(page, 1, "while True:\n    pass\n")
    editor(page, 1).locator(".kv-editor-run").click()
    _wait_running(page)
    page.wait_for_timeout(300)
    tick, step = page.evaluate(RESPONSIVE)  # while Python spins, the page answers and the figure plays
    assert tick < 100 and step == 3
    page.evaluate(WATCH_STOP)
    editor(page, 1).locator(".kv-editor-stop").click()
    page.wait_for_function("window.__stop.shown !== undefined")
    stop = page.evaluate("window.__stop")
    assert stop["shown"] - stop["clicked"] < 1000, stop  # in the page's clock: Stop's click to "stopped after"
    assert "stopped after" in message(page, 1).inner_text()
    assert code_of(page, 1) == "while True:\n    pass\n"  # the edit survives the stop
    editor(page, 1).locator(".kv-editor-reset").click()
    click_and_wait(page, 1, "run")  # a fresh Python loads, then runs
    assert page.evaluate("kernelviz.scene()") == site["scenes"]["fa2"]
    assert page.evaluate("kernelviz.step()") == 3  # the new figure keeps the step the reader is on
    assert "ran 2 editors" in message(page, 1).inner_text()
    assert outside_requests(page) == []


def test_time_limit_stops_a_long_run(page, site):
    open_page(page, site)
    limit = editor(page, 0).locator(".kv-editor-limit")
    assert limit.input_value() == "10"
    limit.fill("1")
    limit.dispatch_event("change")
    assert editor(page, 1).locator(".kv-editor-limit").input_value() == "1"  # one limit for the page
    set_code(page, 0, "import time\nwhile True:\n    time.sleep(0.01)\n")
    click_and_wait(page, 0, "run")
    text = message(page, 0).inner_text()
    assert "stopped after 1." in text and "time limit" in text
    page.reload()
    open_page(page, site)
    assert editor(page, 0).locator(".kv-editor-limit").input_value() == "1"


def test_edits_survive_reload_and_reset_restores_the_page_code(page, site):
    open_page(page, site)
    edited = editor(page, 0).locator(".kv-editor-edited")
    assert edited.is_hidden()
    content = editor(page, 1).locator(".cm-content")
    content.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("# my note")
    assert code_of(page, 1) == site["kernel"] + "# my note"
    assert editor(page, 1).locator(".kv-editor-edited").is_visible()
    assert edited.is_hidden()
    page.reload()
    open_page(page, site)
    assert code_of(page, 1) == site["kernel"] + "# my note"
    assert editor(page, 1).locator(".kv-editor-edited").is_visible()
    editor(page, 1).locator(".kv-editor-reset").click()
    assert code_of(page, 1) == site["kernel"]
    assert editor(page, 1).locator(".kv-editor-edited").is_hidden()
    page.reload()
    open_page(page, site)
    assert code_of(page, 1) == site["kernel"]


def test_editing_keys_indent_and_undo(page, site):
    """CodeMirror's commands: Enter indents, undo takes back what was typed after it, redo, Tab / Shift-Tab."""
    open_page(page, site)
    set_code(page, 0, "")
    editor(page, 0).locator(".cm-content").click()
    page.keyboard.type("def f():")
    page.keyboard.press("Enter")
    page.keyboard.insert_text("return 1")  # one input: keystrokes a loaded machine spaces out land in several groups
    assert code_of(page, 0) == "def f():\n    return 1"
    page.keyboard.press("Control+z")
    # the Enter's indent goes with the typing when both fall within CodeMirror's grouping delay, else it stays
    assert code_of(page, 0) in ("def f():", "def f():\n    ")
    page.keyboard.press("Control+Shift+KeyZ")
    assert code_of(page, 0) == "def f():\n    return 1"
    page.keyboard.press("Shift+Tab")
    assert code_of(page, 0) == "def f():\nreturn 1"
    page.keyboard.press("Tab")
    assert code_of(page, 0) == "def f():\n    return 1"


def test_reaching_the_code_by_keyboard_loads_the_editors_and_gives_one_the_focus(page, site):
    """Tab to the first block's code loads the editors (nothing else does: the browser never idles here, which once
    loaded them too); its editor takes the focus."""
    if not site["runtime"]:
        pytest.skip("no runtime (main.js) to load the editors on focus")
    page.add_init_script("window.requestIdleCallback = () => 0;")  # the browser never idles: only reaching loads
    page.goto(f"{site['url']}/fa2.html")
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    assert page.evaluate("window.kernelvizEditors === undefined")
    # the editors may mount (and take the focus) before the next line runs: record what Tab reached first
    page.evaluate(
        "document.addEventListener('focusin', (e) => (window.firstFocus ??= e.target.getAttribute('aria-label')))"
    )
    page.keyboard.press("Tab")  # the first focusable element: the first block's code
    assert page.evaluate("window.firstFocus") == "Python editor: Editor 1"
    page.wait_for_function("window.kernelvizEditors && window.kernelvizEditors.editors.length > 0")
    assert editor(page, 0).locator(".cm-content").evaluate("el => el === document.activeElement")


def test_brackets_close_and_escape_then_tab_leaves(page, site):
    open_page(page, site)
    set_code(page, 0, "")
    content = editor(page, 0).locator(".cm-content")
    content.click()
    page.keyboard.type("f(x")
    assert code_of(page, 0) == "f(x)"
    page.keyboard.type(")")  # types over the closing bracket
    assert code_of(page, 0) == "f(x)"
    assert "Escape then Tab" in content.get_attribute("aria-description")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert code_of(page, 0) == "f(x)"
    assert not content.evaluate("el => el.contains(document.activeElement)")


def test_huge_output_and_a_diagram_too_large_cannot_take_the_tab_down(page, site):
    """100 MB printed: the page shows the first part and a note of what was cut, stays responsive, and keeps the
    reader's edit; a diagram beyond the drawable count is refused by pie at its line, and the figure stays."""
    open_page(page, site)
    huge = "print('x' * 100_000_000)\n"
    set_code(page, 1, huge + site["kernel"])
    click_and_wait(page, 1, "run")
    shown = editor(page, 1).locator(".kv-editor-stdout").inner_text()
    assert "output cut: 99,800,001 more characters not shown" in shown and len(shown) < 300_000
    tick, step = page.evaluate(RESPONSIVE)
    assert tick < 100 and step == 3
    page.reload()
    open_page(page, site)
    assert code_of(page, 1) == huge + site["kernel"]  # the edit is kept
    before = figure_state(page)
    set_code(page, 1, "pie.diagram([{}] * 6000)\n")
    click_and_wait(page, 1, "run")
    assert "items_json has 6,000 items; a diagram draws at most 5,000" in message(page, 1).inner_text()
    assert figure_state(page) == before


# The hint's box and the code's (the CodeMirror editor's), in client px, while the code has the focus.
HINT_AND_CODE = """(i) => { const e = document.querySelector(`.kv-editor[data-editor="${i}"]`);
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const hint = e.querySelector('.kv-editor-keys > span');
  return { hint: hint.checkVisibility() ? box(hint) : null, code: box(e.querySelector('.cm-editor')) }; }"""


def test_tab_moves_on_until_the_reader_types_and_the_hint_sits_at_the_code(page, site):
    """Issue 38, item 3: Tab in code the reader has not typed in moves the focus on (CodeMirror's tab-focus mode), so
    a keyboard reader passing through neither edits the code nor makes the figure stale; once they type, Tab
    indents (indentWithTab); Reset brings the first behaviour back. The way out is shown over the code's foot."""
    open_page(page, site)
    page.set_viewport_size({"width": 1366, "height": 768})
    content = editor(page, 0).locator(".cm-content")
    original = code_of(page, 0)
    content.focus()
    page.wait_for_function(f"({HINT_AND_CODE})(0).hint !== null")  # (CodeMirror marks its focus a frame later)
    boxes = page.evaluate(HINT_AND_CODE, 0)
    (hl, ht, hr, hb), (cl, ct, cr, cb) = boxes["hint"], boxes["code"]
    assert cl <= hl and hr <= cr and ct <= ht and hb <= min(cb, 768), boxes  # on the code, in view
    page.keyboard.press("Tab")
    assert code_of(page, 0) == original
    assert not content.evaluate("el => el.contains(document.activeElement)")
    assert editor(page, 0).locator(".kv-editor-edited").is_hidden()

    content.click()
    page.keyboard.press("End")
    page.keyboard.type("#")  # the reader types: from now on Tab indents
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    assert content.evaluate("el => el.contains(document.activeElement)")
    typed = code_of(page, 0)
    assert sorted(typed) == sorted(original + "#" + "    ")  # what was typed, and one indent (4 spaces)
    editor(page, 0).locator(".kv-editor-reset").click()
    assert code_of(page, 0) == original
    content.focus()
    page.keyboard.press("Tab")
    assert code_of(page, 0) == original  # after Reset, Tab moves on again
    assert not content.evaluate("el => el.contains(document.activeElement)")
