"""How fast the FA2 page's figure is ready and animates, and what the page weighs, against an empty page.

    .venv/bin/python bench/site.py [--loads 5] [--harness] [--first-paint] [--per-page]

The FA2 page of the site `kernelviz build` writes (or, with --harness or without the site builder, the figure
tests' page around the seed FA2 figure), served from 127.0.0.1 to Debian's Chromium (headless), each load in a
new browser context (cold cache):
- ready: navigation start to the runtime's performance mark `kv:figure-ready` (figure drawn and playable), the
  median of the loads; the baseline is an empty page's navigation to its load event.
  Also the runtime's own part: its module starting (mark `kv:runtime-start`) to the figure ready.
- frames: requestAnimationFrame intervals while steps 3 to 9 of the figure play at the default speed (p50, p95,
  max), twice on the last load: right after the figure is ready (the runtime holds the editors back while a step
  animates), then once the editors have loaded and Python is ready in its worker (mark `kv:python-ready`; the
  harness page has no Python). The baseline is the same loop on the empty page. Beside them, the longest
  main-thread task in that time (PerformanceObserver 'longtask', which sees tasks over 50 ms; 0: none).
- weight: the size of every file the page and its worker fetched (Pyodide and the Python files it runs are
  counted apart), and the gzip-compressed size of the page's own files (HTML, CSS, JS, fonts: all but Pyodide).
- Python (the site's page only; more cold loads, as many): navigation to Python ready in the editors' worker
  (mark `kv:python-ready`; the editors and Python are asked for, as a reader's click would, once the figure is ready),
  and Run all with Python warm to the figure updated (the Scene set and the next frame
  painted; one run to warm up, then the median of 15), printed beside navigation -> figure ready from the same
  loads; and navigation -> figure ready with the editors bundle blocked (no Python at all) beside it with Python.
- first paint (the site only; `--loads` cold loads of each kernel page, each beside one of its baseline): navigation
  to the figure drawn, against a baseline page written in the same run that holds only the page's prerendered SVG
  of the same figure (and the palette's colours, inline). "Drawn" is measured the same way on both: a
  requestAnimationFrame loop, started before the page's first script, notes the first rendering frame in which
  `#kv-figure svg` is in the document (rendering waits for the stylesheets that block it, so that frame paints the
  figure); its timestamp, the frame's start, is the figure drawn. That frame still has the page's style, layout and
  paint to do before anything shows: "painted" is the browser's first contentful paint (PerformanceObserver
  'paint'), from a load in which the figure was in the first frame (as a page's render-blocking link to the text
  after its figure makes it; a load where it was not is not counted). Beside them, while steps 1-3 play at once
  after `kv:figure-ready` on every load: the frame intervals of all loads together (p95, and the share over 20 ms:
  frames that missed a 60 Hz vsync) and the longest main-thread task, and of those the longest that overlaps a
  step's animation (#kv-figure[data-animating]: a task the runtime holds the steps back for, such as the editors
  bundle's evaluation, comes between animations). Each ratio of medians comes with its 95%
  bootstrap interval: on a 2-core machine one load differs from the next by tens of ms, and 7 loads cannot tell
  1.2x from 1.6x (40 can tell about 10% apart: `--loads 40`).
- the overview's explorer (the site only, with the first paint; as many cold loads): navigation to the explorer
  drawn (the first rendering frame with `#kv-explorer svg.kvx-svg` in the document, as for the figure) against
  navigation to the page's first contentful paint in the same load. The explorer is drawn at build time, so it is
  in the page's first frame; drawn by its script alone it came 3-4x after the first paint.
- Python on intent (the site's page only; as many more cold loads): the bytes of a read-and-play visit (load, play
  steps 3 to 9, scroll to the end; every request, uncompressed sizes as the server sends them) and how many of its
  requests were under pyodide/ (0: Python is fetched only when the reader reaches for it); and Run all pressed on a
  cold page (Python not loaded before the press) to the figure updated, beside the warm Run above (as a ratio).
- per page (the site only; `--per-page` runs this alone; `--loads` cold loads of each kernel page, each beside one of
  its static baseline, the page of its prerendered SVG above): navigation to the figure drawn (as above), to the
  figure playable (once the figure is in the document, a synthetic ArrowRight on the document in every frame and
  every timer task until one plays step 1: the time that key was pressed), and a read-only visit (the load, that
  key, a second after the load event): its requests, bytes raw (as on disk) and compressed (each text file gzipped
  as `kernelviz build` precompresses it: site/precompress.py), its HTML raw, and its requests for the editors
  bundle or under pyodide/, and its HTML's bytes by part (math, figure, CUDA blocks, editors, JSON data, the rest).
  The same for the baseline page. Goals (issue 26): playable within 1.5x of drawn; HTML
  <= 150 KB raw; a read-only visit <= 300 KB raw and <= 100 KB compressed, with no editors bundle and no Pyodide.
Targets: ready <= 500 ms median, frame p95 <= 20 ms, own files <= 400 KB gzipped (CodeMirror included);
Run (warm) -> figure updated <= 150 ms median; figure ready the same with or without Python loading (ratio ~1);
figure drawn and painted within 1.2x of the static SVG's, and frame p95 <= 16.7 ms for the first steps played
after load; the overview's explorer drawn within 1.2x of the page's first contentful paint.
read-and-play visit <= 1.5 MB with no request under pyodide/.
"""

