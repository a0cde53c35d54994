"""figlib's layout, computed from the sizes, and its drawing with pie: tiles stack and wrap, rows of blocks wrap,
labels stay legible, and the Scene's steps carry key, at, caption and the HBM counter."""

import jsonschema
import pytest

from kernelviz import pie
from kernelviz.figlib import Figure, layout
from kernelviz.pie.bounds import schema


def figure(N, tile, blocks):
    fig = Figure("ready")
    Q = fig.hbm("Q", N, 4, tile, "q")
    m = fig.hbm("m", N, 1, tile, "m", empty=True)
    Qi = fig.sram("Qi", tile, 4, "q")
    mi = fig.sram("mi", tile, 1, "m")
    fig.blocks(blocks)
    return fig, Q, m, Qi, mi


def test_tiles_stack_from_the_top_a_row_as_tall_in_every_tensor():
    fig, Q, m, Qi, mi = figure(N=10, tile=4, blocks=3)
    layout.place_hbm(fig.tensors, top=3.0)
    assert [round(t.y + t.h / 2, 6) for t in Q[:1]] == [3.0]
    assert all(a.y > b.y for a, b in zip(Q, Q[1:], strict=False)), "top down"
    assert Q[2].h < Q[1].h == Q[0].h, "the ragged last tile is shorter"
    assert [round(t.h, 6) for t in Q] == [round(t.h, 6) for t in m]
    assert Q[0].x < m[0].x and Q[0].w > m[0].w, "side by side; a vector is narrow"


def test_the_names_of_narrow_tensors_do_not_meet():
    fig = Figure("ready")
    tensors = [fig.hbm(name, 8, 1, 4, "m", empty=True) for name in ("m(s)", "l(s)", "O")]
    labels, _ = layout.place_hbm(fig.tensors, top=3.0)
    assert [t for t, _, _ in labels] == ["m(s)", "l(s)", "O"]
    for (a, xa, _), (b, xb, _) in zip(labels, labels[1:], strict=False):
        assert xb - xa >= (layout.name_width(a) + layout.name_width(b)) / 2, f"{a} and {b} overlap"
    # the names' real advance at the pages' size, Helvetica's: m ( s ) = 833 + 333 + 500 + 333 thousandths of an em
    assert layout.name_width("m(s)") >= (833 + 333 + 500 + 333) / 1000 * layout.FONT / layout.UNIT
    assert all(t[0].w < layout.name_width(t.name) for t in tensors[:2]), "narrower than their names"


def test_more_tiles_than_a_column_holds_wrap_into_columns():
    fig, Q, *_ = figure(N=20, tile=1, blocks=1)
    layout.place_hbm(fig.tensors, top=3.0)
    xs = sorted({round(t.x, 6) for t in Q})
    assert len(xs) == 20 // layout.PER_COLUMN + 1
    assert min(t.h for t in Q) >= layout.MIN_TILE - layout.GAP


def test_the_grid_of_blocks_wraps_after_a_row():
    squares, bottom = layout.grid(8, top=0.0)
    assert len({y for _, y, _ in squares}) == 2 and len({x for x, _, _ in squares}) == layout.PER_ROW
    assert bottom < min(y for _, y, _ in squares)


def test_drawn_steps_carry_key_at_caption_and_the_counter_and_validate():
    fig, Q, m, Qi, mi = figure(N=8, tile=4, blocks=2)
    for i in range(2):
        fig.zoom(i, [Qi, mi])
        fig.copy(Q[i], Qi)
        fig.reset(mi)
        fig.step("load Q", f"block {i} loads Q{i}", i=i)
        fig.update(mi)
        fig.copy(mi, m[i])
        fig.step("write m", f"block {i} writes m{i}", i=i)
    fig.draw("t")
    scene = pie.scene()
    jsonschema.validate(scene, schema())
    (steps,) = [n["steps"] for n in scene["nodes"] if n["kind"] == "step_list"]
    (items,) = [n["items"] for n in scene["nodes"] if n["kind"] == "diagram"]
    assert [s["key"] for s in steps] == ["start", "load Q i=0", "write m i=0", "load Q i=1", "write m i=1"]
    assert steps[2]["at"] == {"i": 0} and steps[2]["caption"] == "block 0 writes m0"
    (counter,) = [n for n, i in enumerate(items) if i.get("kv") == "hbm-bytes"]
    labels = [items[counter]["label"]]
    for s in steps[1:]:
        labels += [f["label"] for p in ("start", "move", "end") for n, f in s[p] if n == counter and "label" in f]
    assert labels == ["HBM 0 B", "HBM 64 B", "HBM 80 B", "HBM 144 B", "HBM 160 B"]
    assert min(i["font"] for i in items if i["label"]) >= 11
    assert all(c.startswith("@") or c == "none" for i in items for c in (i["fill"], i["stroke"], i["color"]))


