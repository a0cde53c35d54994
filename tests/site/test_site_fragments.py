"""The ``fragments`` fence: pictures of the mma.m16n8k16 fragment layouts, drawn at build time, checked cell by cell
against the tables the CPU shim compiles (the checked-in cpu/fragments.h, read as C++ text: one source for both),
against the PTX ISA's formulas worked by hand, and against fa2_mma.cu's ldmatrix addressing; its highlight, its
text alternative, its warnings, and the contrast of a lane's label on its fill in both themes."""

import math
import re
from pathlib import Path

import pytest

from kernelviz.cuda.fragments import HEADER

FIGURE = re.compile(r'<figure class="kv-frag-figure">(.*?)</figure>', re.S)
CELL = re.compile(
    r'<g class="(kv-frag-g[^"]*)" transform="[^"]*" data-row="(\d+)" data-col="(\d+)" data-lane="(\d+)" '
    r'data-i="(\d+)">'
)
FENCES = ["A", "B", "C", 'C" highlight="4-7', "ldmatrix"]
SHAPES = {"A": (16, 16), "B": (16, 8), "C": (16, 8)}


def page(fences):
    body = "\n\n".join(f'```fragments operand="{f}"\nThe layout of {f[0]}.\n```' for f in fences[:-1])
    body += f'\n\n```fragments operand="{fences[-1]}"\n```'  # no caption
    return f"---\ntitle: F\n---\nBefore.\n\n{body}\n\nAfter.\n"


def figures(html):
    """[(figure html, {(row, col): (lane, i, classes)})] of the page's fragment pictures, in order."""
    out = []
    for figure in FIGURE.findall(html):
        cells = {}
        for classes, row, col, lane, i in CELL.findall(figure):
            assert (int(row), int(col)) not in cells, f"two cells at {row}, {col}"
            cells[int(row), int(col)] = (int(lane), int(i), classes.split())
        out.append((figure, cells))
    return out


def header_tables():
    """{"A": {(row, col): (lane, i)}, ...} from the KV_MMA_* arrays of the C++ header the shim compiles."""
    text = Path(HEADER).read_text()
    tables = {}
    for op, n, body in re.findall(r"KV_MMA_([ABC])\[32\]\[(\d)\]\[2\] = \{(.*?)\n\};", text, re.S):
        pairs = [(int(r), int(c)) for r, c in re.findall(r"\{(\d+), (\d+)\}", body)]
        assert len(pairs) == 32 * int(n)
        tables[op] = {rc: divmod(k, int(n)) for k, rc in enumerate(pairs)}
    assert sorted(tables) == ["A", "B", "C"]
    return tables


@pytest.fixture(scope="module")
def built(tmp_path_factory, fake_dist):
    from kernelviz.site.build import build

    pages = tmp_path_factory.mktemp("pages")
    (pages / "f.md").write_text(page(FENCES))
    out = pages.parent / "site"
    result = build(pages, out, strict=True, web_dist=fake_dist, log=None)
    return result, (out / "f.html").read_text()


def test_every_cell_is_where_the_shims_header_puts_it(built):
    result, html = built
    assert result.warnings == []
    drawn = figures(html)
    assert len(drawn) == len(FENCES)
    tables = header_tables()
    for (_, cells), op in zip(drawn[:3], "ABC", strict=True):
        rows, cols = SHAPES[op]
        assert len(cells) == rows * cols and len(tables[op]) == rows * cols  # every element once
        assert {rc: (lane, i) for rc, (lane, i, _) in cells.items()} == tables[op], op
        for lane, _, classes in cells.values():  # the colour classes: groupID and threadID_in_group
            assert f"kv-frag-g{lane // 4}" in classes and f"kv-frag-t{lane % 4}" in classes
    assert "<figcaption>The layout of A.</figcaption>" in drawn[0][0]
    assert html.index("Before.") < html.index("kv-frag-figure") < html.index("After.")


def test_cells_agree_with_the_isa_worked_by_hand(built):
    """groupID = lane >> 2, threadID_in_group = lane % 4 (PTX ISA, mma.m16n8k16 .f16)."""
    a, b, c = (cells for _, cells in figures(built[1])[:3])
    assert a[1, 2][:2] == (5, 0)  # lane 5: group 1, thread 1; a0 at row group, col 2·thread
    assert a[9, 11][:2] == (5, 7)  # a7 at row group + 8, col 2·thread + 9
    assert b[12, 1][:2] == (6, 2)  # lane 6: group 1, thread 2; b2 at row 2·thread + 8, col group
    assert c[10, 2][:2] == (9, 2)  # lane 9: group 2, thread 1; c2 at row group + 8, col 2·thread
    assert c[7, 7][:2] == (31, 1)


