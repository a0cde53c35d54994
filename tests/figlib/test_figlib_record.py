"""figlib's Figure: what each action records (looks, events, the HBM bytes), the steps' keys, and its errors."""

import pytest

from kernelviz.figlib import Figure


def small(N=6, tile=4):
    fig = Figure("ready")
    Q = fig.hbm("Q", N, 4, tile, "q")
    out = fig.hbm("O", N, 4, tile, "o", empty=True)
    L = fig.hbm("l", N, 1, tile, "l", empty=True)
    Qi, li = fig.sram("Qi", tile, 4, "q"), fig.sram("li", tile, 1, "l")
    S = fig.sram("S", 2, 3, "s", cells=True)
    fig.blocks(len(Q))
    return fig, (Q, out, L), (Qi, li, S)


def test_tensors_are_tiles_with_their_float32_bytes_a_ragged_last_one_smaller():
    _, (Q, out, L), _ = small(N=6, tile=4)
    assert [t.name for t in Q] == ["Q0", "Q1"] and [t.rows for t in Q] == [4, 2]
    assert [t.bytes for t in Q] == [4 * 4 * 4, 2 * 4 * 4] and Q.bytes == 6 * 4 * 4
    assert [t.bytes for t in L] == [16, 8]
    assert Q[0].holds["label"] == "Q0" and Q[0].holds["fill"] == "@q-fill" and out[0].holds is None


def test_the_counter_adds_the_bytes_of_every_copy_to_or_from_hbm_and_of_hbm_resets():
    fig, (Q, out, L), (Qi, li, S) = small()
    fig.zoom(0, [Qi, li, S])
    fig.reset(L)  # writes both tiles of l
    fig.step("init l", "write l = 0 to HBM")
    fig.copy(Q[1], Qi)  # a read of the short tile
    fig.reset(li)  # on chip: free
    fig.step("load Q", "load Q1", i=1)
    fig.update(li)
    fig.copy([Qi, li], [out[1], L[1]])  # writes
    fig.step("write O,l", "write O1 and l1", i=1)
    assert [s.hbm for s in fig.steps] == [0, 24, 24 + 32, 24 + 32 + 32 + 8]


def test_keys_are_the_action_and_its_indices_in_loop_order():
    fig, _, (Qi, li, S) = small()
    fig.step("load K,V", "load K1, V1", i=0, j=1)
    fig.step("write O", "write O")
    assert [(s.key, s.at) for s in fig.steps[1:]] == [("load K,V i=0 j=1", {"i": 0, "j": 1}), ("write O", {})]
    with pytest.raises(ValueError, match=r"step: 'write O\[i\] i=0': a step's key has no square brackets"):
        fig.step("write O[i]", "x", i=0)


def test_copies_name_results_by_their_place_in_hbm_and_keep_names_on_chip():
    fig, (Q, out, L), (Qi, li, S) = small()
    fig.zoom(0, [Qi, li, S])
    fig.copy(Q[0], Qi)
    fig.step("load", "load Q0")
    assert fig.now(Qi)["label"] == "Q0" and fig.steps[1].events[Qi].src is Q[0]
    fig.copy(Qi, out[0])
    fig.copy(li, L[0], label="0.5")
    fig.step("write", "write O0")
    assert fig.now(out[0])["label"] == "O0" and fig.now(out[0])["fill"] == "@q-fill"
    assert fig.now(L[0])["label"] == "0.5"
    with pytest.raises(ValueError, match="copy: 2 slots to copy into 1"):
        fig.copy([Q[0], Q[1]], Qi)


def test_updates_darken_a_shade_per_tile_stale_greys_only_what_holds_a_value():
    fig, _, (Qi, li, S) = small()
    fig.zoom(0, [Qi, li, S])
    fig.stale(li, S)  # nothing computed yet: nothing to grey
    assert fig.pending == {}
    fills = []
    for _ in range(5):
        fig.update(li)
        fig.step("update", "li absorbs a tile")
        fills.append(fig.now(li)["fill"])
    assert fills == ["@l-1", "@l-2", "@l-3", "@l-4", "@l-4"]
    fig.stale(li)
    assert fig.now(li)["fill"] == "@stale" and fig.now(li)["stale"] and fig.now(li)["level"] == 5
    fig.update(li, label="2.5")
    assert fig.now(li) == {"label": "2.5", "fill": "@l-4", "stroke": "@l", "level": 6, "stale": False}


