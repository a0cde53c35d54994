"""The backward passes against attention_backward_fp64 (the gradient through each row's softmax Jacobian), which is
itself checked against central finite differences of attention_fp64.

Tolerances: float32 storage, each of dq, dk, dv within 2e-5 of its magnitude, a bound on the gradient with every
term made non-negative (the size of what was summed before it cancels: see `magnitudes`; measured errors are about
2e-7 of it);
float16 storage, at most twice the error of the standard backward run in float16 (flash-attn's rule for the
forward), each against the reference on the inputs as stored."""

import importlib

import numpy as np
import pytest
from attention_cases import qkv
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelviz.attention import (
    ALGORITHMS,
    attention_backward_fp64,
    attention_fp64,
    flash_attention_2,
    flash_attention_2_backward,
    standard_attention,
    standard_attention_backward,
)

TOL32 = 2e-5


def dout(q, seed=5):
    return np.random.default_rng(seed).standard_normal(q.shape)


def fd_gradients(q, k, v, do, causal, h=1e-6):
    """Central differences of sum(o * do), entry by entry, in float64."""

    def loss(q_, k_, v_):
        return float((attention_fp64(q_, k_, v_, causal=causal)[0] * do).sum())

    grads = []
    for which in range(3):
        arrays = [q.copy(), k.copy(), v.copy()]
        g = np.zeros_like(arrays[which])
        for idx in np.ndindex(g.shape):
            plus, minus = [a.copy() for a in arrays], [a.copy() for a in arrays]
            plus[which][idx] += h
            minus[which][idx] -= h
            g[idx] = (loss(*plus) - loss(*minus)) / (2 * h)
        grads.append(g)
    return grads


@pytest.mark.parametrize(
    "n, n_kv, causal", [(5, 5, False), (5, 5, True), (4, 7, True), (7, 3, True), (6, 4, False), (1, 5, True)]
)
def test_the_reference_gradient_is_the_finite_difference_gradient(n, n_kv, causal):
    q, k, v = qkv(2, n, 3, n_kv, seed=n + n_kv)
    do = dout(q)
    for got, fd in zip(
        attention_backward_fp64(q, k, v, do, causal=causal), fd_gradients(q, k, v, do, causal), strict=True
    ):
        np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-7)


def magnitudes(q, k, v, do, causal):
    """The scale of float32 error in each of dq, dk, dv: the gradient with every term made non-negative, so that
    nothing cancels (dS = P * (dP - D) is exactly 0 when a row sees one key, but not its rounding). With P the
    softmax, A = |dO| |V|^T bounds |dP| and |D| <= rowmax A: |dS| <= E = P * (A + rowsum(P * A)), so
    |dq| <= scale * E |K|, |dk| <= scale * E^T |Q|, |dv| <= P^T |dO|."""
    q, k, v, do = (np.asarray(x, np.float64) for x in (q, k, v, do))
    scale = 1 / np.sqrt(q.shape[-1])
    s = scale * q @ k.transpose(0, 2, 1)
    if causal:
        n, n_kv = q.shape[1], k.shape[1]
        s = np.where(np.arange(n_kv)[None, :] <= np.arange(n)[:, None] + n_kv - n, s, -np.inf)
    m = s.max(-1, keepdims=True)
    p = np.exp(s - np.where(np.isneginf(m), 0, m))
    p /= np.where(p.sum(-1, keepdims=True) == 0, 1, p.sum(-1, keepdims=True))
    a = np.abs(do) @ np.abs(v).transpose(0, 2, 1)
    e = p * (a + (p * a).sum(-1, keepdims=True))
    bounds = (scale * e @ np.abs(k), scale * e.transpose(0, 2, 1) @ np.abs(q), p.transpose(0, 2, 1) @ np.abs(do))
    return [max(b.max(), 1e-30) for b in bounds]


def stored(dtype, *arrays):
    return [np.asarray(x).astype(dtype) for x in arrays]


def errors(got, ref, scale=None):
    scale = scale or [np.abs(r).max() or 1.0 for r in ref]
    return [float(np.abs(g.astype(np.float64) - r).max() / m) for g, r, m in zip(got, ref, scale, strict=True)]


