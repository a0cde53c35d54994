"""The Paged decoding page's figure: the block table names the pages the kernel loads, a page flies into Kp once for
the whole group, and the last page of a sequence counts only its filled rows (the ledger's rule)."""

import re

import pytest

from tests.pages.kernel_pages import Page


@pytest.fixture(scope="module")
def page():
    return Page("paged-decoding")


def label_of(items, index):
    return items[index]["label"]


def test_a_page_is_loaded_from_where_the_table_says(page):
    """At 'read table b=1 s=0 p=1' the table's entry (a number) flies into 'page'; the next step loads the K and V
    tiles of that physical page, K<n> and V<n>."""
    key = "read table b=1 s=0 p=1"
    start, end = page.items(key, "start"), page.items(key, "end")
    moved = [i for i, f in page.steps[page.index(key)].get("move", []) if "x" in f or "y" in f]
    (entry,) = [label_of(end, i) for i in moved if re.fullmatch(r"\d+", label_of(end, i))]
    load = "load page b=1 s=0 p=1"
    flew = {label_of(page.items(load, "start"), i) for i, f in page.steps[page.index(load)].get("move", [])
            if "x" in f or "y" in f}  # fmt: skip
    assert {f"K{entry}", f"V{entry}"} <= flew
    assert start  # the step exists at the page's defaults


def test_the_last_partial_page_counts_only_its_rows(page):
    """Sequence 0 has 5 tokens in pages of 4: its second page holds 1 row, so K and V add 2 x 1 x 4 x 4 bytes."""
    k = page.index("load page b=0 s=1 p=1")
    assert page.counter(k) - page.counter(k - 1) == 2 * 1 * 4 * 4
    k = page.index("load page b=0 s=0 p=0")
    assert page.counter(k) - page.counter(k - 1) == 2 * 4 * 4 * 4


def test_the_scores_of_every_head_fill_from_one_page(page):
    """Sg has H_q = 2 rows of page_size = 4 cells: all 8 fill in the step after one load."""
    stagger = page.steps[page.index("scores b=0 s=0 p=0")]["stagger"]
    assert sorted(n for _, n, _ in stagger) == list(range(8))


def test_the_prose_counts_what_the_counter_shows(page):
    """The page's {{ trace.fig.bytes.total }} (the ledger at the figure's sizes, one K/V head) is the counter's last
    value, and {{ trace.one }} (one split) the counter's at splits = 1."""
    from kernelviz.site.extensions import trace

    runs = page.front["trace"]
    assert trace.compute(runs["fig"])["bytes"]["total"] == page.counter(len(page.steps) - 1)
    one = Page("paged-decoding", {**page.result.sizes, "splits": 1})
    assert trace.compute(runs["one"])["bytes"]["total"] == one.counter(len(one.steps) - 1)
