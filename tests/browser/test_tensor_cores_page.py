"""The tensor-core page in Chromium (issue 31, item 3): every step of its figure plays, and the action of each has a
CUDA block of fa2_mma.cu on the page; the two counters end on the NumPy ledger's totals; the fragment pictures say
the lanes the CPU shim's tables say."""

import re
from pathlib import Path

from figure_page import open_figure, trace_json, without_python

from tests.pages.kernel_pages import trace_args

SLUG = "flash-attention-2-tensor-cores"
HEADER = Path(__file__).resolve().parents[2] / "kernelviz" / "cuda" / "cpu" / "fragments.h"

# Plays every step (reduced motion: each at once); for each, the step's key, the counters' texts and the canvas's
# caption, as the reader sees them then.
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


def trace(sizes):
    return trace_json(trace_args(SLUG, sizes))


def test_every_step_plays_and_each_action_has_its_cuda_block(page, site_url):
    page.emulate_media(reduced_motion="reduce")
    open_figure(without_python(page), f"{site_url}/{SLUG}.html")
    shown = page.evaluate(PLAY_EVERY_STEP)
    labels = page.evaluate("() => [...document.querySelectorAll('#kv-figure .kv-step-items button')]"
                           ".map((b) => b.textContent.trim())")  # fmt: skip
    assert len(shown) == len(labels) > 20
    assert [s["current"] for s in shown] == labels, "each step, played, is the step list's current one"
    cited = page.evaluate("() => [...document.querySelectorAll('details.kv-cuda[data-step-key]')]"
                          ".map((d) => [d.dataset.stepKey, d.dataset.cite])")  # fmt: skip
    assert all(cite.startswith("fa2_mma.cu#") for _, cite in cited)
    action = lambda key: re.sub(r"( [a-z]=\d+)+$", "", key)  # noqa: E731 ('mma S i=0 j=1' -> 'mma S')
    actions = {action(key) for key, _ in cited}
    assert {action(s["key"]) for s in shown[1:]} - actions == set(), "a step with no CUDA block"

    sizes = page.evaluate("window.kernelviz.sizes()")
    ledger = trace(sizes)
    last = shown[-1]
    assert last["hbm"] == f"HBM {ledger['total_bytes']} B" and last["sram"] == f"SRAM {ledger['shared']['total']} B"
    softmax = [k for k, s in enumerate(shown) if s["key"].startswith("softmax")]
    assert softmax and all(shown[k]["sram"] == shown[k - 1]["sram"] for k in softmax), "P moves no byte"
    assert page.errors == []


def test_a_bullet_plays_its_step_and_the_step_shows_its_cuda(page, site_url):
    open_figure(without_python(page), f"{site_url}/{SLUG}.html")
    bullet = page.locator('li[data-step-key="softmax i=0 j=1"]').first
    bullet.click()
    page.wait_for_function(
        "(k) => document.querySelector('#kv-figure .kv-step-items button[aria-current=\"step\"]')"
        "?.textContent.trim() === k",
        arg=page.evaluate(
            "() => window.kernelviz.scene().nodes.find((n) => n.kind === 'step_list').steps"
            ".find((s) => s.key === 'softmax i=0 j=1').label"
        ),  # fmt: skip
    )
    block = page.locator('details.kv-cuda[data-step-key="softmax i=0 j=1"]')
    block.locator("summary").click()
    assert "__shfl_xor_sync" in block.locator("pre").inner_text()


def test_the_fragment_pictures_hold_the_lanes_of_the_shims_tables(page, site_url):
    """Each picture's cells, as Chromium lays them out, against the KV_MMA_* tables of the header the shim compiles;
    and the cells sit in the grid their row and column say (the first row above the second, column 0 leftmost)."""
    page.goto(f"{site_url}/{SLUG}.html")
    pictures = page.evaluate("""() => [...document.querySelectorAll('.kv-frag-figure svg')].map((svg) =>
      [...svg.querySelectorAll('[data-lane]')].map((c) => { const b = c.getBoundingClientRect();
        return { row: +c.dataset.row, col: +c.dataset.col, lane: +c.dataset.lane, i: +c.dataset.i,
                 x: b.left, y: b.top, faded: c.classList.contains('kv-frag-off') }; }))""")
    text = HEADER.read_text()
    for operand, cells in zip("ABC", pictures[:3], strict=True):
        body = re.search(rf"KV_MMA_{operand}\[32\]\[\d\]\[2\] = \{{(.*?)\n\}};", text, re.S).group(1)
        lanes = re.findall(r"\{(\{.*?\})\}", body)
        want = {(int(r), int(c)): (lane, i) for lane, elements in enumerate(lanes)
                for i, (r, c) in enumerate(re.findall(r"\{(\d+), (\d+)\}", elements))}  # fmt: skip
        assert {(c["row"], c["col"]): (c["lane"], c["i"]) for c in cells} == want, operand
        at = {(c["row"], c["col"]): c for c in cells}
        assert at[(0, 0)]["y"] < at[(1, 0)]["y"] and at[(0, 0)]["x"] < at[(0, 1)]["x"]
    (highlighted,) = [cells for cells in pictures if any(c["faded"] for c in cells)]
    assert {c["lane"] for c in highlighted if not c["faded"]} == {4, 5, 6, 7}
