"""Each algorithm's counted FLOPs (ledger.flops, added by the operations as they run) equal the closed form in
kernelviz.attention.flops, kind by kind, over many sizes (ragged tiles, N != N_kv, causal, several heads); and the
matmul count equals the textbook 4 N N_kv d where nothing is skipped."""

import pytest
from attention_cases import DENSE, DRAWN, SIZES, closed_form, grid_splits, qkv, run, splits
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelviz.attention import ALGORITHMS, FLOP_FORMULAS, flops
from kernelviz.attention.ledger import Flops


def test_every_algorithm_has_a_flop_formula():
    assert set(FLOP_FORMULAS) == set(ALGORITHMS)


@pytest.mark.parametrize("name", DENSE)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("causal", [False, True])
def test_counted_flops_equal_the_formula_on_a_grid(name, size, causal):
    n, n_kv, d, Br, Bc = size
    n_splits = grid_splits(n_kv, Bc)
    q, k, v = qkv(2, n, d, n_kv)
    counted = run(name, q, k, v, Br=Br, Bc=Bc, causal=causal, n_splits=n_splits).ledger.flops.by_kind
    assert counted == closed_form(FLOP_FORMULAS, name, n, n_kv, d, Br, Bc, causal, 2, n_splits)


@settings(max_examples=60, deadline=None)
@given(**DRAWN, data=st.data())
def test_counted_flops_equal_the_formula(n, n_kv, d, Br, Bc, causal, bh, data):
    n_splits = data.draw(splits(n_kv, Bc))
    q, k, v = qkv(bh, n, d, n_kv)
    for name in DENSE:
        counted = run(name, q, k, v, Br=Br, Bc=Bc, causal=causal, n_splits=n_splits).ledger.flops.by_kind
        assert counted == closed_form(FLOP_FORMULAS, name, n, n_kv, d, Br, Bc, causal, bh, n_splits), name


PRODUCTS = {"fa2-backward": 5, "standard-backward": 4}  # S again, dV, dP, dQ, dK; or all but S (P is read back)


@pytest.mark.parametrize("name", DENSE)
def test_matmul_flops_are_the_two_products_without_a_mask(name):
    """Q K^T and P V are each 2 N N_kv d multiply-adds' worth, whatever the tiling (an independent count); a backward
    pass does its own products of the same size: four, and a fifth where it recomputes S."""
    n, n_kv, d, bh = 13, 9, 5, 2
    expected = bh * PRODUCTS.get(name, 2) * (2 * n * n_kv * d)
    assert closed_form(FLOP_FORMULAS, name, n, n_kv, d, 4, 3, False, bh, 2)["matmul"] == expected


def test_causal_skips_matmul_work_in_the_flash_algorithms_but_not_in_standard():
    n, d, Br, Bc = 64, 8, 8, 8
    full = flops.fa2(n, d, Br, Bc)["matmul"]
    assert flops.fa2(n, d, Br, Bc, causal=True)["matmul"] == full * 36 // 64  # 8 + 7 + ... + 1 of 64 tiles
    assert flops.standard(n, d, Br, Bc, causal=True) == flops.standard(n, d, Br, Bc)


def test_flops_counter_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="kind"):
        Flops().add("sqrt", 1)


def test_matmul_counts_stacks_of_matrices():
    f = Flops()
    f.matmul((3, 4, 5), (3, 5, 6))
    assert f.by_kind == {"matmul": 3 * 2 * 4 * 5 * 6, "exp": 0, "other": 0}
