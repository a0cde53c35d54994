"""Where everything goes, computed from the sizes: never placed by hand per size.

From the top: the HBM counter and the word HBM; the tensors of HBM side by side, each a column of its tiles
(a tile as tall as its rows, so a ragged last tile is shorter; more than ``PER_COLUMN`` tiles wrap into a second
column); the grid of CUDA blocks (``PER_ROW`` squares a row); the word SRAM and the shared memory of the block in
view, one row of slots per kernel (``group``), registers under it (and, when the figure names whose registers they
are, the word Registers and a row for each owner, a warp, named at its left); the caption, under everything.

Sizes are canvas units; at the pages' unit (44 px) a tile is at least ``MIN_TILE`` units tall, so that its label,
``FONT`` px, fits, and no label is smaller than 11 px. Tensors stand far enough apart that their names, under them,
do not meet at that unit, however narrow the tensors (a vector per split: m(s), l(s)). On a phone the figure is
drawn smaller (the dense ones at about 0.4 of that unit) while no label goes under 11 px, so a label is then wider, in
canvas units, than at the pages' unit: ``growth`` estimates by how much, from the figure's extent in a phone's canvas
(``PHONE_CANVAS``), and where two neighbours' names (or the captions of two slots of shared memory) would meet at that
growth, every other one of them drops a line (``stagger``). A figure small enough to keep its labels' size on a phone
is laid out as it always was.
"""

import math

from .memory import spread

PER_COLUMN, PER_ROW = 8, 6
HBM_HEIGHT, MIN_TILE, GAP = 2.0, 0.3, 0.06
SQUARE, SQUARE_GAP = 0.3, 0.1
SLOT_HEIGHT = 1.2
REG_HEIGHT, REG_GAP = 0.5, 0.2  # an owner's register slots, and the gap to the next owner's row
FONT, SMALL = 13, 11
UNIT = 44  # px to a canvas unit on the pages: what draw() draws at unless told otherwise
NAME_EM = 0.6  # the advance of an average character of a sans-serif font, in em: wide enough for names
GLYPH_EM = 0.5  # that advance as drawn (DejaVu Sans, Chromium's sans-serif here, averages 0.5 to 0.55 em on names)
PHONE = 2.6  # how much wider a label can be in canvas units on a phone than at UNIT (11 px at a zoom of 0.4)
PHONE_CANVAS = (364, 250)  # px: the docked figure's canvas on a 390 x 844 phone (page/layout.css, its size form folded)
DROP = 0.75  # canvas units: a staggered label's line under its neighbours' (a line of 11 px at that zoom)
SPACE = 0.1  # canvas units at UNIT: the least room between two names on one line (a space, grown on a phone)
LINE_EM, GLYPHS_EM, PROSE_EM = 1.2, 1.15, 0.58  # a wrapped line's pitch, one line's glyphs, prose's mean advance
CAPTION_FONT, CAPTION_WRAP = 13, 9  # the step's caption: px, and the canvas units it wraps at (at least)


def name_width(name, font=FONT):
    """The width in canvas units of `name` written at `font` px, at ``UNIT`` px to the unit (an upper estimate)."""
    return len(name) * NAME_EM * font / UNIT


def stagger(centres, names, font=FONT, grow=PHONE):
    """The line (0 or 1) of each of `names` centred at `centres` left to right: 0, unless the name would meet the
    last name on line 0 when both are `grow` times as wide as at ``UNIT`` (then 1, and the next goes back to 0)."""
    lines, last = [], None
    for x, name in zip(centres, names, strict=True):
        half = grow * name_width(name, font) * GLYPH_EM / NAME_EM / 2  # as wide as drawn, not the upper estimate
        meets = last is not None and last[1] and x - half < last[0] + last[1] + SPACE * grow and lines[-1] == 0
        lines.append(1 if meets else 0)
        if lines[-1] == 0:
            last = (x, half)
    return lines


def caption_gap(grow):
    """How far under a slot the centre of its caption (``SMALL`` px, one line) goes, in canvas units, for the caption's
    top to stay 0.1 clear of the slot while it is `grow` times as tall as at ``UNIT`` (a phone): 0.25 at UNIT."""
    return 0.1 + GLYPHS_EM * SMALL / UNIT / 2 * grow


