"""The built site's pages and kernel pages, for the browser tests: which they are, opening one with Python kept out
(its worker is not needed to draw, play or resize a figure, and loading it costs the 2 shared cores), and reading
the figure as it stands."""

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

from python_intent import PYTHON_READY_S

from tests.pages.kernel_pages import trace_args

PAGES = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "pages").glob("*.md"))  # the textbook's pages
KERNEL_PAGES = [
    "online-softmax",
    "flash-attention-1",
    "flash-attention-2",
    "flash-attention-2-tensor-cores",
    "flash-attention-2-pipelined",
    "flash-attention-2-backward",
    "flash-decoding",
    "paged-decoding",
    "flash-attention-3",
]
SCREENS = {"1366x768": {"width": 1366, "height": 768}, "1920x1080": {"width": 1920, "height": 1080}}


def without_python(page):
    """`page`, with the editors bundle replaced by an empty module: the figure runs alone."""
    page.route("**/assets/editors.js", lambda route: route.fulfill(body="", content_type="text/javascript"))
    return page


def open_figure(page, url):
    """Go to `url` and wait until its figure is drawn and playable."""
    page.goto(url)
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0 && window.kernelviz")
    page.wait_for_selector("#kv-figure svg:not([data-prerendered])")


# {name: value}, the prerendered keys, each input's range and the tied sizes ({N_kv: N}) of the page's size form.
SIZE_FORM = """() => { const f = document.querySelector('form.kv-sizes');
  const inputs = [...f.querySelectorAll('input[name]')];
  return { sizes: Object.fromEntries(inputs.map((i) => [i.name, Number(i.value)])),
           ranges: Object.fromEntries(inputs.map((i) => [i.name, [Number(i.min), Number(i.max)]])),
           prerendered: JSON.parse(f.dataset.prerendered), tied: JSON.parse(f.dataset.tied || '{}') }; }"""
STEP_KEYS = """() => window.kernelviz.scene().nodes.find((n) => n.kind === 'step_list').steps.map((s) => s.key)"""


def sizes_key(sizes):
    """The size form's name of `sizes` ({N: 12, Br: 4}: 'N12-Br4'), as data-applied and the prerendered scenes say."""
    return "-".join(f"{n}{v}" for n, v in sizes.items())


def parse(key, names):
    """{name: value} of a prerendered key such as N12-Br4-Bc3."""
    values = {}
    for part, name in zip(key.split("-"), names, strict=True):
        assert part.startswith(name), (key, names)
        values[name] = int(part[len(name) :])
    return values


def ragged(sizes):
    """Whether some tile is cut short (N not a multiple of a block size; paged decoding: a last page in part)."""
    if "page_size" in sizes:
        return any(sizes[n] % sizes["page_size"] for n in ("L0", "L1"))
    return any(sizes["N"] % v for name, v in sizes.items() if name in ("Br", "Bc"))


def wait_applied(page, sizes, timeout_s=PYTHON_READY_S):
    """Wait until the size form says the figure shows `sizes` (Python may have to start to draw them)."""
    page.wait_for_function(
        "(k) => document.querySelector('form.kv-sizes').dataset.applied === k",
        arg=sizes_key(sizes),
        timeout=timeout_s * 1000,
    )


def trace_json(args):
    """What `kernelviz trace ARGS` prints (ARGS ending in --json), run in this process, as a dict."""
    from kernelviz import cli

    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["trace", *args]) == 0
    return json.loads(out.getvalue())


def ledger_total(slug, sizes):
    """total_bytes of `kernelviz trace ... --json` for the page's algorithm at `sizes` (None: not traced)."""
    args = trace_args(slug, sizes)
    return None if args is None else trace_json(args)["total_bytes"]


def step_count(page):
    return page.locator("#kv-figure .kv-step-items button").count()


# The integer in the figure's HBM counter (the text element carrying data-kv="hbm-bytes"), now.
HBM_BYTES = """() => {
  const t = document.querySelector('#kv-figure svg [data-kv="hbm-bytes"]');
  if (!t) return null;
  const m = /\\d+/.exec(t.textContent);
  return m ? Number(m[0]) : null;
}"""


# Plays every step (reduced motion: each is drawn at once) and measures what is displayed, in client px.
MEASURE_EVERY_STEP = """async () => {
  const host = document.getElementById('kv-figure');
  const svg = host.querySelector('svg');
  const last = host.querySelectorAll('.kv-step-items button').length - 1;
  let box = null, smallest = Infinity;
  const outside = [];
  for (let k = 0; k <= last; k++) {
    await window.kernelviz.goTo(k);
    const zoom = svg.getScreenCTM().a;
    const c = svg.getBoundingClientRect(); // (playing a step may scroll the page to its bullet)
    for (const el of svg.querySelectorAll('.kv-nodes :is(rect, line, text, circle)')) {
      if (el.closest('[display="none"]')) continue;
      const b = el.getBoundingClientRect();
      if (b.width === 0 && b.height === 0) continue;
      if (b.left < c.left - 0.5 || b.top < c.top - 0.5 || b.right > c.right + 0.5 || b.bottom > c.bottom + 0.5)
        outside.push(`step ${k}: ${el.tagName} ${el.textContent}`.trim());
      const [l, t, r, d] = [b.left - c.left, b.top - c.top, b.right - c.left, b.bottom - c.top];
      box = box ? [Math.min(box[0], l), Math.min(box[1], t), Math.max(box[2], r), Math.max(box[3], d)] : [l, t, r, d];
      if (el.tagName === 'text') smallest = Math.min(smallest, parseFloat(el.getAttribute('font-size')) * zoom);
    }
  }
  const c = svg.getBoundingClientRect();
  const drawing = [box[2] - box[0], box[3] - box[1]];
  return { canvas: [c.width, c.height], drawing, outside, smallest, steps: last + 1 };
}"""


def fit_problems(m):
    """What is wrong with the fit measured by MEASURE_EVERY_STEP: the drawing fills under 70 % of the canvas's
    width and height, something drawn falls outside the canvas, or a label renders under 11 px."""
    fill = max(m["drawing"][0] / m["canvas"][0], m["drawing"][1] / m["canvas"][1])
    problems = [f"the drawing fills {fill:.0%} of the canvas {m['canvas']}"] if fill < 0.7 else []
    problems += [f"drawn outside the canvas: {what}" for what in m["outside"][:5]]
    if m["smallest"] < 11 - 0.01:
        problems.append(f"a label renders at {m['smallest']:.2f} px")
    return problems
