"""The dev server's HTTP side: the site folder on 127.0.0.1, made to hold load, and told when to reload open pages.

The standard library's ThreadingHTTPServer, configured as a dev server needs it (its defaults are a listen backlog
of 5 and no timeouts, so 200 parallel requests queue and time out, and an idle connection holds a thread forever):

- a listen backlog of ``BACKLOG``, a thread per connection, ``IDLE_SECONDS`` after which a connection that
  sends nothing is closed, and ``REQUEST_SECONDS`` in all to receive a request (its line and headers; no request
  here has a body): a client that sends a byte now and then, never idle for long, is closed then too;
- no directory listings: a folder without an ``index.html`` is a 404;
- GET and HEAD only: any other method (a POST of JSON, say) is a 501 and its body is never read; no request of
  this server carries JSON (the JSON the dev server's process parses comes from its own children and its files);
- 400 for a request the file system cannot take (a NUL byte or other control character in the path, escapes that
  are not UTF-8 such as ``/%ff%fe.html``), never a dropped connection;
- text assets (HTML, JS, CSS, JSON, SVG, Python, WebAssembly) gzip-compressed for a client that accepts gzip
  (``Accept-Encoding`` read with its q-values: ``gzip;q=0`` refuses it), compressed once per file version and kept
  (``Vary: Accept-Encoding``);
- what the browser may cache (``caching``): HTML never (``no-store``: a rebuilt page is seen on reload); every other
  file with an ``ETag`` to revalidate (``no-cache``: a 304 with no body when it has not changed, so Pyodide's 13.5 MB
  come once, and a changed file is seen at once); a fingerprinted URL (``?v=…``, or a hash in the file's name:
  ``main.3f2a9c1b.js``) for a year, ``immutable``: its name changes when its content does;
- ``/__kernelviz/events``: a Server-Sent Events stream on which every open page hears ``reload`` after a rebuild
  (``server.reload()``); each HTML page is served with the few lines that listen (``RELOAD_SCRIPT``), so the built
  site itself stays free of them.
"""

import gzip
import http.server
import io
import os
import re
import threading
import time
import urllib.parse
from collections import OrderedDict
from pathlib import Path

BACKLOG = 1024
IDLE_SECONDS = 20.0
REQUEST_SECONDS = 30.0  # to receive a whole request: its line and headers, however slowly they trickle in
EVENTS = "/__kernelviz/events"
HEARTBEAT_SECONDS = 15.0  # an open events stream writes a comment this often, so a closed page frees its thread
COMPRESSED = {".html", ".js", ".mjs", ".css", ".json", ".svg", ".py", ".wasm", ".txt", ".map"}
CACHE_ENTRIES = 256
RELOAD_SCRIPT = (
    "<script>/* kernelviz serve: reload after a rebuild */"
    f"new EventSource('{EVENTS}').addEventListener('reload', () => location.reload());</script>"
)
NO_STORE = "no-store"
REVALIDATE = "no-cache"  # cache, but ask each time (If-None-Match: a 304 when unchanged)
IMMUTABLE = "public, max-age=31536000, immutable"
# a file name with a content hash (8+ hex digits between dots or after a dash: main.3f2a9c1b.js, chunk-3F2A9C1B.js)
FINGERPRINT = re.compile(r"[.-][0-9a-fA-F]{8,}\.[A-Za-z0-9]+$")
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".woff2": "font/woff2",
    ".py": "text/x-python; charset=utf-8",
    ".svg": "image/svg+xml",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the folder `server.root`: the MIME types the runtime needs, gzip for text, caching by kind, reload
    events."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def __init__(self, request, client_address, server):
        self.timeout = server.idle_seconds  # the socket's timeout: an idle connection is closed
        self.deadline = None  # when the request being received must be in (time.monotonic()); None: not receiving
        super().__init__(request, client_address, server, directory=str(server.root))

    def setup(self):
        super().setup()
        self.rfile = io.BufferedReader(_Deadline(self))  # reads that stop at the request's deadline

    def handle_one_request(self):
        self.deadline = time.monotonic() + self.server.request_seconds
        super().handle_one_request()  # a read past the deadline raises TimeoutError: it closes the connection

    def parse_request(self):
        done = super().parse_request()
        self.deadline = None  # received: answering (a large file to a slow reader) takes the idle timeout only
        self.connection.settimeout(self.timeout)
        return done

    def list_directory(self, path):
        """No listings: a folder without an index.html is not a page."""
        self.send_error(404, "File not found")
        return None

    def do_GET(self):
        self._answer(body=True)

    def do_HEAD(self):
        self._answer(body=False)

    def _answer(self, body):
        self.cache_control, self.etag = NO_STORE, None
        split = urllib.parse.urlsplit(self.path)
        try:
            path = urllib.parse.unquote(split.path, errors="strict")
        except UnicodeDecodeError:
            self.send_error(400, "Bad Request", "the path's %-escapes are not UTF-8")
            return
        if any(ord(c) < 32 or c == "\x7f" for c in path):
            self.send_error(400, "Bad Request", "a control character (e.g. NUL) in the path")
            return
        if path == EVENTS:
            self._events(body)
            return
        try:
            file = Path(self.translate_path(self.path))
            if file.is_dir() and (file / "index.html").is_file() and path.endswith("/"):
                file = file / "index.html"
            if file.is_file():
                self.cache_control = caching(file, split.query)
                self.etag = None if self.cache_control == NO_STORE else etag(file)
            data = self.server.contents(file) if file.suffix in COMPRESSED and file.is_file() else None
        except (OSError, ValueError):  # a name too long, a file gone between the look and the read
            self.send_error(404, "File not found")
            return
        if self.etag and self.etag in _tags(self.headers.get("If-None-Match", "")):
            self.send_response(304)
            self.end_headers()
            return
        if data is None:
            super().do_GET() if body else super().do_HEAD()
            return
        gzipped = accepts_gzip(self.headers.get("Accept-Encoding", ""))
        payload = data.gzipped if gzipped else data.raw
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(file)))
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Vary", "Accept-Encoding")
        if gzipped:
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        if body:
            self.wfile.write(payload)

    def _events(self, body):
        """Hold the connection open; write `reload` each time the server rebuilds, a comment now and then."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        if not body:
            return
        seen = self.server.generation
        try:
            self.wfile.write(b"retry: 1000\n\n")
            self.wfile.flush()
            while not self.server.stopping.is_set():
                seen, changed = self.server.wait_for_reload(seen, HEARTBEAT_SECONDS)
                self.wfile.write(b"event: reload\ndata: \n\n" if changed else b": still here\n\n")
                self.wfile.flush()
        except OSError:
            pass  # the page went away
        self.close_connection = True

    def send_error(self, code, message=None, explain=None):
        self.cache_control, self.etag = NO_STORE, None
        super().send_error(code, message, explain)

    def end_headers(self):
        self.send_header("Cache-Control", getattr(self, "cache_control", NO_STORE))
        if getattr(self, "etag", None):
            self.send_header("ETag", self.etag)
        super().end_headers()

    def log_message(self, format, *args):
        pass


class _Deadline(io.RawIOBase):
    """The handler's socket, read so that no read waits past the handler's `deadline` (nor longer than its idle
    timeout): the socket's timeout is set, before each read, to what is left."""

    def __init__(self, handler):
        self.handler = handler

    def readable(self):
        return True

    def readinto(self, buffer):
        handler = self.handler
        wait = handler.timeout
        if handler.deadline is not None:
            left = handler.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the request was not in after {handler.server.request_seconds:g} s")
            wait = left if wait is None else min(wait, left)
        handler.connection.settimeout(wait)
        return handler.connection.recv_into(buffer)


