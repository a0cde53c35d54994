"""The closed forms answer at any size without a loop over tiles: the sums over blocks of query rows
(``formulas.visited_sums``, ``floor_sum``) and over visited tile pairs (``flops.pair_sums``) equal the loops they
replace over a grid of ragged, causal and N != N_kv sizes, and at N = 2^30 they answer without calling
``tiles_visited`` even once, with the values the triangle of tiles gives by hand."""

import itertools

import pytest

from kernelviz.attention import FLOP_FORMULAS, FORMULAS, flops, formulas

GRID = list(
    itertools.product((1, 2, 5, 16, 17, 33, 64), (1, 3, 16, 31, 64, 70), (1, 3, 8, 16), (1, 4, 7, 16), (False, True))
)


def test_floor_sum_is_the_sum_of_its_floors():
    for n, m, a, b in itertools.product(range(0, 12), range(1, 9), range(0, 12), range(0, 20)):
        assert formulas.floor_sum(n, m, a, b) == sum((a * k + b) // m for k in range(n)), (n, m, a, b)


def test_the_sums_over_blocks_equal_their_loops():
    for N, N_kv, Br, Bc, causal in GRID:
        _sums_equal_loops(N, N_kv, Br, Bc, causal)


def _sums_equal_loops(N, N_kv, Br, Bc, causal):
    blocks = range(formulas.cdiv(N, Br))  # every block of query rows
    visits = [formulas.tiles_visited(i, N, Br, Bc, N_kv, causal) for i in blocks]
    assert formulas.tile_interactions(N, Br, Bc, N_kv, causal) == sum(visits)
    assert formulas.kv_rows_read(N, Br, Bc, N_kv, causal) == sum(min(t * Bc, N_kv) for t in visits)
    assert formulas.q_rows_read(N, Br, Bc, N_kv, causal) == sum(t * min(Br, N - i * Br) for i, t in enumerate(visits))
    full = sum(t == formulas.cdiv(N_kv, Bc) for t in visits)
    assert formulas.visited_sums(N, Br, Bc, N_kv, causal) == (sum(visits), full)


def _by_pairs(name, N, d, Br, Bc, N_kv, causal, n_splits=3):
    """The per-tile counts of ``flops``' docstrings, added pair by pair over ``flops.visited``."""
    out = {"matmul": 0, "exp": 0, "other": 0}
    for r, c in flops.visited(N, Br, Bc, N_kv, causal):
        if name == "fa2-backward":
            step = (10 * r * c * d, r * c, 4 * r * c + 2 * r * d + 3 * c * d)
        else:
            step = (4 * r * c * d, r * c + r, 4 * r * c + 2 * r + 2 * r * d)
            if name == "fa1":
                step = (step[0], step[1] + r, step[2] + 2 * r * d + r)
        for kind, n in zip(out, step, strict=True):
            out[kind] += n
    if name in ("fa2", "fa2-mma"):
        out["other"] += N * d + N
        out["exp"] += N
    if name == "flash-decoding":
        out["other"] += 4 * n_splits * N + 2 * n_splits * N * d + N * d
        out["exp"] += n_splits * N
    if name == "fa2-backward":
        out["other"] += 2 * N * d
    return out


@pytest.mark.parametrize("name", ["fa1", "fa2", "fa2-mma", "flash-decoding", "fa2-backward"])
def test_the_flop_closed_forms_equal_the_loop_over_tile_pairs(name):
    d = 5
    extra = {"n_splits": 3} if name == "flash-decoding" else {}
    for N, N_kv, Br, Bc, causal in GRID[::2]:
        got = FLOP_FORMULAS[name](N, d, Br, Bc, N_kv=N_kv, causal=causal, **extra)
        assert got == _by_pairs(name, N, d, Br, Bc, N_kv, causal), (N, N_kv, Br, Bc, causal)


def test_a_billion_rows_answer_without_visiting_a_tile(monkeypatch):
    def one_by_one(*args, **kwargs):
        raise AssertionError("a closed form walked the tiles")

    monkeypatch.setattr(formulas, "tiles_visited", one_by_one)
    monkeypatch.setattr(flops, "tiles_visited", one_by_one)
    N, d, B = 2**30, 64, 64
    T = N // B  # 2^24 blocks of rows and tiles of keys; causal: block i visits i + 1 tiles, T (T + 1) / 2 in all
    triangle = T * (T + 1) // 2
    assert flops.fa2(N, d, B, B)["matmul"] == 4 * N * N * d
    assert flops.fa2(N, d, B, B, causal=True)["matmul"] == 4 * d * B * B * triangle
    assert flops.fa2_backward(N, d, B, B, causal=True)["exp"] == B * B * triangle
    assert formulas.fa2(N, d, B, B, causal=True, itemsize=2)["K"]["read"] == triangle * B * d * 2
    assert formulas.fa1(N, d, B, B, causal=True, itemsize=2)["Q"]["read"] == triangle * B * d * 2
    for name in FORMULAS:  # every one answers (paged decoding's sizes are a batch: one sequence of N)
        if name == "paged-decoding":
            args = ([N], d, 16, 1, 1)
        else:
            args = (N, d, B, B) + ((4,) if name == "flash-decoding" else ())
        assert formulas.total(FORMULAS[name](*args)) > 0
        assert flops.total(FLOP_FORMULAS[name](*args)) > 0
