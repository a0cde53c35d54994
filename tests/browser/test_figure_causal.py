"""The causal mask in the Flash Attention 1 and 2 figures, in Chromium (issue 29): `causal` set in the size form
draws the prerendered masked figure (Python kept out); the URL restores it on load; at the last step the HBM counter
equals `kernelviz trace ... --causal --json` (run here, independent of the page); no step loads a tile the mask
hides whole; and when S fills on the diagonal tile, exactly the cells the mask hides are drawn masked (@paper in
@edge), none without the mask. N_kv follows N in the form while the two are equal."""

import pytest
from figure_page import HBM_BYTES, STEP_KEYS, ledger_total, open_figure, wait_applied

SIZES = {"N": 8, "N_kv": 8, "Br": 4, "Bc": 4}
# Elements painted as a masked score: @paper filled, @edge outlined (figlib's MASKED).
MASKED = """() => [...document.querySelectorAll('#kv-figure svg rect')].filter((r) =>
  r.style.fill === 'var(--kv-paper)' && r.style.stroke === 'var(--kv-edge)').length"""
# (first diagonal fill step, its masked cells: c > r in a 4 x 4 tile, and a step the mask leaves out)
PAGES = {
    "flash-attention-1": ("fill Sij j=0 i=0", 6, "load Q,O,l,m j=1 i=0"),
    "flash-attention-2": ("fill Sij i=0 j=0", 6, "load K,V i=0 j=1"),
}


def go(page, key):
    keys = page.evaluate(STEP_KEYS)
    page.evaluate("(k) => window.kernelviz.goTo(k)", keys.index(key))
    return keys


@pytest.mark.parametrize("slug", PAGES)
def test_causal_from_the_form_and_the_url_masks_tiles_and_cells(reading, site_url, slug):
    page, (fill, masked, skipped) = reading, PAGES[slug]
    causal = {**SIZES, "causal": 1}
    open_figure(page, f"{site_url}/{slug}.html")
    go(page, fill)
    assert page.evaluate(MASKED) == 0, "no masked cell without the mask"
    page.locator("form.kv-sizes input[name=causal]").fill("1")
    wait_applied(page, causal)
    keys = go(page, fill)
    assert page.evaluate(MASKED) == masked
    assert skipped not in keys and fill in keys
    page.evaluate("(k) => window.kernelviz.goTo(k)", len(keys) - 1)
    assert page.evaluate(HBM_BYTES) == ledger_total(slug, causal) < ledger_total(slug, {**SIZES, "causal": 0})
    assert "causal=1" in page.evaluate("location.hash")
    page.goto(f"{site_url}/{slug}.html#N=8&N_kv=8&Br=4&Bc=4&causal=1&step=2")  # a link, then a fresh load
    page.reload()
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    wait_applied(page, causal)
    assert page.locator("form.kv-sizes input[name=causal]").input_value() == "1"
    keys = go(page, fill)
    assert page.evaluate(MASKED) == masked and skipped not in keys
    page.locator("form.kv-sizes input[name=N]").fill("12")  # N_kv follows N while they are equal
    wait_applied(page, {**causal, "N": 12, "N_kv": 12})
    keys = page.evaluate(STEP_KEYS)
    page.evaluate("(k) => window.kernelviz.goTo(k)", len(keys) - 1)
    assert page.evaluate(HBM_BYTES) == ledger_total(slug, {**causal, "N": 12, "N_kv": 12})
    assert page.errors == []
