"""A slot's facts for the figure answers (figlib.answers): what a slot is, whose, and how what it holds got there,
with the HBM bytes that took, as the kv of the items that draw it."""

from kernelviz.figlib import Figure
from kernelviz.figlib.answers import facts


def record():
    fig = Figure("start")
    Q, K = fig.hbm("Q", 4, 2, 2, "q"), fig.hbm("K", 4, 2, 2, "k")
    out = fig.hbm("O", 4, 2, 2, "o", empty=True)
    fig.blocks(2)
    Qi, Kj = fig.sram("Qi", 2, 2, "q"), fig.sram("Kj", 2, 2, "k")
    Sij, acc = fig.sram("Sij", 2, 2, "s", cells=True), fig.reg("acc", 2, 2, "o", owner="warp 1")
    fig.zoom(1, [Qi, Kj, Sij, acc])
    fig.step("zoom", "block 1", i=1)
    fig.copy([Q[1], K[0]], [Qi, Kj])
    fig.step("load", "load Q1, K0", i=1)
    fig.fill(Sij)
    fig.update(acc)
    fig.step("fill", "Sij", i=1)
    fig.copy(acc, out[1])
    fig.step("write", "O1", i=1)
    fig.stale(Sij)
    fig.step("next", "stale", i=1)
    return fig, dict(Q=Q, K=K, O=out, Qi=Qi, Kj=Kj, Sij=Sij, acc=acc)


def said(fig, slot, k, arrived=True):
    """[name, memory, owner, bytes, how, step] of `slot` at step k."""
    kv = facts(fig, slot, k, arrived)
    assert kv.startswith("slot:")
    return kv[5:].split("|")


def test_a_copy_from_hbm_says_the_tile_and_its_bytes():
    fig, s = record()
    assert said(fig, s["Kj"], 2) == ["Kj", "s", "block 1", "16", "r:K0", "2"]  # 2 rows of 2 float32
    assert said(fig, s["Kj"], 4)[4:] == ["r:K0", "2"]  # it holds the same two steps later
    assert said(fig, s["Kj"], 1)[3:] == ["0", "", ""]  # before the copy: nothing came yet


def test_computed_values_cost_no_hbm_bytes_and_writes_count_theirs():
    fig, s = record()
    assert said(fig, s["Sij"].cells[3], 3) == ["Sij 1,1", "s", "block 1", "0", "c", "3"]
    assert said(fig, s["Sij"].cells[3], 5)[4:] == ["s", "5"]  # stale: from the tile before
    assert said(fig, s["acc"], 3)[1:3] == ["r", "block 1, warp 1"]
    assert said(fig, s["O"][1], 4) == ["O1", "h", "", "16", "w:acc", "4"]
    assert said(fig, s["Q"][0], 4) == ["Q0", "h", "", "16", "", ""]  # never moved: what it is
    assert said(fig, s["Kj"], 3, arrived=False)[4:] == ["", ""]  # a frame says what the slot is
