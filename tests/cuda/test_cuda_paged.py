"""paged_decoding.cu on the CPU shim against paged_attention_fp64, on the cases the NumPy algorithm is checked on:
pages scattered through the pool and shared between sequences, lengths not multiples of the page, a sequence of
one token, groups of g = 1, 2, 4, 8 query heads, one split or several (some empty)."""

import numpy as np
import pytest
from cuda_cases import TOL, needs_gxx, rel_err

from kernelviz.attention import paged_attention_fp64, paged_decoding, random_batch
from kernelviz.cuda import cpu, kernels

pytestmark = needs_gxx

CASES = [  # (seq_lens, page_size, g, H_kv, n_splits, d)
    ([5, 17, 9], 4, 4, 2, 1, 16),
    ([5, 17, 9], 4, 4, 2, 3, 16),
    ([1], 16, 1, 4, 1, 16),  # one token: one row of one page
    ([1, 40, 16], 16, 8, 1, 4, 16),  # multi-query; the one-token sequence has three empty splits
    ([33, 31], 8, 2, 2, 2, 32),
]


@pytest.mark.parametrize(("lens", "page_size", "g", "H_kv", "n_splits", "d"), CASES)
def test_matches_the_reference(lens, page_size, g, H_kv, n_splits, d):
    arrays = random_batch(lens, page_size, g * H_kv, H_kv, d, seed=g, shared_pages=1, spare_pages=3)
    out = cpu.run("paged_decoding", *arrays, n_splits=n_splits, threads=7)
    o = out["O"].reshape(arrays[0].shape)
    assert rel_err(o, paged_attention_fp64(*arrays)) <= TOL
    np.testing.assert_allclose(o, paged_decoding(*arrays, n_splits=n_splits).o, rtol=1e-5, atol=1e-6)
    assert out["O_partial"].shape == (len(lens) * g * H_kv, n_splits if n_splits > 1 else 0, d)


def test_padding_past_a_sequence_is_never_read():
    """The table's -1 entries past each sequence's pages, and the pool's pages no sequence uses, are untouched: a
    read of page -1 would reach the guard zone's NaN, and the spare pages are NaN here."""
    q, k_pages, v_pages, table, lens = random_batch([3, 20], 4, 2, 1, 16, spare_pages=2)
    used = set(table[table >= 0].tolist())
    for pool in (k_pages, v_pages):
        pool[[p for p in range(pool.shape[0]) if p not in used]] = np.nan
    assert (table == -1).any()
    out = cpu.run("paged_decoding", q, k_pages, v_pages, table, lens)
    expected = paged_attention_fp64(q, k_pages, v_pages, table, lens)
    assert rel_err(out["O"].reshape(q.shape), expected) <= TOL


def test_the_data_fixes_the_tiles_and_shapes_must_agree():
    arrays = random_batch([5], 4, 4, 2, 16)
    assert kernels.tiles_for("paged_decoding", arrays, 16) == (2, 4)  # G = 4 / 2, PAGE = 4
    with pytest.raises(ValueError, match=r"the inputs fix the tiles \(G, PAGE\) at \(2, 4\), not \(4, 16\)"):
        cpu.run("paged_decoding", *arrays, tiles=(4, 16))
    q, k, v, table, lens = arrays
    with pytest.raises(ValueError, match="K_pages .* and V_pages .* must be equal"):
        cpu.run("paged_decoding", q, k, v[:, :2], table, lens)
    with pytest.raises(ValueError, match="must have Q's 1 sequences"):
        cpu.run("paged_decoding", q, k, v, np.concatenate([table, table]), lens)
    with pytest.raises(ValueError, match="paged_decoding takes Q, K_pages, V_pages, block_table, seq_lens"):
        cpu.run("paged_decoding", q, k, v, table)


def test_plan_one_launch_for_one_split_two_for_more():
    assert [x.name for x in kernels.plan("paged_decoding", 6, 3, 64, (4, 16))] == ["paged_decode<4, 16, 64>"]
    launches = kernels.plan("paged_decoding", 6, 3, 64, (4, 16), n_splits=5)
    assert [(x.name, x.grid) for x in launches] == [("paged_decode<4, 16, 64>", (5, 6)), ("paged_combine<64>", (24,))]