def caching(file, query=""):
    """The Cache-Control of `file` asked for with `query` (see the module's docstring)."""
    if file.suffix == ".html":
        return NO_STORE
    versioned = any(name == "v" and value for name, value in urllib.parse.parse_qsl(query))
    return IMMUTABLE if versioned or FINGERPRINT.search(file.name) else REVALIDATE


def etag(file):
    """A strong validator of `file`'s version: its size and modification time (kept by a copy, and by the hard
    links a build makes to web/dist, so an unchanged asset keeps its tag across rebuilds)."""
    stat = os.stat(file)
    return f'"{stat.st_size:x}-{stat.st_mtime_ns:x}"'


def _tags(header):
    return {tag.strip().removeprefix("W/") for tag in header.split(",")} - {""}


def accepts_gzip(header):
    """Whether an Accept-Encoding header accepts gzip: named (or ``*``) with a q-value above 0 (RFC 9110 12.5.3)."""
    weights = {}
    for part in header.split(","):
        name, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name:
            weights[name.lower()] = q
    q = weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0)))
    return q > 0


class _Contents:
    def __init__(self, raw):
        self.raw = raw
        self.gzipped = gzip.compress(raw, compresslevel=6, mtime=0)


class Server(http.server.ThreadingHTTPServer):
    """The site folder `root` over HTTP (see the module's docstring). `reload()` tells every open page to reload."""

    request_queue_size = BACKLOG
    daemon_threads = True

    def __init__(self, address, root, idle_seconds=IDLE_SECONDS, request_seconds=REQUEST_SECONDS):
        super().__init__(address, Handler)
        self.root = Path(root)
        self.idle_seconds = idle_seconds
        self.request_seconds = request_seconds
        self.generation = 0
        self.stopping = threading.Event()
        self._changed = threading.Condition()
        self._cache = OrderedDict()
        self._cache_lock = threading.Lock()
        self._making = {}  # key -> Lock: 200 parallel first requests compress a file once, not 200 times

    def contents(self, file):
        """The bytes of `file` and their gzip, made once per version of the file (path, inode, size, mtime)."""
        stat = os.stat(file)
        key = (str(file), stat.st_ino, stat.st_size, stat.st_mtime_ns)
        with self._cache_lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            making = self._making.setdefault(key, threading.Lock())
        with making:
            with self._cache_lock:
                if key in self._cache:
                    return self._cache[key]
            raw = Path(file).read_bytes()
            if file.suffix == ".html":
                raw = raw.replace(b"</body>", RELOAD_SCRIPT.encode() + b"\n</body>", 1)
            made = _Contents(raw)
            with self._cache_lock:
                self._cache[key] = made
                self._making.pop(key, None)
                while len(self._cache) > CACHE_ENTRIES:
                    self._cache.popitem(last=False)
        return made

    def reload(self):
        """Tell the open pages to reload (after a successful rebuild)."""
        with self._changed:
            self.generation += 1
            self._changed.notify_all()

    def wait_for_reload(self, seen, seconds):
        """(generation, whether it moved past `seen`), waiting up to `seconds` for it to."""
        with self._changed:
            self._changed.wait_for(lambda: self.generation != seen or self.stopping.is_set(), seconds)
            return self.generation, self.generation != seen

    def shutdown(self):
        self.stopping.set()
        with self._changed:
            self._changed.notify_all()
        super().shutdown()


def make_server(root, host="127.0.0.1", port=8000, idle_seconds=IDLE_SECONDS, request_seconds=REQUEST_SECONDS):
    """A Server for the site folder `root` (not started). port 0 picks a free port."""
    return Server((host, port), root, idle_seconds, request_seconds)
