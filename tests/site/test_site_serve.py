"""The dev server: MIME types and no caching, a failed rebuild keeps the last good site, and `kernelviz serve`
rebuilds when a page changes."""

import concurrent.futures
import contextlib
import gzip
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from kernelviz.site import serve


def get(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.headers, response.read().decode("utf-8", "replace")


class Served(tuple):
    """(root, url), with the server as `srv`."""

    def __new__(cls, root, url, srv):
        served = super().__new__(cls, (root, url))
        served.srv = srv
        return served


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    srv = serve.make_server(root, port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield Served(root, f"http://127.0.0.1:{srv.server_address[1]}", srv)
    srv.shutdown()
    srv.server_close()


MIME = {
    "a.mjs": "text/javascript",
    "a.js": "text/javascript",
    "a.wasm": "application/wasm",
    "a.json": "application/json",
    "a.css": "text/css",
    "a.html": "text/html; charset=utf-8",
}


def test_the_server_sends_the_mime_types_the_runtime_needs(server):
    root, url = server
    for name, mime in MIME.items():
        (root / name).write_text("x")
        status, headers, _ = get(f"{url}/{name}")
        assert (status, headers["Content-Type"]) == (200, mime), name


def answer(url, **headers):
    """(status, headers, body bytes) of a GET of `url` with `headers`; an HTTP error status is an answer too."""
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def test_html_is_never_cached_other_files_are_revalidated_and_fingerprinted_ones_kept(server):
    root, url = server
    (root / "pyodide").mkdir()
    for name in ("a.html", "pyodide/pyodide.asm.wasm", "python_stdlib.zip", "main.3f2a9c1b.js", "main.js"):
        (root / name).write_bytes(b"x" * 100)
    assert answer(f"{url}/a.html")[1]["Cache-Control"] == "no-store"
    assert "ETag" not in answer(f"{url}/a.html")[1]
    for name in ("pyodide/pyodide.asm.wasm", "python_stdlib.zip", "main.js"):  # cached, asked again each time
        _, headers, _ = answer(f"{url}/{name}")
        assert headers["Cache-Control"] == "no-cache" and headers["ETag"], name
        status, again, body = answer(f"{url}/{name}", **{"If-None-Match": headers["ETag"]})
        assert (status, body, again["ETag"]) == (304, b"", headers["ETag"]), name
    for path in ("main.3f2a9c1b.js", "main.js?v=7"):  # the URL changes with the content: kept a year
        assert answer(f"{url}/{path}")[1]["Cache-Control"] == "public, max-age=31536000, immutable", path
    tag = answer(f"{url}/main.js")[1]["ETag"]
    (root / "main.js").write_bytes(b"y" * 101)  # a rebuilt asset: a new tag, sent in full
    status, headers, body = answer(f"{url}/main.js", **{"If-None-Match": tag})
    assert (status, body) == (200, b"y" * 101) and headers["ETag"] != tag
    assert answer(f"{url}/missing.js")[1]["Cache-Control"] == "no-store"


def test_accept_encoding_is_read_with_its_q_values(server):
    root, url = server
    (root / "a.js").write_text("const x = 1;\n" * 500)
    for header, gzipped in [
        ("gzip", True),
        ("gzip;q=0", False),
        ("gzip; q=0.0, br", False),
        ("GZIP;Q=0.5", True),
        ("*", True),
        ("*;q=0", False),
        ("gzip;q=0, *", False),
        ("identity", False),
        ("deflate, gzip;q=0.001", True),
    ]:
        headers = answer(f"{url}/a.js", **{"Accept-Encoding": header})[1]
        assert (headers["Content-Encoding"] == "gzip") == gzipped, header


def test_text_assets_are_gzipped_for_a_client_that_accepts_it(server):
    root, url = server
    text = "const x = 1;\n" * 500
    (root / "a.js").write_text(text)
    (root / "a.woff2").write_bytes(b"\x00" * 100)
    request = urllib.request.Request(f"{url}/a.js", headers={"Accept-Encoding": "gzip, deflate"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.headers["Content-Encoding"] == "gzip" and response.headers["Vary"] == "Accept-Encoding"
        body = response.read()
    assert len(body) < len(text) / 10 and gzip.decompress(body).decode() == text
    assert get(f"{url}/a.js")[2] == text  # plain for a client that does not ask
    request = urllib.request.Request(f"{url}/a.woff2", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.headers["Content-Encoding"] is None  # already compressed formats are sent as they are


def raw_request(url, data, timeout=5):
    """Send the bytes `data` on a fresh connection to `url`'s server; return what comes back until it closes."""
    host, port = urllib.parse.urlsplit(url).netloc.split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_malformed_request_gets_400_not_a_dropped_connection(server):
    _, url = server
    for path in (b"/a%00b.html", b"/a\x01.js", b"/%ff%fe.html", b"/assets/%c3.js"):
        answer = raw_request(url, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        assert answer.startswith(b"HTTP/1.0 400"), answer[:80]


def test_an_idle_connection_is_closed(tmp_path):
    srv = serve.make_server(tmp_path, port=0, idle_seconds=0.5)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        started = time.monotonic()
        assert raw_request(f"http://127.0.0.1:{srv.server_address[1]}", b"GET / HTT", timeout=10) == b""
        assert time.monotonic() - started < 5
    finally:
        srv.shutdown()
        srv.server_close()


def trickle(port, ticks, every):
    """Open a connection and send a request a byte at a time, one every `every` s (never idle for long), for at most
    `ticks` bytes; return how many it sent before the server closed the connection (None: it never did)."""
    request = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * ticks
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        for sent in range(ticks):
            try:
                sock.sendall(request[sent : sent + 1])
            except OSError:  # reset: closed
                return sent
            readable, _, _ = select.select([sock], [], [], every)
            if readable:
                try:
                    if sock.recv(1024) == b"":
                        return sent
                except OSError:
                    return sent
    return None


def test_a_request_that_trickles_in_is_closed_at_its_deadline(tmp_path):
    """Clients that each send a byte every 0.5 s are never idle for the 2 s of the idle timeout; before the request
    deadline they held their threads as long as they kept sending (40 clients, a byte every 8 s: past 60 s). Now
    each is closed once 3 s pass without a whole request; the loops give them up to 40 bytes (20 s) to be."""
    srv = serve.make_server(tmp_path, port=0, idle_seconds=2, request_seconds=3)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            sent = list(pool.map(lambda _: trickle(srv.server_address[1], 40, 0.5), range(8)))
        assert None not in sent, sent  # every one closed before its 40 bytes
        assert min(sent) >= 2  # not refused at once: the request was being received when its deadline came
    finally:
        srv.shutdown()
        srv.server_close()


def test_a_folder_is_not_listed(server):
    root, url = server
    (root / "assets").mkdir()
    (root / "assets" / "secret-name.js").write_text("x")
    (root / "guide").mkdir()
    (root / "guide" / "index.html").write_text("<body>the guide</body>")
    for path in ("/assets/", "/assets", "/"):
        status, _, body = answer(f"{url}{path}")
        assert status == 404 and b"secret-name" not in body and b"assets" not in body, (path, status)
    assert get(f"{url}/guide/")[2].startswith("<body>the guide")  # a folder's index.html is still its page


def test_a_post_of_deeply_nested_json_is_refused_without_reading_it(server):
    """No request to this server carries JSON: GET and HEAD only. A POST of a body 100,000 arrays deep is a 501
    naming the method (its body never parsed, so no RecursionError), and the server goes on serving."""
    root, url = server
    (root / "a.js").write_text("x")
    body = b"[" * 100_000 + b"]" * 100_000
    head = f"POST /a.js HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    reply = raw_request(url, head.encode() + body)
    assert reply.startswith(b"HTTP/1.0 501 Unsupported method ('POST')"), reply[:300]
    assert b"RecursionError" not in reply
    assert get(f"{url}/a.js")[2] == "x"


def test_200_parallel_requests_of_each_asset_kind_all_succeed(server):
    root, url = server
    files = {"a.html": "<body>x</body>" * 2000, "a.js": "x;" * 20000, "a.css": "a{}" * 5000}
    files |= {"a.wasm": "\0asm" * 50000, "a.woff2": "w" * 30000, "a.json": "[" + "1," * 5000 + "1]"}
    for name, text in files.items():
        (root / name).write_text(text)

    def fetch(name):
        request = urllib.request.Request(f"{url}/{name}", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, len(response.read())

    with concurrent.futures.ThreadPoolExecutor(200) as pool:
        for name in files:
            answers = list(pool.map(lambda _, n=name: fetch(n), range(200)))
            assert {status for status, _ in answers} == {200}, name


def test_open_pages_hear_reload_after_a_rebuild(server):
    root, url = server
    (root / "index.html").write_text("<html><body>page</body></html>")
    page = get(f"{url}/")[2]
    assert "new EventSource('/__kernelviz/events')" in page and page.index("EventSource") < page.index("</body>")
    srv = server.srv
    with urllib.request.urlopen(f"{url}/__kernelviz/events", timeout=5) as events:
        assert events.headers["Content-Type"] == "text/event-stream"
        assert events.readline() == b"retry: 1000\n"
        events.readline()
        srv.reload()
        assert events.readline() == b"event: reload\n"


def test_the_server_follows_a_replaced_folder(server):
    root, url = server
    (root / "index.html").write_text("one")
    assert get(f"{url}/")[2] == "one"
    root.rename(root.with_name("old"))
    root.mkdir()
    (root / "index.html").write_text("two")
    assert get(f"{url}/")[2] == "two"


def test_a_rebuild_swaps_the_served_site_in_one_step(tmp_path, monkeypatch):
    """Publishing a new site never leaves a moment without one: after every step that moves a folder, the served
    folder's pages are there (two renames left a gap in which 4 of 23,926 GETs got 404)."""
    from kernelviz.site import build
    from kernelviz.site.exchange import exchange

    out = tmp_path / "site"

    def built(version):
        staging = tmp_path / ".site.building"
        staging.mkdir()
        (staging / build.MARKER).write_text("")
        (staging / "p.html").write_text(f"version {version}")
        return staging

    build.publish(built(0), out)
    seen = []

    def watched(step):
        def call(*args, **kwargs):
            result = step(*args, **kwargs)
            seen.append((out / "p.html").read_text() if (out / "p.html").exists() else None)
            return result

        return call

    monkeypatch.setattr(build, "exchange", watched(exchange))
    monkeypatch.setattr(Path, "rename", watched(Path.rename))
    monkeypatch.setattr(build.shutil, "rmtree", watched(build.shutil.rmtree))
    build.publish(built(1), out)
    assert seen and None not in seen, seen
    assert seen[-1] == "version 1" and sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # nothing left over


def test_a_failed_rebuild_keeps_the_last_good_site(build_site, tmp_path, fake_dist):
    _, out = build_site({"a.md": "---\ntitle: A\n---\nfirst version\n"})
    (tmp_path / "pages" / "a.md").write_text("---\ntitle: A\n---\n[broken](nowhere.md)\n")
    said = []
    ok = serve.rebuild(tmp_path / "pages", out, log=said.append, strict=True, web_dist=fake_dist)
    assert ok is False
    assert "still serving the last good site" in said[-1] and "nowhere.html" in said[-1]
    assert "first version" in (out / "a.html").read_text()


@contextlib.contextmanager
def serving(tmp_path, fake_dist, *options):
    """`kernelviz serve` of tmp_path/pages in a child process: yields (process, base URL); then Ctrl-C, and the exit
    status is checked to be 0."""
    command = [sys.executable, "-m", "kernelviz.cli", "serve", "--port", "0", "--pages", str(tmp_path / "pages")]
    command += ["--out", str(tmp_path / "site"), "--web-dist", str(fake_dist), *options]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        url = None
        for line in proc.stdout:
            if m := re.search(r"at (http://127\.0\.0\.1:\d+/)", line):
                url = m.group(1)
                break
        assert url, "serve printed no URL"
        threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep its output flowing
        yield proc, url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            raise
    assert proc.returncode == 0


def wait_for(url, text, proc, seconds=20):
    deadline = time.monotonic() + seconds
    while text not in get(url)[2]:
        assert proc.poll() is None, f"serve ended (status {proc.returncode})"
        assert time.monotonic() < deadline, f"no rebuild showing {text!r} within {seconds} s"
        time.sleep(0.2)


def test_kernelviz_serve_builds_serves_and_rebuilds_on_change(tmp_path, fake_dist):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "index.md").write_text("---\ntitle: Home\n---\nversion one\n")
    with serving(tmp_path, fake_dist) as (proc, url):
        assert "version one" in get(url)[2]
        time.sleep(0.5)  # let the watcher start
        (pages / "index.md").write_text("---\ntitle: Home\n---\nversion two\n")
        wait_for(url, "version two", proc, 15)


@pytest.mark.slow
def test_serve_survives_whatever_an_editor_does_and_recovers_on_the_next_save(tmp_path, fake_dist):
    pages = tmp_path / "pages"
    pages.mkdir()

    def save(version, code):
        body = f"version {version}\n\n```pie\npie.show_canvas('right')\n{code}\n```\n"
        (pages / "index.md").write_text(f"---\ntitle: Home\n---\n{body}")

    save(1, "import os\nos._exit(0)")
    with serving(tmp_path, fake_dist, "--editor-seconds", "1") as (proc, url):
        assert "exited with status 0" in get(url)[2]  # the page says why, where the figure would be
        time.sleep(0.5)
        for version, (code, said) in enumerate(
            [
                ("raise KeyboardInterrupt", "KeyboardInterrupt"),
                ("while True:\n    pass", "EditorTimeout"),
                ("print('x' * 10_000_000)", 'id="kv-scene"'),
            ],
            start=2,
        ):
            save(version, code)
            wait_for(url, f"version {version}", proc)
            assert said in get(url)[2]
