"""Paged decoding against the reference: attention_fp64 run per sequence on the K/V gathered from the pages into one
contiguous array (an independent reading of the block table), over random tables, shared pages, ragged lengths and
group sizes; its ledger against the closed form; bad tables refused naming the sequence and the entry."""

import numpy as np
import pytest
from attention_cases import FLOAT32_TOL, rel_err
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelviz.attention import (
    FORMULAS,
    SramBudgetError,
    attention_fp64,
    flops,
    formulas,
    paged_attention_fp64,
    paged_decoding,
    random_batch,
)


def reference(*inputs, scale=None):
    """The per-sequence reference: attention_fp64 on each sequence's K/V gathered token by token from its pages."""
    return paged_attention_fp64(*inputs, scale=scale)


def test_the_reference_gathers_what_the_table_says():
    """paged_attention_fp64 against attention_fp64 on K/V laid out contiguously by hand, for one sequence of 6
    tokens in pages 2 and 0 (4 tokens a page), 2 query heads on 1 K/V head."""
    rng = np.random.default_rng(1)
    k_pages, v_pages = rng.standard_normal((2, 3, 4, 1, 8))
    q = rng.standard_normal((1, 2, 8))
    k = np.concatenate([k_pages[2, :, 0], k_pages[0, :2, 0]])  # tokens 0-3 in page 2, 4-5 in page 0
    v = np.concatenate([v_pages[2, :, 0], v_pages[0, :2, 0]])
    expected = attention_fp64(q[0][:, None, :], np.stack([k, k]), np.stack([v, v]))[0][:, 0]
    np.testing.assert_allclose(paged_attention_fp64(q, k_pages, v_pages, [[2, 0]], [6])[0], expected, rtol=1e-12)


CASES = [  # (seq_lens, page_size, H_q, H_kv, n_splits)
    ([5, 17, 9], 4, 8, 2, 1),
    ([5, 17, 9], 4, 8, 2, 3),
    ([1], 16, 4, 4, 1),  # one token: one page, one row of it
    ([1, 40, 16], 16, 8, 1, 4),  # multi-query; the length-1 sequence has empty splits
    ([33, 31], 8, 2, 2, 2),
    ([64], 16, 16, 2, 4),  # lengths a multiple of the page size
]


@pytest.mark.parametrize(("lens", "page_size", "H_q", "H_kv", "n_splits"), CASES)
@pytest.mark.parametrize("shared", [0, 2])
def test_matches_the_reference_and_the_closed_form(lens, page_size, H_q, H_kv, n_splits, shared):
    inputs = random_batch(lens, page_size, H_q, H_kv, 16, seed=len(lens) + n_splits, shared_pages=shared, spare_pages=3)
    result = paged_decoding(*inputs, n_splits=n_splits)
    assert result.o.shape == (len(lens), H_q, 16) and result.o.dtype == np.float32
    assert rel_err(result.o, reference(*inputs)) <= FLOAT32_TOL
    assert result.ledger.per_tensor == formulas.paged_decoding(lens, 16, page_size, H_q, H_kv, n_splits)
    assert FORMULAS["paged-decoding"] is formulas.paged_decoding
    assert result.ledger.flops.by_kind == flops.paged_decoding(lens, 16, page_size, H_q, H_kv, n_splits)


