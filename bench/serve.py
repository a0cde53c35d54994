"""The dev server under load: 200 parallel requests of each asset kind, against the standard library's defaults.

    .venv/bin/python bench/serve.py [--parallel 200] [--site SITE] [--kinds html,js,css,...]

The site (`--site`, else the real pages built into a temporary folder) served from 127.0.0.1 by kernelviz serve's
server (kernelviz.site.server) and by a stock ``http.server.ThreadingHTTPServer`` with SimpleHTTPRequestHandler
(backlog 5, no timeouts: what ``serve`` used before), each in a process of its own (so the clients' threads do not
share its interpreter). For each asset kind, one file of the
site, `--parallel` clients each open a connection at once (a barrier releases them together) and GET it, asking
for gzip as a browser does; each request's time is from its release to the last byte read, with a client timeout
of 10 s. Printed per kind: failures (errors and timeouts), p50, p95 and max, and the ratio of p95 to the stock
server's p95. Goal: 0 failures, p95 under 0.5 s.
"""

import argparse
import concurrent.futures
import functools
import http.client
import http.server
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KINDS = {  # kind -> the file of the site that stands for it
    "html": "flash-attention-2.html",
    "js": "assets/main.js",
    "css": "assets/site.css",
    "json": "assets/pyodide/pyodide-lock.json",
    "svg": "assets/favicon.svg",
    "py": None,  # the first file of assets/py
    "woff2": None,  # the first font of the site (Temml's)
    "wasm": "assets/pyodide/pyodide.asm.wasm",
}
TIMEOUT = 10.0


def pick(site, kind):
    if KINDS[kind]:
        return KINDS[kind]
    pattern = {"py": "assets/py/**/*.py", "woff2": "assets/**/*.woff2"}[kind]
    return str(next(iter(sorted(site.glob(pattern)))).relative_to(site))


def hammer(port, path, parallel):
    """(failures, [seconds of each successful request]) of `parallel` simultaneous GETs of `path`."""
    barrier = threading.Barrier(parallel)

    def one(_):
        barrier.wait()
        started = time.perf_counter()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
            connection.request("GET", "/" + path, headers={"Accept-Encoding": "gzip"})
            response = connection.getresponse()
            response.read()
            connection.close()
            return time.perf_counter() - started if response.status == 200 else None
        except OSError:
            return None

    with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
        times = list(pool.map(one, range(parallel)))
    ok = [t for t in times if t is not None]
    return parallel - len(ok), ok


def p95(times):
    return statistics.quantiles(times, n=20)[-1] if len(times) > 1 else (times[0] if times else float("nan"))


def serve_child(which, site):
    """In the child: serve `site` with the `which` server ("serve" or "stock"), print its port, run until killed."""
    if which == "serve":
        from kernelviz.site.server import make_server

        server = make_server(site, port=0)
    else:

        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

        handler = functools.partial(Quiet, directory=str(site))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.handle_error = lambda request, address: None  # a client that gave up is not news
    print(server.server_address[1], flush=True)
    server.serve_forever()


def started(which, site):
    """(process, port) of a child serving `site` with the `which` server."""
    child = subprocess.Popen(
        [sys.executable, __file__, "--child", which, "--site", str(site)], stdout=subprocess.PIPE, text=True
    )
    return child, int(child.stdout.readline())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parallel", type=int, default=200)
    parser.add_argument("--site", type=Path, default=None)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--child", choices=["serve", "stock"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return serve_child(args.child, args.site)
    from kernelviz.site.build import build

    site = args.site
    if site is None:
        site = Path(tempfile.mkdtemp(prefix="kv-bench-serve-")) / "site"
        build(ROOT / "pages", site, log=None)
    servers = {"stock": started("stock", site), "serve": started("serve", site)}
    print(f"{args.parallel} parallel GETs per kind (client timeout {TIMEOUT:g} s); times in seconds")
    print(f"{'kind':6} {'file':42} {'server':6} {'failed':>6} {'p50':>6} {'p95':>6} {'max':>6} {'p95/stock':>9}")
    worst = 0.0
    failed = 0
    for kind in args.kinds.split(","):
        path = pick(site, kind)
        rows = {}
        for name, (_, port) in servers.items():
            rows[name] = hammer(port, path, args.parallel)
        for name in ("stock", "serve"):
            failures, times = rows[name]
            ratio = p95(times) / p95(rows["stock"][1]) if rows["stock"][1] else float("nan")
            median = statistics.median(times) if times else float("nan")
            top = max(times, default=float("nan"))
            print(
                f"{kind:6} {path[-42:]:42} {name:6} {failures:6d} {median:6.3f} {p95(times):6.3f} {top:6.3f}"
                + (f" {ratio:9.2f}" if name == "serve" else "")
            )
        worst = max(worst, p95(rows["serve"][1]))
        failed += rows["serve"][0]
    for child, _ in servers.values():
        child.kill()
        child.wait()
    print(f"serve: {failed} failed in all; worst p95 {worst:.3f} s (goal: 0 failed, p95 < 0.5 s)")


if __name__ == "__main__":
    main()
