"""Pages 1 and 2, Online softmax and Flash Attention 1, in Chromium, from the strict build of pages/ (`built_site`).

The same checks as the other kernel pages (nothing fetched from outside, the figure drawn before Python, bound
bullets and CUDA blocks playing their steps, a deep link to a step, the editors run in Pyodide giving the Scene
the build embedded), plus this pair's own: an edited kernel redraws the figure as CPython would, and the numeric
panel of the Online softmax page shows NumPy's numbers, also after its controls change.
"""

import json

import pytest
from python_intent import start_python

from kernelviz.runner import Source, run
from kernelviz.site.scene_file import unpack
from tests.pages.test_pages_softmax_fa1 import check_panel, panel_numbers

SLUGS = ("online-softmax", "flash-attention-1")
PYTHON_READY_MS = 90_000  # a cold Pyodide on a busy 2-core machine


def open_page(page, url):
    page.goto(url, wait_until="load")
    page.wait_for_selector("#kv-figure svg:not([data-prerendered])", timeout=10_000)


def embedded(page, script_id):
    """The JSON of the page's element `script_id`: inline, or the file a <link> preloads (the page's Scene)."""
    if page.locator(f"link#{script_id}").count():  # (unpacked here, in Python: scene_file.unpack)
        return unpack(page.evaluate(f"fetch(document.getElementById('{script_id}').href).then((r) => r.json())"))
    return json.loads(page.locator(f"#{script_id}").text_content())


def step_count(scene):
    return len(next(n for n in scene["nodes"] if n["kind"] == "step_list")["steps"])


@pytest.mark.parametrize("slug", SLUGS)
def test_figure_is_drawn_before_python_and_nothing_leaves_the_machine(page, site_url, outside_requests, slug):
    open_page(page, f"{site_url}/{slug}.html")
    scene = embedded(page, "kv-scene")
    assert page.evaluate("window.kernelviz.scene()") == scene
    assert page.locator(".kv-step-items button").count() == step_count(scene)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)  # a quiet moment or two after load, when the editors were once fetched
    fetched = [u for u in page.requested if u.endswith("/editors.js") or "/pyodide/" in u]
    assert fetched == [], "a read-only visit fetches neither the editors nor Python"
    assert outside_requests(page) == []
    assert page.errors == []