def test_scores_fill_cell_by_cell_alternating_shades_from_tile_to_tile():
    fig, _, (Qi, li, S) = small()
    fig.zoom(0, [Qi, li, S])
    fig.fill(S)
    assert [(e.n, e.of) for e in fig.pending.values()] == [(n, 6) for n in range(6)]
    assert {fig.now(c)["fill"] for c in S.cells} == {"@s-1"}
    fig.step("fill", "S = Q K^T")
    fig.stale(S)
    fig.fill(S)
    assert {fig.now(c)["fill"] for c in S.cells} == {"@s-2"}


def test_masked_scores_are_drawn_masked_in_their_turn_and_the_others_fill():
    fig, _, (Qi, li, S) = small()  # S: 2 rows by 3 columns, cells in row order
    fig.zoom(0, [Qi, li, S])
    fig.fill(S, masked=lambda r, c: c > r + 1)  # only (0, 2) is hidden
    fills = [fig.now(c)["fill"] for c in S.cells]
    assert fills == ["@s-1", "@s-1", "@paper", "@s-1", "@s-1", "@s-1"]
    assert fig.now(S.cells[2])["stroke"] == "@edge" and fig.now(S.cells[1])["stroke"] == "@s"
    assert [(e.n, e.of) for e in fig.pending.values()] == [(n, 6) for n in range(6)]


def test_zoom_shows_a_block_of_the_grid_starting_empty():
    fig, (Q, _, _), (Qi, li, S) = small()
    fig.zoom(0, [Qi, li, S])
    fig.copy(Q[0], Qi)
    fig.step("load", "load Q0")
    fig.zoom(1, [Qi, li, S])
    assert fig.now(Qi) is None and fig.block[0] == 1 and set(S.cells) <= set(fig.block[1])
    with pytest.raises(ValueError, match=r"zoom: block 2 is not in the grid of 2 blocks"):
        fig.zoom(2, [Qi])


def test_start_makes_what_was_recorded_the_opening_step_with_nothing_to_animate():
    fig, (Q, _, L), (Qi, li, S) = small()
    fig.zoom(0, [Qi, li, S])
    fig.reset(li, label="0")
    fig.start()
    opening = fig.steps[0]
    assert opening.key == "start" and opening.caption == "ready" and opening.events == {}
    assert opening.block[0] == 0 and li in opening.block[1] and opening.holds[li]["label"] == "0"
    assert opening.holds[Qi] is None and opening.hbm == 0  # on chip: no HBM bytes
    fig.copy(Q[0], Qi)
    fig.step("load Q", "load Q0", i=0)
    assert fig.steps[1].holds[li]["label"] == "0" and set(fig.steps[1].events) == {Qi}
    with pytest.raises(ValueError, match=r"start: the figure's opening is recorded before its first step"):
        fig.start()


def test_without_start_the_figure_opens_on_hbm_alone():
    fig, _, (Qi, li, S) = small()
    fig.zoom(0, [Qi, li, S])
    fig.step("zoom", "block 0", i=0)
    assert fig.steps[0].block is None and fig.steps[1].block[0] == 0


def test_access_counts_shared_memory_read_where_it_lies_and_a_store_to_hbm_reads_the_slot():
    """SRAM traffic with no copy drawn (wgmma's operands, a TMA's zeros) and a TMA store (SRAM -> HBM), worked out
    here from the slots' sizes: 4 x 4 halves = 32 bytes a tile, 2 x 4 halves = 16 a register slot's worth."""
    fig = Figure("ready")
    K = fig.hbm("K", 8, 4, 4, "k", itemsize=2)
    out = fig.hbm("O", 4, 4, 4, "o", empty=True, itemsize=2)
    Ks = fig.sram("Ks", 4, 4, "k", itemsize=2)
    plain = fig.sram("plain", 4, 4, "k")  # says no itemsize: not counted
    o = fig.reg("o", 2, 4, "o")
    fig.blocks(1)
    fig.zoom(0, [Ks, plain, o])
    fig.copy(K[0], Ks)  # stores 32
    fig.step("load", "K0")
    fig.access(Ks, [Ks, plain], K[1])  # read twice: 64; the others count nothing
    fig.step("read", "wgmma reads Ks twice")
    fig.copy(o, Ks)  # 2 x 4 elements of 2 bytes: 16
    fig.copy(Ks, out[0])  # the TMA store reads the whole slot: 32
    fig.step("store", "O0")
    assert [s.shared for s in fig.steps] == [0, 32, 32 + 64, 32 + 64 + 16 + 32]
    assert [s.hbm for s in fig.steps] == [0, 32, 32, 64]