@pytest.mark.parametrize("g", [1, 2, 4, 8])
def test_each_group_size_reads_each_page_once_per_kv_head(g):
    """K is read H_kv * sum(L) * d * 4 bytes whatever g: one load of a page serves the g query heads."""
    lens, H_kv = [7, 20], 2
    inputs = random_batch(lens, 4, g * H_kv, H_kv, 8, seed=g)
    result = paged_decoding(*inputs)
    assert rel_err(result.o, reference(*inputs)) <= FLOAT32_TOL
    assert result.ledger.per_tensor["K"]["read"] == H_kv * 27 * 8 * 4
    counts = result.ledger.tile_counts("K", bh=None)
    assert sorted(counts.values()) == [H_kv] * sum(-(-n // 4) for n in lens)  # each page once per K/V head


def test_a_page_shared_by_two_sequences_is_read_by_each():
    """Prefix caching: sequences 0 and 1 share their first page; each decode block loads it for itself."""
    inputs = random_batch([9, 12], 4, 2, 1, 8, shared_pages=1)
    table = inputs[3]
    assert table[0, 0] == table[1, 0] and len({*table[0, :3], *table[1, :3]}) == 5
    result = paged_decoding(*inputs)
    assert result.ledger.tile_counts("K")[int(table[0, 0])] == 2
    assert rel_err(result.o, reference(*inputs)) <= FLOAT32_TOL


def test_the_last_partial_page_is_read_as_far_as_the_sequence_goes():
    q, kp, vp, table, lens = random_batch([10], 4, 2, 1, 8)
    ledger = paged_decoding(q, kp, vp, table, lens).ledger
    sizes = [t.nbytes for t in ledger.transfers if t.tensor == "K"]
    assert sizes == [4 * 8 * 4, 4 * 8 * 4, 2 * 8 * 4]  # pages of 4, 4 and the 2 rows of the last
    garbage = kp.copy()
    garbage[table[0, 2], 2:] = 1e30  # the rows past the sequence's end: never read
    assert np.array_equal(paged_decoding(q, garbage, vp, table, lens).o, paged_decoding(q, kp, vp, table, lens).o)


def test_float16_storage_and_scale():
    inputs = random_batch([13, 3], 4, 4, 2, 8, seed=5)
    result = paged_decoding(*inputs, dtype="float16", scale=0.3, n_splits=2)
    q, kp, vp, table, lens = inputs
    rounded = (q.astype(np.float16), kp.astype(np.float16), vp.astype(np.float16), table, lens)
    assert result.o.dtype == np.float16
    assert result.ledger.per_tensor == formulas.paged_decoding([13, 3], 8, 4, 4, 2, 2, itemsize=2)
    assert rel_err(result.o, reference(*rounded, scale=0.3)) <= 1e-3  # float16 output: 2^-11 relative rounding


@settings(max_examples=40, deadline=None)
@given(
    lens=st.lists(st.integers(1, 40), min_size=1, max_size=4),
    page_size=st.integers(1, 9),
    H_kv=st.integers(1, 3),
    g=st.sampled_from([1, 2, 4, 8]),
    n_splits=st.integers(1, 5),
    shared=st.integers(0, 2),
)
def test_random_batches(lens, page_size, H_kv, g, n_splits, shared):
    inputs = random_batch(lens, page_size, g * H_kv, H_kv, 4, seed=sum(lens), shared_pages=shared, spare_pages=1)
    result = paged_decoding(*inputs, n_splits=n_splits)
    assert rel_err(result.o, reference(*inputs)) <= FLOAT32_TOL
    assert result.ledger.per_tensor == formulas.paged_decoding(lens, 4, page_size, g * H_kv, H_kv, n_splits)
    assert result.ledger.flops.by_kind == flops.paged_decoding(lens, 4, page_size, g * H_kv, H_kv, n_splits)


def bad(change):
    q, kp, vp, table, lens = random_batch([5, 9], 4, 4, 2, 8, spare_pages=1)
    args = dict(q=q, k_pages=kp, v_pages=vp, block_table=table.copy(), seq_lens=lens.copy())
    change(args)
    return args


def _set(name, index, value):
    def change(args):
        args[name][index] = value

    return change


BAD = [
    (
        _set("block_table", (1, 2), 99),
        r"^block_table\[1, 2\] = 99: page 2 of sequence 1 is not a page of the pool \(0 to 5",
    ),
    (_set("block_table", (0, 0), -1), r"^block_table\[0, 0\] = -1: page 0 of sequence 0"),
    (
        _set("seq_lens", 1, 13),
        r"^seq_lens\[1\] = 13: sequence 1 needs 4 pages of 4 tokens, beyond its block_table row of 3",
    ),
    (_set("seq_lens", 0, 0), r"^seq_lens\[0\] = 0: sequence 0 must have at least 1 token"),
    (lambda a: a.update(q=a["q"][:, :3]), r"^q: H_q = 3 query heads is not a multiple of H_kv = 2"),
    (lambda a: a.update(v_pages=a["v_pages"][:-1]), r"^v_pages: expected the shape of k_pages"),
    (lambda a: a.update(k_pages=a["k_pages"][..., :4], v_pages=a["v_pages"][..., :4]), r"^k_pages: head dimension"),
    (lambda a: a.update(block_table=a["block_table"].astype(float)), r"^block_table: expected integers"),
    (lambda a: a.update(seq_lens=a["seq_lens"][:1]), r"^block_table, seq_lens: one row per sequence"),
    (lambda a: a.update(q=a["q"][0]), r"^q: expected a non-empty array of shape \(batch, H_q, d\)"),
    (_set("q", (0, 0, 0), np.nan), r"^q: contains non-finite"),
]


@pytest.mark.parametrize(("change", "message"), BAD)
def test_bad_input_is_refused_naming_it(change, message):
    with pytest.raises(ValueError, match=message):
        paged_decoding(**bad(change))


def test_an_entry_past_a_sequence_is_not_read():
    """Padding (-1) past a sequence's last page is allowed: the kernel never reads it."""
    args = bad(lambda a: None)
    assert args["block_table"][0, 2] == -1
    paged_decoding(**args)


def test_sram_budget_and_splits_option():
    inputs = random_batch([5], 4, 4, 2, 8)
    with pytest.raises(SramBudgetError, match="^decode: a block needs"):
        paged_decoding(*inputs, sram_budget=100)
    with pytest.raises(ValueError, match="^n_splits: expected a positive integer"):
        paged_decoding(*inputs, n_splits=0)
