"""Pictures of the tensor-core fragment layouts, drawn at build time from ``kernelviz.cuda.fragments`` (the source
the CPU shim's tables in cpu/fragments.h are written from): a fence

    ```fragments operand="C" highlight="4-7"
    One row of C is held by the four lanes of a quad.      (the caption; {{ trace.EXPR }} placeholders are filled)
    ```

draws the tile of an mma.m16n8k16 operand, ``operand`` one of A (16×16, a0..a7), B (16×8, k by n, b0..b3) and C
(16×8, the fp32 accumulator, c0..c3), each cell coloured and labelled by the lane that holds it and labelled with its
register element (``fragments_svg``); or ``operand="ldmatrix"``: which lane gives the address of each 8-element row
of a 16×16 tile loaded by one ldmatrix .x4, matrix m at rows 8(m % 2).., columns 8(m // 2).. (as fa2_mma.cu loads Q:
the A operand's four 8×8 blocks, a0a1, a2a3, a4a5, a6a7). ``highlight="5"`` or ``"4-7"``: those lanes' cells drawn
emphasized, the others faded. The picture's text alternative states the layout's rule, derived from the table (not
typed), and what the highlighted lanes hold. An unknown operand, a bad highlight or an unknown attribute is a warning
at the fence's line.
"""

import re

from markdown_it.common.utils import escapeHtml

from ...cuda import fragments
from .. import fragments_svg
from ..fragments_svg import Cell
from . import fence_info, placeholders

LANGUAGE = "fragments"
OPERANDS = ("A", "B", "C", "ldmatrix")
ATTRS = {"operand", "highlight"}
AXES = {"A": ("m", "k"), "B": ("k", "n"), "C": ("m", "n")}  # what the rows and the columns run over
LANES = re.compile(r"(\d+)(?:-(\d+))?")
# The terms a row or a column is built from (PTX ISA): groupID = lane >> 2, threadID_in_group = lane % 4.
TERMS = (
    ("groupID", lambda lane: lane >> 2),
    ("threadID_in_group × 2", lambda lane: 2 * (lane % 4)),
    ("threadID_in_group", lambda lane: lane % 4),
)


def resolve(page, context):
    for token, line, n in fence_info.fences(page.tokens, LANGUAGE):
        token.meta["html"] = _figure(page, token, line, context, f"kv-frag-{n}")


def _figure(page, token, line, context, ident):
    _, attrs, leftover = fence_info.parse(token.info)

    def warn(message):
        context.diagnostics.warn(page.file, line, f"{LANGUAGE}: {message}")
        return ""

    unknown = sorted(set(attrs) - ATTRS) + ([leftover] if leftover else [])
    if unknown:
        return warn(f"unknown attribute {', '.join(map(repr, unknown))}; expected operand=... and highlight=...")
    operand = attrs.get("operand")
    if operand not in OPERANDS:
        what = f"operand={operand!r} is not" if operand else "operand=NAME must be"
        return warn(f"{what} one of {', '.join(OPERANDS)}")
    highlight = lanes(attrs.get("highlight"))
    if highlight == ():
        return warn(f'highlight={attrs["highlight"]!r} is not a lane 0..31 or a range of lanes such as "4-7"')
    if operand == "ldmatrix":
        cells, (rows, cols) = ldmatrix_cells(), (16, 16)
        title = "ldmatrix .x4 of a 16×16 tile: the lane that gives the address of each 8-element row"
        desc = ldmatrix_rule()
    else:
        cells, (rows, cols) = operand_cells(operand), fragments.SHAPES[operand]
        m, n = AXES[operand]
        title = f"Operand {operand} of mma.m16n8k16 ({rows}×{cols}, {m} by {n}): the lane that holds each element"
        desc = operand_rule(operand)
    if highlight is not None:
        desc += " " + held(cells, highlight)
    svg = fragments_svg.picture(cells, rows=rows, cols=cols, ident=ident, title=title, desc=desc, highlight=highlight)
    caption = escapeHtml(placeholders.fill(token.content.strip(), page, line, context))
    caption = f"<figcaption>{caption}</figcaption>" if caption else ""  # an empty fence: the picture alone
    return f'<figure class="kv-frag-figure">{svg}{caption}</figure>\n'


