"""FA2 on tensor cores, pipelined (fa2_pipe.py): fa2_mma's algorithm with its K/V tiles in a ring of `stages`
shared-memory buffers. Its HBM bytes, FLOPs and shared-memory traffic are fa2_mma's closed forms (the pipeline moves
the same bytes, sooner); its extra numbers are the traffic of one warp per tile (ldmatrix of Kj and Vj) and the time
the timeline predicts for one block on one SM of each GPU (pipe_time.py)."""

from .. import formulas, pipe_time
from .._inputs import tiles
from ..algorithm import Algorithm, Option
from ..closed_forms import fa2, fa2_mma
from ..fa2_pipe import flash_attention_2_pipe
from ..warp_values import warp_answers
from .fa2_mma import ALGORITHM as MMA
from .fa2_mma import STRAY, warps_problem


def extra(run):
    """Per warp and tile: the bytes ldmatrix loads (all of Kj and Vj); per GPU: the timeline's time per tile of a
    block of the run's sizes visiting every tile (no mask)."""
    s = run.sizes
    stages = s["stages"]
    tc = len(tiles(s["N_kv"], s["Bc"]))
    return {
        "per_warp": 2 * s["Bc"] * s["d"] * 2,
        "time": pipe_time.numbers(s["Br"], s["Bc"], s["d"], tc, stages),
    }


def shared(*sizes, stages=2, **options):
    """fa2_mma's closed form of shared-memory traffic: the ring's buffers change where the tiles land, not how many
    bytes are stored and loaded."""
    return fa2_mma.shared(*sizes, **options)


ALGORITHM = Algorithm(
    name="fa2-pipe",
    function=flash_attention_2_pipe,
    api=False,
    options=(
        Option("warps", int, default=8, stray=STRAY, check=warps_problem, help="warps a block (default 8)"),
        Option(
            "stages",
            int,
            default=2,
            stray="{given}: fa2-pipe's (buffers of the K/V ring), not {algo}'s",
            help="K/V buffers in the ring: 1 waits for every tile, 2 copies tile j + 1 while tile j computes",
        ),
    ),  # fmt: skip
    bytes=fa2.hbm,
    flops=fa2.flops,
    shared=shared,
    minimum=formulas.compulsory,
    dtypes=MMA.dtypes,
    dtypes_why=MMA.dtypes_why,
    known_as="pipelined tensor cores",
    extra=extra,
    slower=MMA.slower,
    ledger_records=MMA.ledger_records,
    memory=MMA.memory,
    observes=True,
    # its figure: a ring of K/V buffers named as the HBM tiles, and no m register
    answers=lambda done, observed, keys_at: warp_answers(done, observed, keys_at, shared_kv=False, with_m=False),
)
