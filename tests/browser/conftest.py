"""Browser fixtures: Debian's Chromium driven by Playwright, and a static server on 127.0.0.1.

Every test here is marked `browser`. `page` records every request, so a test can assert that nothing left the
local server: ``assert outside_requests(page) == []`` (a fixture).
"""

import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed: `make test` installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
    }

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def serve_dir():
    """serve_dir(path) -> base URL of a static server for `path` on 127.0.0.1 (stopped at the end)."""
    servers = []

    def serve(path):
        handler = functools.partial(_Quiet, directory=str(path))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for s in servers:
        s.shutdown()


def recording(pg):
    """`pg`, recording its requests in `pg.requested` (URLs) and its console errors in `pg.errors`."""
    pg.requested, pg.errors = [], []
    pg.on("request", lambda r: pg.requested.append(r.url))
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    return pg


@pytest.fixture(scope="session")
def record_page():
    """`recording`, for a test that opens a context of its own (a test module cannot import this conftest by name:
    tests/site has one too)."""
    return recording


@pytest.fixture
def page(browser):
    """A fresh page, in a context of its own, that records its requests and console errors (see `recording`)."""
    context = browser.new_context()
    yield recording(context.new_page())
    context.close()


@pytest.fixture(scope="module")
def shared_context(browser):
    """One browser context for a test module: Pyodide is fetched and compiled once, then comes from its caches."""
    context = browser.new_context()
    yield context
    context.close()


@pytest.fixture
def shared_page(shared_context):
    """A fresh recording page in the module's shared context."""
    pg = recording(shared_context.new_page())
    yield pg
    pg.close()


@pytest.fixture(scope="module")
def reading(browser):
    """One page for a test module, as a reader reads: a laptop's viewport, reduced motion, Python kept out (the
    prerendered scenes alone, until a test starts it), page errors in `reading.errors`."""
    from figure_page import without_python

    context = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    pg = without_python(context.new_page())
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    context.close()


@pytest.fixture
def outside_requests():
    """outside_requests(page): the recorded requests that went anywhere but 127.0.0.1 (data:, blob: are local)."""
    local = ("http://127.0.0.1:", "data:", "blob:", "about:")
    return lambda pg: [u for u in pg.requested if not u.startswith(local)]


# ---- the built site (kernelviz.site) ----


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """Path of a strict build of the real pages/ into a tmp folder, against the real runtime in web/dist."""
    from kernelviz.site.build import build
    from kernelviz.site.diagnostics import BuildError

    out = tmp_path_factory.mktemp("built") / "site"
    try:
        build(Path(__file__).resolve().parents[2] / "pages", out, strict=True, log=None)
    except BuildError as e:
        pytest.fail(f"the real pages do not build in strict mode: {e}")
    return out


@pytest.fixture(scope="session")
def site_url(built_site, serve_dir):
    """Base URL of `built_site`, served on 127.0.0.1."""
    return serve_dir(built_site)
