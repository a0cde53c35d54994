"""A Figure's record, drawn with pie: fixed labels and squares, one diagram of everything that changes, and the
step list that plays the steps on it.

Each slot is drawn by five items (``ROLES``, each role above the ones before it): its empty frame, what it held
before the step, what it holds after, a ring while it changes in place, its caption. A copy flies from its source
over what the slot held; a change in place grows from the bottom of the slot. The diagram also holds the filled
square of the block in view, the two zoom lines from it to its shared memory, the caption of the step, the HBM
counter (``kv: "hbm-bytes"``, its label ``HBM <bytes> B``: the bytes read from and written to HBM so far), the SRAM
counter when the figure counts SRAM's traffic (``kv: "smem-bytes"``, ``SRAM <bytes> B``, beside the word SRAM), and,
last, the rows of the tiles in HBM: a tick at each edge of a tile where one row of the matrix ends and the next
begins, so that a tile of Br rows shows its Br rows (and a ragged last tile its fewer) without a line through its
label. Step 0 is the figure as it opens: HBM alone, or what ``Figure.start`` made it.

A slot's frame and what it holds carry its facts for the page in their ``kv`` (``answers.facts``: what the slot is,
whose, and how what it holds got there), which the page shows when the reader points at the slot.
"""

import json

from kernelviz import pie

from . import layout, timeline
from .answers import arrivals, facts
from .memory import look

ROLES = ("frame", "before", "after", "ring", "caption")
COUNTER, SHARED_COUNTER = "hbm-bytes", "smem-bytes"
TICK, SHORTEST_TICK, TICK_MARGIN = 0.12, 0.05, 0.03  # canvas units: a row's tick into its tile from each edge
ROW_SPACING = 0.08  # canvas units: rows closer than this (3.5 px at the pages' unit) are not ticked


def item(x=0, y=0, w=0, h=0, fill="none", stroke="none", label="", font=12, wrap=0, line=False, color="@ink"):
    """One diagram item: a box with bottom-left corner (x, y), or a segment from (x, y) to (x + w, y + h); of size
    0, only its label, centred at (x, y)."""
    return {"x": round(x, 4), "y": round(y, 4), "w": round(w, 4), "h": round(h, 4), "fill": fill,
            "stroke": stroke, "label": label, "font": font, "wrap": wrap, "line": line, "color": color}  # fmt: skip


def shape(slot, held, at=None, size=None, **fields):
    """The item that draws `held` (a look, or None) in `slot`: centred at `at`, `size` w by h (by default where
    and as big as the slot); `fields` override the item's."""
    if held is None:
        return item()
    (cx, cy), (w, h) = at or (slot.x, slot.y), size or (slot.w, slot.h)
    label = held["label"] if slot.w >= 0.5 and not slot.cells else ""  # a narrow slot: its caption names it
    drawn = item(cx - w / 2, cy - h / 2, w, h, held["fill"], held["stroke"], label, slot.font)
    return {**drawn, **fields}


def in_view(slot, step):
    return slot.memory == "hbm" or (step.block is not None and slot in step.block[1])


def slot_items(fig, slot, k, phase):
    """{role: item} of `slot` at step k in `phase` (start, move or end)."""
    step, out = fig.steps[k], dict.fromkeys(ROLES, item())
    if not in_view(slot, step):
        return out
    if slot.frame:
        out["frame"] = shape(slot, look(stroke="@edge"), kv=facts(fig, slot, k, None))
    if slot.caption:
        out["caption"] = item(slot.x, slot.bottom - 0.25 - slot.caption_drop, label=slot.caption, font=layout.SMALL)
    event = step.events.get(slot)
    if event is None or phase == "end":
        held = step.holds.get(slot, slot.holds)
        out["after"] = shape(slot, held, kv=facts(fig, slot, k)) if held else item()
    elif event.how == "copy":
        src = event.src
        at, size = ((src.x, src.y), (src.w, src.h)) if phase == "start" else (None, None)
        out["before"] = shape(slot, event.before)
        out["after"] = shape(slot, event.after, at, size)
    else:
        out["before"] = shape(slot, event.before or look(), label=event.after["label"])
        grown = shape(slot, event.after, label="")
        out["after"] = dict(grown, h=0) if phase == "start" else grown
        if slot.frame or (slot.memory == "hbm" and event.of == 1):
            out["ring"] = item(slot.left - 0.05, slot.bottom - 0.05, slot.w + 0.1, slot.h + 0.1, stroke="@ink")
    return out


