"""The pipelined page in Chromium (issue 40): every step plays, its CUDA blocks are fa2_pipe.cu's, the counters end on
`kernelviz trace fa2-pipe`'s totals, and the timeline under the figure, read from the drawn bars, shows the copies
overlapping the tensor cores with 2 stages and never with 1; the step in view is the one outlined on the timeline."""

import re

from figure_page import open_figure, trace_json, without_python

from tests.pages.kernel_pages import trace_args

SLUG = "flash-attention-2-pipelined"

# For each step: its key, the counters, and the timeline's bars as drawn: [lane, x, width, outlined in ink, filled].
PLAY_EVERY_STEP = """async () => {
  const steps = window.kernelviz.scene().nodes.find((n) => n.kind === 'step_list').steps;
  const shown = [];
  for (let k = 0; k < steps.length; k++) {
    await window.kernelviz.goTo(k);
    const text = (kv) => document.querySelector(`#kv-figure svg [data-kv="${kv}"]`)?.textContent ?? null;
    const bars = [...document.querySelectorAll('#kv-figure svg [data-kv^="timeline "]')].map((t) => {
      const r = t.parentNode.querySelector('rect');
      return [t.dataset.kv.slice(9), Number(r.getAttribute('x')), Number(r.getAttribute('width')),
              /ink/.test(r.getAttribute('stroke') || r.style.stroke || ''),
              (r.style.fill || r.getAttribute('fill') || 'none') !== 'none'];
    });
    shown.push({ key: steps[k].key, hbm: text('hbm-bytes'), sram: text('smem-bytes'), bars });
  }
  return shown;
}"""


def trace(sizes):
    return trace_json(trace_args(SLUG, sizes))


def overlap(bars, a, b):
    """Pixels of the time axis where a bar of lane `a` and one of lane `b` are both drawn."""
    one = [(x, x + w) for lane, x, w, *_ in bars if lane == a]
    two = [(x, x + w) for lane, x, w, *_ in bars if lane == b]
    return sum(max(0.0, min(e1, e2) - max(s1, s2)) for s1, e1 in one for s2, e2 in two)


def play(page):
    shown = page.evaluate(PLAY_EVERY_STEP)
    assert len(shown) > 10 and all(s["bars"] for s in shown)
    return shown


def test_every_step_plays_its_timeline_and_counters(page, site_url):
    page.emulate_media(reduced_motion="reduce")
    open_figure(without_python(page), f"{site_url}/{SLUG}.html")
    sizes = page.evaluate("window.kernelviz.sizes()")
    assert sizes["stages"] == 2
    shown = play(page)
    cited = page.evaluate("() => [...document.querySelectorAll('details.kv-cuda[data-step-key]')]"
                          ".map((d) => [d.dataset.stepKey, d.dataset.cite])")  # fmt: skip
    assert cited and all(cite.startswith("fa2_pipe.cu#") for _, cite in cited)
    action = lambda key: re.sub(r"( [a-z]=\d+)+$", "", key)  # noqa: E731
    assert {action(s["key"]) for s in shown[1:]} - {action(k) for k, _ in cited} == set(), "a step with no CUDA"
    assert not any(b[3] or b[4] for b in shown[0]["bars"]), "at the start every action is still to come"
    for before, now in zip(shown, shown[1:], strict=False):
        filled = sum(b[4] for b in now["bars"])
        assert filled >= sum(b[4] for b in before["bars"]), "bars fill as the steps go by"
    assert all(b[4] for b in shown[-1]["bars"]), "at the end every action is done"
    assert any(any(b[3] for b in s["bars"]) for s in shown[1:]), "the step in view is outlined on the timeline"
    assert overlap(shown[-1]["bars"], "copies", "tensor cores") > 1, "2 stages: a copy under the products"

    ledger = trace(sizes)
    assert shown[-1]["hbm"] == f"HBM {ledger['total_bytes']} B"
    assert shown[-1]["sram"] == f"SRAM {ledger['shared']['total']} B"
    assert page.errors == []


def test_one_stage_draws_no_overlap(page, site_url):
    page.emulate_media(reduced_motion="reduce")
    open_figure(without_python(page), f"{site_url}/{SLUG}.html")
    page.fill('form.kv-sizes input[name="stages"]', "1")
    page.press('form.kv-sizes input[name="stages"]', "Enter")
    page.wait_for_function("window.kernelviz.sizes().stages === 1")
    bars = play(page)[-1]["bars"]
    assert overlap(bars, "copies", "tensor cores") < 0.5, "one buffer: the tensor cores wait for every copy"
    assert page.errors == []
