"""How the editors load on the built FA2 page, in Chromium: a step at a time, never while a step animates.

A read-only visit fetches no editors (test_editors_on_reach.py); a page whose editors hold the reader's edits loads
them without waiting for a reach, at quiet moments, so the edits are shown. Loading the editors (running the 430 KB
bundle, mounting each CodeMirror editor, starting the Python worker) once ran as one main-thread task of ~200 ms, a
visible hitch when it landed in a step the reader was playing. The runtime now runs each step in a task of its own at
a quiet moment: no step animating and the browser idle. These tests check that structure, not its speed
(bench/site.py prints the frames and the longest task): the browser's idle callbacks are held and handed out by the
test, one idle moment at a time, so what runs in which moment is deterministic on any machine.
"""

import json

import pytest

FA2 = "flash-attention-2.html"

# Idle callbacks run only when the test says the browser is idle (RELEASE). Recorded with the idle moment they came
# in and whether a step was animating then: every kv: mark, and every step of the editors' loading (each quiet
# moment the runtime's window.kernelviz.quiet() gives the editors bundle).
IDLE_BY_HAND = """
window.__idle = [];
window.__moment = 0;
window.__marks = [];
window.__steps = [];
window.requestIdleCallback = (fn) => window.__idle.push(fn);
window.cancelIdleCallback = () => {};
const now = () => ({
  moment: window.__moment, animating: document.getElementById('kv-figure')?.dataset.animating === 'true' });
const mark = performance.mark.bind(performance);
performance.mark = (name, options) => {
  if (name.startsWith('kv:')) window.__marks.push({ name, index: options?.detail?.index ?? null, ...now() });
  return mark(name, options);
};
let runtime;
Object.defineProperty(window, 'kernelviz', { configurable: true, get: () => runtime, set(value) {
  const quiet = value.quiet;
  value.quiet = () => quiet().then(() => { window.__steps.push(now()); });
  runtime = value;
} });
"""
RELEASE = """() => { window.__moment += 1;
  for (const fn of window.__idle.splice(0)) fn({ didTimeout: false, timeRemaining: () => 50 }); }"""
ANIMATING = "document.getElementById('kv-figure').dataset.animating === 'true'"
LOADING = ("kv:editors-start", "kv:editor-mounted", "kv:python-start")
MOMENTS = 400  # idle moments handed out at most; the FA2 page takes a few dozen


def open_fa2(page, site_url, edited=False):
    """Open the FA2 page with idle moments by hand; `edited`: with the reader's edit of its first editor kept."""
    page.add_init_script(IDLE_BY_HAND)
    page.goto(f"{site_url}/{FA2}")
    if edited:
        page.evaluate("""() => { const code = JSON.parse(document.getElementById('kv-editors').textContent)[0].code;
          const edit = { code: code + '# mine\\n', base: code };
          localStorage.setItem('kernelviz:edit:flash-attention-2:0', JSON.stringify(edit)); }""")
        page.reload()
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    return len(json.loads(page.locator("#kv-editors").text_content()))


def play_a_long_step(page, k=3):
    """Start step k, animating for a minute (not awaited)."""
    page.evaluate(f"() => {{ document.getElementById('kv-figure').dataset.duration = '60000'; kernelviz.goTo({k}); }}")
    page.wait_for_function(ANIMATING)


def settle(page, k=4):
    page.evaluate(f"() => {{ document.getElementById('kv-figure').dataset.duration = '1'; kernelviz.goTo({k}); }}")
    page.wait_for_function(f"!({ANIMATING})")


def loading_marks(page):
    return [m for m in page.evaluate("window.__marks") if m["name"] in LOADING]


def progress(page):
    return page.evaluate("[window.__steps.length, window.__marks.length]")


def test_edited_editors_load_a_step_per_idle_moment_and_never_while_a_step_animates(page, site_url, outside_requests):
    count = open_fa2(page, site_url, edited=True)
    assert count >= 2
    for n in range(MOMENTS):
        if page.evaluate("window.kernelvizEditors !== undefined"):
            break
        if n % 3 == 1:  # now and then a step plays: the browser idles between its frames, and nothing loads
            before = progress(page)
            play_a_long_step(page)
            for _ in range(3):
                page.evaluate(RELEASE)
            assert page.evaluate(ANIMATING)
            assert progress(page) == before, page.evaluate("[window.__steps, window.__marks]")
            settle(page)
        page.evaluate(RELEASE)
        page.wait_for_timeout(5)  # the bundle's fetch, between idle moments
    assert page.evaluate("window.kernelvizEditors && kernelvizEditors.editors.length") == count
    marks = loading_marks(page)
    # Python is not among them: it is fetched when the reader reaches for it (test_python_on_intent.py)
    assert [m["name"] for m in marks] == ["kv:editors-start", *["kv:editor-mounted"] * count]
    assert [m["index"] for m in marks if m["name"] == "kv:editor-mounted"] == list(range(count))
    steps = page.evaluate("window.__steps")
    assert not any(m["animating"] for m in [*marks, *steps])
    mounted = [m["moment"] for m in marks if m["name"] == "kv:editor-mounted"]
    for since, until in zip([marks[0]["moment"], *mounted[:-1]], mounted, strict=True):
        # each editor mounts over two quiet moments at least: its state (with the parse of its code), its view
        assert sum(since < s["moment"] <= until for s in steps) >= 2, steps
    moments = [m["moment"] for m in steps]
    assert moments == sorted(set(moments)), f"two loading steps shared an idle moment (one task): {steps}"
    assert page.locator(".kv-editor .cm-editor").count() == count
    assert page.evaluate("kernelvizEditors.editors[0].code()").endswith("# mine\n")  # the reader's edit, shown
    assert outside_requests(page) == []
    assert page.errors == []


def test_reaching_for_an_editor_loads_them_at_once_even_while_a_step_animates(page, site_url):
    """The browser never idles here and a step plays for a minute: the reader's click on the code loads them."""
    count = open_fa2(page, site_url)
    play_a_long_step(page)
    assert page.evaluate("window.kernelvizEditors === undefined")
    page.locator(".kv-editor pre").first.click()
    page.wait_for_function("window.kernelvizEditors !== undefined", timeout=30_000)
    assert page.evaluate("kernelvizEditors.editors.length") == count
    assert page.evaluate(ANIMATING), "the editors loaded without waiting for the step"
    assert page.evaluate("window.__moment") == 0  # no idle moment was needed
    assert "kv:python-start" in [m["name"] for m in loading_marks(page)]  # a click in an editor wants Python
    if page.errors:
        pytest.fail(f"console errors: {page.errors}")