def _still(fig, slot, k):
    """slot_items of a slot step k leaves alone: the same as at an earlier step where it held the same and was as
    much in view (remembered on the figure, so a long kernel draws each look of each slot once)."""
    step = fig.steps[k]
    block = step.block[0] if step.block else None  # (its facts name the block that holds it)
    key = (slot, id(step.holds.get(slot, slot.holds)), in_view(slot, step), block, id(arrivals(fig, k).get(slot)))
    memo = fig.__dict__.setdefault("_drawn", {})
    if key not in memo:
        memo[key] = slot_items(fig, slot, k, "end")
    return memo[key]


def zoom_line(grid, block, side):
    """The zoom line on `side` (0 left, 1 right) of `block`: from a bottom corner of its square to the top corner
    of its shared memory on that side, as (x, y, w, h)."""
    square, slots = block
    x, y, size = grid[square]
    framed = [s for s in slots if s.frame and s.memory == "sram"] or slots  # shared memory, not the registers
    edge = min(s.left for s in framed) if side == 0 else max(s.left + s.w for s in framed)
    top = max(s.y + s.h / 2 for s in framed) + 0.05
    return x + side * size, y, edge - x - side * size, top - y


def zoom_items(fig, grid, k, phase):
    """The two zoom lines at step k: they grow out of the square when SRAM first comes into view, and slide from
    one square to the other when the block in view changes."""
    now, before = fig.steps[k].block, fig.steps[k - 1].block if k else None
    lines = []
    for side in (0, 1):
        if now is None:
            lines.append(item(line=True))
            continue
        x, y, w, h = zoom_line(grid, now, side)
        if phase == "start" and before is None:
            w = h = 0
        elif phase == "start" and before != now:
            x, y, w, h = zoom_line(grid, before, side)
        lines.append(item(x, y, w, h, stroke="@edge", line=True))
    return lines


def row_ticks(fig):
    """The ticks between the rows of every tile in HBM, two a boundary (from the left and the right edge inward),
    where the rows are at least ``ROW_SPACING`` apart: ``TICK`` long, or shorter, so as to stop ``TICK_MARGIN``
    short of the widest label the tensor's tiles show (their names, or their values); none on a tile of one row,
    none on a tensor whose labels leave less than ``SHORTEST_TICK``."""
    ticks = []
    for tensor in fig.tensors:
        widest = max(
            layout.name_width(text, s.font) for s in tensor for text in (s.name, (s.holds or {}).get("label", ""))
        )
        reach = min(TICK, (min(s.w for s in tensor) - widest) / 2 - TICK_MARGIN)
        if reach < SHORTEST_TICK:
            continue
        for slot in tensor:
            spacing = slot.h / slot.rows
            if spacing < ROW_SPACING:
                continue
            for r in range(1, slot.rows):
                y = slot.bottom + r * spacing
                ticks += [item(slot.left, y, reach, line=True, stroke="@edge"),
                          item(slot.left + slot.w, y, -reach, line=True, stroke="@edge")]  # fmt: skip
    return ticks


