"""The figure answers on every page whose algorithm reports what it computes: pointing at a slot (the mouse) or
walking to it (the keyboard alone) at a given step shows the values the page's NumPy run holds there. Each expected
value is computed here, in plain NumPy from the run's inputs (the same seed, drawn by ``kernelviz.attention.run``),
not by the algorithm under test: scores, running maxima and sums, outputs and gradients. The panel prints 3
significant digits (ui/hover.js), so the tolerance is rel 5e-3 (abs 1e-3 for numbers near 0); 16-bit pages round
their inputs (and P) to float16 as their kernels do before the products."""

import re

import numpy as np
import pytest
from figure_page import STEP_KEYS, without_python

from kernelviz.attention import runs
from kernelviz.attention._backward import DO_SEED

PANEL = "#kv-figure .kv-answer"
SLOT = "#kv-figure svg g[data-slot^='{}|']"  # the items that draw slot NAME (kernelviz/figlib/answers.py)
CANVAS_FOCUSED = "document.activeElement === document.querySelector('#kv-figure .kv-canvas > svg')"


def inputs(half=False, **sizes):
    """q, k, v of batch-head 0 as a run at `sizes` draws them (float64; rounded through float16 when `half`)."""
    x = [a[0] for a in runs.run("standard", Br=4, Bc=4, **sizes).inputs.values()]  # (tiles draw nothing)
    return [a.astype(np.float16).astype(np.float64) if half else a for a in x]


def scores(q, k):
    return q @ k.T / np.sqrt(q.shape[1])


def fa1():
    """Block 1 of rows (4 to 7) after K/V tiles 0 and 1: FA1 keeps O divided by l, so Oi is the attention output."""
    q, k, v = inputs(N=8, d=4)
    S = scores(q, k)
    rows = S[4:8]
    p = np.exp(rows - rows.max(1, keepdims=True))
    return {
        "fill Sij j=1 i=1": {"Sij 2,3": S[6, 7]},
        "update m,l,O j=1 i=1": {"mi": rows.max(1), "Oi": p @ v / p.sum(1)[:, None]},
    }


def flash_decoding():
    """One query row against 16 keys in 2 splits of 2 tiles of 4: split 1's carries after its last tile (keys 8 to
    15, O not divided), and the combine's sums over every key with the global max."""
    q, k, v = inputs(N=1, N_kv=16, d=4)
    s = scores(q, k)[0]
    m1 = s[8:].max()
    p = np.exp(s - s.max())
    return {
        "update m,l,O s=1 j=1": {"mi": [m1], "Oi": np.exp(s[8:] - m1) @ v[8:]},
        "combine l": {"l_g": [p.sum()]},
        "combine O": {"acc": p @ v},
    }


def tensor_cores():
    """FA2 on tensor cores in float16, 2 warps of 2 rows a block: warp 1 of block 1 holds rows 6 and 7; after tile 0
    its S is the scores, after the softmax of tile 1 its m and l cover keys 0 to 7 and S holds P of tile 1."""
    q, k, v = inputs(half=True, N=8, d=4)
    S = scores(q, k)
    m = S[6:8].max(1)
    return {
        "mma S i=1 j=0": {"S1 1,2": S[7, 2]},
        "softmax i=1 j=1": {"m1": m, "l1": np.exp(S[6:8] - m[:, None]).sum(1), "S1 0,3": np.exp(S[6, 7] - m[0])},
    }


def pipelined():
    """The pipelined kernel, 4 queries against 8 keys in tiles of 2: warp 1 (rows 2, 3) after its last P V holds
    the sum of e^(S - m) V over every key, not yet divided by l (P rounded to float16 before the product)."""
    q, k, v = inputs(half=True, N=4, N_kv=8, d=4)
    S = scores(q, k)[2:4]
    p = np.exp(S - S.max(1, keepdims=True)).astype(np.float16).astype(np.float64)
    return {"mma PV i=0 j=3": {"o1": p @ v}}


