"""The tiles each block of query rows visits, read from the ledgers of FA1 and FA2, against a count made cell by
cell from the causal rule; and the time a grid of such blocks takes on a fixed number of SMs."""

import json

import pytest
from attention_cases import qkv
from grid_ticks import expected_schedule, flat, simulate, visited_cell_by_cell

from kernelviz.attention import ALGORITHMS, blocks, formulas
from kernelviz.cli import main

SIZES = [  # (N, N_kv, Br, Bc): ragged, N < N_kv, N > N_kv (rows that see no key), one row
    (8, 8, 4, 4),
    (9, 5, 4, 2),
    (5, 9, 2, 4),
    (1, 10, 4, 3),
    (30, 30, 7, 4),
    (13, 40, 4, 8),
    (40, 13, 8, 4),
]


@pytest.mark.parametrize("algo", ["fa1", "fa2"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("n, n_kv, Br, Bc", SIZES)
def test_tiles_per_block_from_the_ledger(algo, causal, n, n_kv, Br, Bc):
    q, k, v = qkv(2, n, 3, n_kv)
    result = ALGORITHMS[algo](q, k, v, Br=Br, Bc=Bc, causal=causal)
    visits = blocks.tiles_per_block(result)
    assert visits == visited_cell_by_cell(n, n_kv, Br, Bc, causal)
    assert visits == [formulas.tiles_visited(i, n, Br, Bc, n_kv, causal) for i in range(len(visits))]


def test_tiles_per_block_refuses_other_algorithms():
    q, k, v = qkv(1, 4, 2)
    with pytest.raises(ValueError, match="tiles_per_block: expected an fa1 or fa2 result, got 'standard'"):
        blocks.tiles_per_block(ALGORITHMS["standard"](q, k, v))


def test_trace_json_has_the_tiles_per_block_with_the_mask(capsys):
    """The issue's command, at its sizes: bottom-right aligned, block i of 64 rows sees keys up to 4096 + 64 i + 63,
    so it visits 65 + i of the 128 tiles."""
    assert main(["trace", "fa2", "--causal", "--N", "4096", "--N-kv", "8192", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["params"]["d"] == 64 and report["params"]["causal"] is True
    assert report["kv_tiles_per_block"] == [65 + i for i in range(64)]
    assert report["per_tensor"] == formulas.fa2(4096, 64, 64, 64, N_kv=8192, causal=True)
    assert report["per_tensor"]["K"]["read"] == sum(65 + i for i in range(64)) * 64 * 64 * 4


def test_finish_time_by_hand():
    work = [1, 2, 3, 4]  # causal, 4 blocks of 1..4 tiles, on 2 SMs
    # index order: SM0 takes 1, SM1 takes 2; at t=1 SM0 takes 3 (ends 4); at t=2 SM1 takes 4 (ends 6)
    assert blocks.finish_time(work, 2) == 6
    # heaviest first: SM0 4, SM1 3; at t=3 SM1 takes 2 (ends 5); at t=4 SM0 takes 1 (ends 5)
    assert blocks.heaviest_first(work) == [3, 2, 1, 0]
    assert blocks.finish_time(work, 2, blocks.heaviest_first(work)) == 5 == blocks.lower_bound(work, 2)
    assert blocks.finish_time(work, 8) == 4  # more SMs than blocks: the largest block
    assert blocks.finish_time([], 3) == 0


@pytest.mark.parametrize("work, sms", [([3, 1, 4, 1, 5, 9, 2, 6], 3), ([1, 2, 3, 4, 5, 6, 7], 2), ([2, 2, 2], 2)])
def test_finish_time_is_the_slowest_sm_of_a_simulation_by_time_steps(work, sms):
    """Checked against a tick-by-tick simulation: at each tick, each idle SM (lowest first) takes the next block."""
    for order in (range(len(work)), blocks.heaviest_first(work), reversed(range(len(work)))):
        order = list(order)
        t, _ = simulate(work, sms, order)
        assert blocks.finish_time(work, sms, order) == t
        assert t >= blocks.lower_bound(work, sms)


def test_the_grids_as_the_kernels_launch_them():
    """fa2: a block per (batch_head, block of rows), rows fastest; fa1: a block per batch_head, walking every row."""
    assert blocks.grid("fa2", [1, 2, 3], 2) == [1, 2, 3, 1, 2, 3]
    assert blocks.grid("fa1", [1, 2, 3], 2) == [6, 6]
    assert blocks.grid("fa2", [4]) == [4]
    with pytest.raises(ValueError, match="grid: expected fa1 or fa2, got 'standard'"):
        blocks.grid("standard", [1])
    with pytest.raises(ValueError, match="batch_heads: expected a positive integer, got 0"):
        blocks.grid("fa2", [1], 0)


@pytest.mark.parametrize(
    "algo, n, n_kv, Br, Bc, heads, sms",
    [("fa2", 64, 64, 4, 4, 3, 5), ("fa2", 30, 50, 7, 4, 4, 6), ("fa1", 40, 13, 8, 4, 3, 2), ("fa2", 8, 8, 4, 4, 1, 8)],
)
def test_schedule_against_a_simulation_of_the_causal_grid(algo, n, n_kv, Br, Bc, heads, sms):
    """Every number of a schedule of the causal grid, the tiles counted cell by cell from the mask, against the
    tick-by-tick simulation (which counts the idle SM-ticks itself)."""
    tiles = visited_cell_by_cell(n, n_kv, Br, Bc, causal=True)
    got = blocks.schedule(blocks.grid(algo, tiles, heads), sms)
    want = expected_schedule(algo, tiles, heads, sms)
    assert flat(got) == pytest.approx(flat(want), rel=1e-12)
    assert got["heaviest_first"] <= got["launch_order"] and got["lower_bound"] <= got["heaviest_first"]


def test_the_causal_grid_at_4096_on_an_h100():
    """The pages' grid: N = 4096, tiles of 64, 16 (batch, head) pairs on an H100's 132 SMs. In launch order the last
    head's heaviest blocks run alone at the end; heaviest first meets the bound, 16 * 2080 / 132 rounded up."""
    tiles = list(range(1, 65))
    got = blocks.schedule(blocks.grid("fa2", tiles, 16), 132)
    assert (got["launch_order"], got["heaviest_first"], got["lower_bound"]) == (292, 253, 253)
    assert got["lower_bound"] == -(-16 * 2080 // 132)
    assert flat(got) == pytest.approx(flat(expected_schedule("fa2", tiles, 16, 132)), rel=1e-12)


def test_trace_json_has_the_grid_on_the_gpu_asked(capsys):
    """--gpu adds the grid of --batch-heads pairs on that GPU's SMs (A100: 108), from the ledger's tiles per block."""
    args = ["trace", "fa2", "--causal", "--N", "40", "--N-kv", "52", "--d", "4", "--Br", "8", "--Bc", "4"]
    assert main([*args, "--batch-heads", "3", "--gpu", "a100", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    tiles = visited_cell_by_cell(40, 52, 8, 4, causal=True)
    assert report["kv_tiles_per_block"] == tiles
    assert flat(report["schedule"]) == pytest.approx(flat(expected_schedule("fa2", tiles, 3, 108)), rel=1e-12)
    assert main([*args, "--batch-heads", "3", "--gpu", "h100"]) == 0
    assert "grid of 15 blocks on 132 SMs: the last ends at" in capsys.readouterr().out
    assert main([*args, "--json"]) == 0
    assert "schedule" not in json.loads(capsys.readouterr().out)  # no GPU, no SMs


def test_finish_time_refuses_bad_arguments():
    with pytest.raises(ValueError, match="sms: expected a positive integer, got 0"):
        blocks.finish_time([1], 0)
    with pytest.raises(ValueError, match="order: expected a permutation of the 2 blocks"):
        blocks.finish_time([1, 2], 1, [0, 0])


def test_causal_imbalance_at_4096():
    """N = 4096, 64 blocks of 64 rows, causal: block i visits i + 1 tiles. On 16 SMs the index order ends with the
    heaviest blocks running alone; heaviest first meets the bound."""
    work = [formulas.tiles_visited(i, 4096, 64, 64, causal=True) for i in range(64)]
    assert work == list(range(1, 65))
    naive, best = blocks.finish_time(work, 16), blocks.finish_time(work, 16, blocks.heaviest_first(work))
    assert best == blocks.lower_bound(work, 16) == 130  # 64 * 65 / 2 / 16
    assert naive > best