def test_the_ldmatrix_picture_is_fa2_mmas_addressing(built):
    """fa2_mma.cu loads Q with ldmatrix_x4(&Qi[warp*16 + lane%16][k*16 + lane/16*8]): lane L names row L % 16 of the
    tile, from column 8·(L / 16)."""
    figure, cells = figures(built[1])[4]
    assert len(cells) == 32
    for lane in range(32):
        assert cells[lane % 16, lane // 16 * 8][0] == lane
    assert "matrix 2 (rows 0 to 7, columns 8 to 15): lanes 16 to 23" in figure and "<figcaption>" not in figure


def test_a_highlight_fades_every_other_lane(built):
    figure, cells = figures(built[1])[3]
    for (row, _), (lane, _, classes) in cells.items():
        on = 4 <= lane <= 7
        assert ("kv-frag-on" in classes, "kv-frag-off" in classes) == (on, not on)
        assert on == (row in (1, 9))  # one quad holds two whole rows of C
    assert "Lanes 4 to 7 (drawn emphasized, the other lanes faded) hold all of rows 1 and 9." in figure
    assert not any("kv-frag-o" in " ".join(cls) for _, _, cls in figures(built[1])[2][1].values())


def test_the_text_alternative_states_the_rule(built):
    figure = figures(built[1])[0][0]
    svg = re.search(r"<svg [^>]*>", figure).group(0)
    assert 'role="img"' in svg and 'aria-describedby="kv-frag-1-desc"' in svg and 'viewBox="0 0 ' in svg
    desc = re.search(r'<desc id="kv-frag-1-desc">([^<]*)</desc>', figure).group(1)
    assert "The row is groupID for a0, a1, a4 and a5; groupID + 8 for a2, a3, a6 and a7." in desc
    assert "threadID_in_group × 2 + 9 for a5 and a7" in desc


@pytest.mark.parametrize(
    ("info", "message"),
    [
        ('operand="D"', "operand='D' is not one of A, B, C, ldmatrix"),
        ("", "operand=NAME must be one of"),
        ('operand="C" highlight="4-40"', "highlight='4-40' is not a lane 0..31"),
        ('operand="C" highlight="7-4"', "highlight='7-4' is not a lane 0..31"),
        ('operand="A" colour="red"', "unknown attribute 'colour'"),
    ],
)
def test_a_picture_that_cannot_be_drawn_is_a_warning_at_its_fence(build_site, line, info, message):
    source = f"---\ntitle: F\n---\nBefore.\n\n```fragments {info}\nCaption.\n```\n"
    result, out = build_site({"f.md": source})
    (w,) = result.warnings
    assert w.file.endswith("f.md") and w.line == line(source, "```fragments") and message in w.message, w
    assert "kv-frag-figure" not in (out / "f.html").read_text()


def test_a_lanes_label_reads_on_its_fill_in_both_themes():
    """The fills in site-drawn.css (OKLCH) are in the sRGB gamut and site.css's ink on each is at WCAG AA contrast."""
    static = Path(__file__).parents[2] / "kernelviz/site/static"
    css = (static / "site.css").read_text() + (static / "site-drawn.css").read_text()
    hues = [float(h) for h in re.findall(r"\.kv-frag-g\d \{ --kv-frag-hue: ([\d.]+); \}", css)]
    shades = re.findall(
        r"\.kv-frag-t\d > rect \{ fill: light-dark\(oklch\(([\d.]+) ([\d.]+) var\(--kv-frag-hue\)\), "
        r"oklch\(([\d.]+) ([\d.]+) var\(--kv-frag-hue\)\)\); \}",
        css,
    )
    ink = re.search(r"--site-ink: light-dark\((#\w{6}), (#\w{6})\);", css).groups()
    assert len(hues) == 8 and len(shades) == 4
    for theme in (0, 1):
        for shade in shades:
            lightness, chroma = float(shade[2 * theme]), float(shade[2 * theme + 1])
            for hue in hues:
                rgb = _oklch_linear_srgb(lightness, chroma, hue)
                assert all(-1e-3 <= x <= 1 + 1e-3 for x in rgb), (theme, lightness, chroma, hue)
                assert _contrast(_luminance(rgb), _luminance(_hex_linear(ink[theme]))) >= 4.5, (theme, shade, hue)


def _oklch_linear_srgb(lightness, chroma, hue):
    """Björn Ottosson's OKLab to linear sRGB."""
    a, b = chroma * math.cos(math.radians(hue)), chroma * math.sin(math.radians(hue))
    l_ = (lightness + 0.3963377774 * a + 0.2158037573 * b) ** 3
    m_ = (lightness - 0.1055613458 * a - 0.0638541728 * b) ** 3
    s_ = (lightness - 0.0894841775 * a - 1.2914855480 * b) ** 3
    return (
        4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_,
        -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_,
        -0.0041960863 * l_ - 0.7034186147 * m_ + 1.7076147010 * s_,
    )


def _hex_linear(colour):
    channels = [int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
    return [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in channels]


def _luminance(rgb):
    r, g, b = (min(max(x, 0.0), 1.0) for x in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(y1, y2):
    return (max(y1, y2) + 0.05) / (min(y1, y2) + 0.05)
