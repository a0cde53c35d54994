"""Python starting is visible (issue 32, item 8), on the built FA2 page in Chromium: after Run, the editor says the
stages in order (downloading, starting Python, loading the page's code, running), each with its elapsed time, and the
status line beside every editor says the stage with a clock; the download's bar shows only while it downloads (it once
sat full for the seconds Python took to start)."""

import re

from python_intent import PYTHON_READY_S, mount_editors

FA2 = "flash-attention-2.html"
STAGES = ["downloading", "starting Python", "loading the page's code", "running"]
# Every text the Run's message and the first editor's status take, with whether the bar shows, in window.__seen.
WATCH = """() => { window.__seen = [];
  const editor = document.querySelectorAll('.kv-editor')[kernelvizEditors.editors.length - 1];
  const message = editor.querySelector('.kv-editor-message'), status = editor.querySelector('.kv-editor-status');
  const bar = status.querySelector('.kv-editor-progress');
  const record = () => window.__seen.push({ message: message.hidden ? '' : message.textContent,
    status: status.textContent, bar: !bar.hidden });
  new MutationObserver(record).observe(editor.querySelector('.kv-editor-bar'),
    { subtree: true, childList: true, characterData: true, attributes: true });
  new MutationObserver(record).observe(message, { subtree: true, childList: true, characterData: true }); }"""
TIME = r"\d+\.\d s"


def current(message):
    """The stage a message says is going on now ('starting Python 1.2 s…'), or None."""
    found = [name for name in STAGES if re.search(rf"{re.escape(name)} {TIME}…", message)]
    return found[0] if found else None


def test_after_run_the_stages_show_in_order_with_their_times(page, site_url):
    page.goto(f"{site_url}/{FA2}")
    mount_editors(page)
    assert page.evaluate("kernelvizEditors.python.state") == "idle"
    page.evaluate(WATCH)
    outcome = page.evaluate("kernelvizEditors.runAll()")
    assert outcome["ok"], outcome
    seen = page.evaluate("window.__seen")
    order = []
    for s in seen:
        stage = current(s["message"])
        if stage and (not order or order[-1] != stage):
            order.append(stage)
    assert order == STAGES, order  # each stage shown while it went on, in order
    last = next(s["message"] for s in reversed(seen) if current(s["message"]) == "running")
    for name in STAGES[:-1]:  # by the time it runs, every stage before says how long it took
        assert re.search(rf"{re.escape(name)} {TIME} ✓", last), last
    statuses = [s for s in seen if s["status"].startswith("Python: ")]
    assert {s["status"].split(" · ")[0] for s in statuses if s["bar"]} and all(
        s["status"].startswith("Python: downloading") for s in statuses if s["bar"]
    ), "the bar shows while Python downloads, and only then"
    clocks = [float(m.group(1)) for s in statuses if (m := re.search(r" · (\d+\.\d) s$", s["status"]))]
    assert len(clocks) > 3 and clocks == sorted(clocks) and clocks[-1] > clocks[0]  # the clock runs
    assert any(s["status"].startswith("Python: starting Python") for s in statuses)
    assert any(s["status"].startswith("Python: loading the page's code") for s in statuses)
    assert "ran" in page.locator(".kv-editor-message").last.inner_text()  # then the run's own summary
    assert page.errors == []


def test_a_run_once_python_is_ready_shows_running_alone(page, site_url):
    page.goto(f"{site_url}/{FA2}")
    mount_editors(page)
    page.evaluate("kernelvizEditors.python.start()")
    page.wait_for_function("kernelvizEditors.python.state === 'ready'", timeout=PYTHON_READY_S * 1000)
    page.evaluate(WATCH)
    assert page.evaluate("kernelvizEditors.runAll()")["ok"]
    messages = [s["message"] for s in page.evaluate("window.__seen") if s["message"]]
    assert messages and all("downloading" not in m for m in messages), messages
