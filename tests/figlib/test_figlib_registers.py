"""figlib's registers and SRAM traffic: tensors of 16-bit elements, the SRAM counter a figure keeps when its shared
memory says its itemsize (stores from HBM at the whole slot, loads into a warp's registers at the register slot's
elements), and the registers as a level of their own, a row a warp."""

import pytest

from kernelviz import pie
from kernelviz.figlib import Figure


def warps_figure(N=6, Br=4, warps=2, itemsize=2):
    """Q in blocks of Br rows; a block's Qi (counted at `itemsize` bytes an element when given); per warp, its
    Br / warps rows of Q and an output o in registers (Br a multiple of warps here)."""
    fig = Figure("ready")
    Q = fig.hbm("Q", N, 4, Br, "q", itemsize=2)
    out = fig.hbm("O", N, 4, Br // warps, "o", empty=True, itemsize=2)
    Qi = fig.sram("Qi", Br, 4, "q", itemsize=itemsize)
    regs = [(fig.reg(f"q{w}", Br // warps, 4, "q", f"warp {w}"), fig.reg(f"o{w}", Br // warps, 4, "o", f"warp {w}"))
            for w in range(warps)]  # fmt: skip
    fig.blocks(len(Q))
    return fig, Q, out, Qi, regs


def test_tensors_of_16_bit_elements_count_two_bytes_an_element():
    fig, Q, out, _, _ = warps_figure(N=6, Br=4)
    assert [t.bytes for t in Q] == [4 * 4 * 2, 2 * 4 * 2] and Q.bytes == 6 * 4 * 2 and Q.itemsize == 2
    assert [t.bytes for t in out] == [16, 16, 16]


def test_sram_traffic_stores_whole_slots_and_loads_what_each_register_slot_holds():
    fig, Q, out, Qi, regs = warps_figure(N=6, Br=4, warps=2)
    fig.zoom(1, [Qi, regs])
    fig.copy(Q[1], Qi)  # the ragged tile: 2 rows read from HBM, the whole 4-row slot stored (padded)
    fig.step("load Q", "load Q1", i=1)
    for q, _ in regs:
        fig.copy(Qi, q)  # each warp loads its 2 rows
    fig.step("ldmatrix", "each warp its rows", i=1)
    fig.copy(regs[0][1], out[2])  # registers -> HBM: no SRAM traffic
    fig.step("write", "warp 0 writes O2", i=1)
    assert [s.hbm for s in fig.steps] == [0, 2 * 4 * 2, 16, 16 + 16]
    assert [s.shared for s in fig.steps] == [0, 4 * 4 * 2, 32 + 2 * (2 * 4 * 2), 64]
    assert fig.counts_shared


def test_a_figure_without_itemsize_on_its_shared_memory_keeps_one_counter():
    fig, Q, out, Qi, regs = warps_figure(itemsize=None)
    fig.zoom(0, [Qi, regs])
    fig.copy(Q[0], Qi)
    fig.step("load Q", "load Q0", i=0)
    assert not fig.counts_shared and fig.steps[-1].shared == 0
    items = drawn(fig)
    assert [i["kv"] for i in items if "kv" in i and not i["kv"].startswith("slot:")] == ["hbm-bytes"]


def test_the_sram_counter_is_drawn_beside_the_word_sram_and_counts_each_step():
    fig, Q, out, Qi, regs = warps_figure()
    for i in range(2):
        fig.zoom(i, [Qi, regs])
        fig.copy(Q[i], Qi)
        for q, _ in regs:
            fig.copy(Qi, q)
        fig.step("load Q", f"block {i} loads Q{i}", i=i)
    items = drawn(fig)
    (counter,) = [n for n, i in enumerate(items) if i.get("kv") == "smem-bytes"]
    (steps,) = [n["steps"] for n in pie.scene()["nodes"] if n["kind"] == "step_list"]
    labels = [items[counter]["label"]] + [f["label"] for s in steps[1:] for p in ("start", "move", "end")
                                          for n, f in s[p] if n == counter and "label" in f]  # fmt: skip
    assert labels == ["SRAM 0 B", "SRAM 64 B", "SRAM 128 B"]
    texts = [n for n in pie.scene()["nodes"] if n["kind"] == "text"]
    (sram,) = [t for t in texts if t["label"] == "SRAM"]
    assert abs(items[counter]["y"] - sram["y"]) < 1e-6 and items[counter]["x"] < sram["x"]


def test_registers_are_a_level_under_shared_memory_a_row_a_warp_named_at_its_left():
    from kernelviz.figlib import draw

    fig, Q, out, Qi, regs = warps_figure(N=8, Br=6, warps=3)
    fig.zoom(0, [Qi, regs])
    fig.step("zoom", "block 0")
    texts, frame = draw.place(fig)
    (heading,) = [t for t in texts if t[0] == "Registers"]
    names = {i["label"]: i for i in draw.items(fig, frame, 1)["end"] if i["label"].startswith("warp ")}
    assert sorted(names) == ["warp 0", "warp 1", "warp 2"]
    assert not [i for i in draw.items(fig, frame, 0)["end"] if i["label"].startswith("warp ")], "no block in view"
    rows = [{s.y for s in pair} for pair in regs]
    assert all(len(r) == 1 for r in rows)  # a warp's slots side by side
    ys = [r.pop() for r in rows]
    assert ys[0] > ys[1] > ys[2]  # warp 0 on top, one row each
    assert heading[2] > ys[0] and Qi.bottom > heading[2]  # under shared memory
    for w, (q, o) in enumerate(regs):
        assert names[f"warp {w}"]["x"] < q.left < q.left + q.w < o.left  # named at the row's left
        assert abs(names[f"warp {w}"]["y"] - q.y) < 1e-3
        assert (q.caption, o.caption) == (("q2", "o2") if w == 2 else ("", ""))  # the last row heads the columns
        assert (q.x, o.x) == (regs[0][0].x, regs[0][1].x)  # columns


def test_a_tensor_may_be_cut_into_tiles_of_several_sizes_one_a_warp():
    fig = Figure("ready")
    out = fig.hbm("O", 7, 4, [2, 1, 2, 1, 1], "o", empty=True, itemsize=2)  # blocks of 3 rows in warps of 2
    assert [t.rows for t in out] == [2, 1, 2, 1, 1] and [t.bytes for t in out] == [16, 8, 16, 8, 8]
    with pytest.raises(IndexError, match=r"^O\[5\]: O has 5 tiles \(O\[0\] to O\[4\]\)$"):
        out[5]
    with pytest.raises(ValueError, match=r"a list of positive rows adding up to 7, got \[2, 2\]"):
        fig.hbm("L", 7, 1, [2, 2])


def drawn(fig):
    fig.draw("t")
    (items,) = [n["items"] for n in pie.scene()["nodes"] if n["kind"] == "diagram"]
    return items
