"""The shared-memory traffic of the book's scalar kernels (attention.scalar_smem): the FA1, FA2 and FA2 backward
ledgers' counts equal the closed forms beside their records (closed_forms.<algo>.shared) over a grid of ragged,
causal and N != N_kv sizes, and a small case counted by hand from fa2.cu's loops."""

import itertools
from pathlib import Path

import numpy as np
import pytest

from kernelviz.attention.closed_forms import fa1 as fa1_topic
from kernelviz.attention.closed_forms import fa2 as fa2_topic
from kernelviz.attention.closed_forms import fa2_backward as backward_topic
from kernelviz.attention.closed_forms import paged_decoding as paged_topic
from kernelviz.attention.fa1 import flash_attention_1
from kernelviz.attention.fa2 import flash_attention_2
from kernelviz.attention.fa2_backward import flash_attention_2_backward

GRID = [  # (N, N_kv, d, Br, Bc): ragged N % Br and N_kv % Bc, N > N_kv (blocks that see no key) and N < N_kv
    (9, 9, 4, 4, 4),
    (13, 7, 8, 4, 3),
    (7, 13, 2, 3, 5),
    (16, 16, 8, 8, 4),
    (20, 5, 4, 4, 2),
    (5, 20, 16, 2, 8),
]


def backward(q, k, v, **options):
    """FA2's backward on the forward's o and lse and a random dO (what ``fa2-backward`` runs)."""
    fwd = flash_attention_2(q, k, v, **options)
    do = np.random.default_rng(1).standard_normal(fwd.o.shape)
    return flash_attention_2_backward(q, k, v, fwd.o, do, fwd.lse, **options)


RUNS = {
    "fa1": (flash_attention_1, fa1_topic.shared),
    "fa2": (flash_attention_2, fa2_topic.shared),
    "fa2-backward": (backward, backward_topic.shared),
}


