"""Each algorithm's measured ledger equals its closed-form count in kernelviz.attention.formulas, tensor by
tensor, over many sizes (N not a multiple of Br or Bc, N != N_kv, causal, float16, several heads)."""

import itertools

import pytest
from attention_cases import DENSE, DRAWN, SIZES, closed_form, grid_splits, qkv, run, splits
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelviz.attention import ALGORITHMS, FORMULAS, formulas, softmax


@pytest.mark.parametrize("name", DENSE)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("causal, dtype", [(False, "float32"), (True, "float32"), (True, "float16")])
def test_ledger_equals_formula_on_a_grid(name, size, causal, dtype):
    n, n_kv, d, Br, Bc = size
    n_splits = grid_splits(n_kv, Bc)
    q, k, v = qkv(2, n, d, n_kv)
    ledger = run(name, q, k, v, Br=Br, Bc=Bc, causal=causal, dtype=dtype, n_splits=n_splits).ledger
    itemsize = 2 if dtype == "float16" else 4
    expected = closed_form(FORMULAS, name, n, n_kv, d, Br, Bc, causal, 2, n_splits, itemsize=itemsize)
    assert ledger.per_tensor == expected
    assert ledger.total_bytes == formulas.total(expected)


@settings(max_examples=100, deadline=None)
@given(**DRAWN, data=st.data())
def test_ledger_equals_formula(n, n_kv, d, Br, Bc, causal, bh, data):
    n_splits = data.draw(splits(n_kv, Bc))
    q, k, v = qkv(bh, n, d, n_kv)
    for name in DENSE:
        ledger = run(name, q, k, v, Br=Br, Bc=Bc, causal=causal, n_splits=n_splits).ledger
        assert ledger.per_tensor == closed_form(FORMULAS, name, n, n_kv, d, Br, Bc, causal, bh, n_splits), name


@pytest.mark.parametrize("n, n_kv, Br, Bc", [(8, 8, 2, 2), (9, 5, 4, 2), (5, 9, 2, 4), (1, 10, 4, 3), (30, 30, 7, 4)])
@pytest.mark.parametrize("causal", [False, True])
def test_tile_interactions_are_the_tiles_fa2_computes(n, n_kv, Br, Bc, causal):
    q, k, v = qkv(1, n, 2, n_kv)
    ledger = ALGORITHMS["fa2"](q, k, v, Br=Br, Bc=Bc, causal=causal).ledger
    pairs = {(t.block, t.tile) for t in ledger.transfers if t.tensor == "K"}
    assert formulas.tile_interactions(n, Br, Bc, N_kv=n_kv, causal=causal) == len(pairs)
    # counted independently: tile (i, j) is computed iff some (row, key) in it is visible
    visible = sum(
        any(
            c <= r + n_kv - n for r in range(i * Br, min(i * Br + Br, n)) for c in range(j * Bc, min(j * Bc + Bc, n_kv))
        )
        or not causal
        for i, j in itertools.product(range(-(-n // Br)), range(-(-n_kv // Bc)))
    )
    assert len(pairs) == visible


def test_causal_square_interactions_are_the_lower_triangle_of_tiles():
    assert formulas.tile_interactions(64, 8, 8, causal=True) == 8 * 9 // 2
    assert formulas.tile_interactions(64, 8, 8) == 64


@pytest.mark.parametrize("n, d, n_splits, itemsize", [(1, 64, 4, 2), (100, 16, 3, 4), (37, 5, 1, 4)])
def test_split_overhead_is_decode_minus_fa2(n, d, n_splits, itemsize):
    decode = formulas.total(formulas.flash_decoding(n, d, 8, 8, n_splits, N_kv=64, itemsize=itemsize))
    fa2 = formulas.fa2(n, d, 8, 8, N_kv=64, itemsize=itemsize)
    fa2_without_l = formulas.total(fa2) - fa2["L"]["write"]
    assert formulas.split_overhead(n, d, n_splits, itemsize) == decode - fa2_without_l


def test_compulsory_and_score_matrix():
    n, d, s = 1000, 64, 2
    assert formulas.total(formulas.compulsory(n, d, itemsize=s)) == 4 * n * d * s
    assert formulas.score_matrix_bytes(n, itemsize=s, batch_heads=3) == 3 * n * n * s
    std = formulas.standard(n, d, 64, 64, itemsize=s)
    assert std["S"]["write"] == formulas.score_matrix_bytes(n, itemsize=s)
    for f in (formulas.standard, formulas.fa1, formulas.fa2):
        assert formulas.total(f(n, d, 64, 64, itemsize=s)) >= formulas.total(formulas.compulsory(n, d, itemsize=s))


def test_formulas_are_plain_integer_python():
    import inspect

    source = inspect.getsource(formulas)
    assert "import" not in source.replace("imports", "")
    counts = formulas.flash_decoding(77, 13, 8, 16, 3, N_kv=91, causal=True, itemsize=2, batch_heads=2)
    assert all(type(x) is int for t in counts.values() for x in t.values())


@pytest.mark.parametrize("rows, n, b", [(1, 1, 1), (3, 10, 4), (2, 17, 17), (4, 9, 20)])
def test_softmax_ledgers_equal_formula(rows, n, b):
    x = qkv(1, rows, n)[0][0]
    v = qkv(1, n, 5)[2][0]
    for variant, f in (
        ("naive", softmax.naive_softmax),
        ("safe", softmax.safe_softmax),
        ("online", softmax.online_softmax),
    ):
        assert f(x, b).ledger.per_tensor == formulas.softmax(variant, n, rows=rows)
    out = softmax.online_softmax_output(x, v, b)
    assert out.ledger.per_tensor == formulas.softmax("online-output", n, rows=rows, d=5)
