"""Palette colours and item names in the renderer (figure contract B and C): a colour "@name" is drawn as
var(--kv-name), so the page's stylesheet (and a dark theme) decides it; literal colours keep working, also when a
step changes one into the other; an item's `kv` is its <text>'s data-kv."""

import pytest
from test_figure_harness import harness_dir, open_page


def item(**fields):
    base = {"x": 0, "y": 0, "w": 2, "h": 1, "fill": "none", "stroke": "none", "label": "", "font": 14, "wrap": 0}
    return {**base, "line": False, "color": "#27272a", **fields}


SCENE = {
    "version": 1,
    "canvas": {"side": "right"},
    "settings": {"unit": 40, "gridOpacity": 0, "canvasColor": "@paper", "originX": 0, "originY": 0},
    "nodes": [
        {
            "id": "fig",
            "kind": "diagram",
            "items": [
                item(fill="@q-fill", stroke="@q", label="Q0", color="@ink"),
                item(x=3, fill="#ff0000", stroke="teal", label="K0"),
                item(x=0, y=-2, w=0, h=0, label="HBM 0 B", kv="hbm-bytes"),
            ],
        },
        {"id": "t", "kind": "text", "label": "title", "x": 0, "y": 2, "size": 14, "stroke": "@ink", "fill": "@ink"},
        {
            "id": "steps",
            "kind": "step_list",
            "figure": {"ref": "fig"},
            "steps": [
                {"label": "start"},
                {
                    "label": "swap",
                    "end": [[0, {"fill": "#00ff00"}], [1, {"fill": "@k-fill"}], [2, {"label": "HBM 64 B"}]],
                },
            ],
        },
    ],
}
PALETTE_CSS = (
    ":root { --kv-q: #123456; --kv-q-fill: #abcdef; --kv-ink: #111111; --kv-k-fill: #fedcba; --kv-paper: #fafafa }"
)

COLOURS = """() => [...document.querySelectorAll('#kv-figure g[data-item]')].map((g) => {
  const r = g.querySelector('rect'), t = g.querySelector('text');
  const style = (e) => e && getComputedStyle(e);
  return { fill: r && style(r).fill, stroke: r && style(r).stroke, text: t && style(t).fill,
           kv: t && t.dataset.kv, label: t && t.textContent }; })"""


@pytest.fixture
def page(browser, serve_dir):
    page = open_page(browser, serve_dir(harness_dir()) + "/index.html", reduced_motion="reduce")
    page.add_style_tag(content=PALETTE_CSS)
    assert page.evaluate("(s) => window.kernelviz.setScene(s)", SCENE) is True
    yield page
    page.context.close()


def test_palette_names_are_drawn_from_the_stylesheet_and_literals_as_given(page):
    q, k, hbm = page.evaluate(COLOURS)
    assert (q["fill"], q["stroke"], q["text"]) == ("rgb(171, 205, 239)", "rgb(18, 52, 86)", "rgb(17, 17, 17)")
    assert (k["fill"], k["stroke"]) == ("rgb(255, 0, 0)", "rgb(0, 128, 128)")
    fill = "(e) => getComputedStyle(e).fill"
    assert page.locator("#kv-figure rect.kv-background").evaluate(fill) == "rgb(250, 250, 250)"
    assert page.locator("#kv-figure text.kv-text").evaluate(fill) == "rgb(17, 17, 17)"
    # A theme restyles the figure: the variables change, the figure follows without being drawn again.
    page.evaluate("document.documentElement.style.setProperty('--kv-q-fill', '#010203')")
    assert page.evaluate(COLOURS)[0]["fill"] == "rgb(1, 2, 3)"
    scene = page.evaluate("window.kernelviz.scene()")
    assert scene["nodes"][0]["items"][0]["fill"] == "@q-fill"  # the scene keeps the names
    assert page.errors == []


def test_a_step_turns_a_name_into_a_literal_and_back(page):
    page.evaluate("window.kernelviz.goTo(1)")
    q, k, _ = page.evaluate(COLOURS)
    assert q["fill"] == "rgb(0, 255, 0)" and k["fill"] == "rgb(254, 220, 186)"
    page.evaluate("window.kernelviz.goTo(0)")
    q, k, _ = page.evaluate(COLOURS)
    assert q["fill"] == "rgb(171, 205, 239)" and k["fill"] == "rgb(255, 0, 0)"


def test_an_items_kv_is_its_texts_data_kv(page):
    assert page.locator('#kv-figure svg [data-kv="hbm-bytes"]').count() == 1
    assert page.locator('#kv-figure svg text[data-kv="hbm-bytes"]').text_content() == "HBM 0 B"
    page.evaluate("window.kernelviz.goTo(1)")
    assert page.locator('#kv-figure svg text[data-kv="hbm-bytes"]').text_content() == "HBM 64 B"
    assert page.locator("#kv-figure svg [data-kv]").count() == 1  # only the item that has one
