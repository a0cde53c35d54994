"""What frames a figure, in Chromium: the overview says what it is about and what its colours mean (each legend
swatch drawn exactly as the canvas draws that kind of tile), and every figure's canvas settings sit above it under
names a reader knows, each number with its unit."""

import pytest

LOOKS = {  # legend entry -> a tile of the canvas drawn that way, in a state where one exists
    "sram": ("", "[data-tile='Q1'][data-look='sram']"),
    "hbm": ("", "[data-tile='K5'][data-look='hbm']"),
    "visited": ("&phase=1&j=3", "[data-tile^='S'][data-look='visited']"),
    "masked": ("&causal=1&i=1&Br=64&Bc=16", "[data-look='masked']"),
}


def test_the_overview_is_framed_as_exact_attention_around_the_memory_hierarchy(page, site_url):
    page.goto(f"{site_url}/overview.html")
    lede = page.locator(".kv-prose p").first.text_content()
    assert lede == "Exact attention, reorganized around the memory hierarchy."
    before = page.locator(".kv-prose p", has_text="Coloured blocks are on chip").evaluate(
        "(p) => p.compareDocumentPosition(document.getElementById('kv-explorer')) & Node.DOCUMENT_POSITION_FOLLOWING"
    )
    assert before, "the sentence that says what the colours mean comes before the explorer"


@pytest.mark.parametrize("kind", LOOKS)
def test_each_legend_swatch_is_drawn_as_the_canvas_draws_that_tile(page, site_url, kind):
    query, selector = LOOKS[kind]
    page.goto(f"{site_url}/overview.html?N=4096{query}")
    page.wait_for_selector("#kv-explorer[data-ready]")
    entry = page.locator(f".kvx-legend li[data-look='{kind}']")
    assert entry.is_visible()
    words = {"sram": "on chip", "hbm": "in HBM", "visited": "dropped", "masked": "causal"}[kind]
    assert words in entry.text_content()
    look = "(r) => ['fill', 'stroke', 'stroke-dasharray', 'opacity'].map((a) => r.getAttribute(a))"
    swatch = entry.locator("rect").evaluate(look)
    drawn = page.locator(f".kvx-canvas {selector} rect").first.evaluate(look)
    assert swatch == drawn


def test_the_causal_entry_shows_only_with_causal_masking(page, site_url):
    page.goto(f"{site_url}/overview.html?causal=0")
    page.wait_for_selector("#kv-explorer[data-ready]")
    assert page.locator(".kvx-legend li[data-look='masked']").is_hidden()
    page.check("#kvx-causal")
    assert page.locator(".kvx-legend li[data-look='masked']").is_visible()


@pytest.mark.parametrize(
    "name", ["online-softmax", "flash-attention-1", "flash-attention-2", "flash-attention-2-backward", "flash-decoding"]
)
def test_the_canvas_settings_sit_above_the_figure_with_readable_names_and_units(page, site_url, name):
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.goto(f"{site_url}/{name}.html")
    page.wait_for_selector("#kv-figure svg:not([data-prerendered])")
    settings = page.locator("#kv-figure .kv-settings")
    assert settings.is_visible()  # not folded away
    box = settings.bounding_box()
    canvas = page.locator("#kv-figure .kv-canvas").bounding_box()
    assert box["y"] + box["height"] <= canvas["y"] + 1
    names = [s.strip() for s in settings.locator(".kv-setting-name").all_text_contents()]
    assert names == ["Scale", "Grid opacity", "Background", "Origin x", "Origin y"]
    assert not {"unit", "gridOpacity", "canvasColor", "originX", "originY"} & set(settings.text_content().split())
    units = {"unit": "px per unit", "originX": "px right", "originY": "px up"}
    for setting, unit in units.items():
        described = settings.locator(f"input[name={setting}]").get_attribute("aria-describedby")
        assert page.locator(f"#{described}").text_content().endswith(unit)