import argparse
import functools
import gzip
import http.server
import random
import statistics
import subprocess
import sys
import tempfile
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
EMPTY = "<!doctype html><html><head><meta charset='utf-8'><link rel='icon' href='data:,'><title>empty</title></head>"
EMPTY += "<body><p>empty</p></body></html>"
PLAYED = range(3, 10)

# Each collection is a generation of its own, so a loop left from the one before cannot add a second timestamp
# to every frame (which would halve the intervals).
COLLECT_FRAMES = """() => { window.__frames = []; const gen = (window.__gen = (window.__gen || 0) + 1);
  window.__framesFrom = performance.now();
  const tick = (t) => { if (window.__gen !== gen) return; window.__frames.push(t); requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""
STOP_FRAMES = """() => { window.__gen += 1;
  const f = window.__frames, from = window.__framesFrom, to = performance.now();
  const tasks = window.__longTasks.filter(([start, ms]) => start + ms > from && start < to).map(([, ms]) => ms);
  return [f.slice(1).map((t, i) => t - f[i]), Math.max(0, ...tasks)]; }"""
# Every page, from its first task: the main thread's long tasks, as [start, ms].
LONG_TASKS = """window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
}).observe({ type: 'longtask', buffered: true });"""
MARK = "performance.getEntriesByName('{}')[0]?.startTime ?? null"
PYTHON_READY_S = 120
RUN_ALL = """async () => { const t0 = performance.now(); const outcome = await window.kernelvizEditors.runAll();
  await new Promise((resolve) => requestAnimationFrame(() => resolve()));
  return outcome.ok ? performance.now() - t0 : null; }"""
RUNS = 15
# The editors and Python are fetched on the reader's intent: the sections that measure them ask for them, the editors
# (kernelviz.editors(), as a focus in one would) and then Python, as soon as the figure is ready.
START_PYTHON = """async () => { const editors = await window.kernelviz.editors(); editors.python.start(); }"""


# Before the page's first script: the start of the first rendering frame with the figure's <svg> in the document.
FIGURE_DRAWN = """window.__figureDrawn = null; window.__firstFrame = null; window.__painted = null;
requestAnimationFrame(function look(t) {
  window.__firstFrame ??= t;
  if (document.querySelector('#kv-figure svg')) window.__figureDrawn = t;
  else requestAnimationFrame(look);
});
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') window.__painted = e.startTime;
}).observe({ type: 'paint', buffered: true });"""
# The same for the overview's explorer: its canvas, drawn at build time (or by its script).
EXPLORER_DRAWN = FIGURE_DRAWN.replace("#kv-figure svg", "#kv-explorer svg.kvx-svg")
# (ms to the figure drawn, ms to the first contentful paint when the figure was in the first frame, else None)
DRAWN = """() => [window.__figureDrawn,
  window.__figureDrawn === window.__firstFrame ? window.__painted : null]"""
FIRST_STEPS = range(1, 4)
# From now on: the spans in which a step of the figure animates (the runtime's #kv-figure[data-animating]).
WATCH_ANIMATING = """() => { window.__animating = []; const host = document.getElementById('kv-figure');
  let since = host.dataset.animating === 'true' ? performance.now() : null;
  new MutationObserver(() => {
    const on = host.dataset.animating === 'true';
    if (on && since === null) since = performance.now();
    if (!on && since !== null) { window.__animating.push([since, performance.now()]); since = null; }
  }).observe(host, { attributes: true, attributeFilter: ['data-animating'] }); }"""
# The longest main-thread task (over 50 ms: 0 when none) that overlaps a span in which a step animates.
LONGEST_WHILE_ANIMATING = """() => Math.max(0, ...window.__longTasks
  .filter(([start, ms]) => window.__animating.some(([from, to]) => start < to && start + ms > from))
  .map(([, ms]) => ms))"""
MISSED_MS = 20  # a frame interval over this missed at least one 60 Hz vsync
VSYNC_JITTER = 1.01  # rAF timestamps of frames on time read 16.6 and 16.8 ms in turn: 16.8 / (1000 / 60)
STATIC_FIGURE = """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>figure</title>
<style>{palette}</style></head><body><div id="kv-figure" style="position:relative;width:645px;height:300px">
{svg}</div></body></html>"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript",
                      ".wasm": "application/wasm"}  # fmt: skip

    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a context closed mid-download is no error
            super().handle_error(request, client_address)


