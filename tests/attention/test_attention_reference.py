"""attention_fp64 against a row-by-row loop written from the definition, and its documented conventions."""

import math

import numpy as np
import pytest
from attention_cases import qkv

from kernelviz.attention import attention_fp64


def loop_attention(q, k, v, causal, scale):
    """One row at a time, from the definition, with math.exp and math.log."""
    bh, n, d = q.shape
    n_kv = k.shape[1]
    o, lse = np.zeros((bh, n, d)), np.zeros((bh, n))
    for b in range(bh):
        for r in range(n):
            keys = [c for c in range(n_kv) if not causal or c <= r + n_kv - n]
            if not keys:
                lse[b, r] = -math.inf
                continue
            s = {c: scale * float(np.dot(q[b, r], k[b, c])) for c in keys}
            m = max(s.values())
            total = sum(math.exp(s[c] - m) for c in keys)
            lse[b, r] = m + math.log(total)
            o[b, r] = sum(math.exp(s[c] - m) / total * v[b, c] for c in keys)
    return o, lse


@pytest.mark.parametrize("n, n_kv", [(1, 1), (5, 5), (7, 3), (3, 7), (1, 9)])
@pytest.mark.parametrize("causal", [False, True])
def test_matches_the_definition(n, n_kv, causal):
    q, k, v = qkv(2, n, 4, n_kv, seed=n * 10 + n_kv)
    o, lse = attention_fp64(q, k, v, causal=causal, scale=0.7)
    o_ref, lse_ref = loop_attention(q, k, v, causal, 0.7)
    np.testing.assert_allclose(o, o_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lse, lse_ref, rtol=1e-12, atol=1e-12)
    assert o.dtype == lse.dtype == np.float64 and lse.shape == (2, n)


def test_default_scale_is_one_over_sqrt_d():
    q, k, v = qkv(1, 6, 9)
    o, lse = attention_fp64(q, k, v)
    o3, lse3 = attention_fp64(q, k, v, scale=1 / 3)
    assert np.array_equal(o, o3) and np.array_equal(lse, lse3)


def test_causal_is_bottom_right_aligned():
    # one query row (decoding) sees every key; with N == N_kv row r sees keys 0..r
    q, k, v = qkv(1, 1, 4, 6)
    assert np.allclose(attention_fp64(q, k, v, causal=True)[0], attention_fp64(q, k, v)[0])
    q, k, v = qkv(1, 4, 4)
    o, _ = attention_fp64(q, k, v, causal=True)
    assert np.allclose(o[0, 0], v[0, 0])  # row 0 sees key 0 only


def test_fully_masked_rows_are_zero_with_lse_minus_inf():
    q, k, v = qkv(1, 5, 4, 2)  # rows 0..2 see no key under bottom-right causal masking
    o, lse = attention_fp64(q, k, v, causal=True)
    assert np.all(o[0, :3] == 0) and np.all(np.isneginf(lse[0, :3]))
    assert np.all(np.isfinite(lse[0, 3:])) and np.all(o[0, 3:] != 0)