def caption_height(text, wrap, grow, font=CAPTION_FONT):
    """The height in canvas units of `text` at `font` px wrapped at `wrap` canvas units, on a screen that draws an 11
    px label `grow` times as tall as at ``UNIT`` (the label is drawn at no less than 11 px: ``growth``), its words
    wrapped greedily at ``PROSE_EM`` an average character (an upper estimate of what the browser draws)."""
    size = max(font, SMALL * grow) / UNIT  # canvas units of an em as drawn
    lines, used = 1, 0.0
    for word in text.split():
        w = len(word) * PROSE_EM * size
        if used and used + PROSE_EM * size + w > wrap:
            lines, used = lines + 1, w
        else:
            used += (PROSE_EM * size if used else 0) + w
    return ((lines - 1) * LINE_EM + GLYPHS_EM) * size


def growth(w, h):
    """How many times as wide (in canvas units) an 11 px label is on a phone as at ``UNIT``, for a drawing `w` by `h`
    units, and a caption of two lines under it, fitted to ``PHONE_CANVAS`` (the caption's lines grow as the zoom
    falls: found by a few rounds): 1 when the drawing is drawn at least at ``UNIT``, at most ``PHONE``."""
    zoom = 1.0
    for _ in range(4):
        caption = 2 * 1.2 * SMALL / (zoom * UNIT)
        zoom = min(1.0, PHONE_CANVAS[0] / (w * UNIT), PHONE_CANVAS[1] / ((h + caption) * UNIT))
    return min(PHONE, 1 / zoom)


def width(cols, unit=0.4, least=0.3, most=1.6):
    """The width of a slot or tensor of `cols` columns."""
    return max(least, min(most, unit * cols))


def place_hbm(tensors, top, grow=PHONE):
    """Give every tile of `tensors` its box; return the names' labels [(text, x, y)] and the bottom of HBM. A row
    of a matrix is as tall in every tensor (the tallest column is ``HBM_HEIGHT``), a tile at least ``MIN_TILE``."""
    columns = [math.ceil(len(t) / PER_COLUMN) for t in tensors]
    row_h = HBM_HEIGHT / max((min(t.rows, PER_COLUMN * t.tile) for t in tensors), default=1)
    widths = [t.width or width(t.cols) for t in tensors]
    spans = [c * w + (c - 1) * 0.1 for c, w in zip(columns, widths, strict=True)]
    centres = spread([max(span, name_width(t.name)) for t, span in zip(tensors, spans, strict=True)], 0.3)
    labels, bottom = [], top - HBM_HEIGHT
    for tensor, cols, w, span, x in zip(tensors, columns, widths, spans, centres, strict=True):
        per = math.ceil(len(tensor) / cols)
        for c in range(cols):
            y = top
            for slot in tensor[c * per : (c + 1) * per]:
                slot.h = max(MIN_TILE, row_h * slot.rows) - GAP
                slot.w, slot.x, slot.y = w, x - span / 2 + c * (w + 0.1) + w / 2, y - slot.h / 2
                slot.font = FONT if w > 0.5 and slot.h >= MIN_TILE - GAP else SMALL
                y -= slot.h + GAP
            bottom = min(bottom, y)
    lines = stagger(centres, [t.name for t in tensors], grow=grow)
    labels = [(t.name, x, bottom - 0.3 - DROP * line) for t, x, line in zip(tensors, centres, lines, strict=True)]
    return labels, bottom - 0.3 - (DROP + 0.25) * max(lines, default=0)  # (and room for the dropped line)


def grid(count, top):
    """The squares of `count` CUDA blocks, (x, y, size) each, PER_ROW a row from `top` down, centred on x = 0."""
    per = min(max(count, 1), PER_ROW)
    row_width = per * SQUARE + (per - 1) * SQUARE_GAP
    out = []
    for n in range(count):
        r, c = divmod(n, per)
        out.append((-row_width / 2 + c * (SQUARE + SQUARE_GAP), top - SQUARE - r * (SQUARE + SQUARE_GAP), SQUARE))
    rows = math.ceil(count / per) if count else 0
    return out, top - rows * (SQUARE + SQUARE_GAP)


