"""Flash decoding with partials="lse" (flash-attn's, FlashInfer's and vLLM's form of the partials: the normalized
output and one log-sum-exp a row): the ledger meets its closed form exactly, it moves one float a row a split less
each way than the seed page's O, m, l, its output is attention's, and the merge of two states is associative."""

import itertools
import json

import numpy as np
import pytest
from attention_cases import FLOAT32_TOL, SIZES, grid_splits, qkv, rel_err

from kernelviz.attention import attention_fp64, flash_decoding, flops, formulas, run
from kernelviz.attention.flash_decoding import combine_lse, merge
from kernelviz.cli import main

STAT = 4  # bytes of a float32 partial statistic


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("partials", ["unnormalized", "lse"])
def test_the_ledger_meets_the_closed_forms(size, causal, partials):
    n, n_kv, d, Br, Bc = size
    q, k, v = qkv(2, n, d, n_kv)
    tiles = -(-n_kv // Bc)
    for n_splits in sorted({1, grid_splits(n_kv, Bc), tiles}):  # ragged: the last splits may own fewer tiles, or none
        ledger = flash_decoding(q, k, v, Br=Br, Bc=Bc, n_splits=n_splits, causal=causal, partials=partials).ledger
        sizes = dict(N_kv=n_kv, causal=causal, batch_heads=2, partials=partials)
        expected = formulas.flash_decoding(n, d, Br, Bc, n_splits, **sizes)
        assert ledger.per_tensor == expected
        assert ledger.total_bytes == formulas.total(expected)
        assert ledger.flops.by_kind == flops.flash_decoding(n, d, Br, Bc, n_splits, **sizes)


@pytest.mark.parametrize(
    ("n", "n_kv", "d", "Bc", "n_splits", "bh"), [(1, 16, 4, 4, 2, 1), (1, 16, 4, 4, 3, 3), (5, 37, 8, 4, 4, 2)]
)
def test_lse_partials_move_one_float_a_row_a_split_less_each_way(n, n_kv, d, Bc, n_splits, bh):
    q, k, v = qkv(bh, n, d, n_kv)
    seed, lse = (
        flash_decoding(q, k, v, Br=2, Bc=Bc, n_splits=n_splits, partials=p).ledger for p in ("unnormalized", "lse")
    )
    rows = bh * n * n_splits  # one query row per head, per split
    assert seed.total_bytes - lse.total_bytes == 2 * rows * STAT  # m and l (2 floats) against one lse, written and read
    assert lse.per_tensor["lse_partial"] == {"read": rows * STAT, "write": rows * STAT}
    assert (
        seed.per_tensor["O_partial"]
        == lse.per_tensor["O_partial"]
        == {"read": rows * d * STAT, "write": rows * d * STAT}
    )
    assert "m_partial" not in lse.per_tensor and "lse_partial" not in seed.per_tensor


OUTPUT_SIZES = [(1, 33, 4, 3, False), (1, 16, 4, 3, False), (7, 40, 8, 5, True), (12, 9, 2, 5, True)]


@pytest.mark.parametrize(("n", "n_kv", "Bc", "n_splits", "causal"), OUTPUT_SIZES)
def test_the_output_is_attention(n, n_kv, Bc, n_splits, causal):
    """Ragged splits (16 keys in tiles of 4, 3 splits: 2, 2 and 0 tiles), causal rows that see no key (N > N_kv):
    within FLOAT32_TOL of the float64 reference, relative to its largest output, for both forms."""
    q, k, v = qkv(3, n, 8, n_kv, seed=4)
    o_ref, _ = attention_fp64(q, k, v, causal=causal)
    for partials in ("unnormalized", "lse"):
        o = flash_decoding(q, k, v, Br=4, Bc=Bc, n_splits=n_splits, causal=causal, partials=partials).o
        assert rel_err(o, o_ref) <= FLOAT32_TOL, partials


def states(n_kv, cuts, seed=0, d=5, rows=3):
    """The attention states (o, lse), float64, of 4 query rows over the keys [cuts[i], cuts[i+1]) of one sequence,
    each computed on its own by the reference; and the state over all keys."""
    q, k, v = qkv(1, rows, d, n_kv, seed=seed, scale=2.0)
    parts = [attention_fp64(q, k[:, a:b], v[:, a:b]) for a, b in itertools.pairwise(cuts)]
    return parts, attention_fp64(q, k, v)


def test_merging_the_splits_gives_attention_over_all_keys():
    parts, (o_all, lse_all) = states(30, [0, 4, 11, 12, 25, 30])
    o, lse = parts[0]
    for part in parts[1:]:
        o, lse = merge((o, lse), part)
    np.testing.assert_allclose(o, o_all, rtol=0, atol=1e-12)
    np.testing.assert_allclose(lse, lse_all, rtol=0, atol=1e-12)
    # the n-way combine of flash-attn's kernel is the same merge
    o_parts, lse_parts = np.stack([p[0] for p in parts]), np.stack([p[1] for p in parts])
    np.testing.assert_allclose(combine_lse(o_parts, lse_parts), o_all, rtol=0, atol=1e-12)


def test_the_merge_is_associative_and_commutative():
    """What cascade attention builds on: merge the states of five key ranges in every order, grouped from the left,
    from the right and as a balanced tree; every result is the same state (1e-12 in float64), a state over no keys
    (0, -inf) changes nothing, and an unbalanced split into states of very different scale (lse 60 apart) too."""
    parts, (o_all, lse_all) = states(40, [0, 1, 9, 20, 21, 40], seed=3)
    empty = (np.zeros_like(o_all), np.full_like(lse_all, -np.inf))

    def left(xs):
        out = xs[0]
        for x in xs[1:]:
            out = merge(out, x)
        return out

    def right(xs):
        out = xs[-1]
        for x in reversed(xs[:-1]):
            out = merge(x, out)
        return out

    def tree(xs):
        if len(xs) == 1:
            return xs[0]
        half = len(xs) // 2
        return merge(tree(xs[:half]), tree(xs[half:]))

    results = [fold(list(order)) for order in itertools.permutations(parts) for fold in (left, right, tree)]
    results.append(left([empty, *parts[:2], empty, *parts[2:]]))
    for o, lse in results:
        np.testing.assert_allclose(o, o_all, rtol=0, atol=1e-12)
        np.testing.assert_allclose(lse, lse_all, rtol=0, atol=1e-12)
    # far apart: one state's scores shifted up by 60 (its weights e^60 times the other's)
    (o_a, lse_a), (o_b, lse_b), (o_c, lse_c) = parts[0], parts[1], (parts[2][0], parts[2][1] + 60.0)
    a, b, c = (o_a, lse_a), (o_b, lse_b), (o_c, lse_c)
    one, two = merge(merge(a, b), c), merge(a, merge(b, c))
    np.testing.assert_allclose(one[0], two[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(one[1], two[1], rtol=0, atol=1e-12)


def test_a_bad_partials_is_named():
    q, k, v = qkv(1, 1, 4, 8)
    with pytest.raises(ValueError, match="partials must be 'unnormalized'.*or 'lse'.*got 'normalized'"):
        flash_decoding(q, k, v, Bc=4, n_splits=2, partials="normalized")


def test_run_and_trace_take_partials(capsys):
    done = run("flash-decoding", N=1, N_kv=16, d=4, Br=1, Bc=4, splits=2, partials="lse")
    assert done.result.ledger.total_bytes == formulas.total(
        formulas.flash_decoding(1, 4, 1, 4, 2, N_kv=16, partials="lse")
    )
    assert done.result.params["partials"] == "lse"
    with pytest.raises(ValueError, match="partials is a flash-decoding option"):
        run("fa2", N=8, d=4, Br=4, Bc=4, partials="lse")
    argv = [
        "trace",
        "flash-decoding",
        "--N",
        "3",
        "--N-kv",
        "50",
        "--d",
        "8",
        "--Br",
        "2",
        "--Bc",
        "16",
        "--splits",
        "3",
    ]
    assert main([*argv, "--partials", "lse", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["per_tensor"] == formulas.flash_decoding(3, 8, 2, 16, 3, N_kv=50, partials="lse")
    assert report["params"]["partials"] == "lse"
    assert main(["trace", "fa2", "--N", "8", "--partials", "lse"]) == 2
    assert "--partials: flash-decoding's option" in capsys.readouterr().err
