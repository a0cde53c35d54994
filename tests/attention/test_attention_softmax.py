"""The softmax variants against a float64 softmax, and the overflow that the naive one is there to show."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelviz.attention import naive_softmax, online_softmax, online_softmax_output, safe_softmax


def softmax64(x):
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 4), n=st.integers(1, 40), b=st.integers(1, 12), spread=st.sampled_from([1, 30, 1e4]))
def test_safe_online_and_one_pass_match_float64(rows, n, b, spread):
    rng = np.random.default_rng(n * 100 + b)
    x = (rng.standard_normal((rows, n)) * spread).astype(np.float32)
    v = rng.standard_normal((n, 3)).astype(np.float32)
    ref = softmax64(x)
    for f in (safe_softmax, online_softmax):
        np.testing.assert_allclose(f(x, b).out, ref, rtol=1e-5, atol=1e-7)
    o_ref = ref @ v.astype(np.float64)
    o = online_softmax_output(x, v, b).out
    assert np.abs(o - o_ref).max() <= 1e-5 * np.abs(o_ref).max()


def test_naive_matches_for_small_scores_and_overflows_for_large():
    x = np.array([[0.5, -1.0, 2.0, 0.0, 1.5]])
    np.testing.assert_allclose(naive_softmax(x, 2).out, softmax64(x), rtol=1e-6)
    big = naive_softmax(x + 100, 2).out  # exp(100) overflows float32
    assert not np.all(np.isfinite(big))
    np.testing.assert_allclose(online_softmax(x + 100, 2).out, softmax64(x), rtol=1e-5)


def test_masked_scores_are_allowed():
    x = np.array([[-np.inf, 1.0, -np.inf, 2.0]])
    np.testing.assert_allclose(online_softmax(x, 3).out, softmax64(x), rtol=1e-6)
    assert np.all(online_softmax_output(np.full((1, 4), -np.inf), np.ones((4, 2)), 3).out == 0)


def test_passes_over_x():
    x = np.zeros((2, 10))
    assert naive_softmax(x, 5).ledger.trips("x") == 2
    assert safe_softmax(x, 5).ledger.trips("x") == 3
    assert online_softmax(x, 5).ledger.trips("x") == 2
    one_pass = online_softmax_output(x, np.ones((10, 3)), 5).ledger
    assert one_pass.trips("x") == one_pass.trips("V") == one_pass.trips("o", "write") == 1


@pytest.mark.parametrize("bad, arg", [(np.zeros(3), "x"), (np.array([[np.nan]]), "x"), (np.array([[np.inf]]), "x")])
def test_bad_input_names_the_argument(bad, arg):
    with pytest.raises(ValueError, match=f"^{arg}:"):
        online_softmax(bad, 2)
    with pytest.raises(ValueError, match="^b:"):
        online_softmax(np.zeros((1, 3)), 0)
    with pytest.raises(ValueError, match="^v:"):
        online_softmax_output(np.zeros((1, 3)), np.zeros((4, 2)), 2)


@pytest.mark.parametrize("f", [naive_softmax, safe_softmax, online_softmax])
def test_a_fully_masked_row_gives_zero_not_nan(f):
    x = np.array([[-np.inf] * 5, [0.5, -np.inf, 2.0, 0.0, 1.5]])
    y = f(x, 2).out
    assert np.all(y[0] == 0)
    np.testing.assert_allclose(y[1], softmax64(x[1:])[0], rtol=1e-6)


def test_finite_inputs_too_large_for_float32_are_refused():
    with pytest.raises(ValueError, match=r"^x: 1e\+39 overflows float32"):
        online_softmax(np.array([[0.0, 1e39]]), 2)
    with pytest.raises(ValueError, match=r"^v: -1e\+40 overflows float32"):
        online_softmax_output(np.zeros((1, 2)), np.array([[0.0], [-1e40]]), 2)