def place_sram(groups, top, grow=PHONE):
    """Give every SRAM slot of each group its box (each group the same row: one kernel's block at a time), its
    cells theirs, and its registers a row under it; return the bottom of it all, and the labels [(text, x, y, size,
    owner)] of the owners' register rows (``place_owners``)."""
    bottom, labels = top, []
    for slots in groups.values():
        framed = [s for s in slots if s.memory == "sram"]
        heights = [getattr(s, "height", None) or SLOT_HEIGHT for s in framed]  # tops aligned, the tallest sets the row
        tall = max(heights, default=SLOT_HEIGHT)
        widths = [s.width or width(s.cols, least=0.25) for s in framed]
        for s, w, h, x in zip(framed, widths, heights, spread(widths, 0.2), strict=True):
            s.x, s.y, s.w, s.h, s.font = x, top - h / 2, w, h, FONT if w > 0.5 else SMALL
            _cells(s)
        lines = stagger([s.x for s in framed], [s.caption for s in framed], SMALL, grow)
        extra = caption_gap(grow) - caption_gap(1)  # a caption's top edge stays under its slot as the caption grows
        drop = max(DROP, 1.25 * GLYPHS_EM * SMALL / UNIT * grow)  # a line of 11 px on a phone, and a little room
        for s, line in zip(framed, lines, strict=True):
            s.caption_drop = drop * line + extra
        dropped = drop * max(lines, default=0) + 2 * extra
        anonymous = [s for s in slots if s.memory == "reg" and s.owner is None]
        rows = sorted({s.row for s in anonymous})
        reg_y = top - tall - 0.9 - dropped
        for r in rows:
            regs = [s for s in anonymous if s.row == r]
            widths = [s.width or 0.7 for s in regs]
            for s, w, x in zip(regs, widths, spread(widths, 0.15), strict=True):
                s.x, s.y, s.w, s.h, s.font = x, reg_y, w, 0.45, SMALL
            reg_y -= 0.8
        room = (grow - 1) * 0.4 if tall > SLOT_HEIGHT else 0.0  # a taller row: its captions' growth on a phone
        group_bottom = reg_y + 0.3 if rows else top - tall - 0.4 - dropped - room
        owned = [s for s in slots if s.memory == "reg" and s.owner is not None]
        if owned:
            group_bottom, texts = place_owners(owned, group_bottom - 0.45, grow)  # the word Registers clear of captions
            labels += texts
        bottom = min(bottom, group_bottom)
    return bottom, labels


def place_owners(slots, top, grow=PHONE):
    """Under the word Registers, a row of `slots` for each owner in the order first named, the owner's name at the
    row's left, the captions under the last row only (the heads of the columns, ``Figure.reg``); return the bottom
    and the labels [(text, x, y, size, owner)]: the word Registers (owner None), and each owner's name."""
    owners = list(dict.fromkeys(s.owner for s in slots))
    gap = max(REG_GAP, GLYPHS_EM * SMALL / UNIT * grow * 1.25 - REG_HEIGHT)  # owners' names, 11 px on a phone, apart
    labels, y = [("Registers", 0, top - 0.2, 15, None)], top - 0.45 - REG_HEIGHT / 2
    for n, owner in enumerate(owners):
        row = [s for s in slots if s.owner == owner]
        widths = [s.width or width(s.cols, least=0.3) for s in row]
        for s, w, x in zip(row, widths, spread(widths, 0.2), strict=True):
            s.x, s.y, s.w, s.h, s.font = x, y, w, REG_HEIGHT, FONT if w > 0.5 else SMALL
            s.caption = s.column if n == len(owners) - 1 else ""
            s.caption_drop = caption_gap(grow) - caption_gap(1)
            _cells(s)
        left = min(s.left for s in row)
        labels.append((owner, left - PHONE * name_width(owner, SMALL) / 2 - 0.3, y, SMALL, owner))  # clear of the row
        y -= REG_HEIGHT + gap
    return y + gap + REG_HEIGHT / 2 - 1.0, labels  # the columns' heads, and room under them at a phone's zoom


def _cells(slot):
    rows, cols = slot.rows, getattr(slot, "cell_cols", slot.cols)
    cw, ch = slot.w / cols, slot.h / rows
    for n, cell in enumerate(slot.cells):
        r, c = divmod(n, cols)
        cell.x, cell.y, cell.w, cell.h = slot.left + cw * (c + 0.5), slot.y + slot.h / 2 - ch * (r + 0.5), cw, ch
