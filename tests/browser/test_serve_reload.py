"""`kernelviz serve` tells an open page to reload after a rebuild: the reader sees the saved page without asking."""

import re
import signal
import subprocess
import sys
import threading

import pytest


@pytest.mark.slow
def test_an_open_page_reloads_after_a_save(page, tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "index.md").write_text("---\ntitle: Home\n---\nversion one\n")
    command = [sys.executable, "-m", "kernelviz.cli", "serve", "--port", "0", "--pages", str(pages)]
    proc = subprocess.Popen(
        [*command, "--out", str(tmp_path / "site")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        url = next(m.group(1) for line in proc.stdout if (m := re.search(r"at (http://127\.0\.0\.1:\d+/)", line)))
        threading.Thread(target=proc.stdout.read, daemon=True).start()
        page.goto(url)
        page.wait_for_function("document.body.textContent.includes('version one')")
        page.evaluate("window.__before = true")
        page.wait_for_timeout(500)  # the watcher starts
        (pages / "index.md").write_text("---\ntitle: Home\n---\nversion two\n")
        page.wait_for_function("document.body.textContent.includes('version two')", timeout=30_000)
        assert page.evaluate("window.__before") is None  # a new document: the page reloaded itself
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
