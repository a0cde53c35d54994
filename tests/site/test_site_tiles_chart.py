"""The ``tiles-per-block`` fence: a bar per block of rows, without and with the causal mask, drawn at build time from
two runs of the page's trace, checked against the mask counted cell by cell; and its warnings."""

import re

import pytest

from kernelviz.site import bars_svg
from tests.attention.grid_ticks import visited_cell_by_cell

RECT = re.compile(r'<rect class="kv-bar kv-bars-(\w+)" x="[^"]+" y="[^"]+" width="[^"]+" height="([^"]+)" '
                  r'data-index="(\d+)" data-value="(\d+)">')  # fmt: skip


def page(sizes, fence):
    front = f"title: C\ntrace:\n  full: {{algo: fa2, {sizes}}}\n  masked: {{algo: fa2, {sizes}, causal: true}}"
    return f"---\n{front}\n---\nBefore.\n\n{fence}\n\nAfter.\n"


def bars(html):
    """{series: [(index, value, height)]} of the charts' bars, in the order drawn."""
    out = {}
    for key, height, i, v in RECT.findall(html):
        out.setdefault(key, []).append((int(i), int(v), float(height)))
    return out


def test_the_bars_are_the_tiles_each_block_visits(build_site):
    """N = 30 against N_kv = 45 in tiles of 7 and 4: 5 blocks, 12 tiles each without the mask."""
    fence = '```tiles-per-block full="full" masked="masked"\nAt N = {{ trace.full.N }}, Tc = {{ trace.full.Tc }}.\n```'
    result, out = build_site({"c.md": page("N: 30, N_kv: 45, d: 2, Br: 7, Bc: 4", fence)})
    assert result.warnings == []
    html = (out / "c.html").read_text()
    drawn = bars(html)
    for key, causal in (("full", False), ("masked", True)):
        tiles = visited_cell_by_cell(30, 45, 7, 4, causal)
        assert [(i, v) for i, v, _ in drawn[key]] == list(enumerate(tiles))
    tallest = max(h for key in drawn for _, _, h in drawn[key])
    for key in drawn:  # heights in proportion to the tiles, the tallest bar the most tiles (12)
        for _, v, h in drawn[key]:
            assert h / tallest == pytest.approx(v / 12, abs=1e-3)
    figure = re.search(r'<figure class="kv-bars-figure">(.*?)</figure>', html, re.S).group(1)
    assert "<figcaption>At N = 30, Tc = 12.</figcaption>" in figure
    svg = re.search(r"<svg class=\"kv-bars\"[^>]*>", figure).group(0)
    assert (
        'role="img"' in svg
        and 'aria-labelledby="kv-bars-1-title"' in svg
        and 'aria-describedby="kv-bars-1-desc"' in svg
    )
    masked = visited_cell_by_cell(30, 45, 7, 4, True)
    desc = re.search(r'<desc id="kv-bars-1-desc">([^<]*)</desc>', figure).group(1)
    assert desc == (
        f"5 blocks. Without the mask every block visits 12 tiles, 60 in all. With the mask block 0 visits "
        f"{masked[0]} tiles and block 4 visits {masked[-1]} tiles, {sum(masked)} in all."
    )
    assert '<title id="kv-bars-1-title">' in figure and "without the mask</li>" in figure
    assert html.index("Before.") < html.index("kv-bars-figure") < html.index("After.")


@pytest.mark.parametrize(
    ("fence", "message"),
    [
        ('```tiles-per-block full="full" masked="nope"\n```', "masked='nope' is not an fa1 or fa2 run"),
        ('```tiles-per-block masked="masked"\n```', "full=NAME names an fa1 or fa2 run"),
        ('```tiles-per-block full="std" masked="masked"\n```', "full='std' is not an fa1 or fa2 run"),
        ('```tiles-per-block full="short" masked="masked"\n```', "the runs have 2 and 5 blocks; give both one N"),
        ('```tiles-per-block full="full" masked="masked"\n{{ trace.full.nope }}\n```', "{{ trace.full.nope }}"),
        (
            '```tiles-per-block full="full" masked="masked" colour="red"\n```',
            'tiles-per-block: unknown attribute \'colour\'; expected full="NAME" and masked="NAME"',
        ),
        ('```tiles-per-block full="full" masked="masked" wide\n```', "unknown attribute 'wide'"),
        (
            '```tiles-per-block full="short" masked="masked" full="full"\n```',
            "tiles-per-block: full is given 2 times ('short', then 'full'); give it once",
        ),
    ],
)
def test_a_chart_that_cannot_be_drawn_is_a_warning_at_its_fence(build_site, line, fence, message):
    sizes = "N: 30, d: 2, Br: 7, Bc: 4"
    source = page(sizes, fence).replace(
        "\n---\nBefore", "\n  std: {algo: standard, N: 30, d: 2, Br: 7, Bc: 4}\n"
        "  short: {algo: fa2, N: 8, d: 2, Br: 4, Bc: 4}\n---\nBefore"
    )  # fmt: skip
    result, out = build_site({"c.md": source})
    (w,) = result.warnings
    assert w.line == line(source, "```tiles-per-block") and message in w.message, w


def test_the_chart_refuses_series_it_cannot_draw():
    with pytest.raises(ValueError, match="at least one series"):
        bars_svg.chart([], ident="c", title="t", desc="d", x_label="x", y_label="y")
    series = [bars_svg.Series("a", "A", [1, 2]), bars_svg.Series("b", "B", [1])]
    with pytest.raises(ValueError, match="one value per index, all as many; got lengths"):
        bars_svg.chart(series, ident="c", title="t", desc="d", x_label="x", y_label="y")
    with pytest.raises(ValueError, match="series 'a' has a negative value"):
        bars_svg.chart([bars_svg.Series("a", "A", [1, -2])], ident="c", title="t", desc="d", x_label="x", y_label="y")


def test_fence_info_names_what_is_given_twice():
    from kernelviz.site.extensions import fence_info

    info = "tiles-per-block full=\"a\" masked=b full='c' full=d"
    assert fence_info.parse(info) == ("tiles-per-block", {"full": "d", "masked": "b"}, "")
    assert fence_info.repeated(info) == {"full": ["a", "c", "d"]}
    assert fence_info.repeated('cuda cite="x.cu#r"') == {}