def items(fig, frame, k, phases=("start", "move", "end")):
    """Every item of the diagram at step k, for each of `phases`: {phase: [item, ...]}. A slot the step leaves
    alone looks the same in every phase, so only the slots it changes are drawn once per phase."""
    step, (grid, caption_at, counters_at, ticks, owners, time_frame) = fig.steps[k], frame
    block = step.block
    squares = [item(x, y, s, s, "@ink", "@ink") if block and block[0] == n else item(x, y) for n, (x, y, s) in
               enumerate(grid)]  # fmt: skip
    (x, top, wrap, grow, by_top) = caption_at
    y = top - layout.caption_height(step.caption, wrap, grow) / 2 if by_top else top - 0.5
    caption = item(x, y, label=step.caption, font=layout.CAPTION_FONT, wrap=wrap)
    kinds = (("HBM", step.hbm, COUNTER), ("SRAM", step.shared, SHARED_COUNTER))[: len(counters_at)]
    counters = [dict(item(*at, label=f"{memory} {count} B", font=13), kv=kv) for at, (memory, count, kv) in
                zip(counters_at, kinds, strict=True)]  # fmt: skip
    held = {getattr(s, "owner", None) for s in block[1]} if block else set()
    names = [item(x, y, label=text if owner in held else "", font=size) for text, x, y, size, owner in owners]
    still = {s: _still(fig, s, k) for s in fig.slots if s not in step.events}
    out = {}
    for phase in phases:
        per_slot = [still[s] if s in still else slot_items(fig, s, k, phase) for s in fig.slots]
        slots = [roles[role] for role in ROLES for roles in per_slot]
        out[phase] = squares + zoom_items(fig, grid, k, phase) + slots + [caption, *counters] + ticks + names
    if fig.time is not None:  # the bars, the same in every phase of the step
        bars = timeline.items(fig.time, time_frame, k, item)
        out = {phase: drawn + bars for phase, drawn in out.items()}
    return out


def place(fig):
    """Lay the figure out; return the fixed labels [(text, x, y, size)] and (grid, the step caption's place (x, its
    top edge, the width it wraps at, the growth it was laid out for), the counters' places,
    the rows' ticks, the owners' names [(text, x, y, size, owner)], the timeline's frame or None). First as at the
    pages' unit, then again with the names that would meet on a phone staggered (``layout.growth`` of the extent laid
    out last, which the staggered lines make taller: until the growth settles, three rounds at most)."""
    grow, laid = 1.0, _place(fig, 1.0)
    for _ in range(3):
        texts, frame = laid
        xs = [x for s in fig.slots if s.w for x in (s.left, s.left + s.w)] + [frame[2][0][0] - 0.9]
        x, top, wrap, _, by_top = frame[1]  # the caption, placed by its top edge: as tall as the longest step's
        bottom = top - max(layout.caption_height(s.caption, wrap, grow) for s in fig.steps) if by_top else top - 0.5
        if frame[5] is not None:  # the timeline, right of the registers
            xs.append(frame[5][0] + frame[5][1])
            bottom = min(bottom, frame[5][3])
        more = max(grow, layout.growth(max(xs) - min(xs), 4.2 - bottom))  # (from the word HBM to the bottom)
        if more == grow:
            break
        grow, laid = more, _place(fig, more)
    return laid