def _drawn_items(fig):
    fig.draw("t")
    (items,) = [n["items"] for n in pie.scene()["nodes"] if n["kind"] == "diagram"]
    return items


def test_tiles_in_hbm_show_their_rows_by_ticks_at_both_edges_short_of_their_labels():
    fig, Q, m, Qi, mi = figure(N=10, tile=4, blocks=3)  # tiles of 4, 4 and 2 rows
    fig.hbm("x", 10, 1, 4, "x", label=lambda t: f"{t}.25 {t}.75", width=1.1)  # labels too wide to tick beside
    items = _drawn_items(fig)
    ticks = [i for i in items if i["line"] and i["w"] and i["h"] == 0]
    assert len(ticks) == 2 * (3 + 3 + 1)  # Q's: a boundary between each two rows of a tile, two ticks each
    assert m[0].w < 0.5  # m's tiles, a column wide, are as narrow as their names: not ticked, nor is x
    for tile in Q:
        spacing = tile.h / tile.rows
        rows = sorted({round(i["y"], 3) for i in ticks if tile.left - 1e-6 <= i["x"] <= tile.left + tile.w + 1e-6
                       and tile.bottom < i["y"] < tile.bottom + tile.h})  # fmt: skip
        assert rows == [round(tile.bottom + r * spacing, 3) for r in range(1, tile.rows)]
    for tick in ticks:  # from an edge of its tile inward, short of the label in the tile's middle
        (tile,) = [t for t in Q if t.bottom < tick["y"] < t.bottom + t.h
                   and round(tick["x"], 4) in (round(t.left, 4), round(t.left + t.w, 4))]  # fmt: skip
        inward = 1 if round(tick["x"], 4) == round(tile.left, 4) else -1
        label = layout.name_width(tile.name, tile.font)
        assert inward * tick["w"] > 0 and abs(tick["x"] + tick["w"] - tile.x) >= label / 2


def test_rows_too_close_to_see_are_not_ticked():
    fig, *_ = figure(N=64, tile=64, blocks=1)  # 64 rows in one tile: 0.03 units apart
    assert [i for i in _drawn_items(fig) if i["line"] and i["w"] and i["h"] == 0] == []


def test_names_that_would_meet_on_a_phone_drop_a_line_and_those_apart_stay():
    """A label on a phone is about PHONE times as wide in canvas units as at the pages' unit (11 px at a zoom near
    0.4): neighbours' names that would then meet alternate between two lines; names far apart stay on one."""
    fig = Figure("ready")
    for name in ("seq_lens", "table 0", "table 1"):  # vectors 0.6 wide: their centres about 1.8 apart
        fig.hbm(name, 2, 1, 1, "q", width=0.6)
    labels, bottom = layout.place_hbm(fig.tensors, top=3.0)
    ys = [y for _, _, y in labels]
    xs = [x for _, x, _ in labels]
    # by hand: at 13 px, 0.5 em a character as drawn, 44 px a unit, x2.6 (layout.PHONE), 'seq_lens' is
    # 8 * 0.5 * 13 / 44 * 2.6 = 3.07 wide and 'table 0' 2.69: half of each (1.54 + 1.34) exceed the centres' distance
    assert xs[1] - xs[0] < (3.07 + 2.69) / 2
    assert ys[0] == ys[2] and ys[1] == ys[0] - layout.DROP
    assert bottom < ys[1]  # what comes under HBM starts under the dropped line

    wide = Figure("ready")
    for name in ("Q", "K", "V"):  # one letter each, 1.6 wide: apart at any zoom
        wide.hbm(name, 4, 4, 2, "q")
    labels, _ = layout.place_hbm(wide.tensors, top=3.0)
    assert len({y for _, _, y in labels}) == 1


def test_a_slot_of_a_cell_a_row_draws_its_rows_stacked():
    fig = Figure("ready")
    og = fig.sram("Og", 3, 4, "o", cells="rows")
    fig.blocks(1)
    layout.place_sram(fig.groups, top=0.0)
    assert len(og.cells) == 3 and all(c.kind == "o" for c in og.cells)
    assert [round(c.w, 6) for c in og.cells] == [round(og.w, 6)] * 3  # each the slot's width
    assert [round(c.h * 3, 6) for c in og.cells] == [round(og.h, 6)] * 3  # a third of its height
    assert og.cells[0].y > og.cells[1].y > og.cells[2].y  # top down
    with pytest.raises(ValueError, match="x: cells must be True, False or 'rows', got 'cols'"):
        fig.sram("x", 1, 1, cells="cols")