def serve(folder):
    server = _Server(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def site_page(folder, use_harness):
    """(folder to serve, path of the FA2 page in it, what it is, whether it runs Python)."""
    if not use_harness and (ROOT / "kernelviz" / "site" / "build.py").exists():
        command = [sys.executable, "-m", "kernelviz.cli", "build", "--out", str(folder)]
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        return folder, "flash-attention-2.html", "the built site's flash-attention-2.html", True
    sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]
    from test_figure_harness import build_harness

    build_harness(folder)
    return folder, "index.html", "the figure tests' harness page (seed FA2 figure)", False


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def load(browser, url, ready_js, block=None):
    """A cold load of `url` in a new context, requests matching the glob `block` aborted: (context, page, ms to
    `ready_js`, URLs the page and workers fetched)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(LONG_TASKS)
    if block:
        context.route(block, lambda route: route.abort())
    fetched = []
    context.on("request", lambda r: fetched.append(r.url))
    page = context.new_page()
    page.goto(url, wait_until="load")
    page.wait_for_function(f"({ready_js}) !== null")
    return context, page, page.evaluate(ready_js), fetched


def frames(page, play):
    """(frame intervals, the longest main-thread task in that time: 0 when none was over 50 ms), in ms."""
    page.evaluate(COLLECT_FRAMES)
    if play:
        page.evaluate(f"async () => {{ for (const k of {list(PLAYED)}) await window.kernelviz.goTo(k); }}")
    else:
        page.wait_for_timeout(len(PLAYED) * 800)
    intervals, longest = page.evaluate(STOP_FRAMES)
    return intervals, longest


def weight(urls, folder, base):
    """(all bytes, Pyodide bytes, own bytes, own gzipped bytes, {own file: (bytes, gzipped)}) of the files fetched
    (a static server sends each file as it is on disk)."""
    total = pyodide = 0
    own = {}
    for url in dict.fromkeys(u.split("#")[0] for u in urls if u.startswith(base)):
        path = urlparse(url).path.lstrip("/")
        file = folder / path
        if not file.is_file():
            continue
        data = file.read_bytes()
        total += len(data)
        if "/pyodide/" in f"/{path}" or "/py/" in f"/{path}":
            pyodide += len(data)
        else:
            own[path] = (len(data), len(gzip.compress(data, 6)))
    return total, pyodide, sum(v[0] for v in own.values()), sum(v[1] for v in own.values()), own


def row(name, base, page, unit):
    ratio = f"{page / base:8.2f}" if base and page is not None else f"{'-':>8}"
    page = f"{page:>12.1f}" if page is not None else f"{'n/a':>12}"
    base = f"{base:>12.1f}" if base is not None else f"{'-':>12}"
    print(f"{name:<36} {base} {page} {ratio}  {unit}")


def spread(intervals):
    """(p50, p95, max) of frame intervals, or Nones when there are none."""
    if not intervals:
        return None, None, None
    return statistics.median(intervals), percentile(intervals, 95), max(intervals)


def python_loads(browser, url, loads):
    """Per cold load: navigation -> figure ready, -> Python ready, and the warm Runs of every editor; each followed by
    a load with the editors bundle blocked (navigation -> figure ready with no Python). Lists of ms in a dict."""
    out = {"figure": [], "python": [], "run": [], "figure_without": []}
    for _ in range(loads):
        context, page, ms, _fetched = load(browser, url, MARK.format("kv:figure-ready"))
        page.evaluate(START_PYTHON)
        page.wait_for_function(f"({MARK.format('kv:python-ready')}) !== null", timeout=PYTHON_READY_S * 1000)
        out["figure"].append(ms)
        out["python"].append(page.evaluate(MARK.format("kv:python-ready")))
        page.evaluate(RUN_ALL)  # warm-up: the first run compiles what the later ones reuse
        out["run"] += [page.evaluate(RUN_ALL) for _ in range(RUNS)]
        context.close()
        context, _page, ms, _fetched = load(browser, url, MARK.format("kv:figure-ready"), block="**/assets/editors.js")
        out["figure_without"].append(ms)
        context.close()
    return out


def report_python(t):
    print(f"Python, {len(t['python'])} more cold loads ({RUNS} warm runs each); baseline: the figure, same loads")
    median = statistics.median
    row("navigation -> figure ready, median", median(t["figure_without"]), median(t["figure"]),
        "ms (baseline: editors blocked, no Python)")  # fmt: skip
    row("navigation -> Python ready, median", median(t["figure"]), median(t["python"]), "ms")
    row("Run (warm) -> figure updated, median", median(t["figure"]), median(t["run"]), "ms (target <= 150)")
    row("Run (warm) -> figure updated, p95", None, percentile(t["run"], 95), "ms")


def kernel_pages(folder):
    """{slug: its prerendered <svg> markup} of the built site's pages that carry one."""
    import re

    found = {}
    for html in sorted(folder.glob("*.html")):
        svg = re.search(r"<svg class=\"kv-svg\".*?</svg>", html.read_text(encoding="utf-8"), re.S)
        if svg and "data-prerendered" in svg.group(0):
            found[html.stem] = svg.group(0)
    return found


