"""The FlashAttention-3 page in Chromium (issue 42): every step of its figure plays, each action has a CUDA block of
fa3.cu, and the HBM and SRAM counters end on the ledger's totals (`kernelviz trace fa3`: FA2's HBM bytes in float16,
and the shared memory the TMA stores and wgmma reads); the timeline under the figure shows consumer 1's softmax at
the same moment as consumer 2's products (the bars' boxes as Chromium lays them out); a bullet plays its step and
the step's CUDA is there; a URL with sizes and a step opens the figure at those sizes and that step."""

import re

from figure_page import open_figure, trace_json, without_python

SLUG = "flash-attention-3"
# The counters' reference: `kernelviz trace fa3` (attention/fa3.py) with the kernel's 2 consumer warpgroups
ALGO = "fa3"
WARPGROUPS = ["--warpgroups", "2"]

# Plays every step (reduced motion: each at once); for each, its key, the HBM counter and the current step's label.
PLAY_EVERY_STEP = """async () => {
  const steps = window.kernelviz.scene().nodes.find((n) => n.kind === 'step_list').steps;
  const shown = [];
  for (let k = 0; k < steps.length; k++) {
    await window.kernelviz.goTo(k);
    const text = (kv) => document.querySelector(`#kv-figure svg [data-kv="${kv}"]`)?.textContent ?? null;
    const current = document.querySelector('#kv-figure .kv-step-items button[aria-current="step"]');
    shown.push({ key: steps[k].key, hbm: text('hbm-bytes'), sram: text('smem-bytes'),
                 current: current && current.textContent.trim() });
  }
  return shown;
}"""

# Each timeline bar of `lane` as drawn: [left, right] in the SVG's units (the item's text carries the kv, its rect
# the bar).
BARS = """(lane) => [...document.querySelectorAll(`#kv-figure svg [data-kv="timeline ${lane}"]`)].map((t) => {
  const r = t.parentNode.querySelector('rect'), x = Number(r.getAttribute('x'));
  return [x, x + Number(r.getAttribute('width'))]; })"""


def trace(sizes):
    """`kernelviz trace` of what the figure draws at `sizes`: d = 4, Br = 4 (two consumers of 2 rows), Bc = 4, in
    float16. FA3's HBM ledger is FA2's in 16 bits (Q once, K and V once a block, O and L once)."""
    causal = ["--causal"] if sizes["causal"] else []
    args = [ALGO, "--N", str(sizes["N"]), "--N-kv", str(sizes["N_kv"]), "--d", "4", "--Br", "4", "--Bc", "4",
            "--dtype", "float16", *causal, *WARPGROUPS, "--json"]  # fmt: skip
    return trace_json(args)


def test_every_step_plays_each_action_has_its_cuda_and_the_counter_ends_on_the_ledger(page, site_url):
    page.emulate_media(reduced_motion="reduce")
    open_figure(without_python(page), f"{site_url}/{SLUG}.html")
    shown = page.evaluate(PLAY_EVERY_STEP)
    labels = page.evaluate("() => [...document.querySelectorAll('#kv-figure .kv-step-items button')]"
                           ".map((b) => b.textContent.trim())")  # fmt: skip
    assert len(shown) == len(labels) > 30
    assert [s["current"] for s in shown] == labels, "each step, played, is the step list's current one"
    cited = page.evaluate("() => [...document.querySelectorAll('details.kv-cuda[data-step-key]')]"
                          ".map((d) => [d.dataset.stepKey, d.dataset.cite])")  # fmt: skip
    assert cited and all(cite.startswith("fa3.cu#") for _, cite in cited)
    action = lambda key: re.sub(r"( [a-z]=\d+)+$", "", key)  # noqa: E731 ('wgmma i=0 j=1 c=2' -> 'wgmma')
    assert {action(s["key"]) for s in shown[1:]} - {action(key) for key, _ in cited} == set(), "no CUDA block"

    sizes = page.evaluate("window.kernelviz.sizes()")
    traced = trace(sizes)
    assert shown[-1]["hbm"] == f"HBM {traced['total_bytes']} B"
    assert shown[-1]["sram"] == f"SRAM {traced['shared']['total']} B", "TMA's stores, wgmma's reads, the epilogue"
    for counter in ("hbm", "sram"):
        counts = [int(s[counter].split()[1]) for s in shown]
        assert counts == sorted(counts), f"{counter}: bytes only ever add up"
    assert page.errors == []


def test_the_timeline_shows_consumer_1s_softmax_under_consumer_2s_products(page, site_url):
    page.emulate_media(reduced_motion="reduce")
    open_figure(without_python(page), f"{site_url}/{SLUG}.html")
    page.evaluate("async () => window.kernelviz.goTo(window.kernelviz.scene().nodes"
                  ".find((n) => n.kind === 'step_list').steps.length - 1)")  # fmt: skip
    softmax, products = page.evaluate(BARS, "1: SFU"), page.evaluate(BARS, "2: tensor")
    assert softmax and products
    at_once = [(s, p) for s in softmax for p in products if min(s[1], p[1]) - max(s[0], p[0]) > 0]
    assert at_once, f"no softmax bar of consumer 1 {softmax} meets a product bar of consumer 2 {products}"


def test_a_bullet_plays_its_step_and_the_step_shows_its_cuda(page, site_url):
    open_figure(without_python(page), f"{site_url}/{SLUG}.html")
    key = "softmax i=0 j=1 c=1"
    page.locator(f'li[data-step-key="{key}"]').first.click()
    label = page.evaluate(
        "(k) => window.kernelviz.scene().nodes.find((n) => n.kind === 'step_list').steps.find((s) => s.key === k)"
        ".label",
        key,
    )
    page.wait_for_function(
        "(l) => document.querySelector('#kv-figure .kv-step-items button[aria-current=\"step\"]')"
        "?.textContent.trim() === l",
        arg=label,
    )
    blocks = page.locator(f'details.kv-cuda[data-step-key="{key}"]')
    assert blocks.count() == 2  # the softmax, then the release of the stage of the tile before
    blocks.first.locator("summary").click()
    assert "exp2f" in blocks.first.locator("pre").inner_text()
    blocks.nth(1).locator("summary").click()
    assert "mbar_arrive(&empty" in blocks.nth(1).locator("pre").inner_text()


def test_a_url_restores_the_sizes_and_the_step(page, site_url):
    sizes = {"N": 8, "N_kv": 12, "stages": 3, "causal": 0, "gpu": 2}
    query = "&".join(f"{n}={v}" for n, v in sizes.items())
    open_figure(without_python(page), f"{site_url}/{SLUG}.html#{query}&step=7")
    page.wait_for_selector("form.kv-sizes[data-applied='N8-N_kv12-stages3-causal0-gpu2']", state="attached")
    page.wait_for_function("window.kernelviz.step() === 7")
    assert page.evaluate("window.kernelviz.sizes()") == sizes
    keys = page.evaluate("() => window.kernelviz.scene().nodes.find((n) => n.kind === 'step_list').steps"
                         ".map((s) => s.key)")  # fmt: skip
    # three stages: the producer fills all three before the consumers' first turn
    assert keys[2:6] == ["load Q i=0", "load K,V i=0 j=0", "load K,V i=0 j=1", "load K,V i=0 j=2"]
    title = page.evaluate("() => [...document.querySelectorAll('#kv-figure svg text')].map((t) => t.textContent)")
    assert any("H200" in t for t in title), "gpu=2 times the block on the H200"
