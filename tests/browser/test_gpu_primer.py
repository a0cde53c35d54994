"""The primer's bank figure in Chromium: every step plays, and what it shows is the bank arithmetic done here on its
own (word w of a warp's read is in bank w mod 8; a read takes as many passes as the most lanes one bank serves): a
row and a padded column in one pass, a column of the unpadded tile in 8, and the HBM counter two tiles' bytes."""

from collections import Counter

from figure_page import HBM_BYTES, STEP_KEYS, open_figure

BANKS, BYTES = 8, 4  # the figure's banks (and lanes), float32
READS = {  # step key -> the words lane 0.. lane 7 read
    "read row": [c for c in range(BANKS)],
    "read column": [r * BANKS for r in range(BANKS)],
    "read padded column": [r * (BANKS + 1) for r in range(BANKS)],
}
TEXTS = """() => [...document.querySelectorAll('#kv-figure svg .kv-nodes text')]
  .filter((t) => !t.closest('[display="none"]') && getComputedStyle(t).opacity !== '0')
  .map((t) => (t.querySelector('tspan') ? [...t.querySelectorAll('tspan')].map((s) => s.textContent).join(' ')
    : t.textContent).trim())"""  # (a label wrapped over lines is tspans: read with a space between them)


def passes(words):
    return max(Counter(w % BANKS for w in words).values())


def test_the_bank_figure_plays_every_step_and_counts_the_passes(page, site_url):
    page.route("**/pyodide/**", lambda route: route.abort())  # the figure plays from its embedded Scene
    page.emulate_media(reduced_motion="reduce")
    open_figure(page, f"{site_url}/gpu-primer.html")
    keys = page.evaluate(STEP_KEYS)
    assert keys == ["start", "store tile", "read row", "read column", "store padded", "read padded column"]
    assert [passes(READS[k]) for k in READS] == [1, BANKS, 1]
    for k, key in enumerate(keys):
        page.evaluate(f"window.kernelviz.goTo({k})")
        page.wait_for_function(f"window.kernelviz.step() === {k}")
        page.wait_for_timeout(100)
        texts = page.evaluate(TEXTS)
        if key in READS:
            n = passes(READS[key])
            assert f"{n} pass{'' if n == 1 else 'es'}" in texts, (key, texts)
            assert (f"{BANKS} lanes" in texts) == (n == BANKS), (key, texts)
        copies = 1 + (k >= keys.index("store padded")) if k >= 1 else 0  # the tile, then its padded copy
        assert page.evaluate(HBM_BYTES) == copies * BANKS * BANKS * BYTES, key


def test_the_bank_figures_labels_fit_and_do_not_meet_on_a_phone(browser, site_url):
    """The checks every kernel page's figure passes (test_figure_labels_fit), on the primer's: each box's label inside
    its box at every step on a laptop, and no two labels meeting on a 390 px phone."""
    from figure_page import without_python
    from test_figure_labels_fit import OVERFLOWS, OVERLAPPING_LABELS

    for viewport, check in (
        ({"width": 1600, "height": 1000}, OVERFLOWS),
        ({"width": 390, "height": 844}, OVERLAPPING_LABELS),
    ):
        context = browser.new_context(viewport=viewport, reduced_motion="reduce")
        page = without_python(context.new_page())
        open_figure(page, f"{site_url}/gpu-primer.html")
        found = page.evaluate(check)
        context.close()
        assert found == [], f"at {viewport['width']} px: {found[:6]}"