def lanes(text):
    """The lanes `text` names ("5", "4-7") as a range; None for no text; () when it names none of 0..31."""
    if text is None:
        return None
    m = LANES.fullmatch(text.strip())
    if not m:
        return ()
    lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
    return range(lo, hi + 1) if lo <= hi < fragments.WARP else ()


def operand_cells(operand):
    letter = operand.lower()
    return [
        Cell(row, col, lane, i, f"{letter}{i}")
        for lane, elements in enumerate(fragments.table(operand))
        for i, (row, col) in enumerate(elements)
    ]


def ldmatrix_cells():
    """A row of 8 elements a cell: matrix m's row r at tile row 8(m % 2) + r, columns 8(m // 2) to + 7 (i: m, the
    register the matrix lands in)."""
    return [
        Cell(8 * (m % 2) + r, 8 * (m // 2), fragments.ldmatrix_row_lane(m, r), m, f"matrix {m}, row {r}", span=8)
        for m in range(4)
        for r in range(8)
    ]


def operand_rule(operand):
    """The layout in words: for row and column, which elements follow which formula, found by fitting each element's
    coordinates over the 32 lanes to a term of TERMS plus a constant."""
    letter, table = operand.lower(), fragments.table(operand)
    n = fragments.ELEMENTS[operand]
    rows, cols = fragments.SHAPES[operand]
    clauses = []
    for axis, name in ((0, "row"), (1, "column")):
        formulas = {}
        for i in range(n):
            formulas.setdefault(_formula(operand, i, [elements[i][axis] for elements in table]), []).append(i)
        clauses.append(f"The {name} is " + "; ".join(f"{f} for {_names(letter, idx)}" for f, idx in formulas.items()))
    return (
        f"Operand {operand} of mma.m16n8k16, a {rows}×{cols} tile spread over the {fragments.WARP} lanes of a warp, "
        f"{n} elements a lane ({letter}0 to {letter}{n - 1}). With groupID = lane >> 2 and threadID_in_group = "
        f"lane % 4: {'. '.join(clauses)}. Each cell is labelled with its lane and coloured by it: the hue by "
        f"groupID, the shade by threadID_in_group."
    )


def _formula(operand, i, values):
    for term, of in TERMS:
        k = values[0] - of(0)
        if all(v == of(lane) + k for lane, v in enumerate(values)):
            return term if k == 0 else f"{term} + {k}"
    raise ValueError(f"fragment layout {operand}: element {i}'s coordinates fit no term of {[t for t, _ in TERMS]}")


def ldmatrix_rule():
    blocks = [
        f"matrix {m} (rows {8 * (m % 2)} to {8 * (m % 2) + 7}, columns {8 * (m // 2)} to {8 * (m // 2) + 7}): lanes "
        f"{fragments.ldmatrix_row_lane(m, 0)} to {fragments.ldmatrix_row_lane(m, 7)}, a row each"
        for m in range(4)
    ]
    return (
        "An ldmatrix .x4 loads a 16×16 tile of 16-bit elements as four 8×8 matrices, each lane giving the address of "
        f"one 8-element row: {'; '.join(blocks)}. Each cell is an 8-element row, labelled with the lane that gives "
        "its address and coloured by it."
    )


def held(cells, highlight):
    """What the highlighted lanes hold, in words: their rows, and whether each of those rows is theirs alone."""
    mine = [c for c in cells if c.lane in highlight]
    rows = sorted({c.row for c in mine})
    whole = all(c.lane in highlight for c in cells if c.row in rows)
    one = len(highlight) == 1
    who = f"Lane {highlight[0]}" if one else f"Lanes {highlight[0]} to {highlight[-1]}"
    what = "all of" if whole else "elements of"
    return (
        f"{who} (drawn emphasized, the other lanes faded) hold{'s' if one else ''} {what} "
        f"row{'s' if len(rows) > 1 else ''} {_and(rows)}."
    )


def _names(letter, indices):
    return _and([f"{letter}{i}" for i in indices])


def _and(items):
    items = [str(x) for x in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