def inputs(bh, n, n_kv, d, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((bh, n, d)), rng.standard_normal((bh, n_kv, d)), rng.standard_normal((bh, n_kv, d))


CASES = list(itertools.product(GRID, (False, True), ("float32", "float16")))


@pytest.mark.parametrize("algo", sorted(RUNS))
@pytest.mark.parametrize(("sizes", "causal", "dtype"), CASES)
def test_the_ledger_meets_the_closed_form(algo, sizes, causal, dtype):
    n, n_kv, d, Br, Bc = sizes
    run, closed = RUNS[algo]
    q, k, v = inputs(2, n, n_kv, d)
    ledger = run(q, k, v, Br=Br, Bc=Bc, causal=causal, dtype=dtype).ledger
    itemsize = 4 if dtype == "float32" else 2
    expected = closed(n, d, Br, Bc, N_kv=n_kv, causal=causal, itemsize=itemsize, batch_heads=2)
    assert ledger.smem_bytes == expected


def test_fa2_counted_by_hand():
    """N = 6, N_kv = 4, d = 2, Br = 4, Bc = 2, causal, float32: row r sees keys up to r - 2, so block 0 (rows 0-3)
    visits tile 0 only and block 1 (rows 4, 5 and two past N) both tiles: 3 steps, 2 blocks, 6 rows that exist."""
    q, k, v = inputs(1, 6, 4, 2)
    got = flash_attention_2(q, k, v, Br=4, Bc=2, causal=True).ledger.smem_bytes
    steps, mm = 3, 3 * 4 * 2 * 2 * 4  # each step: Br Bc d loads of 4 bytes
    assert got["Q"] == {"store": 2 * 4 * 2 * 4, "load": mm}
    assert got["K"] == got["V"] == {"store": steps * 2 * 2 * 4, "load": mm}
    assert got["S"] == {"store": steps * 2 * 4 * 2 * 4, "load": steps * (2 + 2) * 4 * 2 * 4}
    rows = 4 + 2  # the rows that exist of the two blocks
    assert got["O"] == {"store": (steps + 2) * 4 * 2 * 4, "load": steps * 4 * 2 * 4 + rows * 2 * 4}
    assert got["m"] == {"store": (steps + 2) * 4 * 4, "load": steps * 4 * 4 + rows * 4}
    assert got["l"] == {"store": (steps + 2) * 4 * 4, "load": steps * 4 * 4 + rows * 4 + rows * 2 * 4}  # O = Oi / li


def test_a_planted_slip_is_caught(monkeypatch):
    """The closed form is not the ledger restated: a scalar_smem that forgets the update's reload of Sij for every
    column of O (fa2.cu's pv loop) makes the ledger and the closed form part."""
    import types

    from kernelviz.attention import fa2, scalar_smem

    source = Path(scalar_smem.__file__).read_text()
    assert "(2 + d) * Br * Bc * F32" in source
    planted = types.ModuleType("planted_scalar_smem")
    planted.__dict__["__package__"] = "kernelviz.attention"
    exec(compile(source.replace("(2 + d) * Br * Bc * F32", "2 * Br * Bc * F32"), "planted", "exec"), planted.__dict__)
    q, k, v = inputs(1, 9, 9, 4)
    closed = fa2_topic.shared(9, 4, 4, 4, N_kv=9)
    assert flash_attention_2(q, k, v, Br=4, Bc=4).ledger.smem_bytes == closed
    monkeypatch.setattr(fa2, "scalar_smem", planted)
    assert flash_attention_2(q, k, v, Br=4, Bc=4).ledger.smem_bytes["S"] != closed["S"]


def test_the_cli_reports_it_but_puts_no_tensor_roof_beside_it(capsys):
    """`kernelviz trace fa1 --gpu h100 --json` carries fa1.cu's shared traffic (the closed form's), and its units
    leave shared memory out: the scalar kernel's traffic is not paired with the tensor cores' rate (shared_unit)."""
    import json

    from kernelviz.cli import main
    from kernelviz.roofline.units import SHARED

    argv = ["trace", "fa1", "--N", "13", "--N-kv", "7", "--d", "8", "--Br", "4", "--Bc", "3", "--causal"]
    assert main([*argv, "--gpu", "h100", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = fa1_topic.shared(13, 8, 4, 3, N_kv=7, causal=True)
    assert report["shared"]["per_tensor"] == expected
    assert report["shared"]["total"] == sum(sl["store"] + sl["load"] for sl in expected.values())
    assert SHARED not in report["units"]["units"]


def test_fa2_backward_counted_by_hand():
    """N = N_kv = 2, d = 1, Br = Bc = 2, float32: one block, one step, every element 4 bytes, walked through
    fa2_bwd.cu's loops: load_kv stores Kj, Vj, dKj, dVj (8 B each); load_q Qi, dOi, Li, Δi (8 B each); recompute
    reads Qi, Kj and Li once a score (4 scores: 16 B each) and stores Pij (16); dv reads Pij and dOi twice for each of
    dVj's 2 elements (16 each) and loads and stores dVj (8); ds reads dOi, Vj, Pij, Δi once a score (16 each) and
    stores dSij (16); dq reads dSij and Kj twice a row (16 each); dk reads dSij and Qi twice an element (16 each)
    and loads and stores dKj (8); the write-back reads dKj and dVj (8 each)."""
    q, k, v = inputs(1, 2, 2, 1)
    got = backward(q, k, v, Br=2, Bc=2).ledger.smem_bytes
    sl = lambda store, load: {"store": store, "load": load}  # noqa: E731
    assert got == {
        "Q": sl(8, 16 + 16),
        "K": sl(8, 16 + 16),
        "V": sl(8, 16),
        "dO": sl(8, 16 + 16),
        "L": sl(8, 16),
        "Δ": sl(8, 16),
        "P": sl(16, 16 + 16),
        "dS": sl(16, 16 + 16),
        "dK": sl(8 + 8, 8 + 8),
        "dV": sl(8 + 8, 8 + 8),
    }


PAGED = [  # (seq_lens, page_size, H_q, H_kv, n_splits): partly filled last pages, empty splits, groups of 1 to 4
    ([5, 17, 9], 4, 8, 2, 1),
    ([5, 17, 9], 4, 8, 2, 3),
    ([1, 40, 16], 16, 4, 4, 4),
    ([33, 31], 8, 2, 1, 2),
]


@pytest.mark.parametrize(("lens", "page_size", "H_q", "H_kv", "n_splits"), PAGED)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_paged_decoding_meets_its_closed_form(lens, page_size, H_q, H_kv, n_splits, dtype):
    from kernelviz.attention import paged_decoding, random_batch

    inputs = random_batch(lens, page_size, H_q, H_kv, 8, seed=3, shared_pages=1, spare_pages=2)
    ledger = paged_decoding(*inputs, n_splits=n_splits, dtype=dtype).ledger
    itemsize = 4 if dtype == "float32" else 2
    assert ledger.smem_bytes == paged_topic.shared(lens, 8, page_size, H_q, H_kv, n_splits, itemsize)


def test_paged_decoding_counted_by_hand():
    """One sequence of 3 tokens, pages of 2, H_q = H_kv = 1 (g = 1), d = 2, one split, float32: one block, two pages
    of 2 and 1 tokens, walked through paged_decode's loops (4 bytes an element)."""
    from kernelviz.attention import paged_decoding, random_batch

    got = paged_decoding(*random_batch([3], 2, 1, 1, 2, seed=0)).ledger.smem_bytes
    tokens, pages = 3, 2
    sl = lambda store, load: {"store": store, "load": load}  # noqa: E731
    assert got["Q"] == sl(2 * 4, tokens * 2 * 4)  # Qg stored once; read d = 2 a score
    assert got["K"] == sl(tokens * 2 * 4, tokens * 2 * 4) and got["V"] == got["K"]  # pv: 2 elements, a token each
    assert got["S"] == sl(2 * tokens * 4, (2 + 2) * tokens * 4)  # scores and P~; max, exp and once an element of Og
    assert got["page"] == sl(pages * 4, tokens * 2 * 4)  # read once for each element load_page copies
    assert got["alpha"] == sl(pages * 4, pages * 2 * 4)  # once an element of Og a page
    assert got["O"] == sl((1 + pages) * 2 * 4, (pages + 1) * 2 * 4)  # zeroed, updated a page; read by the write
    assert got["m"] == sl((1 + pages) * 4, pages * 4)
    assert got["l"] == sl((1 + pages) * 4, pages * 4 + 2 * 4)  # O = Og / li: li read for each element


def test_the_tensor_core_kernels_keep_shared_memory_among_their_units():
    """Counting the scalar kernels' traffic does not make it a roofline unit, nor take the unit from the tensor-core
    kernels, whose shared traffic is what their bars show."""
    from kernelviz.attention.topics import TOPICS

    assert {r.name for r in TOPICS if r.shared_unit} == {"fa2-mma", "fa2-pipe", "fa3"}
    scalar = {r.name for r in TOPICS if r.shared is not None and not r.shared_unit}
    assert scalar == {"fa1", "fa2", "fa2-backward", "paged-decoding"}