def _place(fig, grow):
    labels, bottom = layout.place_hbm(fig.tensors, top=3.5, grow=grow)
    texts = [("HBM", 0, 3.9, 15)] + [(t, x, y, layout.FONT) for t, x, y in labels]
    grid, below = layout.grid(fig.count, bottom - 0.35)
    texts.append(("SRAM", 0, below - 0.25, 15))
    end, owned = layout.place_sram(fig.groups, below - 0.6, grow=grow)
    texts += [(t, x, y, size) for t, x, y, size, owner in owned if owner is None]
    owners = [label for label in owned if label[4] is not None]  # a warp's name: drawn while its block is in view
    left = min([s.left for s in fig.slots if s.w] + [-4])
    last = fig.steps[-1]  # the counters' widest labels: their last counts
    counters = [(counter_x(f"HBM {last.hbm} B", "HBM", left, grow), 3.9)]
    if fig.counts_shared:
        counters.append((counter_x(f"SRAM {last.shared} B", "SRAM", left, grow), below - 0.25))
    time_frame = None
    if fig.time is not None:  # right of the shared memory and the registers (a phone's canvas is wider than tall)
        right = max([s.left + s.w for s in fig.slots if s.w] + [4])
        start = right + 0.4 * grow
        stop = start + timeline.name_room(fig.time, grow) + 0.45 * (right - left)  # bars: 0.45 of the memory
        time_texts, time_frame = timeline.place(fig.time, start, stop, below - 0.6, grow)
        texts += time_texts
    xs = [x for s in fig.slots if s.w for x in (s.left, s.left + s.w)]
    if time_frame is not None:
        xs.append(time_frame[0] + time_frame[1])
    wrap = max(layout.CAPTION_WRAP, max(xs, default=0) - min(xs, default=0))  # as wide as the drawing
    # The caption, as wide as the drawing, wraps into fewer lines on a phone. Beside a timeline (whose lanes' names
    # reach its bottom) it goes under both, placed by its top edge: wrapped into more lines, it grows downward only.
    # Otherwise it is centred 0.5 under the on-chip memory, as ever (growing up into the room left under the registers).
    by_top = time_frame is not None
    top = min(end, time_frame[3]) - 0.1 - 0.15 * grow if by_top else end
    caption = (0, top, round(wrap, 4), grow, by_top)
    return texts, (grid, caption, counters, row_ticks(fig), owners, time_frame)


def counter_x(label, word, left, grow):
    """The centre of a counter's `label` (13 px) left of the `word` (15 px) centred at x = 0 on its line: 0.9 right
    of `left`, or further left, as far as keeps the two apart where both are `grow` times as wide (a phone)."""
    half = grow * layout.name_width(label) * layout.PROSE_EM / layout.NAME_EM / 2
    word_half = grow * layout.name_width(word, 15) / 2
    return min(left + 0.9, -word_half - 0.2 * grow - half)


def diff(a, b):
    """[index, changed fields] of each item that differs from a to b."""
    pairs = enumerate(zip(a, b, strict=True))
    return [[i, {key: v for key, v in new.items() if old.get(key) != v}] for i, (old, new) in pairs if old != new]


def draw(fig, name, unit=layout.UNIT):
    """Put `fig` on the canvas, `unit` pixels to a canvas unit: the fixed labels and squares, one diagram (named
    `name`_figure) of everything that changes, and the step list, whose steps carry key, at and caption."""
    texts, frame = place(fig)
    pie.clear()
    pie.show_canvas("right")
    pie.scalar(unit, out="unit")
    pie.scalar(0, out="gridOpacity")
    pie.scalar("@paper", out="canvasColor")  # the palette's page colour: a dark theme restyles the canvas too
    for label, x, y, size in texts:  # rounded, as the items are: CPython and Pyodide agree to the last digit
        pie.text(label, round(x, 4), round(y, 4), size, stroke="@ink")
    for x, y, size in frame[0]:
        pie.rectangle(pie.point(round(x, 4), round(y, 4), hidden=True), size, size, stroke="@edge")
    after = len(frame[0]) + 2 + ROLES.index("after") * len(fig.slots)  # the first slot's 'after' item
    first = fig.steps[0]
    steps, last = [{"label": first.key, "key": first.key, "caption": first.caption}], items(fig, frame, 0)["end"]
    initial = last
    for k in range(1, len(fig.steps)):
        start, move, end = items(fig, frame, k).values()
        s = fig.steps[k]
        turns = [[after + n, s.events[x].n, s.events[x].of] for n, x in enumerate(fig.slots)
                 if x in s.events and s.events[x].of > 1]  # fmt: skip
        steps.append({"label": s.label, "key": s.key, "at": s.at, "caption": s.caption, "start": diff(last, start),
                      "move": diff(start, move), "end": diff(move, end), "stagger": turns})  # fmt: skip
        last = end
    figure = pie.diagram(json.dumps(initial), out=f"{name}_figure")
    pie.ui.step_list(figure, steps=steps)