def figure_drawn(browser, url, play):
    """A cold load of `url`: ((ms from navigation to the figure drawn, to it painted: None when it was not in the
    first frame), (frame intervals, the longest task, and the longest task that overlaps a step's animation, while
    the first steps play at once after the figure is ready; ([], None, None) when not `play`))."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_init_script(LONG_TASKS)
    context.add_init_script(FIGURE_DRAWN)
    page = context.new_page()
    page.goto(url, wait_until="commit")
    page.wait_for_function("window.__figureDrawn != null && window.__painted != null")
    drawn = page.evaluate(DRAWN)
    played = ([], None, None)
    if play:
        page.wait_for_function(f"({MARK.format('kv:figure-ready')}) !== null")
        page.evaluate(WATCH_ANIMATING)
        page.evaluate(COLLECT_FRAMES)
        page.evaluate(f"async () => {{ for (const k of {list(FIRST_STEPS)}) await window.kernelviz.goTo(k); }}")
        played = (*page.evaluate(STOP_FRAMES), page.evaluate(LONGEST_WHILE_ANIMATING))
    context.close()
    return drawn, played


def first_paint(browser, folder, base, loads):
    """{slug: (drawn ms list, baseline ms list, (all loads' frame intervals, longest task, longest while a step
    animates), painted ms lists of the page and the baseline)} for each kernel page of
    the site in `folder`, served at `base`, against a static page of its prerendered SVG written beside it."""
    palette = (folder / "assets" / "palette.css").read_text(encoding="utf-8")
    out = {}
    for slug, svg in kernel_pages(folder).items():
        (folder / f"bench-static-{slug}.html").write_text(STATIC_FIGURE.format(palette=palette, svg=svg))
        drawn, static, intervals, longest, animating = [], [], [], 0, 0
        for _ in range(loads):
            ms, (frames_, task, while_animating) = figure_drawn(browser, f"{base}/{slug}.html", play=True)
            drawn.append(ms)
            intervals += frames_
            longest = max(longest, task)
            animating = max(animating, while_animating)
            static.append(figure_drawn(browser, f"{base}/bench-static-{slug}.html", play=False)[0])
        played = (intervals, longest, animating)
        out[slug] = ([d for d, _ in drawn], [d for d, _ in static], played, painted(drawn), painted(static))
    return out


def explorer_first_paint(browser, url, loads):
    """([ms from navigation to the first contentful paint], [ms to the explorer drawn], loads in which the explorer
    was in the first rendering frame) of `loads` cold loads of the overview at `url`, on a laptop's screen."""
    painted_ms, drawn_ms, first = [], [], 0
    for _ in range(loads):
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        context.add_init_script(EXPLORER_DRAWN)
        page = context.new_page()
        page.goto(url, wait_until="commit")
        page.wait_for_function("window.__figureDrawn != null && window.__painted != null", timeout=30_000)
        drawn, fcp, at_first = page.evaluate(
            "[window.__figureDrawn, window.__painted, window.__figureDrawn === window.__firstFrame]"
        )
        painted_ms.append(fcp)
        drawn_ms.append(drawn)
        first += at_first
        context.close()
    return painted_ms, drawn_ms, first


def report_explorer(found, loads):
    fcp, drawn, first = found
    print(f"overview, {loads} cold loads; baseline: the same load's first contentful paint")
    print(f"  the explorer in the page's first rendering frame: {first} of {loads} loads")
    row("  navigation -> explorer drawn, median", statistics.median(fcp), statistics.median(drawn),
        f"ms (target ratio <= 1.2; {interval(fcp, drawn)})")  # fmt: skip
    row("  navigation -> explorer drawn, max", max(fcp), max(drawn), "ms")


