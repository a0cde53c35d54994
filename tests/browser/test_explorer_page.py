"""The overview page's attention memory path explorer, in Chromium, on the page `kernelviz build` makes of
pages/overview.md: metrics equal the Python formulas and sums by hand (the HBM traffic ratio flat in N beside the
memory ratio that grows; shared memory and registers apart), every control round-trips through the URL, the
over-budget status names the tile, the float32 softmax check agrees to 1e-6, and nothing is requested outside
127.0.0.1."""

import re
from urllib.parse import parse_qs, urlencode, urlsplit

import numpy as np
import pytest

from kernelviz.attention import flash_attention_2, formulas
from kernelviz.cuda import kernels

ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2}
LEDGER_DTYPE = {"float32": "float32", "float16": "float16", "bfloat16": "float16"}  # same bytes per element
BUDGET = {"a100": 163 * 1024, "h100": 227 * 1024}  # the per-block shared memory ceilings (CUDA guide, cc 8.0/9.0)
REGISTER_FILE = 65536 * 4  # 64K 32-bit registers a block may have (CUDA guide, cc 5.0 to 9.0)


@pytest.fixture(scope="module")
def site(site_url):
    """The overview page of the strict build of pages/ (the conftest's `site_url`)."""
    return site_url + "/overview.html"


def settings(**fields):
    base = dict(N=4096, d=64, Br=64, Bc=64, dtype="float16", sram="a100", causal="0", i=1, phase=0, j=0)
    return {**base, **fields}


def open_explorer(page, site, **fields):
    page.goto(f"{site}?{urlencode(settings(**fields))}")
    page.wait_for_selector("#kv-explorer[data-ready]")
    return page


def metric(page, name, kind=int):
    return kind(page.locator(f'[data-metric="{name}"]').get_attribute("data-value"))


def shared_tiles(Br, Bc, d, dtype):
    """The tiles a real FA2 kernel stages in shared memory, by hand: Qi, Kj, Vj in the storage dtype, in order."""
    s = ITEMSIZE[dtype]
    return {"Qi": Br * d * s, "Kj": Bc * d * s, "Vj": Bc * d * s}


def register_bytes(Br, Bc, d):
    """What it keeps in registers, by hand: Sij and Oi in float32, and mi, li, one float32 a row each."""
    return 4 * (Br * Bc + Br * d + 2 * Br)


def memory(N, d, dtype):
    """{standard, fa2}: HBM bytes each allocates, by hand: Q, K, V, O (N x d) + S, P (N x N); + L (N float32)."""
    s = ITEMSIZE[dtype]
    return {"standard": 4 * N * d * s + 2 * N * N * s, "fa2": 4 * N * d * s + 4 * N}


def query(page):
    """The page's current query string as a flat dict."""
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


def wait_for_query(page, **expected):
    conditions = " && ".join(f"p.get({k!r}) === {str(v)!r}" for k, v in expected.items())
    page.wait_for_function(f"(() => {{ const p = new URLSearchParams(location.search); return {conditions}; }})()")


def fa2_block_sram(Br, Bc, d, dtype, budget=None):
    """The SRAM one FA2 block declares in the Python ledger (tiny inputs: only the tile sizes matter)."""
    x = np.ones((1, 2, d), np.float32)
    return flash_attention_2(x, x, x, Br=Br, Bc=Bc, dtype=LEDGER_DTYPE[dtype], sram_budget=budget).ledger.sram["fa2"]


