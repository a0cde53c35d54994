"""The figure plays from the first paint (issue 26, item 1), on the built kernel pages in Chromium: the page's Scene and
the runtime come before the text, so with the rest of the document held back by the server (the text not yet sent),
the figure is drawn and a key press plays a step, the size form draws other sizes, and the document is still loading;
once the text arrives, its bullets are bound and the step shown is marked among them."""

import functools
import http.server
import threading

import pytest

from tests.pages.kernel_pages import KERNEL_PAGES

CUT = '<article class="kv-prose" id="kv-text">'  # the server sends the page up to here, then waits
READY = "performance.getEntriesByName('kv:figure-ready').length > 0"
# A size of the form, other than the one shown, whose figure was drawn in advance: {name, value, key}, or null.
OTHER_SIZE = """() => { const form = document.querySelector('form.kv-sizes');
  if (!form) return null;
  const inputs = [...form.querySelectorAll('input[name]')];
  const sizes = Object.fromEntries(inputs.map((i) => [i.name, Number(i.value)]));
  const key = (s) => Object.entries(s).map(([n, v]) => `${n}${v}`).join('-');
  const prerendered = JSON.parse(form.dataset.prerendered);
  for (const input of inputs)
    for (let v = Number(input.min); v <= Number(input.max); v++) {
      const wanted = { ...sizes, [input.name]: v };
      const k = key(wanted);
      if (v !== sizes[input.name] && prerendered.includes(k)) return { name: input.name, value: v, key: k };
    }
  return null; }"""


class _Holding(http.server.SimpleHTTPRequestHandler):
    """Serves the built site; an .html page is sent up to CUT, the rest once `release` is set."""

    release = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.translate_path(self.path)
        if not path.endswith(".html"):
            return super().do_GET()
        with open(path, "rb") as f:
            body = f.read()
        cut = body.index(CUT.encode()) + len(CUT)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[:cut])
        self.wfile.flush()
        self.release.wait(60)
        self.wfile.write(body[cut:])


@pytest.fixture
def holding(built_site):
    """(base URL, release): a server of the built site that holds every page's text back until release.set()."""
    release = threading.Event()
    handler = functools.partial(type("H", (_Holding,), {"release": release}), directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", release
    release.set()
    server.shutdown()


@pytest.mark.parametrize("slug", list(KERNEL_PAGES))
def test_a_key_press_plays_a_step_before_the_text_has_come(page, holding, slug):
    url, release = holding
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{url}/{slug}.html", wait_until="commit")
    page.wait_for_function(READY, timeout=20_000)
    assert page.evaluate("document.readyState") == "loading"
    assert page.evaluate("document.getElementById('kv-text').childElementCount") == 0  # no text yet
    assert page.evaluate("window.kernelviz.step()") == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_function("window.kernelviz.step() === 1", timeout=5_000)
    page.locator("#kv-figure .kv-next").click()
    page.wait_for_function("window.kernelviz.step() === 2", timeout=5_000)
    checker = [u for u in page.requested if u.endswith("/assets/scene-check.js")]
    assert checker == [], "the page's own Scene, checked at build time, is drawn without the scene checker"
    assert [u for u in page.requested if u.endswith(f"/scenes/{slug}.json")], "the Scene is the file the head preloads"
    other = page.evaluate(OTHER_SIZE)  # a size drawn in advance, picked in the form: the figure redraws at it
    assert other, "no other size drawn in advance"
    page.locator(f"form.kv-sizes input[name={other['name']}]").fill(str(other["value"]))
    page.wait_for_function("(k) => document.querySelector('form.kv-sizes').dataset.applied === k", arg=other["key"])
    assert len([u for u in page.requested if u.endswith("/assets/scene-check.js")]) == 1  # checked: not the page's
    assert page.evaluate("document.readyState") == "loading"
    release.set()
    page.wait_for_function("performance.getEntriesByName('kv:text-bound').length > 0", timeout=20_000)
    bound = page.evaluate("[...document.querySelectorAll('.kv-prose li[data-step]')].map((li) => li.dataset.step)")
    assert bound, "no bullet was bound once the text came"
    marked = page.evaluate("[...document.querySelectorAll('.kv-prose .kv-current')].map((n) => n.dataset.step)")
    assert marked and set(marked) == {"2"}, marked  # the step shown, marked in the text that came after it
    assert page.errors == []
