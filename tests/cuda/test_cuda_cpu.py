"""The .cu kernels, unchanged, run on the CPU through the shim and agree with attention/'s float64 reference."""

import math

import numpy as np
import pytest
from cuda_cases import TOL, lse_err, needs_gxx, qkv, rel_err

from kernelviz.attention.reference import attention_backward_fp64, attention_fp64
from kernelviz.cuda import cpu, kernels
from kernelviz.cuda.verify import inputs, softmax_fp64

pytestmark = needs_gxx

NS, DS = (1, 7, 64, 130), (16, 64)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", DS)
@pytest.mark.parametrize("n", NS)
def test_fa2_matches_reference(n, d, causal):
    q, k, v = qkv(2, n, d)
    out = cpu.run("fa2", q, k, v, causal=causal)
    o_ref, lse_ref = attention_fp64(q, k, v, causal=causal)
    assert rel_err(out["O"], o_ref) <= TOL
    assert lse_err(out["L"], lse_ref) <= TOL


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", DS)
@pytest.mark.parametrize("n", NS)
def test_fa1_matches_reference(n, d, causal):
    q, k, v = qkv(2, n, d, seed=1)
    out = cpu.run("fa1", q, k, v, causal=causal)
    o_ref, lse_ref = attention_fp64(q, k, v, causal=causal)
    assert rel_err(out["O"], o_ref) <= TOL  # FA1 keeps O normalized in HBM: it is the answer as it stands
    lse = out["m"].astype(np.float64) + np.log(out["l"])
    assert lse_err(lse, lse_ref) <= TOL


# The forward kernels' shapes with causal masking and fewer (rows that see no key) or more keys than queries,
# bottom-right aligned as in attention/; N_kv not a multiple of the tiles, and the default tiles (32, 32) at d = 16, 64.
KEYS = [(130, 65), (130, 260), (64, 1), (7, 64), (1, 130), (100, 37)]  # (N, N_kv)


@pytest.mark.parametrize("kernel", ["fa1", "fa2"])
@pytest.mark.parametrize("d", DS)
@pytest.mark.parametrize("n, n_kv", KEYS)
def test_causal_against_a_cache_of_another_length(kernel, n, n_kv, d):
    q, k, v = qkv(2, n, d, seed=10, n_kv=n_kv)
    out = cpu.run(kernel, q, k, v, causal=True)
    o_ref, lse_ref = attention_fp64(q, k, v, causal=True)
    assert rel_err(out["O"], o_ref) <= TOL
    lse = out["L"] if kernel == "fa2" else out["m"].astype(np.float64) + np.log(out["l"])
    assert lse_err(lse, lse_ref) <= TOL
    blind = max(0, n - n_kv)  # rows r with r + N_kv - N < 0 see no key: O is 0 (not NaN), L is -inf
    assert np.isneginf(lse_ref[:, :blind]).all() and np.isfinite(lse_ref[:, blind:]).all()
    assert (out["O"][:, :blind] == 0).all()
    assert np.isneginf(lse[:, :blind]).all() and np.isfinite(lse[:, blind:]).all()


@pytest.mark.parametrize("kernel", ["fa1", "fa2"])
@pytest.mark.parametrize("n, n_kv", [(130, 65), (37, 90)])
def test_without_the_mask_against_a_cache_of_another_length(kernel, n, n_kv):
    q, k, v = qkv(2, n, 16, seed=11, n_kv=n_kv)
    out = cpu.run(kernel, q, k, v, tiles=(16, 8))
    assert rel_err(out["O"], attention_fp64(q, k, v)[0]) <= TOL


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("kernel", ["fa1", "fa2"])
def test_an_empty_cache_gives_zeros(kernel, causal):
    """N_kv = 0: every row sees no key. O is 0 and L is -inf (FA1: l = 0, m = -inf), written, not left unset."""
    q, k, v = qkv(2, 9, 16, seed=12, n_kv=0)
    out = cpu.run(kernel, q, k, v, causal=causal)
    assert (out["O"] == 0).all()
    if kernel == "fa2":
        assert np.isneginf(out["L"]).all()
    else:
        assert (out["l"] == 0).all() and np.isneginf(out["m"]).all()


