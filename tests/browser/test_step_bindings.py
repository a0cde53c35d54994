"""Steps, their words and what is bound to them, in Chromium (issue 32, items 1, 3 and 4).

- Item 1: at a size where splits do not divide the tiles, each CUDA block of a K/V load names the keys the figure
  loads at its step: ``col0`` (and ``cols``) of its notes against the K tile drawn in SRAM, on FD (prerendered
  N 16, Bc 4, splits 3; with Python N 20, Bc 3, splits 3), FA1 and FA2.
- Item 4: the step list says each step in words with the tensors' names ("block 0 · j = 1 · load K1, V1").
- Item 3: the seed page's own code, pasted into the FA2 or FD page and run, draws steps without keys; every bullet
  and CUDA block stays live, bound by the seed's step labels, and plays the step of that label.
"""

import re

import pytest
from figure_page import open_figure
from python_intent import PYTHON_READY_S, start_python

from tests.seeds import seed_editors

SEED_OF = {"flash-attention-2": "000_cccafdd90e3922fa.txt", "flash-decoding": "003_713ded16edfff9f4.txt"}

# For each bound CUDA block of a K/V load, opened: its step, the values its notes print, and the K tile the figure
# shows in SRAM at that step (the lowest text reading K<t>: HBM's tiles are above it).
KEYS_AT_LOADS = """async () => {
  const out = [];
  const value = (block, name) => {
    const note = block.querySelector(`.kv-note[data-name="${name}"]`);
    const m = note && /=\\s*(-?\\d+)\\s*$/.exec(note.textContent);
    return m ? Number(m[1]) : null;
  };
  for (const block of document.querySelectorAll('.kv-cuda[data-step]')) {
    if (!/#(split_)?load_kv$/.test(block.dataset.cite)) continue;
    const k = Number(block.dataset.step);
    if (!block.open) block.querySelector('summary').click(); // rendered when opened (page/cuda-blocks.js)
    await window.kernelviz.goTo(k);
    let tile = null, lowest = -Infinity;
    for (const t of document.querySelectorAll('#kv-figure svg .kv-nodes text')) {
      const m = /^K(\\d+)$/.exec(t.textContent.trim());
      const top = t.getBoundingClientRect().top;
      if (m && top > lowest) [tile, lowest] = [Number(m[1]), top];
    }
    out.push({ step: k, key: block.dataset.stepKey, col0: value(block, 'col0'), cols: value(block, 'cols'), tile });
  }
  return out;
}"""
STEPS = "() => window.kernelviz.scene().nodes.find((n) => n.kind === 'step_list').steps"
BUTTONS = "() => [...document.querySelectorAll('#kv-figure .kv-step-items button')].map((b) => b.textContent.trim())"


def check_loads(page, sizes):
    """Each bound K/V load block's keys are the keys of the tile the figure loads; returns how many were checked."""
    n, bc = sizes.get("N_kv", sizes["N"]), sizes["Bc"]  # the keys: N_kv where the form has it
    loads = page.evaluate(KEYS_AT_LOADS)
    for load in loads:
        assert load["col0"] is not None and load["tile"] is not None, (sizes, load)
        cuda = range(
            load["col0"], load["col0"] + load["cols"] if load["cols"] is not None else min(load["col0"] + bc, n)
        )
        figure = range(load["tile"] * bc, min(load["tile"] * bc + bc, n))
        assert cuda == figure, f"{sizes}, {load['key']}: the CUDA notes name keys {cuda}, the figure loads {figure}"
    return len(loads)


def wait_applied(page, sizes, timeout_s=30):
    want = "-".join(f"{n}{v}" for n, v in sizes.items())
    page.wait_for_function(
        "(k) => document.querySelector('form.kv-sizes').dataset.applied === k", arg=want, timeout=timeout_s * 1000
    )


@pytest.mark.parametrize(
    ("slug", "sizes"),
    [
        ("flash-decoding", {"N": 16, "Bc": 4, "splits": 3}),  # 2, 2 and 0 tiles: the col0 = 6 against K1
        ("flash-decoding", {"N": 10, "Bc": 2, "splits": 4}),  # 5 tiles: 2, 2, 1, 0
        ("flash-attention-2", {"N": 10, "N_kv": 10, "Br": 4, "Bc": 4, "causal": 0}),
        ("flash-attention-1", {"N": 7, "N_kv": 7, "Br": 2, "Bc": 2, "causal": 0}),
    ],
)
def test_cuda_blocks_name_the_keys_the_figure_loads(reading, site_url, slug, sizes):
    page = reading
    hash_ = "&".join(f"{n}={v}" for n, v in sizes.items())
    open_figure(page, f"{site_url}/{slug}.html#{hash_}")
    wait_applied(page, sizes)
    assert check_loads(page, sizes) >= 2
    assert page.errors == []


