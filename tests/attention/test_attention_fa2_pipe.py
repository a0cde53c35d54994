"""fa2_pipe: the pipeline changes when bytes move, not which. Its ledger (HBM transfers, shared-memory traffic,
FLOPs) and outputs equal fa2_mma's at the same sizes for any number of stages; its SRAM is the ring; its timeline
overlaps copies with products with 2 stages and serialises them with 1 (a closed form of the serial sum)."""

import numpy as np
import pytest

from kernelviz.attention import pipe_time, run
from kernelviz.attention.ledger import SramBudgetError
from kernelviz.figlib.rates import unit_rates

SIZES = [
    dict(N=40, d=16, Br=32, Bc=16),
    dict(N=37, N_kv=53, d=32, Br=32, Bc=16, causal=True),
    dict(N=64, N_kv=21, d=16, Br=32, Bc=16, causal=True, batch_heads=2),
]


@pytest.mark.parametrize("sizes", SIZES)
@pytest.mark.parametrize("stages", [1, 2, 3])
def test_ledger_and_output_equal_fa2_mma(sizes, stages):
    pipe = run("fa2-pipe", **sizes, warps=2, stages=stages, dtype="float16")
    mma = run("fa2-mma", **sizes, warps=2, dtype="float16")
    a, b = pipe.result.ledger, mma.result.ledger
    assert a.total_bytes == b.total_bytes
    assert [(t.tensor, t.tile, t.direction, t.nbytes, t.bh, t.block) for t in a.transfers] == [
        (t.tensor, t.tile, t.direction, t.nbytes, t.bh, t.block) for t in b.transfers
    ]
    assert {t.kernel for t in a.transfers} == {"fa2_pipe"}
    assert a.shared_numbers() == b.shared_numbers()
    assert a.flops.by_kind == b.flops.by_kind
    np.testing.assert_array_equal(pipe.result.o, mma.result.o)
    np.testing.assert_array_equal(pipe.result.lse, mma.result.lse)


def test_sram_is_the_ring_of_stages_buffers():
    d, Br, Bc = 16, 32, 16
    for stages in (1, 2, 4):
        r = run("fa2-pipe", N=64, d=d, Br=Br, Bc=Bc, warps=2, stages=stages, dtype="float16")
        assert r.result.ledger.peak_sram == 2 * (Br * d + 2 * stages * Bc * d)
    with pytest.raises(SramBudgetError):
        run("fa2-pipe", N=64, d=d, Br=Br, Bc=Bc, warps=2, stages=2, dtype="float16", sram_budget=2 * (Br + 3 * Bc) * d)
    with pytest.raises(ValueError, match="stages"):
        run("fa2-pipe", N=64, d=d, Br=Br, Bc=Bc, stages=0, dtype="float16")


def test_per_warp_traffic_is_all_of_kj_and_vj():
    r = run("fa2-pipe", N=64, d=16, Br=32, Bc=16, warps=2, dtype="float16")
    assert r.numbers()["per_warp"] == 2 * 16 * 16 * 2


def test_timeline_one_stage_is_the_serial_sum_and_two_stages_overlap():
    Br, Bc, d, tiles = 128, 64, 128, 8
    rates, _ = unit_rates("a100")
    copy = 2 * Bc * d * 2 / rates["hbm"]
    compute = 2 * (2 * Br * Bc * d) / rates["tensor"] + Br * Bc / rates["sfu"]
    ends = (Br * d * 2) / rates["hbm"] + (Br * d * 2 + Br * 4) / rates["hbm"]  # Q before, O and L after
    one = pipe_time.block(Br, Bc, d, tiles, 1, rates)
    assert one.makespan == pytest.approx(ends + tiles * (copy + compute), rel=1e-12)
    assert one.overlap("copies", "tensor cores") == 0
    two = pipe_time.block(Br, Bc, d, tiles, 2, rates)
    assert two.overlap("copies", "tensor cores") > 0
    # two stages: after the first copy the loop runs at the slower of copy and compute a tile
    assert two.makespan <= ends + copy + tiles * max(copy, compute) + min(copy, compute) + 1e-15
    assert two.makespan < one.makespan
