"""CPython and Pyodide agree: running a built page's editors in the browser gives exactly the Scene the build
embedded, for every page of the site that has editors. The site is built from pages/ by `kernelviz build`."""

import json
from pathlib import Path

import pytest
from python_intent import start_python

from tests.site.page_scene import page_scene

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p.stem for p in (ROOT / "pages").glob("*.md") if "```pie" in p.read_text(encoding="utf-8"))
PYTHON_READY_MS = 60_000


@pytest.fixture(scope="module")
def built(tmp_path_factory, serve_dir):
    from kernelviz.site.build import WEB_DIST, build

    if not (WEB_DIST / "editors.js").exists():
        pytest.skip("web/dist has no editors bundle: run `cd web && node build.mjs`")
    out = tmp_path_factory.mktemp("agreement") / "site"
    build(ROOT / "pages", out, log=lambda *args: None)
    (out / "favicon.ico").write_bytes(b"")  # the pages name no icon, so Chromium asks the server root for one
    return out, serve_dir(out)


@pytest.fixture
def tab(shared_page):
    """A recording page in the module's shared context, so Pyodide is fetched and compiled once for every page."""
    return shared_page


def embedded_scene(path):
    """The Scene the page preloads, read from the built site (not from the browser)."""
    return page_scene(path)


@pytest.mark.parametrize("name", PAGES or [pytest.param("none", marks=pytest.mark.skip("no page has editors yet"))])
def test_browser_run_gives_the_embedded_scene(tab, built, name, outside_requests):
    page = tab
    out, url = built
    expected = embedded_scene(out / f"{name}.html")
    page.goto(f"{url}/{name}.html")
    start_python(page, PYTHON_READY_MS / 1000)
    count = page.evaluate("kernelvizEditors.editors.length")
    assert count == len(json.loads(page.locator("#kv-editors").text_content()))
    outcome = page.evaluate("kernelvizEditors.runAll()")
    assert outcome["ok"], outcome.get("result", {}).get("error") or outcome
    assert outcome["result"]["error"] is None
    assert outcome["result"]["scene"] == expected
    assert page.evaluate("kernelviz.scene()") == expected
    assert outside_requests(page) == []
    assert page.errors == []