@pytest.mark.parametrize("slug", ["flash-attention-2", "flash-decoding", "flash-attention-1"])
def test_the_step_list_says_each_step_in_words_with_the_tensors_names(reading, site_url, slug):
    """Item 4: the labels are words, not keys; the keys stay on the steps (the binding)."""
    page = reading
    open_figure(page, f"{site_url}/{slug}.html")
    buttons, steps = page.evaluate(BUTTONS), page.evaluate(STEPS)
    assert buttons == [s["label"] for s in steps]
    assert all(s.get("key") for s in steps)
    keyish = [b for b in buttons if re.search(r"\b[ijs]=\d", b)]
    assert keyish == [], keyish
    expected = {
        "flash-attention-2": "block 0 · j = 1 · load K1, V1",
        "flash-decoding": "split 1 · j = 0 · load K2, V2",
        "flash-attention-1": "j = 0 · i = 1 · load Q1, O1, l1, m1",
    }[slug]
    assert expected in buttons
    key = steps[buttons.index(expected)]["key"]
    assert re.fullmatch(r"load (K,V|Q,O,l,m) [ijs]=\d [ijs]=\d", key), key


def paste_and_run(page, codes):
    """Replace the page's editors' code with `codes` (in order) and run them all, as a reader would."""
    for i, code in enumerate(codes):
        page.evaluate(
            """([i, code]) => { const v = kernelvizEditors.editors[i].view;
            v.dispatch({changes: {from: 0, to: v.state.doc.length, insert: code}, userEvent: 'input.paste'}); }""",
            [i, code],
        )
    page.locator(f'.kv-editor[data-editor="{len(codes) - 1}"] .kv-editor-runAll').click()


@pytest.mark.slow
@pytest.mark.parametrize("slug", ["flash-decoding", "flash-attention-2"])
def test_the_seeds_own_code_keeps_every_bullet_and_cuda_block_live(shared_page, site_url, seeds_dir, slug):
    """Item 3 (and, on FD, item 1 at sizes Python draws: N 20, Bc 3, splits 3, tiles of 3 keys in 3 splits of 3,
    3 and 1 tiles)."""
    seed = seeds_dir / SEED_OF[slug]
    page = shared_page
    page.goto(f"{site_url}/{slug}.html")
    start_python(page, PYTHON_READY_S)  # mounts the editors first, as a reader's reach would
    if slug == "flash-decoding":
        sizes = {"N": 20, "Bc": 3, "splits": 3}
        for name, value in sizes.items():
            page.locator(f"form.kv-sizes input[name={name}]").fill(str(value))
        wait_applied(page, sizes, PYTHON_READY_S)
        assert check_loads(page, sizes) >= 2
    built = {li.get_attribute("data-step-key"): li.get_attribute("data-step-label") for li in
             page.locator("li[data-step-key]").all()}  # fmt: skip
    paste_and_run(page, seed_editors(seed.read_text(encoding="utf-8")))
    page.wait_for_function(
        f"() => {{ const s = ({STEPS})(); return s.length > 10 && s.every((x) => x.key === undefined); }}",
        timeout=PYTHON_READY_S * 1000,
    )
    labels = [s["label"] for s in page.evaluate(STEPS)]
    assert page.locator("[data-step-key][aria-disabled=true]").count() == 0
    assert page.locator(".kv-step-gone").count() == 0
    for node in page.locator("li[data-step-key], details.kv-cuda[data-step-key]").all():
        label = node.get_attribute("data-step-label")
        assert built.get(node.get_attribute("data-step-key"), label) == label
        assert node.get_attribute("data-step") == str(labels.index(label)), label
    bullet = page.locator("li[data-step-key]").nth(5)
    bullet.evaluate("(el) => el.click()")
    assert labels[page.evaluate("window.kernelviz.step()")] == bullet.get_attribute("data-step-label")