def backward():
    """The backward of softmax(S) V on the drawn dO (seed DO_SEED): after main block 0 takes rows 4 to 7, its dVj is
    P[:, 0:4]^T dO over every row; Δ of block 1 is the row sums of dO * O."""
    q, k, v = inputs(N=8, d=4)
    S = scores(q, k)
    P = np.exp(S - S.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    out = P @ v
    dO = np.random.default_rng(DO_SEED).standard_normal((1, 8, 4))[0]
    return {
        "update dV j=0 i=1": {"dVj": P[:, 0:4].T @ dO},
        "write Δ,dQ i=1": {"Δ1": (dO * out)[4:8].sum(1)},
        "recompute P j=1 i=0": {"Pij 1,2": P[1, 6]},
    }


def fa3():
    """FA3 in float16, 8 queries against 12 keys, blocks of 4 rows shared by 2 consumers: at consumer 1's turn on
    tile 1 of block 0 it holds S of tile 1 (rows 0, 1; keys 4 to 7) and o after tile 0 (P rounded to float16, not
    divided); after consumer 2's softmax of the last tile of block 1, m and l cover rows 6, 7 against every key."""
    q, k, v = inputs(half=True, N=8, N_kv=12, d=4)
    S = scores(q, k)
    m0 = S[0:2, 0:4].max(1, keepdims=True)
    p0 = np.exp(S[0:2, 0:4] - m0).astype(np.float16).astype(np.float64)
    m = S[6:8].max(1)
    return {
        "wgmma i=0 j=1 c=1": {"S1 1,2": S[1, 6], "o1": p0 @ v[0:4]},
        "softmax i=1 j=2 c=2": {"m2": m, "l2": np.exp(S[6:8] - m[:, None]).sum(1)},
    }


def paged():
    """Sequence 1 (9 keys in pages of 4, 2 query heads on one K/V head) in 2 splits: split 0 holds pages 0 and 1 (keys
    0 to 7), so its mi after page 1 is each head's max of those; the combine's acc is the sum of e^(S - max S) V over
    all 9 keys, each head's row. The keys are gathered through the run's block table, here."""
    sizes = dict(seq_lens=[5, 9], d=4, page_size=4, H_q=2, H_kv=1, splits=2)
    x = runs.run("paged-decoding", **sizes).inputs
    pages = [x["block_table"][1][p] for p in range(3)]
    k, v = (np.concatenate([x[n][p, :, 0] for p in pages])[:9] for n in ("k_pages", "v_pages"))
    S = scores(x["q"][1], k)  # (2 heads, 9 keys)
    p = np.exp(S - S.max(1, keepdims=True))
    return {"update b=1 s=0 p=1": {"mi": S[:, :8].max(1)}, "combine b=1": {"l_g": p.sum(1), "acc": p @ v}}


PAGES = {  # page: (its expected values {step key: {slot: value}}, a slot the keyboard walks to at a step)
    "flash-attention-1": (fa1, ("update m,l,O j=0 i=0", "mi")),
    "flash-decoding": (flash_decoding, ("update m,l,O s=0 j=0", "Oi")),
    "flash-attention-2-tensor-cores": (tensor_cores, ("softmax i=0 j=0", "l0")),
    "flash-attention-2-pipelined": (pipelined, ("mma PV i=0 j=0", "o0")),
    "flash-attention-2-backward": (backward, ("update dV j=0 i=0", "dVj")),
    "paged-decoding": (paged, ("update b=0 s=0 p=0", "li")),
    "flash-attention-3": (fa3, ("softmax i=0 j=0 c=1", "l1")),
}


@pytest.fixture(scope="module")
def context(browser):
    """A laptop's viewport, reduced motion; each test opens its page with Python kept out (the figure alone)."""
    context = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    yield context
    context.close()


def open_page(context, site_url, slug):
    page = without_python(context.new_page())
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{site_url}/{slug}.html")
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0 && window.kernelviz")
    return page, page.evaluate(STEP_KEYS)


def go(page, keys, key):
    assert key in keys, (key, keys)
    page.evaluate("(k) => window.kernelviz.goTo(k)", keys.index(key))
    page.wait_for_function("document.getElementById('kv-figure').dataset.animating === 'false'")


def shown(text):
    """The numbers after the panel's "value:" or "values (r × c):" line, as written there (− for minus)."""
    after = re.split(r"values?(?: \([^)]*\))?:", text, maxsplit=1)
    assert len(after) == 2, f"no values in the panel: {text!r}"
    return [float(x.replace("−", "-")) for x in re.findall(r"−?\d+(?:\.\d+)?(?:e[+−-]?\d+)?", after[1])]


def first_rows(value):
    """The part of `value` the panel prints: at most 4 rows of 4 columns (ui/hover.js valueLines), flattened."""
    a = np.atleast_1d(np.asarray(value, float))
    return (a[:4, :4] if a.ndim == 2 else a[:4]).ravel().tolist()


@pytest.mark.parametrize("slug", list(PAGES))
def test_pointing_at_a_slot_shows_what_numpy_computes(context, site_url, slug):
    page, keys = open_page(context, site_url, slug)
    expected, _ = PAGES[slug]
    for key, slots in expected().items():
        go(page, keys, key)
        for name, want in slots.items():
            page.locator(SLOT.format(name)).last.hover()
            text = page.locator(PANEL).inner_text()
            assert text.startswith(f"{name} · "), (key, name, text)
            assert shown(text) == pytest.approx(first_rows(want), rel=5e-3, abs=1e-3), (key, name, text)
    page.mouse.move(2, 2)
    assert page.locator(PANEL).is_hidden()
    assert page.errors == []
    page.close()


@pytest.mark.parametrize("slug", list(PAGES))
def test_the_keyboard_alone_reaches_the_values(context, site_url, slug):
    page, keys = open_page(context, site_url, slug)
    key, target = PAGES[slug][1]
    go(page, keys, key)
    page.locator("h1").click()  # the text comes after the figure: back up to it
    for _ in range(80):
        page.keyboard.press("Shift+Tab")
        if page.evaluate(CANVAS_FOCUSED):
            break
    else:
        pytest.fail(f"{slug}: Shift+Tab never reaches the figure's canvas")
    seen = []
    for _ in range(120):  # the arrows walk the slots, in the figure's order
        page.keyboard.press("ArrowRight")
        seen.append(page.locator(PANEL).inner_text().split(" · ")[0])
        if seen[-1] == target:
            break
    assert seen[-1] == target, (slug, seen)
    assert page.evaluate("window.kernelviz.step()") == keys.index(key)  # the slots, not the steps
    assert shown(page.locator(PANEL).inner_text())  # with its values
    page.keyboard.press("Escape")
    assert page.locator(PANEL).is_hidden()
    assert page.errors == []
    page.close()
