"""The backward page's claims, held to the ledgers and to its own figure."""

import re

import pytest

from kernelviz.attention import run
from tests.pages.kernel_pages import Page

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


@pytest.fixture(scope="module")
def page():
    return Page("flash-attention-2-backward")


def test_the_passes_over_n_by_n_the_page_states_are_the_standard_backwards_ledger(page):
    """The standard backward's N x N traffic (P, dP, dS) over N^2 elements, at the page's trace sizes: the number of
    passes the page writes in words and in 'xN^2 values of HBM traffic'."""
    sizes = {k: v for k, v in page.front["trace"]["std"].items() if k != "algo"}
    ledger = run("standard-backward", **sizes).result.ledger
    n, itemsize = sizes["N"], 4  # float32
    moved = sum(
        rw["read"] + rw["write"] for t, rw in ledger.per_tensor.items() if ledger.tensor_bytes[t] == n * n * itemsize
    )
    passes, rest = divmod(moved, n * n * itemsize)
    assert rest == 0 and passes > 0
    text = " ".join(page.text.split())
    assert f"{WORDS[passes]} passes over $N \\times N$ values" in text
    assert f"${passes}N^2$ values of HBM traffic" in text
    claimed = {int(m) for m in re.findall(r"\$(\d+)N\^2\$ values", text)}
    assert claimed == {passes}
    assert set(re.findall(r"(\w+) passes over \$N \\times N\$", text)) == {WORDS[passes]}


def test_the_dq_tile_in_registers_goes_stale_when_the_block_of_rows_moves_on(page):
    """After i moves from 0 to 1, the registers still hold dQ0's tile: like Pij and dSij, it is drawn stale (grey)
    until dQ1 is read into them, never as a live dQ0 beside the rows of block 1."""

    def dq_tiles(key):
        return [i for i in page.items(key) if i["label"].startswith("dQ") and i["w"] > 0]

    hbm = {(i["x"], i["y"]) for i in dq_tiles("write Δ,dQ i=1")}  # the preprocess has zeroed and named them all
    assert len(hbm) == 2  # N = 8 rows in blocks of 4

    def in_registers(key):
        return [i for i in dq_tiles(key) if (i["x"], i["y"]) not in hbm]

    (held,) = in_registers("add dQ j=0 i=0")
    assert (held["label"], held["fill"]) == ("dQ0", "@q-1")
    (stale,) = in_registers("load Q,dO,L,Δ j=0 i=1")
    assert stale["label"] == "dQ0" and stale["fill"] == "@stale"
    (read,) = in_registers("read dQ j=0 i=1")
    assert (read["label"], read["fill"]) == ("dQ1", "@paper")  # read in, zeroed by the preprocess
