"""FlashAttention 2 on tensor cores, pipelined, as kernelviz/cuda/fa2_pipe.cu runs it: fa2_mma's algorithm (the same
warps, roundings and order of arithmetic, ``fa2_mma.py``), with the K/V tiles copied by cp.async into a ring of
`stages` buffers of shared memory, so that while tile j computes, tiles j + 1 .. j + stages - 1 are in flight.

The pipeline changes when bytes move, not which: HBM traffic, shared-memory traffic and FLOPs are fa2_mma's exactly
(tested). Per visited tile, cp.async stores Kj and Vj into shared memory once (2 Bc d s bytes) and every warp loads
both with ldmatrix (2 Bc d s bytes a warp: ``per_warp``), as in fa2_mma. What the ring costs is shared memory: Qi and
`stages` pairs Kj, Vj, Br d s + 2 stages Bc d s bytes a block (its SRAM budget is checked against that).
When the bytes move is the timeline's business (``pipe_time.py``).
"""

from ._inputs import AttentionResult, positive_int
from .fa2_mma import flash_attention_2_mma
from .ledger import Ledger

KERNEL = "fa2_pipe"


def ring(Br, Bc, d, stages, itemsize=2):
    """{tile: bytes} of one block's shared memory: Qi, then Kj and Vj for each of `stages` buffers."""
    tiles = {"Qi": Br * d * itemsize}
    for b in range(stages):
        tiles[f"Kj{b}"] = tiles[f"Vj{b}"] = Bc * d * itemsize
    return tiles


def flash_attention_2_pipe(
    q,
    k,
    v,
    *,
    Br=128,
    Bc=64,
    warps=8,
    stages=2,
    causal=False,
    dtype="float16",
    scale=None,
    sram_budget=None,
    observe=None,
):
    """Run the pipelined FA2 on tensor cores on q (BH, N, d), k and v (BH, N_kv, d): fa2_mma's run, its ledger
    relabelled to this kernel and its shared memory the ring of `stages` buffers. Raises ValueError naming the
    argument on bad input (stages not a whole number >= 1, and fa2_mma's), SramBudgetError if the ring does not fit.
    `observe`: fa2_mma's (the figure's answers)."""
    stages = positive_int("stages", stages)
    Br, Bc = positive_int("Br", Br), positive_int("Bc", Bc)
    Ledger(sram_budget).shared(KERNEL, **ring(Br, Bc, q.shape[-1], stages))  # refuses a ring over the budget first
    run = flash_attention_2_mma(
        q, k, v, Br=Br, Bc=Bc, warps=warps, causal=causal, dtype=dtype, scale=scale, observe=observe
    )
    ledger = run.ledger
    ledger.sram_budget = sram_budget
    ledger.sram = {KERNEL: ring(Br, Bc, q.shape[-1], stages)}
    ledger.transfers = [t._replace(kernel=KERNEL) for t in ledger.transfers]
    params = {k: v for k, v in run.params.items() if k != "p_in_shared"}  # fa2_mma's option, not this kernel's
    return AttentionResult(run.o, run.lse, ledger, "fa2-pipe", {**params, "stages": stages})