def painted(loads):
    """The painted times of `loads` (drawn, painted) in which the figure was in the first frame."""
    return [p for _, p in loads if p is not None]


def ratio_interval(base, page, rounds=2000):
    """The 95% bootstrap interval of median(page) / median(base): both resampled with replacement `rounds` times (a
    fixed seed). One cold load differs from the next by more than most effects a change has here; an interval that
    holds 1.2 says that these loads cannot tell the page from 1.2x its baseline."""
    draw = random.Random(0).choices
    ratios = sorted(
        statistics.median(draw(page, k=len(page))) / statistics.median(draw(base, k=len(base))) for _ in range(rounds)
    )
    return ratios[round(0.025 * (rounds - 1))], ratios[round(0.975 * (rounds - 1))]


def interval(base, page):
    low, high = ratio_interval(base, page)
    return f"ratio's 95% interval {low:.2f}-{high:.2f}"


def report_first_paint(found, loads):
    print(f"first paint, {loads} cold loads of each kernel page; baseline: a page of only its static SVG, same run")
    print(f"{'':<36} {'baseline':>12} {'page':>12} {'ratio':>8}")
    for slug, (drawn, static, (intervals, longest, animating), painted_page, painted_static) in found.items():
        print(slug)
        row("  navigation -> figure drawn, median", statistics.median(static), statistics.median(drawn),
            f"ms (target ratio <= 1.2; {interval(static, drawn)})")  # fmt: skip
        row("  navigation -> figure drawn, max", max(static), max(drawn), "ms")
        median = lambda v: statistics.median(v) if v else None  # noqa: E731
        counted = f"{len(painted_page)} of {loads} loads with the figure in the first frame"
        both = painted_static and painted_page
        its_interval = f"; {interval(painted_static, painted_page)}" if both else ""
        row("  navigation -> painted (FCP), median", median(painted_static), median(painted_page),
            f"ms (target ratio <= 1.2; {counted}{its_interval})")  # fmt: skip
        _, p95, top = spread(intervals)
        steps = f"steps {FIRST_STEPS[0]}-{FIRST_STEPS[-1]} at once"
        on_time = f"the ratio in vsyncs: up to {VSYNC_JITTER} is one, as rAF timestamps read it"
        row(f"  frames, {steps}: p95", 1000 / 60, p95,
            f"ms (baseline: 60 Hz; target <= 16.7; {on_time}; {len(intervals)} frames)")  # fmt: skip
        missed = 100 * sum(i > MISSED_MS for i in intervals) / len(intervals) if intervals else None
        row(f"    frames over {MISSED_MS} ms", None, missed, "% (missed a vsync; p95 <= 16.7 needs under 5)")
        row("    max", None, top, "ms")
        row("    longest main-thread task", None, longest, "ms (0: none over 50 ms)")
        row("      of them while a step animates", None, animating, "ms (target: 0, none over 50 ms)")


def only_first_paint(folder, base, server, loads):
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            painted = first_paint(browser, folder, base, loads)
            explorer = explorer_first_paint(browser, f"{base}/overview.html", loads)
            browser.close()
    finally:
        server.shutdown()
    report_first_paint(painted, loads)
    report_explorer(explorer, loads)


# Before the page's first script: once the figure's <svg> is in the document, an ArrowRight on the document in each
# frame and in each task the page gives a timer (as a reader's key is handled between the page's tasks, the parser's
# among them) until the figure shows step 1 (the runtime's #kv-figure[data-current-step]); window.__playable is when
# the key that played it was pressed.
FIGURE_PLAYABLE = """window.__playable = null;
(() => {
  const press = () => {
    const host = document.getElementById('kv-figure');
    if (window.__playable !== null || !host?.querySelector('svg')) return;
    const at = performance.now();
    (document.body || document.documentElement).dispatchEvent(
      new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, cancelable: true }));
    if (host.dataset.currentStep === '1') window.__playable = at;
  };
  requestAnimationFrame(function frame() { press(); if (window.__playable === null) requestAnimationFrame(frame); });
  setTimeout(function task() { press(); if (window.__playable === null) setTimeout(task, 1); }, 0);
})();"""
SETTLE_MS = 1000  # after the load event: a read-only visit's later requests (none expected)
PER_PAGE_GOALS = {"playable": 1.5, "html_kb": 150, "raw_kb": 300, "gzip_kb": 100}


