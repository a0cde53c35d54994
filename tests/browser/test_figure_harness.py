"""A page as the site builder writes one (the page contract), around the seed FA2 page's figure, for the figure's
browser tests and bench/site.py: the two seed editors run through the runner in CPython, the Scene embedded as
#kv-scene, step-bound bullets and CUDA blocks, and web/dist's runtime as assets/. The real editors bundle is
replaced by a stub that only records when it was loaded, so these tests never start Python in the page.

`harness_dir()` builds it once per process; `open_page(browser, url, **context_options)` opens a page recording
its requests and errors.
"""

import functools
import html
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from kernelviz.runner import Source, run
from kernelviz.site import palette
from tests.conftest import SEEDS
from tests.seeds import seed_editors

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "web" / "dist"
VIEWPORT = {"width": 1280, "height": 960}
STUB_EDITORS = "window.__editorsLoadedAt = performance.now();\n"

# The seed page's prose, reduced to what the figure binds to: (heading, [(step label, bullet text), ...], CUDA).
SECTIONS = [
    ("Visualizing operations in a single block", [("block 0 · load Q0", "Qi = Q[i]; Oi = 0; mi = -inf; li = 0")]),
    (
        "Iteration j = 0",
        [
            ("block 0 · j = 0 · load K0, V0", "Kj, Vj = K[j], V[j]"),
            ("block 0 · j = 0 · fill Sij", "Sij = Qi @ Kj.T"),
            ("block 0 · j = 0 · update mi, li and Oi", "mi = max(mi, Sij.max(-1))"),
            ("block 0 · j = 0 · update mi, li and Oi", "li = rescale(li) + exp(Sij - mi).sum(-1)"),
        ],
    ),
    (
        "Iteration j = 1",
        [
            ("block 0 · j = 1 · load K1, V1", "Kj, Vj = K[j], V[j]"),
            ("block 0 · j = 1 · fill Sij", "Sij = Qi @ Kj.T"),
            ("block 0 · j = 1 · update mi, li and Oi", "mi, li, Oi = ..."),
        ],
    ),
    ("Write the data back to HBM", [("block 0 · write O0, L0", "O[i], L[i] = Oi/li, mi + log(li)")]),
    (
        "Same operations in another block",
        [
            ("block 1 · load Q1", "Qi = Q[i]"),
            ("block 1 · j = 0 · load K0, V0", "Kj, Vj = K[j], V[j]"),
            ("block 1 · j = 1 · load K1, V1", "Kj, Vj = K[j], V[j]"),
            ("block 1 · write O1, L1", "O[i], L[i] = Oi/li, mi + log(li)"),
        ],
    ),
]
FILLER = "<p>" + "The tiles stream through SRAM while the carries stay put. " * 12 + "</p>"


def seed_scene():
    """The seed FA2 page's editors and the Scene CPython computes from them."""
    text = next(SEEDS.glob("000_*.txt")).read_text()
    helpers, kernel = seed_editors(text)
    first = text.splitlines().index(helpers.splitlines()[0]) + 1
    second = text.splitlines().index(kernel.splitlines()[0]) + 1
    editors = [
        {"title": "Drawing helpers", "code": helpers, "first_line": first},
        {"title": "The kernel", "code": kernel, "first_line": second},
    ]
    result = run([Source(e["code"], e["title"], e["first_line"]) for e in editors])
    assert result.ok, result.error
    return editors, result.scene


def step_labels(scene):
    return [s["label"] for n in scene["nodes"] if n["kind"] == "step_list" for s in n["steps"]]


def _script_json(value):
    return json.dumps(value).replace("</", "<\\/")


def _prose(editors, labels):
    out = ["<h1>Kernel visualization: Flash Attention 2</h1>", FILLER]
    for i, e in enumerate(editors):
        code = html.escape(e["code"])
        title = html.escape(e["title"], quote=True)
        out.append(f'<div class="kv-editor" data-editor="{i}" data-title="{title}">')
        out.append(f'<pre class="kv-code">{code}</pre></div>')
    for heading, bullets in SECTIONS:
        out += [f"<h2>{html.escape(heading)}</h2>", FILLER, "<ul>"]
        for label, bullet in bullets:
            out.append(f'<li data-step="{labels.index(label)}">{html.escape(bullet)}</li>')
        out.append("</ul>")
        k = labels.index(bullets[0][0])
        out.append(
            f'<details class="kv-cuda" data-step="{k}" data-cite="fa2.cu#load_kv"><summary>CUDA implementation'
            f'</summary><pre class="kv-code">// step {k}\n__syncthreads();</pre></details>'
        )
        out.append(FILLER * 2)
    return "\n".join(out)


def page_html(name, editors, scene_json, labels):
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{name}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<link rel="stylesheet" href="assets/palette.css">
<link rel="stylesheet" href="assets/main.css"></head>
<body data-page="{name}">
<nav><a href="index.html">Flash Attention 2</a></nav>
<main class="kv-page" data-canvas-side="right"><article class="kv-prose">
{_prose(editors, labels)}
</article><aside class="kv-figure" id="kv-figure"></aside></main>
<script type="application/json" id="kv-scene">{scene_json}</script>
<script type="application/json" id="kv-editors">{_script_json(editors)}</script>
<script type="module" src="assets/main.js"></script>
</body></html>
"""


def build_harness(dest):
    """Write the harness site into `dest`: index.html (the seed FA2 figure) and broken.html (a Scene that fails
    the schema), with assets/ from web/dist."""
    if not (DIST / "main.js").exists():
        raise FileNotFoundError(f"{DIST / 'main.js'} is missing: run `cd web && node build.mjs`")
    dest = Path(dest)
    assets = dest / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    for name in ("main.js", "main.css", "scene-check.js"):
        shutil.copy(DIST / name, assets / name)
    (assets / "palette.css").write_text(palette.css())
    (assets / "editors.js").write_text(STUB_EDITORS)
    editors, scene = seed_scene()
    labels = step_labels(scene)
    (dest / "index.html").write_text(page_html("fa2", editors, _script_json(scene), labels))
    broken = dict(scene, version=2)
    (dest / "broken.html").write_text(page_html("broken", editors, _script_json(broken), labels))
    (dest / "scene.json").write_text(json.dumps(scene))
    return dest


@functools.cache
def harness_dir():
    """The harness, built once per process into a temporary folder."""
    if not SEEDS.is_dir():
        pytest.skip(f"the seed pages are not at {SEEDS}")
    return build_harness(tempfile.mkdtemp(prefix="kv-figure-"))


def open_page(browser, url, **context_options):
    """A new context and page at `url`, its figure drawn; records requests (`requested`) and errors (`errors`)."""
    context = browser.new_context(viewport=VIEWPORT, **context_options)
    page = context.new_page()
    page.requested, page.errors = [], []
    page.on("request", lambda r: page.requested.append(r.url))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    return page


@pytest.fixture
def harness_url(serve_dir):
    return serve_dir(harness_dir())


def test_harness_page_binds_every_section_to_a_step_of_the_seed_figure():
    editors, scene = seed_scene()
    labels = step_labels(scene)
    page = (harness_dir() / "index.html").read_text()
    assert len(editors) == 2 and labels[0] == "start" and len(labels) == 19
    for _, bullets in SECTIONS:
        for label, _ in bullets:
            assert f'data-step="{labels.index(label)}"' in page
    assert '<script type="module" src="assets/main.js">' in page and 'id="kv-scene"' in page