@pytest.mark.parametrize("slug", SLUGS)
def test_bound_bullets_and_cuda_blocks_play_their_steps(page, site_url, slug):
    open_page(page, f"{site_url}/{slug}.html")
    bullets = page.locator("li[data-step]")
    assert bullets.count() > 5
    for n in (0, bullets.count() // 2, bullets.count() - 1):
        bullet = bullets.nth(n)
        k = int(bullet.get_attribute("data-step"))
        bullet.click()
        page.wait_for_function(f"window.kernelviz.step() === {k}", timeout=5_000)
        assert "kv-current" in bullet.get_attribute("class")
    if slug == "flash-attention-1":
        blocks = page.locator("details.kv-cuda[data-step]")
        assert blocks.count() == 19  # one per step
        k = int(blocks.nth(4).get_attribute("data-step"))  # the update
        page.evaluate(f"window.kernelviz.goTo({k})")
        page.wait_for_function(f"window.kernelviz.step() === {k}")
        assert "kv-current" in blocks.nth(4).get_attribute("class")
        assert "expf" in blocks.nth(4).locator("pre").text_content()


@pytest.mark.parametrize("slug, step", [("online-softmax", 5), ("flash-attention-1", 13)])
def test_a_deep_link_opens_the_figure_at_its_step(page, site_url, slug, step):
    open_page(page, f"{site_url}/{slug}.html#step={step}")
    page.wait_for_function(f"window.kernelviz.step() === {step}", timeout=5_000)
    label = embedded(page, "kv-scene")["nodes"][-1]["steps"][step]["label"]
    assert page.locator(".kv-step-items button[aria-current=step]").inner_text() == label


def test_the_fa1_counter_counts_a_round_trip(page, site_url):
    """After the first write-back the figure's HBM counter (the page's own SVG text) holds what crossed so far:
    O, l, m written as zeros, K0 and V0 read, Q0 and its carries read, the carries written back."""
    open_page(page, f"{site_url}/flash-attention-1.html")
    keys = [s["key"] for s in embedded(page, "kv-scene")["nodes"][-1]["steps"]]
    k = keys.index("write O,l,m j=0 i=0")
    page.evaluate(f"window.kernelviz.goTo({k})")  # a promise: evaluate waits until the step has settled
    assert page.evaluate("window.kernelviz.step()") == k
    texts = page.eval_on_selector_all("#kv-figure svg text", "ts => ts.map(t => t.textContent)")
    N, d, Br, Bc, f32 = 8, 4, 4, 4, 4
    zeros = (N * d + N + N) * f32
    kv = 2 * Bc * d * f32
    carries = (Br * d + Br + Br) * f32
    assert f"HBM {zeros + kv + Br * d * f32 + 2 * carries} B" in texts


@pytest.fixture
def python_page(page, site_url):
    """Open a page and wait for its Python: open(slug) -> the Playwright page."""

    def open_with_python(slug):
        open_page(page, f"{site_url}/{slug}.html")
        start_python(page, PYTHON_READY_MS / 1000)
        return page

    return open_with_python


def test_editors_run_in_pyodide_and_agree_with_the_build(python_page, outside_requests):
    for slug in SLUGS:  # one browser context: Pyodide is fetched once and then comes from the cache
        page = python_page(slug)
        outcome = page.evaluate("kernelvizEditors.runAll()")
        assert outcome["ok"], outcome
        assert outcome["result"]["scene"] == embedded(page, "kv-scene"), slug
        assert page.evaluate("kernelviz.scene()") == embedded(page, "kv-scene")
    assert outside_requests(page) == []
    assert page.errors == []


def test_an_edited_kernel_redraws_the_figure_as_cpython_does(python_page):
    page = python_page("online-softmax")
    editors = embedded(page, "kv-editors")
    edited = editors[1]["code"].replace(
        "[1.0, 2.0, 4.0, 0.5, 3.0, 1.5, 6.0, 2.5]", "[9.0, 1.0, 2.0, 0.5, 3.0, 1.5, 6.0, 2.5]"
    )
    assert edited != editors[1]["code"]
    page.evaluate(
        """(code) => { const view = kernelvizEditors.editors[1].view;
                       view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: code}}); }""",
        edited,
    )
    outcome = page.evaluate("kernelvizEditors.runAll()")
    assert outcome["ok"], outcome
    expected = run([Source(editors[0]["code"]), Source(edited)]).scene
    assert outcome["result"]["scene"] == expected
    assert page.evaluate("kernelviz.scene()") == expected != embedded(page, "kv-scene")
    page.evaluate("localStorage.clear()")  # the edit is kept across reloads; do not keep it for other tests


# ---- the numeric panel ----

READ_PANEL = """() => {
  const rows = (name, part) => [...document.querySelectorAll(`table[data-table=${name}] ${part} tr`)]
    .map((tr) => [...tr.children].map((c) => c.dataset.value ?? null));
  return {compare: rows('compare', 'tbody'), foot: rows('compare', 'tfoot'), rescale: rows('rescale', 'tbody'),
          overflow: rows('overflow', 'tbody')};
}"""


def read_panel(page):
    """The panel's numbers as the page keeps them (the data-value of each cell, a string so that NaN and the
    infinities survive), in compute.js's shape."""
    shown = page.evaluate(READ_PANEL)
    num = float  # parses "NaN", "Infinity" and "-Infinity" too
    compare, rescale, overflow = shown["compare"], shown["rescale"], shown["overflow"]
    col = lambda rows, i: [num(r[i]) for r in rows]  # noqa: E731
    return {
        "x": col(compare, 1),
        "standard": col(compare, 2),
        "online": col(compare, 3),
        "maxDiff": num(shown["foot"][0][4]),
        "oStandard": num(shown["foot"][1][2]),
        "oOnePass": num(shown["foot"][1][3]),
        "tiles": [dict(zip(("tileMax", "mOld", "mNew", "factor", "l"), map(num, r[1:]), strict=True)) for r in rescale],
        "large": col(overflow, 1),
        "overflow": {
            "float32": {"naive": col(overflow, 2), "safe": col(overflow, 3)},
            "float16": {"naive": col(overflow, 4), "safe": col(overflow, 5)},
        },
    }


def test_the_panel_shows_numpys_numbers(page, site_url):
    open_page(page, f"{site_url}/online-softmax.html")
    page.wait_for_selector(".kv-softmax-panel[data-ready=true]")
    shown = read_panel(page)
    check_panel(shown, panel_numbers(1, 16, 4, 4, 100))
    assert any(t != t for t in shown["overflow"]["float32"]["naive"]), "naive float32 overflows to NaN"
    assert any(t != t for t in shown["overflow"]["float16"]["naive"]), "naive float16 overflows to NaN"
    assert page.locator(".kv-softmax-panel .kv-sp-bad").count() > 0
    assert page.errors == []


def test_the_panel_follows_its_controls(page, site_url):
    open_page(page, f"{site_url}/online-softmax.html")
    page.wait_for_selector(".kv-softmax-panel[data-ready=true]")
    panel = page.locator(".kv-softmax-panel")
    panel.locator("input[name=seed]").fill("50")
    panel.locator("select[name=n]").select_option("32")
    assert panel.locator("select[name=b] option").all_inner_texts() == ["1", "2", "4", "8", "16", "32"]
    assert panel.locator("select[name=b]").input_value() == "4"  # the width it had, which still divides N
    panel.locator("select[name=b]").select_option("8")
    panel.locator("input[name=large]").fill("30")
    assert page.locator("table[data-table=compare] tbody tr").count() == 32
    assert page.locator("table[data-table=rescale] tbody tr").count() == 4
    check_panel(read_panel(page), panel_numbers(50, 32, 8, 4, 30))
    panel.locator("select[name=b]").select_option("16")
    panel.locator("select[name=n]").select_option("8")  # a tile of 16 no longer fits: the widest that does
    assert panel.locator("select[name=b]").input_value() == "8"
    panel.locator("select[name=b]").select_option("4")
    panel.locator("select[name=n]").select_option("16")
    assert panel.locator("select[name=b]").input_value() == "4"
    check_panel(read_panel(page), panel_numbers(50, 16, 4, 4, 30))