def sent_bytes(file):
    """(raw, compressed) bytes of `file` as a host of the built site sends it: gzipped like its precompressed sibling
    (site/precompress.py), raw when it has none."""
    from kernelviz.site.precompress import LEVEL
    from kernelviz.site.server import COMPRESSED

    data = file.read_bytes()
    packed = len(gzip.compress(data, LEVEL, mtime=0)) if file.suffix in COMPRESSED else len(data)
    return len(data), min(len(data), packed)


def visit(browser, url, folder, base, figure):
    """A cold read-only visit of `url`: {drawn, playable (None without a `figure` to play), requests, raw, gzip,
    html, unasked} with times in ms from navigation and sizes in bytes; `unasked`: its requests for the editors
    bundle or under pyodide/."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_init_script(FIGURE_DRAWN)
    if figure:
        context.add_init_script(FIGURE_PLAYABLE)
    fetched = []
    context.on("request", lambda r: fetched.append(r.url))
    page = context.new_page()
    page.goto(url, wait_until="load")
    page.wait_for_function("window.__figureDrawn != null" + (" && window.__playable != null" if figure else ""))
    page.wait_for_timeout(SETTLE_MS)
    out = {"drawn": page.evaluate("window.__figureDrawn"), "playable": None}
    if figure:
        out["playable"] = page.evaluate("window.__playable")
    context.close()
    files = [folder / urlparse(u).path.lstrip("/") for u in dict.fromkeys(fetched) if u.startswith(base)]
    sizes = [sent_bytes(f) for f in files if f.is_file()]
    out.update(
        requests=len(fetched),
        raw=sum(r for r, _ in sizes),
        gzip=sum(g for _, g in sizes),
        html=sent_bytes(files[0])[0],
        unasked=sum(u.endswith("/editors.js") or "/pyodide/" in u for u in fetched),
    )
    return out


# The parts of a page's HTML that the per-page report weighs: (name, test on an element's tag and attributes). An
# element of a part counts whole, with all it holds; what is in no part's element is "rest" (prose, nav, markup).
HTML_PARTS = (
    ("math", lambda tag, a: tag == "math" or "katex" in (a.get("class") or "").split()),  # katex: before MathML
    ("figure", lambda tag, a: a.get("id") == "kv-figure"),
    ("CUDA blocks", lambda tag, a: tag == "details" and "kv-cuda" in (a.get("class") or "").split()),
    ("editors", lambda tag, a: "kv-editor" in (a.get("class") or "").split()),
    ("JSON data", lambda tag, a: tag == "script" and a.get("type") == "application/json"),
)
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Parts(HTMLParser):
    """Characters of each outermost element of a part of HTML_PARTS (see html_parts)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=False)
        self.starts = [0]  # the offset of each line
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.open, self.found = [], []  # [(tag, part or None, start)], [(part, start, end)]

    def at(self):
        line, column = self.getpos()
        return self.starts[line - 1] + column

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            part = next((name for name, test in HTML_PARTS if test(tag, dict(attrs))), None)
            self.open.append((tag, part, self.at()))

    def handle_endtag(self, tag):
        for k in range(len(self.open) - 1, -1, -1):
            if self.open[k][0] == tag:
                _, part, start = self.open[k]
                del self.open[k:]
                if part and not any(p for _, p, _ in self.open):
                    self.found.append((part, start, self.at() + len(f"</{tag}>")))
                return


def html_parts(file):
    """{part: bytes} of the HTML page `file`, by HTML_PARTS, and "rest"."""
    text = Path(file).read_text(encoding="utf-8")
    parser = _Parts(text)
    parser.feed(text)
    out = dict.fromkeys([name for name, _ in HTML_PARTS], 0)
    for part, start, end in parser.found:
        out[part] += len(text[start:end].encode())
    out["rest"] = len(text.encode()) - sum(out.values())
    return out


def per_page(browser, folder, base, loads):
    """{slug: ([visit of the page], [visit of its static baseline])}, `loads` of each, interleaved, for each kernel
    page of the site in `folder` served at `base` (its baseline written beside it)."""
    palette = (folder / "assets" / "palette.css").read_text(encoding="utf-8")
    out = {}
    for slug, svg in kernel_pages(folder).items():
        (folder / f"bench-static-{slug}.html").write_text(STATIC_FIGURE.format(palette=palette, svg=svg))
        pages, static = [], []
        for _ in range(loads):
            pages.append(visit(browser, f"{base}/{slug}.html", folder, base, figure=True))
            static.append(visit(browser, f"{base}/bench-static-{slug}.html", folder, base, figure=False))
        out[slug] = (pages, static, html_parts(folder / f"{slug}.html"))
    return out


