"""The page's editors in Chromium: edit and run, errors at their line, Stop, the time limit, edits kept, Reset.

The site here is assembled as the builder assembles one (the page contract): web/dist as assets/, the kernelviz
Python files with their manifest under assets/py/, and a page with the seed FA2 page's two editors and the Scene
CPython computes from them. Pyodide loads once per test (a fresh browser context each), a few seconds.
"""

import json
import shutil
from pathlib import Path

import pytest

from kernelviz.runner import Source, run
from tests.seeds import seed_editors

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "web" / "dist"
PY_FILES = ["kernelviz/__init__.py", "kernelviz/runner.py", "kernelviz/pie/scene.schema.json"] + sorted(
    p.relative_to(ROOT).as_posix() for p in (ROOT / "kernelviz" / "pie").glob("*.py")
)
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
        f'<div class="kv-editor" data-editor="{i}" data-title="{e["title"]}"><pre class="kv-code">{_escape(e["code"])}'
        "</pre></div>"
        for i, e in enumerate(editors)
    )
    if runtime:
        scripts = '<script type="module" src="assets/main.js"></script>'
    else:  # until the runtime lands: a stand-in for window.kernelviz, and the editors loaded directly
        scripts = f'<script>{STUB_RUNTIME}</script><script type="module" src="assets/editors.js"></script>'
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{name}</title>
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
    shutil.copytree(DIST, assets)
    for rel in PY_FILES:
        (assets / "py" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, assets / "py" / rel)
    (assets / "py" / "manifest.json").write_text(json.dumps(PY_FILES))
    runtime = (assets / "main.js").exists()
    styles = "".join(f'<link rel="stylesheet" href="assets/{css}">' for css in ("main.css",) if (assets / css).exists())
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


def open_page(page, site, name="fa2"):
    page.goto(f"{site['url']}/{name}.html")
    page.wait_for_function("window.kernelvizEditors && window.kernelvizEditors.editors.length > 0")
    return page


def wait_ready(page):
    page.wait_for_function("kernelvizEditors.python.state === 'ready'", timeout=PYTHON_READY_S * 1000)


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
