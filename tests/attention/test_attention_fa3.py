"""FA3 (attention.fa3): the same numbers as FA2 on tensor cores (its roundings are fa2_mma's: the output equal bit for
bit, hence within fa2_mma's bounds, tested there), FA2's HBM ledger in 16 bits exactly (fa2_mma's), and its
shared-memory traffic equal to its closed form, which a hand count at one size checks in turn."""

import numpy as np
import pytest
from attention_cases import qkv

from kernelviz.attention import attention_fp64, closed_form, flash_attention_2_mma, half, run
from kernelviz.attention.fa3 import flash_attention_3
from kernelviz.attention.topics.fa3 import shared

CASES = [  # n, n_kv, d, Br, Bc, warpgroups, causal
    (256, 256, 64, 128, 128, 2, False),
    (300, 300, 64, 128, 128, 2, True),
    (90, 50, 8, 16, 8, 2, True),  # N > N_kv: the first 40 rows see no key
    (50, 90, 8, 12, 16, 3, True),  # warpgroups of 4 rows
    (9, 12, 8, 4, 4, 3, True),  # warpgroups of 2, 2 and 0 rows
]


def hbm(result):
    """{(tensor, direction): bytes} of a result's ledger."""
    found = {}
    for t in result.ledger.transfers:
        found[t.tensor, t.direction] = found.get((t.tensor, t.direction), 0) + t.nbytes
    return found


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n, n_kv, d, Br, Bc, warpgroups, causal", CASES)
def test_fa2_mmas_numbers_and_hbm_traffic(dtype, n, n_kv, d, Br, Bc, warpgroups, causal):
    """Each row's arithmetic is fa2_mma's (scores, online softmax, P~ and O rounded to 16 bits), so o and lse are its
    own bit for bit, and the HBM ledger, transfer for transfer, is the same; against the fp64 reference o is within
    fa2_mma's bound 4u (u = 2^-11, 2^-8), which its own test derives."""
    q, k, v = qkv(2, n, d, n_kv, seed=n + d)
    mine = flash_attention_3(q, k, v, Br=Br, Bc=Bc, warpgroups=warpgroups, causal=causal, dtype=dtype)
    theirs = flash_attention_2_mma(q, k, v, Br=Br, Bc=Bc, warps=warpgroups, causal=causal, dtype=dtype)
    assert np.array_equal(mine.o, theirs.o) and np.array_equal(mine.lse, theirs.lse)
    assert hbm(mine) == hbm(theirs)
    assert mine.ledger.read_bytes == theirs.ledger.read_bytes and mine.ledger.write_bytes == theirs.ledger.write_bytes
    rounded = [
        x.astype(np.float16).astype(np.float32) if dtype == "float16" else half.round(x, "bf16") for x in (q, k, v)
    ]
    o_ref, _ = attention_fp64(*rounded, causal=causal)
    u = half.UNIT_ROUNDOFF["fp16" if dtype == "float16" else "bf16"]
    assert np.abs(mine.o.astype(np.float64) - o_ref).max() <= 4 * u * max(1.0, np.abs(o_ref).max())


@pytest.mark.parametrize("n, n_kv, d, Br, Bc, warpgroups, causal", CASES)
def test_shared_memory_traffic_is_its_closed_form(n, n_kv, d, Br, Bc, warpgroups, causal):
    q, k, v = qkv(3, n, d, n_kv, seed=1)
    r = flash_attention_3(q, k, v, Br=Br, Bc=Bc, warpgroups=warpgroups, causal=causal)
    formula = shared(n, d, Br, Bc, N_kv=n_kv, warpgroups=warpgroups, causal=causal, batch_heads=3)
    assert r.ledger.smem_bytes == formula


def test_shared_memory_traffic_counted_by_hand():
    """N = N_kv = 256, d = 64, Br = Bc = 128, 2 warpgroups, fp16 (s = 2), one head: 2 blocks x 2 tiles = 4 visits.
    A tile of Q, K, V or O is 128 x 64 x 2 = 16,384 B. TMA stores: Q once a block (2 tiles), K and V once a visit
    (4 each); wgmma reads Q once a visit (the two warpgroups' halves, 4 tiles), K and V twice a visit (8 each); O
    stored and read once a block (2 each); P nothing: no ldmatrix, no P through shared memory."""
    tile = 128 * 64 * 2
    q, k, v = qkv(1, 256, 64, 256, seed=2)
    r = flash_attention_3(q, k, v)
    assert r.ledger.smem_bytes == {
        "Q": {"store": 2 * tile, "load": 4 * tile},
        "K": {"store": 4 * tile, "load": 8 * tile},
        "V": {"store": 4 * tile, "load": 8 * tile},
        "P": {"store": 0, "load": 0},
        "O": {"store": 2 * tile, "load": 2 * tile},
    }


def test_registered_as_an_algorithm_its_closed_forms_met():
    """``run("fa3")`` and ``closed_form("fa3")`` (what ``kernelviz trace fa3`` and ``{{ trace }}`` read) agree: bytes,
    FLOPs and shared traffic, ragged and causal; float32 storage is refused, naming wgmma's operands."""
    sizes = dict(N=300, N_kv=200, d=64, Br=128, Bc=128, causal=True, batch_heads=2)
    done, closed = run("fa3", **sizes).numbers(), closed_form("fa3", **sizes)
    for key in ("bytes", "flops", "shared"):
        assert done[key] == closed[key], key
    assert closed["bytes"] == closed_form("fa2-mma", **sizes)["bytes"]
    with pytest.raises(ValueError, match="16-bit"):
        run("fa3", N=8, d=8, Br=8, Bc=8, dtype="float32")