def report_per_page(found, loads):
    goals = PER_PAGE_GOALS
    print(f"per page, {loads} cold read-only visits of each kernel page; baseline: a page of only its static SVG")
    print(f"{'':<36} {'baseline':>12} {'page':>12} {'ratio':>8}")
    for slug, (pages, static, parts) in found.items():
        print(slug)
        median = statistics.median
        drawn, playable = ([v[k] for v in pages] for k in ("drawn", "playable"))
        still = [v["drawn"] for v in static]
        row("  navigation -> figure drawn, median", median(still), median(drawn), f"ms ({interval(still, drawn)})")
        row("  navigation -> figure playable, median", median(drawn), median(playable),
            f"ms (baseline: drawn; goal ratio <= {goals['playable']}; {interval(drawn, playable)})")  # fmt: skip
        row("  navigation -> figure playable, max", max(drawn), max(playable), "ms")
        one, base = pages[-1], static[-1]  # (every visit fetches the same files)
        row("  HTML, raw", base["html"] / 1000, one["html"] / 1000, f"KB (goal <= {goals['html_kb']})")
        print("    of it, KB: " + ", ".join(f"{name} {n / 1000:.1f}" for name, n in parts.items()))
        row("  read-only visit, raw", base["raw"] / 1000, one["raw"] / 1000, f"KB (goal <= {goals['raw_kb']})")
        row("  read-only visit, gzip", base["gzip"] / 1000, one["gzip"] / 1000, f"KB (goal <= {goals['gzip_kb']})")
        row("  read-only visit, requests", base["requests"], one["requests"], "")
        row("  of them editors bundle or Pyodide", None, max(v["unasked"] for v in pages), "(goal 0)")


def only_per_page(folder, base, server, loads):
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            found = per_page(browser, folder, base, loads)
            browser.close()
    finally:
        server.shutdown()
    report_per_page(found, loads)


READ_GOAL_MB = 1.5
COLD_RUN = """async () => { const t0 = performance.now(); await new Promise((r) => setTimeout(r, 0));
  await window.kernelviz.editors();
  if (kernelvizEditors.python.state !== 'idle') return null;
  const outcome = await kernelvizEditors.runAll();
  await new Promise((resolve) => requestAnimationFrame(() => resolve()));
  return outcome.ok ? performance.now() - t0 : null; }"""


def intent_loads(browser, url, folder, base, loads):
    """Per cold load: a read-and-play visit's bytes and its requests under pyodide/, then Run all from a cold Python
    to the figure updated. {"bytes": [...], "pyodide_requests": [...], "cold_run": [ms, ...]}."""
    out = {"bytes": [], "pyodide_requests": [], "cold_run": []}
    for _ in range(loads):
        context, page, _ms, fetched = load(browser, url, MARK.format("kv:figure-ready"))
        page.evaluate(f"async () => {{ for (const k of {list(PLAYED)}) await window.kernelviz.goTo(k); }}")
        page.mouse.wheel(0, 20000)
        page.wait_for_timeout(1000)
        urls = list(fetched)
        out["bytes"].append(weight(urls, folder, base)[0])
        out["pyodide_requests"].append(sum("/pyodide/" in u for u in urls))
        out["cold_run"].append(page.evaluate(COLD_RUN))
        context.close()
    return out


