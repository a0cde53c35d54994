"""A block of query rows that sees no key (causal, N > N_kv) returns before loading anything (issue 37): FA2 and FA2 on
tensor cores read neither its Q tile nor any K/V tile and only write O = 0 and L = -inf, as flash-attn's forward
kernel returns early; FA1 and the backward never visit it. The expected bytes are worked out by hand below for
N = 12, N_kv = 4, d = 2, Br = Bc = 4, not taken from the closed forms they also check.

Row r sees key c iff c <= r + N_kv - N = r - 8: rows 0..7 see nothing, so blocks 0 (rows 0-3) and 1 (rows 4-7)
see no key, and block 2 (rows 8-11) sees the one K/V tile (keys 0-3; row 8 only key 0)."""

import numpy as np
import pytest

from kernelviz.attention import (
    attention_fp64,
    flash_attention_1,
    flash_attention_2,
    flash_attention_2_backward,
    flash_attention_2_mma,
    flops,
    formulas,
)
from kernelviz.attention.blocks import tiles_per_block

N, N_KV, D, BR, BC = 12, 4, 2, 4, 4


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((1, N, D)), rng.standard_normal((1, N_KV, D)), rng.standard_normal((1, N_KV, D))


def per_block(ledger):
    """{block: {(tensor, direction): bytes}}."""
    out = {}
    for t in ledger.transfers:
        moved = out.setdefault(t.block, {})
        moved[t.tensor, t.direction] = moved.get((t.tensor, t.direction), 0) + t.nbytes
    return out


@pytest.mark.parametrize("dtype, s", [("float32", 4), ("float16", 2)])
def test_fa2_blocks_that_see_no_key_only_write(dtype, s):
    q, k, v = inputs()
    result = flash_attention_2(q, k, v, Br=BR, Bc=BC, causal=True, dtype=dtype)
    blocks = per_block(result.ledger)
    for i in (0, 1):  # 4 rows each: O 4 * d * s bytes, L 4 * 4 bytes; nothing read
        assert blocks[i] == {("O", "write"): 4 * D * s, ("L", "write"): 16}
    assert blocks[2] == {
        ("Q", "read"): 4 * D * s,
        ("K", "read"): 4 * D * s,
        ("V", "read"): 4 * D * s,
        ("O", "write"): 4 * D * s,
        ("L", "write"): 16,
    }
    by_hand = {"Q": (4 * D * s, 0), "K": (4 * D * s, 0), "V": (4 * D * s, 0), "O": (0, N * D * s), "L": (0, N * 4)}
    per_tensor = {t: (rw["read"], rw["write"]) for t, rw in result.ledger.per_tensor.items()}
    assert per_tensor == by_hand
    closed = formulas.fa2(N, D, BR, BC, N_kv=N_KV, causal=True, itemsize=s)
    assert {t: (rw["read"], rw["write"]) for t, rw in closed.items()} == by_hand
    assert tiles_per_block(result) == [0, 0, 1]


def test_fa2_masked_rows_give_zero_and_minus_infinity():
    q, k, v = inputs()
    result = flash_attention_2(q, k, v, Br=BR, Bc=BC, causal=True)
    assert np.all(result.o[0, :8] == 0)
    assert np.all(np.isneginf(result.lse[0, :8]))
    ref_o, ref_lse = attention_fp64(q, k, v, causal=True)
    np.testing.assert_allclose(result.o[0, 8:], ref_o[0, 8:], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(result.lse[0, 8:], ref_lse[0, 8:], rtol=1e-5, atol=1e-6)


def test_fa2_flops_skip_the_masked_blocks():
    """Only block 2 computes: one tile of r = c = 4, d = 2 (S and P V: 2 * 2rcd = 128 matmul; rc + r = 20 exp;
    rc + 3rc + 2r + 2rd = 88 other), then its finish (rd + r = 12 other, r = 4 exp)."""
    q, k, v = inputs()
    result = flash_attention_2(q, k, v, Br=BR, Bc=BC, causal=True)
    assert dict(result.ledger.flops) == {"matmul": 128, "exp": 24, "other": 100}
    assert flops.fa2(N, D, BR, BC, N_kv=N_KV, causal=True) == {"matmul": 128, "exp": 24, "other": 100}


def test_fa2_mma_masked_blocks_store_and_load_nothing():
    """Tensor cores, float16 (s = 2), 2 warps: only block 2 stores Qi (Br d s = 16 bytes) and loads it (16), stores
    Kj and Vj (Bc d s = 16 each) and each warp loads both (2 * 16 each)."""
    q, k, v = inputs()
    result = flash_attention_2_mma(q, k, v, Br=BR, Bc=BC, warps=2, causal=True, dtype="float16")
    smem = result.ledger.smem_bytes
    assert (smem["Q"], smem["K"], smem["V"]) == (
        {"store": 16, "load": 16},
        {"store": 16, "load": 32},
        {"store": 16, "load": 32},
    )
    assert formulas.fa2_mma_shared(N, D, BR, BC, N_kv=N_KV, warps=2, causal=True)["Q"] == {"store": 16, "load": 16}
    blocks = per_block(result.ledger)
    assert blocks[0] == blocks[1] == {("O", "write"): 4 * D * 2, ("L", "write"): 16}
    assert np.all(result.o[0, :8] == 0) and np.all(np.isneginf(result.lse[0, :8]))


def test_fa1_and_the_backward_never_visit_a_block_that_sees_no_key():
    """K/V outer: FA1 writes O, l, m of every block once at the start (blocks 0 and 1: nothing more), and reads Q only
    for block 2; the backward's main kernel reads Q, dO, L, D only of block 2's rows."""
    q, k, v = inputs()
    fa1 = flash_attention_1(q, k, v, Br=BR, Bc=BC, causal=True)
    q_reads = {t.tile for t in fa1.ledger.transfers if t.tensor == "Q"}
    assert q_reads == {2}
    fwd = flash_attention_2(q, k, v, Br=BR, Bc=BC, causal=True)
    do = np.random.default_rng(1).standard_normal((1, N, D))
    bwd = flash_attention_2_backward(q, k, v, fwd.o, do, fwd.lse, Br=BR, Bc=BC, causal=True)
    main = {(t.tensor, t.tile) for t in bwd.ledger.transfers if t.kernel == "fa2_bwd" and t.direction == "read"}
    assert {tile for tensor, tile in main if tensor in ("Q", "dO", "L", "Δ")} == {2}
    assert np.all(bwd.dq[0, :8] == 0)