def split_reference(q, k, v, n_splits, bc):
    """Per split s, in float64: m_s, l_s and the unnormalized O_s over keys [s*S, s*S + S), S = T*bc, where each
    split owns T = ceil(ceil(N/bc) / n_splits) whole tiles of bc keys (flash-attn's split-KV partition)."""
    bh, n, d = k.shape
    size = math.ceil(math.ceil(n / bc) / n_splits) * bc
    o = np.zeros((bh, n_splits, d))
    m, ell = np.full((bh, n_splits), -np.inf), np.zeros((bh, n_splits))
    scores = np.einsum("bd,bnd->bn", q[:, 0].astype(np.float64), k.astype(np.float64)) / np.sqrt(d)
    for s in range(n_splits):
        keys = slice(s * size, min(s * size + size, n))
        if s * size >= n:
            continue
        m[:, s] = scores[:, keys].max(-1)
        p = np.exp(scores[:, keys] - m[:, s : s + 1])
        ell[:, s], o[:, s] = p.sum(-1), np.einsum("bn,bnd->bd", p, v[:, keys].astype(np.float64))
    return o, m, ell


@pytest.mark.parametrize("n_splits", [1, 2, 3, 8])
@pytest.mark.parametrize("d", DS)
@pytest.mark.parametrize("n", NS)
def test_flash_decoding_matches_reference(n, d, n_splits):
    q, k, v = qkv(3, n, d, decode=True, seed=2)
    out = cpu.run("flash_decoding", q, k, v, n_splits=n_splits)
    check_splits(out, q, k, v, n_splits, kernels.default_tiles("flash_decoding", d)[1])


@pytest.mark.parametrize(("n", "bc", "n_splits"), [(16, 4, 3), (20, 3, 3), (17, 4, 2), (8, 1, 6)])
def test_flash_decoding_splits_own_whole_tiles(n, bc, n_splits):
    """Small tiles, where keys per split and tiles per split differ: 4 tiles in 3 splits own 2, 2 and none (the
    last split writes m = -inf, l = 0, O = 0); 7 tiles of 3 keys in 3 splits own 3, 3, 1 (keys 0-8, 9-17, 18-19)."""
    q, k, v = qkv(2, n, 16, decode=True, seed=5)
    out = cpu.run("flash_decoding", q, k, v, n_splits=n_splits, tiles=(1, bc))
    check_splits(out, q, k, v, n_splits, bc)


def check_splits(out, q, k, v, n_splits, bc):
    """The kernel's output is attention, and each split's partials are those of its own keys (split_reference)."""
    o_ref, _ = attention_fp64(q, k, v)
    assert rel_err(out["O"], o_ref) <= TOL
    o_s, m_s, l_s = split_reference(q, k, v, n_splits, bc)
    assert np.array_equal(np.isneginf(out["m_partial"]), np.isneginf(m_s))  # empty splits, and only they
    live = np.isfinite(m_s)
    assert rel_err(out["m_partial"][live], m_s[live]) <= TOL
    assert rel_err(out["l_partial"][live], l_s[live]) <= TOL
    assert rel_err(out["O_partial"], o_s) <= TOL  # unnormalized: not divided by l_s
    assert not out["l_partial"][~live].any() and not out["O_partial"][~live].any()


@pytest.mark.parametrize("d", DS)
@pytest.mark.parametrize("n", NS)
def test_online_softmax_matches_reference(n, d):
    x, v = inputs(3, n, d, seed=8, kernel="online_softmax")
    out = cpu.run("online_softmax", x, v)
    o_ref, lse_ref = softmax_fp64(x, v)
    assert rel_err(out["O"], o_ref) <= TOL  # kept normalized by d after every tile: the answer as it stands
    assert rel_err(out["m_out"], x.max(-1)) == 0  # the max is exact: a max of float32s is one of them
    lse = out["m_out"].astype(np.float64) + np.log(out["l_out"].astype(np.float64))
    assert lse_err(lse, lse_ref) <= TOL


def test_online_softmax_on_scores_whose_max_grows_late():
    """A row sorted ascending: the max grows on every tile, so every tile rescales what came before, by e^(-8)."""
    x = np.arange(40, dtype=np.float32)[None, :] * 1.0
    v = np.random.default_rng(9).standard_normal((1, 40, 16)).astype(np.float32)
    out = cpu.run("online_softmax", x, v, tiles=(1, 8), threads=5)
    assert rel_err(out["O"], softmax_fp64(x, v)[0]) <= TOL


def test_inputs_of_the_wrong_shape_are_refused_naming_them():
    x, v = inputs(2, 10, 16, kernel="online_softmax")
    with pytest.raises(ValueError, match=r"online_softmax: X has shape \(2, 9\), expected \(2, 10\)"):
        cpu.run("online_softmax", x[:, :9], v)
    with pytest.raises(ValueError, match="takes X, V"):
        cpu.run("online_softmax", x, v, v)