def report_intent(t, warm_runs):
    print(f"Python on intent, {len(t['bytes'])} more cold loads; baseline: the goal, and the warm Run above")
    median = statistics.median
    row("read-and-play visit, bytes, max", READ_GOAL_MB * 1000, max(t["bytes"]) / 1000,
        f"KB uncompressed (goal <= {READ_GOAL_MB} MB)")  # fmt: skip
    row("  requests under pyodide/, max", None, max(t["pyodide_requests"]), "(goal 0)")
    cold = [ms for ms in t["cold_run"] if ms is not None]
    warm = median(warm_runs) if warm_runs else None
    row("Run (cold Python) -> figure, median", warm, median(cold) if cold else None,
        f"ms (baseline: Run warm; {len(cold)} of {len(t['cold_run'])} cold runs ok)")  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5, help="cold loads to take the median of (default 5)")
    parser.add_argument("--harness", action="store_true", help="measure the figure tests' page, not the site's")
    parser.add_argument("--first-paint", action="store_true", help="measure only the first paint of the kernel pages")
    parser.add_argument("--per-page", action="store_true", help="measure only each kernel page's read-only visit")
    args = parser.parse_args(argv)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="kv-bench-site-"))
    folder, page_path, what, has_python = site_page(folder, args.harness)
    (folder / "bench-empty.html").write_text(EMPTY)
    server, base = serve(folder)
    if args.first_paint:
        return only_first_paint(folder, base, server, args.loads)
    if args.per_page:
        return only_per_page(folder, base, server, args.loads)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
            ready, own_part, ready_empty = [], [], []
            for n in range(args.loads):
                context, page, ms, fetched = load(browser, f"{base}/{page_path}", MARK.format("kv:figure-ready"))
                ready.append(ms)
                own_part.append(ms - page.evaluate(MARK.format("kv:runtime-start")))
                if n == args.loads - 1:
                    loading = frames(page, play=True)
                    python_ready, settled = None, ([], None)
                    try:
                        if has_python:
                            page.evaluate(START_PYTHON)
                            page.wait_for_function(f"({MARK.format('kv:python-ready')}) !== null",
                                                   timeout=PYTHON_READY_S * 1000)  # fmt: skip
                            python_ready = page.evaluate(MARK.format("kv:python-ready"))
                            settled = frames(page, play=True)
                    except PlaywrightTimeout:
                        pass
                    page.wait_for_timeout(500)
                    urls = list(fetched)
                context.close()
                empty_ready = "performance.getEntriesByType('navigation')[0].loadEventEnd || null"
                context, page, ms, _ = load(browser, f"{base}/bench-empty.html", empty_ready)
                ready_empty.append(ms)
                if n == args.loads - 1:
                    empty = frames(page, play=False)
                context.close()
            timings = python_loads(browser, f"{base}/{page_path}", args.loads) if has_python else None
            painted = first_paint(browser, folder, base, args.loads) if has_python else None
            explorer = explorer_first_paint(browser, f"{base}/overview.html", args.loads) if has_python else None
            intent = intent_loads(browser, f"{base}/{page_path}", folder, base, args.loads) if has_python else None
            pages = per_page(browser, folder, base, args.loads) if has_python else None
            browser.close()
    finally:
        server.shutdown()
    report(what, args.loads, ready, own_part, ready_empty, loading, settled, empty, python_ready, folder, base, urls)
    if timings:
        report_python(timings)
    if painted:
        report_first_paint(painted, args.loads)
        report_explorer(explorer, args.loads)
    if intent:
        report_intent(intent, timings["run"])
    if pages:
        report_per_page(pages, args.loads)


def report(what, loads, ready, own_part, ready_empty, loading, settled, empty, python_ready, folder, base, urls):
    total, pyodide, own, own_gz, files = weight(urls, folder, base)
    empty_bytes = len(EMPTY.encode())
    print(f"bench/site.py: {what}, {loads} cold loads, headless Chromium; baseline: an empty page")
    print(f"{'':<36} {'baseline':>12} {'FA2 page':>12} {'ratio':>8}")
    row("navigation -> figure ready, median", statistics.median(ready_empty), statistics.median(ready), "ms")
    row("navigation -> figure ready, max", max(ready_empty), max(ready), "ms")
    row("runtime start -> ready, median", None, statistics.median(own_part), "ms (the runtime's own part)")
    steps = f"steps {PLAYED[0]}-{PLAYED[-1]}"
    runs = ((f"frames, {steps}, at once", loading), (f"frames, {steps}, Python ready", settled))
    for name, (intervals, longest) in runs:
        base_p50, base_p95, base_max = spread(empty[0])
        p50, p95, top = spread(intervals)
        row(f"{name}: p50", base_p50, p50, "ms")
        row("  p95", base_p95, p95, "ms (target <= 20)")
        row("  max", base_max, top, "ms")
        row("  longest main-thread task", empty[1], longest, "ms (0: none over 50 ms)")
    row("bytes fetched, all", empty_bytes / 1024, total / 1024, "KB (page and worker)")
    row("  of which Pyodide and .py", None, pyodide / 1024, "KB")
    row("own files, raw", empty_bytes / 1024, own / 1024, "KB")
    row("own files, gzip", len(gzip.compress(EMPTY.encode())) / 1024, own_gz / 1024, "KB (target <= 400)")
    ready_text = f"Python ready {python_ready / 1000:.1f} s after navigation" if python_ready else "no Python"
    counts = f"{len(loading[0])} and {len(settled[0])} on the page, {len(empty[0])} on the empty page"
    print(f"frames: {counts}; {ready_text}")
    print("own files, largest first (raw KB, gzip KB):")
    for path, (raw, gz) in sorted(files.items(), key=lambda kv: -kv[1][1])[:10]:
        print(f"  {path:<44} {raw / 1024:>8.1f} {gz / 1024:>8.1f}")


if __name__ == "__main__":
    main()