CASES = [
    dict(N=64, d=32, Br=16, Bc=16, dtype="float32", causal="0"),
    dict(N=1000, d=64, Br=64, Bc=32, dtype="float16", causal="1"),
    dict(N=4096, d=128, Br=128, Bc=64, dtype="bfloat16", causal="1"),
    dict(N=24576, d=96, Br=32, Bc=256, dtype="float32", causal="0"),
    dict(N=131072, d=256, Br=16, Bc=128, dtype="float16", causal="1"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"N{c['N']}-d{c['d']}-{c['Br']}x{c['Bc']}-{c['dtype']}")
def test_metrics_equal_the_python_formulas(page, site, case):
    open_explorer(page, site, **case)
    N, d, Br, Bc, s, causal = (
        case["N"],
        case["d"],
        case["Br"],
        case["Bc"],
        ITEMSIZE[case["dtype"]],
        case["causal"] == "1",
    )
    assert metric(page, "score_bytes") == formulas.score_matrix_bytes(N, itemsize=s)
    assert metric(page, "tile_interactions") == formulas.tile_interactions(N, Br, Bc, causal=causal)
    assert metric(page, "hbm_standard") == formulas.total(formulas.standard(N, d, Br, Bc, causal=causal, itemsize=s))
    assert metric(page, "hbm_fa2") == formulas.total(formulas.fa2(N, d, Br, Bc, causal=causal, itemsize=s))
    assert metric(page, "hbm_compulsory") == formulas.total(formulas.compulsory(N, d, itemsize=s))
    tiles = fa2_block_sram(Br, Bc, d, case["dtype"])  # the teaching model's tiles, all in one memory
    assert metric(page, "shared_block") == tiles["Qi"] + tiles["Kj"] + tiles["Vj"] == (Br + 2 * Bc) * d * s
    assert metric(page, "registers_block") == tiles["Sij"] + tiles["Oi"] + tiles["mi"] + tiles["li"]
    assert metric(page, "registers_block") == register_bytes(Br, Bc, d)
    held = memory(N, d, case["dtype"])
    assert metric(page, "memory_standard") == held["standard"]
    assert metric(page, "memory_fa2") == held["fa2"]
    assert metric(page, "memory_ratio", float) == pytest.approx(held["standard"] / held["fa2"], rel=1e-12)
    moved = metric(page, "hbm_standard") / metric(page, "hbm_fa2")
    assert metric(page, "hbm_ratio", float) == pytest.approx(moved, rel=1e-12)
    assert page.errors == []


def test_the_traffic_ratio_stays_flat_while_the_memory_ratio_grows(page, site):
    """d = 64, tiles of 64, float16: standard attention moves 2.8x FA2's bytes at N = 512 and 3x from 4K on (the
    limit 1 + 2 Br / d = 3), while the memory it allocates grows from 5x to about 1,000x FA2's."""
    shown = {}
    for N in (512, 4096, 32768, 131072):
        open_explorer(page, site, N=N, d=64, Br=64, Bc=64, dtype="float16", causal="0")
        std = formulas.total(formulas.standard(N, 64, 64, 64, itemsize=2))
        fa2 = formulas.total(formulas.fa2(N, 64, 64, 64, itemsize=2))
        moved = metric(page, "hbm_ratio", float)
        assert moved == pytest.approx(std / fa2, rel=1e-12)
        held = memory(N, 64, "float16")
        kept = metric(page, "memory_ratio", float)
        assert kept == pytest.approx(held["standard"] / held["fa2"], rel=1e-12)
        notes = page.locator('[data-metric="hbm_ratio"]').inner_text(), page.locator('[data-metric="memory_ratio"]')
        shown[N] = (moved, kept, notes[0], notes[1].inner_text())
    moved = [round(shown[N][0], 1) for N in shown]
    assert moved == [2.8, 3.0, 3.0, 3.0]
    assert shown[512][2].startswith("Flash Attention 2 moves 2.8× less") and "tends to 3×" in shown[512][2]
    assert shown[131072][2].startswith("Flash Attention 2 moves 3× less")
    kept = [shown[N][1] for N in shown]
    assert kept == sorted(kept) and kept[0] < 10 < 900 < kept[-1]
    # 128K: 64 MiB + 64 GiB against 64 MiB + 512 KiB
    assert round(kept[-1]) == round((2**26 + 2**36) / (2**26 + 2**19)) == 1017
    assert shown[131072][3].startswith("Standard attention allocates 1017× the memory of Flash Attention 2")


def test_metrics_follow_the_controls(page, site):
    open_explorer(page, site)
    page.fill("#kvx-n", "2048")
    page.select_option("#kvx-d", "128")
    page.select_option("#kvx-br", "32")
    page.select_option("#kvx-bc", "128")
    page.select_option("#kvx-dtype", "float32")
    page.check("#kvx-causal")
    assert metric(page, "hbm_fa2") == formulas.total(formulas.fa2(2048, 128, 32, 128, causal=True, itemsize=4))
    assert metric(page, "tile_interactions") == formulas.tile_interactions(2048, 32, 128, causal=True)
    assert metric(page, "score_bytes") == formulas.score_matrix_bytes(2048, itemsize=4)


def test_a_control_updates_the_metrics_in_the_same_task(page, site):
    # No waiting between the input event and the read: the render is synchronous, within the frame.
    open_explorer(page, site, N=64)
    before, after = page.evaluate(
        """() => {
            const el = document.querySelector('[data-metric="score_bytes"]');
            const before = el.dataset.value;
            const range = document.getElementById('kvx-n-range');
            range.value = range.max;
            range.dispatchEvent(new Event('input', {bubbles: true}));
            return [before, el.dataset.value];
        }"""
    )
    assert (int(before), int(after)) == (64 * 64 * 2, 131072 * 131072 * 2)


def test_the_url_round_trips_every_control(page, site, browser):
    open_explorer(page, site)
    page.fill("#kvx-n", "3000")
    page.select_option("#kvx-d", "96")
    page.select_option("#kvx-br", "128")
    page.select_option("#kvx-bc", "32")
    page.select_option("#kvx-dtype", "bfloat16")
    page.select_option("#kvx-sram", "custom")
    page.fill("#kvx-sram-kib", "200")
    page.check("#kvx-causal")
    page.fill("#kvx-i", "7")
    page.click(".kvx-phase[data-phase='3']")
    page.click(".kvx-next")  # accumulate of tile 0 -> score of tile 1
    expected = dict(N="3000", d="96", Br="128", Bc="32", dtype="bfloat16", sram="200", causal="1", i="7")
    expected.update(phase="1", j="1")
    wait_for_query(page, **expected)
    assert query(page) == expected

    # A fresh page opened at that address shows every control as it was left.
    other = browser.new_context().new_page()
    other.goto(page.url)
    other.wait_for_selector("#kv-explorer[data-ready]")
    shown = {
        "N": other.input_value("#kvx-n"),
        "d": other.input_value("#kvx-d"),
        "Br": other.input_value("#kvx-br"),
        "Bc": other.input_value("#kvx-bc"),
        "dtype": other.input_value("#kvx-dtype"),
        "sram": other.input_value("#kvx-sram-kib"),
        "causal": "1" if other.is_checked("#kvx-causal") else "0",
        "i": other.input_value("#kvx-i"),
        "phase": other.locator(".kvx-phase[aria-pressed='true']").get_attribute("data-phase"),
    }
    assert shown == {k: v for k, v in expected.items() if k != "j"}
    assert "K/V tile j = 1 " in other.locator(".kvx-where").inner_text()
    assert other.input_value("#kvx-sram") == "custom"
    other.wait_for_timeout(300)
    assert query(other) == expected  # the page does not rewrite a valid address
    other.context.close()


def test_presets_and_the_slider_round_trip(page, site):
    open_explorer(page, site, sram="h100")
    assert page.input_value("#kvx-sram") == "h100"
    page.select_option("#kvx-sram", "a100")
    page.locator("#kvx-n-range").fill("0")
    wait_for_query(page, sram="a100", N="64")
    page.locator("#kvx-n-range").fill("44")
    wait_for_query(page, N="131072")
    assert page.input_value("#kvx-n") == "131072"


def test_values_the_explorer_cannot_show_are_corrected_and_the_page_says_so(page, site):
    """Numbers outside what the explorer shows take the nearest it shows, words it does not know their default, and
    a polite note lists each change until the reader dismisses it; a link with nothing to correct shows none."""
    page.goto(f"{site}?N=0&d=7&Br=abc&dtype=int8&sram=99999&causal=maybe&i=999&phase=9")
    page.wait_for_selector("#kv-explorer[data-ready]")
    wait_for_query(page, N="64", d="32", Br="64", dtype="float16", sram="1024", causal="0", i="0", phase="3")
    note = page.locator(".kvx-corrected")
    assert note.is_visible() and note.get_attribute("role") == "status"
    assert note.locator("li").all_inner_texts() == [
        "N=0 → 64: the explorer shows 64 to 131072",
        "d=7 → 32: head dimensions are 32, 64, 96, 128, 256; the nearest is 32",
        "Br=abc → 64: expected a whole number; this is the default",
        "dtype=int8 → float16: expected float32, float16, bfloat16; this is the default",
        "sram=99999 → 1024: the explorer shows 1 to 1024 KiB",
        "causal=maybe → 0: expected 1 or 0; this is the default",
        "i=999 → 0: N=64 with Br=64 has query tiles 0 to 0",
        "phase=9 → 3: the phases are 0 to 3",
    ]
    assert page.locator("#kvx-n").is_visible()  # the explorer is there below it
    note.get_by_role("button", name="Dismiss").click()
    assert page.locator(".kvx-corrected").count() == 0
    open_explorer(page, site, N=1000, i=3)
    assert page.locator(".kvx-corrected").count() == 0


def past(tiles, limit):
    """The tiles that do not fit `limit` bytes, by hand: placed in order, the first past it and all after it."""
    over, used = [], 0
    for name, size in tiles.items():
        used += size
        if used > limit or over:
            over.append(name)
    return over


@pytest.mark.parametrize(
    "fields",
    [
        dict(d=256, Br=128, Bc=128, dtype="float32", sram="a100"),
        dict(d=256, Br=256, Bc=256, dtype="float16", sram="h100"),
        dict(d=64, Br=64, Bc=64, dtype="float16", sram="8"),
        dict(d=64, Br=64, Bc=64, dtype="float32", sram="4"),
    ],
    ids=["a100-Kj", "h100", "8KiB", "4KiB"],
)
def test_the_over_budget_status_names_the_tile(page, site, fields):
    open_explorer(page, site, **fields)
    budget = BUDGET.get(fields["sram"]) or int(fields["sram"]) * 1024
    Br, Bc, d = fields["Br"], fields["Bc"], fields["d"]
    over = past(shared_tiles(Br, Bc, d, fields["dtype"]), budget)
    assert over
    status = page.locator(".kvx-status").inner_text()
    assert status.startswith(f"Over budget: {over[0]} (")
    assert "does not fit" in status
    for name in over:
        assert page.locator(f'[data-sram="{name}"]').get_attribute("data-look") == "over"
    registers = {"Sij": 4 * Br * Bc, "Oi": 4 * Br * d, "mi": 4 * Br, "li": 4 * Br}
    spilled = past(registers, REGISTER_FILE)  # the register tiles answer to the register file, not the budget
    for name in registers:
        look = page.locator(f'[data-sram="{name}"]').get_attribute("data-look")
        assert look == ("over" if name in spilled else "sram"), name


def test_register_tiles_past_the_register_file_are_named_apart_from_shared_memory(page, site):
    fields = dict(d=64, Br=256, Bc=256, dtype="float16", sram="h100")
    assert sum(shared_tiles(256, 256, 64, "float16").values()) <= BUDGET["h100"]  # 96 KiB: fits
    assert register_bytes(256, 256, 64) > REGISTER_FILE  # 322 KiB of S, O, m, l: does not
    open_explorer(page, site, **fields)
    status = page.locator(".kvx-status").inner_text()
    assert status.startswith("Over the register file: Sij, Oi, mi, li need 322 KiB of registers")
    assert page.locator('[data-metric="registers_block"]').get_attribute("data-fits") == "false"
    assert page.locator('[data-metric="shared_block"]').get_attribute("data-fits") == "true"


def test_a_block_that_fits_says_the_score_matrix_is_not_resident(page, site):
    open_explorer(page, site, d=64, Br=64, Bc=64, dtype="float16", sram="a100")
    assert metric(page, "shared_block") == 3 * 64 * 64 * 2 == 24576  # 24 KiB of Q, K, V tiles
    assert metric(page, "registers_block") == 64 * 64 * 4 * 2 + 2 * 64 * 4 == 33280  # S, O, m, l: 32.5 KiB
    status = page.locator(".kvx-status").inner_text()
    assert status.startswith("Ready: global score matrix is not resident; one score tile Sij (16 KiB) is, in registers")
    assert page.locator('[data-metric="shared_block"] .kvx-big').inner_text() == "24 KiB of 163 KiB"
    assert page.locator('[data-metric="registers_block"] .kvx-big').inner_text() == "32.5 KiB or more"
    assert page.locator('[data-look="over"]').count() == 0


@pytest.mark.parametrize("N", [64, 1000, 4096, 131072])
def test_the_float32_softmax_check_differs_by_at_most_1e_6(page, site, N):
    open_explorer(page, site, N=N, Bc=64)
    page.wait_for_function(f"document.querySelector('[data-metric=\"softmax\"]').dataset.n === '{N}'")
    for case in ("random", "large"):
        row = page.locator(f'[data-metric="softmax_{case}"]')
        dp, do = float(row.get_attribute("data-dp")), float(row.get_attribute("data-do"))
        assert 0 <= dp <= 1e-6 and 0 <= do <= 1e-6, (case, dp, do)
    # The large logits overflow float32 without the max shift, which both versions apply.
    assert "overflows" in page.locator('[data-metric="softmax_large"] .kvx-sm-naive').inner_text()
    assert page.locator('[data-metric="softmax_random"] .kvx-sm-naive').inner_text() == "finite"


def test_the_phases_step_and_highlight_their_code(page, site):
    open_explorer(page, site, N=256, Br=64, Bc=64, causal="1", i=1)  # block 1 visits K/V tiles 0 and 1
    current = lambda: page.locator(".kvx-line.is-current").evaluate_all("ls => ls.map(l => +l.dataset.line)")  # noqa: E731
    assert current() == [0, 1]  # load Q
    page.locator(".kvx-next").focus()
    seen = []
    for _ in range(6):
        page.keyboard.press("ArrowRight")
        seen.append(
            (query(page).get("phase"), page.locator(".kvx-phase[aria-pressed='true']").get_attribute("data-phase"))
        )
    assert [p for _, p in seen] == ["1", "2", "3", "1", "2", "3"]
    assert 9 in current()  # the last accumulate writes O[i] once
    assert page.locator('[data-tile="O1"]').get_attribute("data-look") == "written"
    assert page.locator(".kvx-next").get_attribute("aria-disabled") == "true"
    page.keyboard.press("ArrowRight")  # nothing after the end; the focus stays in the stepper
    assert page.locator(".kvx-phase[aria-pressed='true']").get_attribute("data-phase") == "3"
    page.keyboard.press("Home")
    assert page.locator(".kvx-phase[aria-pressed='true']").get_attribute("data-phase") == "0"


def test_resident_tiles_are_colored_and_hbm_tiles_dim(page, site):
    open_explorer(page, site, N=1024, Br=128, Bc=128, i=2, phase=1, j=3)
    look = lambda name: page.locator(f'[data-tile="{name}"]').get_attribute("data-look")  # noqa: E731
    assert (look("Q2"), look("K3"), look("S2,3")) == ("sram", "sram", "sram")
    assert (look("Q0"), look("K4"), look("V3")) == ("hbm", "hbm", "hbm")
    assert (look("K0"), look("V2")) == ("visited", "visited")  # loaded earlier by this block, gone now


def test_causal_masking_skips_the_tiles_above_the_diagonal(page, site):
    open_explorer(page, site, N=512, Br=64, Bc=64, causal="1", i=0)
    look = lambda name: page.locator(f'[data-tile="{name}"]').get_attribute("data-look")  # noqa: E731
    assert (look("S0,0"), look("S0,1"), look("S1,1"), look("S1,2")) == ("hbm", "masked", "hbm", "masked")
    assert metric(page, "tile_interactions") == formulas.tile_interactions(512, 64, 64, causal=True) == 36
    assert "1 of 1 visited" not in page.locator(".kvx-where").inner_text()  # phase 0 shows no j yet
    page.click(".kvx-phase[data-phase='1']")
    assert "(1 of 1 visited)" in page.locator(".kvx-where").inner_text()


def test_every_control_is_labelled_and_reachable_by_keyboard(page, site):
    open_explorer(page, site)
    for control in ["#kvx-n-range", "#kvx-n", "#kvx-d", "#kvx-br", "#kvx-bc", "#kvx-dtype", "#kvx-sram", "#kvx-causal"]:
        name = page.locator(control).evaluate("e => e.labels.length ? e.labels[0].textContent : e.ariaLabel")
        assert name and name.strip(), control
    page.focus("#kvx-dtype")
    page.keyboard.press("ArrowDown")  # a focused <select> changes with the arrow keys
    wait_for_query(page, dtype="bfloat16")
    page.focus("#kvx-causal")
    page.keyboard.press("Space")
    wait_for_query(page, causal="1")


def test_the_layout_fits_a_phone(browser, site):
    context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
    pg = context.new_page()
    pg.goto(f"{site}?{urlencode(settings(N=131072, causal='1', d=256, Br=256, Bc=256, dtype='float32'))}")
    pg.wait_for_selector("#kv-explorer[data-ready]")
    overflow = pg.evaluate(
        """() => [...document.querySelectorAll('#kv-explorer *')]
            .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .filter(e => !e.closest('pre')).map(e => e.tagName + '.' + (e.getAttribute('class') || ''))"""
    )
    assert overflow == []  # the code lines scroll inside their <pre>
    assert pg.evaluate("document.documentElement.scrollWidth") <= 375
    box = pg.locator(".kvx-svg").bounding_box()
    assert 250 < box["width"] <= 375
    context.close()


def test_no_request_leaves_the_local_server(page, site, outside_requests):
    open_explorer(page, site)
    page.locator("#kvx-n-range").fill("40")
    page.click(".kvx-play")
    page.wait_for_timeout(1000)
    page.click(".kvx-play")
    assert page.locator("link[href$='explorer.css']").count() >= 1
    assert outside_requests(page) == []
    assert page.errors == []


# Before the page's scripts: once the HTML is parsed (readyState 'interactive' comes before deferred and module
# scripts run), note the explorer's drawn canvas and controls and record every element put into or taken out of it.
TAKEOVER = """window.__explorer = { changed: [] };
document.addEventListener('readystatechange', () => {
  if (document.readyState !== 'interactive') return;
  const root = document.getElementById('kv-explorer');
  Object.assign(window.__explorer, {
    svg: root.querySelector('svg.kvx-svg'), form: root.querySelector('form.kvx-controls'),
    drawn: root.querySelectorAll('*').length });
  new MutationObserver((records) => {
    for (const r of records) for (const n of [...r.addedNodes, ...r.removedNodes]) {
      if (n.nodeType === 1) window.__explorer.changed.push(n.outerHTML.slice(0, 80));
    }
  }).observe(root, { childList: true, subtree: true });
});"""


def test_the_explorer_is_drawn_at_build_time_and_taken_over_as_it_is(browser, site):
    """The explorer is in the HTML (drawn by its own code at build time); on a laptop its runtime takes every drawn
    element over: none is added or removed, the canvas and the form are the drawn ones, and they then work."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_init_script(TAKEOVER)
    page = context.new_page()
    page.goto(site)
    page.wait_for_selector("#kv-explorer[data-ready]")
    seen = page.evaluate("window.__explorer")
    assert seen["svg"] is not None and seen["drawn"] > 300, "no explorer in the HTML"
    assert seen["changed"] == []
    assert page.evaluate("document.querySelector('#kv-explorer svg.kvx-svg') === window.__explorer.svg")
    assert page.evaluate("document.querySelector('#kv-explorer form') === window.__explorer.form")
    assert page.locator("#kv-explorer .kvx[data-prerendered]").count() == 0
    before = page.locator("#kv-explorer svg.kvx-svg").inner_html()
    page.locator(".kvx-next").click()  # the drawn controls work: the next step is drawn
    assert page.locator("#kv-explorer svg.kvx-svg").inner_html() != before
    assert page.locator(".kvx-phase[aria-pressed='true']").get_attribute("data-phase") == "1"
    wait_for_query(page, phase="1")
    context.close()


def test_the_explorer_drawn_at_build_time_shows_without_javascript(browser, site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site)
    assert page.locator("#kv-explorer svg.kvx-svg").is_visible()
    status = page.locator("#kv-explorer .kvx-status").inner_text()
    assert status.startswith("Ready: global score matrix is not resident")
    said = "(() => { const p = document.querySelector('#kv-explorer noscript p'); return p && p.checkVisibility(); })()"
    assert page.evaluate(said)  # what the explorer needs, said above it
    context.close()


def test_a_link_with_other_settings_draws_them_over_the_build_time_drawing(page, site):
    open_explorer(page, site, N=1000, d=128, phase=2)
    assert page.locator("#kv-explorer .kvx").count() == 1 and page.locator("[data-kvx]").count() == 0
    assert page.input_value("#kvx-n") == "1000" and page.input_value("#kvx-d") == "128"
    assert metric(page, "score_bytes") == formulas.score_matrix_bytes(1000, itemsize=2)


def test_on_a_phone_only_the_canvas_is_drawn_again_at_its_width(browser, site):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(TAKEOVER)
    page = context.new_page()
    page.goto(site)
    page.wait_for_selector("#kv-explorer[data-ready]")
    changed = page.evaluate("window.__explorer.changed")
    assert len(changed) == 2 and all(c.startswith('<svg viewBox="0 0 ') for c in changed), changed  # out, in
    width = int(page.locator("#kv-explorer svg.kvx-svg").get_attribute("viewBox").split()[2])
    assert width < 640 and page.evaluate("document.querySelector('#kv-explorer form') === window.__explorer.form")
    context.close()


# Each tile's painted fill and stroke, and the palette's colours they should be, as the page computes them now.
PAINTED = """(names) => names.map(([tile, fill, stroke]) => {
  const rect = document.querySelector(`[data-tile="${tile}"] rect`);
  const probe = document.createElement('span');
  document.body.append(probe);
  const colour = (name) => { probe.style.color = `var(--kv-${name})`; return getComputedStyle(probe).color; };
  const want = [colour(fill), colour(stroke)];
  probe.remove();
  const got = getComputedStyle(rect);
  return [tile, [got.fill, got.stroke], want];
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_explorer_paints_with_the_site_palette_in_either_theme(browser, site, scheme):
    """No colour of its own: each tile is the palette's colour of its tensor (palette.json), in the theme shown."""
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    page.goto(f"{site}?N=1024&Br=128&Bc=128&i=2&phase=1&j=3")
    page.wait_for_selector("#kv-explorer[data-ready]")
    tiles = [["Q2", "q-fill", "q"], ["K3", "k-fill", "k"], ["S2,3", "s-1", "s"], ["V3", "hbm", "stale"]]
    for tile, got, want in page.evaluate(PAINTED, tiles):
        assert got == want, (tile, got, want)
    literal = "[...document.querySelectorAll('#kv-explorer svg *')].filter((e) => /^#/.test("
    literal += "(e.getAttribute('fill') || '') + (e.getAttribute('stroke') || ''))).length"
    assert page.evaluate(literal) == 0  # no hex colour written into the drawing
    context.close()


def test_the_page_splits_shared_memory_from_registers_with_the_explorers_numbers(page, site):
    """The overview's sentence at d = 64, 64 x 64 tiles, float16: the tiles' shared memory and the registers, by
    hand and as the explorer shows them, and what the tensor-core kernel declares (its rows padded by 8)."""
    open_explorer(page, site, d=64, Br=64, Bc=64, dtype="float16")
    shared, registers = metric(page, "shared_block"), metric(page, "registers_block")
    assert shared == (64 + 2 * 64) * 64 * 2 and registers == register_bytes(64, 64, 64)
    declared = kernels.shared_memory("fa2-mma", dict(N=64, d=64, Br=64, Bc=64))["fa2_mma"]
    assert declared == 2 * (64 + 2 * 64) * (64 + 8) == shared + (64 + 2 * 64) * 8 * 2
    text = " ".join(page.locator("main").inner_text().split())
    assert f"that is {shared:,} bytes (24 KiB) of shared memory and {registers:,} bytes (32.5 KiB) of registers" in text
    assert f"at the same sizes, declares {declared:,} bytes of shared memory" in text
    assert "pull away" not in text  # the traffic ratio does not grow with N: the page says so
    assert 'the "bytes moved" ratio goes from 2.8 to 3 and stays there' in text


@pytest.mark.parametrize("name", ["flash-attention-1", "flash-attention-2"])
def test_the_teaching_kernels_pages_say_where_s_o_m_l_really_live(built_site, name):
    """Their kernels keep S, O, m, l in shared memory for clarity: the pages say so and link to the tensor-core page,
    where they live in registers; the FA2 page no longer says the traffic gap grows with N."""
    html = (built_site / f"{name}.html").read_text()
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert re.search(r"for clarity.{0,200}in shared memory|in shared memory for clarity", text, re.I), name
    assert re.search(r"registers of the warps that own their rows", text)
    assert 'href="flash-attention-2-tensor-cores.html"' in html
    assert "gap grows with" not in text