@pytest.mark.parametrize("schedule", ["forward", "backward"])
@pytest.mark.parametrize("kernel", kernels.KERNELS)
def test_deterministic_schedules_agree(kernel, schedule):
    """One thread at a time between barriers, in either order, gives the answer the free-running threads give."""
    d = kernels.head_dims(kernel, (16, 64))[0]  # fa3: 64
    arrays = inputs(2, 130, d, decode=kernel == "flash_decoding", seed=3, kernel=kernel)
    options = {"n_splits": 3} if kernel in ("flash_decoding", "paged_decoding") else {"causal": True}
    options = {} if kernel == "online_softmax" else options
    free = cpu.run(kernel, *arrays, **options)
    turns = cpu.run(kernel, *arrays, schedule=schedule, **options)
    for name in free:
        np.testing.assert_array_equal(turns[name], free[name])


@pytest.mark.parametrize("threads", [1, 5, 64])
@pytest.mark.parametrize("tiles", [(16, 8), (8, 16)])
@pytest.mark.parametrize("kernel", ["fa1", "fa2"])
def test_other_tiles_and_thread_counts(kernel, tiles, threads):
    """Br != Bc, and blocks with fewer threads than rows or with threads that do not divide the tiles."""
    q, k, v = qkv(2, 37, 16, seed=4)
    out = cpu.run(kernel, q, k, v, causal=True, tiles=tiles, threads=threads)
    assert rel_err(out["O"], attention_fp64(q, k, v, causal=True)[0]) <= TOL


@pytest.mark.parametrize("threads", [1, 7])
def test_flash_decoding_other_tiles_and_thread_counts(threads):
    q, k, v = qkv(2, 45, 16, decode=True, seed=5)
    out = cpu.run("flash_decoding", q, k, v, tiles=(1, 4), threads=threads, n_splits=4)
    assert rel_err(out["O"], attention_fp64(q, k, v)[0]) <= TOL


def test_scale_is_passed_through():
    q, k, v = qkv(1, 20, 16, seed=6)
    out = cpu.run("fa2", q, k, v, scale=0.5)
    assert rel_err(out["O"], attention_fp64(q, k, v, scale=0.5)[0]) <= TOL


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", (13, *DS))
@pytest.mark.parametrize("n", NS)
def test_fa2_backward_matches_reference(n, d, causal):
    """Tolerance TOL (1e-5 of max |reference|) on each of D, dQ, dK, dV; measured: under 1e-6."""
    q, k, v, o, do, lse = inputs(2, n, d, seed=3, kernel="fa2_bwd", causal=causal)
    out = cpu.run("fa2_bwd", q, k, v, o, do, lse, causal=causal)
    assert rel_err(out["Delta"], (do.astype(np.float64) * o).sum(-1)) <= TOL
    for name, ref in zip(("dQ", "dK", "dV"), attention_backward_fp64(q, k, v, do, causal=causal), strict=True):
        assert rel_err(out[name], ref) <= TOL, name


@pytest.mark.parametrize("tiles, threads", [((1, 1), 1), ((7, 5), 3), ((16, 32), 200)])
def test_fa2_backward_on_ragged_tiles_and_odd_thread_counts(tiles, threads):
    q, k, v, o, do, lse = inputs(1, 37, 11, seed=4, kernel="fa2_bwd", causal=True)
    out = cpu.run("fa2_bwd", q, k, v, o, do, lse, causal=True, tiles=tiles, threads=threads)
    for name, ref in zip(("dQ", "dK", "dV"), attention_backward_fp64(q, k, v, do, causal=True), strict=True):
        assert rel_err(out[name], ref) <= TOL, name


ATOMIC_PROGRAM = r"""
#include "shim.h"
#include <cstdio>
__global__ void add(float* total, int times) {
    for (int t = 0; t < times; t++) atomicAdd(total, 1.f);
}
int main() {
    float total = 0.f;
    kvshim::launch(add, dim3{2, 1, 1}, dim3{256, 1, 1}, kvshim::Schedule::threads, &total, 2000);
    std::printf("%.1f\n", total);
}
"""


def test_the_shims_atomic_add_is_atomic_across_threads(tmp_path):
    """256 threads running at once each add 1 2,000 times, in 2 blocks: 1,024,000, exact in float32 (< 2^24)."""
    import subprocess

    (tmp_path / "atomic.cpp").write_text(ATOMIC_PROGRAM)
    exe = tmp_path / "atomic"
    subprocess.run(
        [cpu.compiler(), *cpu.FLAGS, f"-I{cpu.HERE}", str(tmp_path / "atomic.cpp"), "-o", str(exe)], check=True
    )
    assert subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.strip() == "1024000.0"
