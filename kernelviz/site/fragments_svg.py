"""A tile of a warp's registers as inline SVG, drawn at build time: a grid of cells, each coloured by the lane that
holds it, readable without JavaScript, in either theme, at a phone's width and a desktop's.

    picture([Cell(row=0, col=0, lane=0, i=0, label="a0"), ...], rows=16, cols=16, ident="kv-frag-1", title="...",
            desc="...", highlight={4, 5, 6, 7})

Each cell is ``<g class="kv-frag-gG kv-frag-tT" transform="translate(X Y)" data-row data-col data-lane data-i>``
(G = lane >> 2, the groupID; T = lane % 4, the threadID_in_group; data-i: the element's index in the lane, 3 for a3)
holding a <rect> and two <text>: the lane ("T5", class ``ln``) and, smaller, the label (``el``). What every cell
shares is the stylesheet's, not repeated per cell (a page has about 650 cells): the rect's size and corners, the
texts' anchor (``.kv-frag`` in site-drawn.css, which also gives the fill: the hue by G, the shade by T, so the 32 lanes
differ, each in a light and a dark version). A cell wider than one column says its width itself.
A cell may `span` several columns (a row of an 8×8 matrix, in the ldmatrix picture). With `highlight` (a set of
lanes) their cells get ``kv-frag-on`` and the others ``kv-frag-off`` (drawn faded). Row and column indices run along
the left and top edges; a wider gap after row 7 and column 7 marks the 8×8 blocks the registers come in.

The drawing keeps its proportions: a viewBox of about a pixel a unit at its natural size, shrunk to the column's
width (``max-width: 100%``), so a 16-column tile (``kv-frag-wide``) is 0.58 of its size in a 390 px phone's 350 px
column: on a narrow screen the stylesheet enlarges its text (19-unit lanes: 11 px there). When its cells are single
elements (``kv-frag-dense``) it shows there the lane's number alone and hides the element (the <desc> says the
rule that gives it).
The <svg> is ``role="img"``, labelled by its <title> and described by its <desc>: its text alternative.
"""

from dataclasses import dataclass

from markdown_it.common.utils import escapeHtml

CELL_W, CELL_H = 36, 38  # units (about px at the natural size)
EDGE = 24  # room for the indices, left and top
SPLIT = 5  # the extra gap after row 7 and column 7
LANE_Y, LABEL_Y = 18, 32  # baselines of the lane and the label in a cell


@dataclass(frozen=True)
class Cell:
    row: int
    col: int
    lane: int  # 0..31
    i: int  # the element's index among the lane's (a3: 3)
    label: str  # what the cell says beside the lane: "a3"
    span: int = 1  # columns covered


def picture(cells, *, rows, cols, ident, title, desc, highlight=None):
    """The <svg> markup (see the module docstring). Raises ValueError for a cell outside the tile or a lane outside
    0..31."""
    for c in cells:
        if not (0 <= c.row < rows and c.col >= 0 and c.col + c.span <= cols and 0 <= c.lane < 32):
            raise ValueError(f"fragment picture: {c} is outside a {rows}×{cols} tile of 32 lanes")
    size = (" kv-frag-wide" if cols > 8 else "") + (
        " kv-frag-dense" if cols > 8 and any(c.span == 1 for c in cells) else ""
    )
    width, height = _x(cols - 1) + CELL_W + 2, _y(rows - 1) + CELL_H + 2
    parts = [
        f'<svg class="kv-frag{size}" id="{ident}" role="img" '
        f'viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" aria-labelledby="{ident}-title" aria-describedby="{ident}-desc">',
        f'<title id="{ident}-title">{escapeHtml(title)}</title><desc id="{ident}-desc">{escapeHtml(desc)}</desc>',
    ]
    for c in range(cols):
        x = _x(c) + CELL_W / 2
        parts.append(f'<text class="kv-frag-index" x="{x:g}" y="{EDGE - 7}">{c}</text>')
    for r in range(rows):
        y = _y(r) + CELL_H / 2 + 5
        parts.append(f'<text class="kv-frag-index kv-frag-row" x="{EDGE - 6}" y="{y:g}">{r}</text>')
    parts += [_cell(c, highlight) for c in cells]
    parts.append("</svg>")
    return "".join(parts)


def _cell(c, highlight):
    x, y = _x(c.col), _y(c.row)
    w = _x(c.col + c.span - 1) + CELL_W - x - 2  # the stylesheet's CELL_W - 2 for a cell of one column
    lit = "" if highlight is None else (" kv-frag-on" if c.lane in highlight else " kv-frag-off")
    wide = "" if c.span == 1 else f' style="width:{w:g}px"'
    return (
        f'<g class="kv-frag-g{c.lane >> 2} kv-frag-t{c.lane % 4}{lit}" transform="translate({x:g} {y:g})" '
        f'data-row="{c.row}" data-col="{c.col}" data-lane="{c.lane}" data-i="{c.i}"><rect{wide}/>'
        f'<text class="ln" x="{1 + w / 2:g}" y="{LANE_Y}"><tspan>T</tspan>{c.lane}</text>'
        f'<text class="el" x="{1 + w / 2:g}" y="{LABEL_Y}">{escapeHtml(c.label)}</text></g>'
    )


def _x(col):
    return EDGE + col * CELL_W + (SPLIT if col >= 8 else 0)


def _y(row):
    return EDGE + row * CELL_H + (SPLIT if row >= 8 else 0)
