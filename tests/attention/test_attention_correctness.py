"""Every algorithm against attention_fp64 on the inputs as stored (float32: 1e-5 of the output's magnitude;
float16: at most twice the error of standard attention run in float16, flash-attn's rule)."""

import numpy as np
import pytest
from attention_cases import DENSE, FLOAT32_TOL, qkv, rel_err, run
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelviz.attention import attention_fp64, flash_decoding, standard_attention

NAMES = DENSE
WITH_LSE = ["fa1", "fa2"]


def reference(q, k, v, dtype="float32", **options):
    """attention_fp64 on the inputs rounded to the storage dtype, as the algorithm reads them."""
    return attention_fp64(*(x.astype(dtype) for x in (q, k, v)), **options)


@settings(max_examples=100, deadline=None)
@given(
    bh=st.integers(1, 2),
    n=st.integers(1, 40),
    n_kv=st.integers(1, 40),
    d=st.integers(1, 12),
    Br=st.integers(1, 20),
    Bc=st.integers(1, 20),
    causal=st.booleans(),
    data=st.data(),
)
def test_float32_matches_fp64(bh, n, n_kv, d, Br, Bc, causal, data):
    q, k, v = qkv(bh, n, d, n_kv, seed=data.draw(st.integers(0, 2**16)))
    n_splits = data.draw(st.integers(1, -(-n_kv // Bc)))
    o_ref, lse_ref = reference(q, k, v, causal=causal)
    # tiny shapes can make the output cancel to near zero: measure against the magnitude before cancellation
    magnitude = np.abs(reference(q, k, np.abs(v), causal=causal)[0]).max() or 1.0
    for name in NAMES:
        r = run(name, q, k, v, Br=Br, Bc=Bc, causal=causal, n_splits=n_splits)
        assert r.o.dtype == np.float32 and r.o.shape == q.shape
        assert rel_err(r.o, o_ref, magnitude) <= FLOAT32_TOL, name
        if name in WITH_LSE:
            finite = np.isfinite(lse_ref)
            assert np.array_equal(np.isneginf(r.lse), ~finite), name
            np.testing.assert_allclose(r.lse[finite], lse_ref[finite], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n, n_kv, Br, Bc", [(130, 130, 32, 16), (1, 77, 8, 8), (45, 97, 16, 32)])
def test_float16_within_twice_standard_float16(name, causal, n, n_kv, Br, Bc):
    q, k, v = qkv(2, n, 32, n_kv, seed=n)
    o_ref, _ = reference(q, k, v, "float16", causal=causal)
    err_standard = np.abs(standard_attention(q, k, v, causal=causal, dtype="float16").o - o_ref).max()
    r = run(name, q, k, v, Br=Br, Bc=Bc, causal=causal, dtype="float16", n_splits=2)
    assert r.o.dtype == np.float16
    assert np.abs(r.o.astype(np.float64) - o_ref).max() <= 2 * err_standard


@pytest.mark.parametrize("name", NAMES)
def test_logits_around_1e4_stay_exact(name):
    # integer inputs: the scores (around 1e4) are exact in float32, so any error is the softmax's own
    rng = np.random.default_rng(3)
    q = rng.integers(40, 60, (1, 50, 4)).astype(np.float64)
    k = rng.integers(40, 60, (1, 70, 4)).astype(np.float64)
    v = rng.standard_normal((1, 70, 4))
    o_ref, lse_ref = attention_fp64(q, k, v.astype(np.float32), scale=1.0)
    assert lse_ref.min() > 6000
    r = run(name, q, k, v, Br=16, Bc=16, scale=1.0, n_splits=3)
    assert np.all(np.isfinite(r.o)) and rel_err(r.o, o_ref) <= FLOAT32_TOL
    if r.lse is not None:
        np.testing.assert_allclose(r.lse, lse_ref, rtol=1e-6)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n, n_kv, Br, Bc", [(1, 1, 64, 64), (1, 100, 64, 64), (5, 5, 64, 64), (67, 67, 16, 16)])
def test_small_and_ragged_sizes(name, n, n_kv, Br, Bc):
    q, k, v = qkv(3, n, 8, n_kv, seed=7)
    for causal in (False, True):
        o_ref, _ = reference(q, k, v, causal=causal)
        assert rel_err(run(name, q, k, v, Br=Br, Bc=Bc, causal=causal).o, o_ref) <= FLOAT32_TOL


@pytest.mark.parametrize("name", NAMES)
def test_fully_masked_rows_give_zero_and_lse_minus_inf(name):
    q, k, v = qkv(1, 9, 4, 4)  # N > N_kv, causal bottom-right: rows 0..4 see no key
    r = run(name, q, k, v, Br=4, Bc=2, causal=True, n_splits=2)
    o_ref, _ = reference(q, k, v, causal=True)
    assert np.all(r.o[0, :5] == 0) and np.all(np.isfinite(r.o))
    assert rel_err(r.o, o_ref) <= FLOAT32_TOL
    if r.lse is not None:
        assert np.all(np.isneginf(r.lse[0, :5])) and np.all(np.isfinite(r.lse[0, 5:]))


@settings(max_examples=40, deadline=None)
@given(n_kv=st.integers(1, 90), Bc=st.integers(1, 16), causal=st.booleans(), seed=st.integers(0, 2**16))
def test_flash_decoding_does_not_depend_on_n_splits(n_kv, Bc, causal, seed):
    q, k, v = qkv(2, 3, 8, n_kv, seed=seed)
    n_tiles = -(-n_kv // Bc)
    outputs = [flash_decoding(q, k, v, Br=2, Bc=Bc, causal=causal, n_splits=s).o for s in range(1, n_tiles + 1)]
    o_ref, _ = reference(q, k, v, causal=causal)
    for o in outputs:
        assert rel_err(o, o_ref) <= FLOAT32_TOL
        assert rel_err(o, outputs[0].astype(np.float64)) <= FLOAT32_TOL


@pytest.mark.parametrize("name", NAMES)
def test_scores_that_overflow_float32_are_refused_not_nan(name):
    q, k, v = qkv(1, 4, 4, 4)
    q[0, 2], k[0, 1] = 1e20, 1e20  # each fits float32; their product does not
    with pytest.raises(ValueError, match=r"^q, k: the scores .* overflow float32"):
        run(name, q, k, v, Br=2, Bc=2, n_splits=2)


def test_an_overflowing_score_the_causal_mask_hides_is_fine():
    q, k, v = qkv(1, 4, 4, 4)
    q[0, :3], k[0, 3] = 1e20, 1e20  # rows 0..2 would overflow on key 3, which the mask hides from them
    q[0, 3] = 0.5
    o, _ = reference(q, k, v, causal=True)
    r = run("fa2", q, k, v, Br=2, Bc=2, causal=True)
    assert np.all(np.isfinite(r.o)) and rel_err(r.o, o) <= FLOAT32_TOL