def fa2_grads(q, k, v, do, **options):
    fwd = flash_attention_2(q, k, v, **options)
    return flash_attention_2_backward(q, k, v, fwd.o, do, fwd.lse, **options)


@settings(max_examples=60, deadline=None)
@given(
    bh=st.integers(1, 2),
    n=st.integers(1, 30),
    n_kv=st.integers(1, 30),
    d=st.integers(1, 9),
    Br=st.integers(1, 16),
    Bc=st.integers(1, 16),
    causal=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_float32_matches_the_reference(bh, n, n_kv, d, Br, Bc, causal, seed):
    q, k, v = stored("float32", *qkv(bh, n, d, n_kv, seed=seed))
    do = dout(q, seed).astype(np.float32)
    ref = attention_backward_fp64(q, k, v, do, causal=causal)
    scale = magnitudes(q, k, v, do, causal)
    fa2 = fa2_grads(q, k, v, do, Br=Br, Bc=Bc, causal=causal)
    assert fa2.dq.dtype == fa2.dk.dtype == fa2.dv.dtype == np.float32
    assert max(errors((fa2.dq, fa2.dk, fa2.dv), ref, scale)) <= TOL32
    std = standard_attention_backward(q, k, v, do, Br=Br, Bc=Bc, causal=causal)
    assert max(errors((std.dq, std.dk, std.dv), ref, scale)) <= TOL32


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n, n_kv, Br, Bc", [(130, 130, 32, 16), (1, 77, 8, 8), (45, 97, 16, 32), (97, 45, 16, 8)])
def test_float16_within_twice_the_standard_backward(causal, n, n_kv, Br, Bc):
    q, k, v = qkv(2, n, 32, n_kv, seed=n)
    do = dout(q)
    ref = attention_backward_fp64(*stored("float16", q, k, v, do), causal=causal)
    o16 = standard_attention(q, k, v, causal=causal, dtype="float16").o
    std = standard_attention_backward(q, k, v, do, Br=Br, Bc=Bc, causal=causal, dtype="float16")
    fa2 = fa2_grads(q, k, v, do, Br=Br, Bc=Bc, causal=causal, dtype="float16")
    assert fa2.dk.dtype == fa2.dv.dtype == np.float16 and fa2.dq.dtype == np.float32 and o16.dtype == np.float16
    for got, want, r in zip((fa2.dq, fa2.dk, fa2.dv), (std.dq, std.dk, std.dv), ref, strict=True):
        err, err_std = (np.abs(x.astype(np.float64) - r).max() for x in (got, want))
        assert err <= 2 * err_std


def test_a_fully_masked_row_has_zero_dq_and_adds_nothing():
    q, k, v = qkv(1, 9, 4, 4)  # N > N_kv, causal bottom-right: rows 0..4 see no key
    do = dout(q)
    g = fa2_grads(q, k, v, do, Br=4, Bc=2, causal=True)
    assert np.all(g.dq[0, :5] == 0) and np.all(np.isfinite(g.dq)) and np.all(np.isfinite(g.dk))
    ref = attention_backward_fp64(*stored("float32", q, k, v, do), causal=True)
    assert max(errors((g.dq, g.dk, g.dv), ref)) <= TOL32
    # the masked rows' dO does not reach dK or dV
    do2 = do.copy()
    do2[0, :5] = 100.0
    g2 = fa2_grads(q, k, v, do2, Br=4, Bc=2, causal=True)
    assert np.array_equal(g.dk, g2.dk) and np.array_equal(g.dv, g2.dv)


@pytest.mark.parametrize("causal", [False, True])
def test_the_traced_run_is_the_backward_of_the_forward(causal):
    q, k, v = qkv(2, 20, 6, 13, seed=3)
    r = ALGORITHMS["fa2-backward"](q, k, v, Br=8, Bc=4, causal=causal)
    ref = attention_backward_fp64(*stored("float32", q, k, v, r.do), causal=causal)
    assert max(errors((r.dq, r.dk, r.dv), ref)) <= TOL32
    o_ref, _ = attention_fp64(*stored("float32", q, k, v), causal=causal)
    assert np.abs(r.o - o_ref).max() <= 1e-5 * np.abs(o_ref).max()


def test_the_atomic_add_of_dq_is_a_read_and_a_write_of_the_tile():
    q, k, v = qkv(1, 10, 4, 12)
    ledger = ALGORITHMS["fa2-backward"](q, k, v, Br=4, Bc=5).ledger
    main = [t for t in ledger.transfers if t.kernel == "fa2_bwd" and t.tensor == "dQ"]
    reads = sorted((t.block, t.tile, t.step, t.nbytes) for t in main if t.direction == "read")
    writes = sorted((t.block, t.tile, t.step, t.nbytes) for t in main if t.direction == "write")
    assert reads == writes and len(reads) == 3 * 3  # 3 K/V tiles, each visiting 3 blocks of rows
    assert {n for *_, n in reads} == {4 * 4 * 4, 2 * 4 * 4}  # float32 tiles of 4 rows, the last of 2


@pytest.mark.parametrize(
    "args, arg",
    [
        (dict(o=np.zeros((2, 6, 3))), "o"),
        (dict(do=np.full((2, 6, 4), np.nan)), "do"),
        (dict(lse=np.zeros((2, 5))), "lse"),
        (dict(lse=np.full((2, 6), np.inf)), "lse"),
        (dict(Br=0), "Br"),
    ],
)
def test_bad_input_names_the_argument(args, arg):
    q, k, v = qkv(2, 6, 4, 5)
    call = dict(o=np.zeros_like(q), do=np.zeros_like(q), lse=np.zeros((2, 6)))
    options = {key: args.pop(key) for key in list(args) if key not in call}
    call.update(args)
    with pytest.raises(ValueError, match=f"^{arg}:"):
        flash_attention_2_backward(q, k, v, call["o"], call["do"], call["lse"], **options)


@pytest.mark.parametrize(("dtype", "itemsize"), [("float32", 4), ("float16", 2)])
def test_the_standard_backward_makes_the_passes_over_n_by_n_its_docstring_says(dtype, itemsize):
    """The N x N_kv traffic the ledger counts, over one N x N_kv tensor's bytes, is the number of passes the module's
    docstring states (and the backward page, tests/pages/test_pages_backward.py)."""
    bh, n, n_kv = 2, 10, 12
    q, k, v = qkv(bh, n, 4, n_kv)
    ledger = standard_attention_backward(q, k, v, dout(q), Br=4, Bc=5, dtype=dtype).ledger
    square = bh * n * n_kv * itemsize
    assert [t for t, size in ledger.tensor_bytes.items() if size == square] == ["P", "dP", "dS"]
    moved = sum(ledger.per_tensor[t]["read"] + ledger.per_tensor[t]["write"] for t in ("P", "dP", "dS"))
    passes, rest = divmod(moved, square)
    assert rest == 0
    doc = " ".join(importlib.import_module("kernelviz.attention.standard_backward").__doc__.split())
    assert f"{passes} passes over N * N_kv elements" in doc


def test_the_row_sum_of_do_times_o_is_named_delta_as_the_book_names_it():
    """Δ = rowsum(dO ∘ O) is Δ in the ledger (HBM tensor and SRAM tile) as on the pages; D is only the head
    dimension, so no tensor or tile of either backward is called D."""
    q, k, v = qkv(1, 10, 4, 12)
    fa2 = ALGORITHMS["fa2-backward"](q, k, v, Br=4, Bc=5).ledger
    std = ALGORITHMS["standard-backward"](q, k, v, Br=4, Bc=5).ledger
    assert set(fa2.tensor_bytes) == {"Q", "K", "V", "O", "dO", "L", "Δ", "dQ", "dK", "dV"}
    assert fa2.tensor_bytes["Δ"] == 10 * 4  # one float32 a row
    assert {t.tensor for t in fa2.transfers if t.kernel == "fa2_bwd_preprocess" and t.direction == "write"} == {
        "Δ",
        "dQ",
    }
    assert "Δi" in fa2.sram["fa2_bwd"] and "Δi" in std.sram["softmax_bwd"]
    for ledger in (fa2, std):
        tiles = {name for block in ledger.sram.values() for name in block}
        assert not {"D", "Di"} & (set(ledger.tensor_bytes) | tiles)
