"""The work per block of query rows, read from a ledger, and how long a grid of such blocks takes on a fixed
number of SMs.

``tiles_per_block(result)``: for FlashAttention 1 and 2, how many K/V tiles each block i of Br query rows visits
(computes a score tile with), counted from the ledger's transfers of one (batch, head):
    fa2  the K tiles block i reads (one K read per tile it visits);
    fa1  the times Q tile i is read (once per K/V tile that visits it).
Without masking every block visits Tc = ceil(N_kv / Bc) tiles; with causal masking (bottom-right aligned) block i
visits the tiles that start at or before the last key its last row sees, so the top blocks do the least work.

``finish_time(work, sms, order)``: the blocks of a grid, given as their work (e.g. tiles visited; every tile costs
the same), are dealt in `order` to `sms` SMs, one block at a time per SM, each block going to the SM that frees
first (ties: the lowest-numbered SM), as a GPU's block scheduler does. Returns the time the last block ends, in
units of one tile. With causal masking, the index order (``range(Tr)``) starts the light blocks first and leaves
the heaviest for last; the heaviest first (longest processing time first: the reverse of the rows, as the causal
tile scheduler of flash-attention's Hopper kernels deals them) fills the gaps with the light ones. Every SM can
finish no sooner than ``lower_bound(work, sms)``.

``grid(algo, tiles, batch_heads)``: the work of each CUDA block of the grid the kernel launches, in the order of
its block indices (blockIdx.x fastest): fa2 launches one block per (batch_head, block of rows), so `tiles` once per
batch_head; fa1 one block per batch_head, which walks every block of rows, so ``sum(tiles)`` each.
``schedule(work, sms)``: that grid on `sms` SMs, dealt in launch order and heaviest first, beside the bound.
"""

import heapq

from ._inputs import positive_int
from .topics import REGISTRY


def tiles_per_block(result):
    """[tiles visited by block 0, block 1, ...] of an fa1 or fa2 AttentionResult, from its ledger, for (batch,
    head) 0: its algorithm's record's ``per_block``. Raises ValueError for another algorithm."""
    record = REGISTRY.get(result.algorithm)
    if record is None or record.per_block is None:
        raise ValueError(f"tiles_per_block: expected an {_which()} result, got {result.algorithm!r}")
    return record.per_block(result.ledger)


def _which():
    """The algorithms whose ledgers say their tiles per block: 'fa1 or fa2'."""
    return " or ".join(r.name for r in REGISTRY.values() if r.per_block is not None)


def lower_bound(work, sms):
    """No schedule of `work` on `sms` SMs ends before max(the largest block, the total work spread evenly)."""
    sms = positive_int("sms", sms)
    return max(max(work, default=0), -(-sum(work) // sms))


def finish_time(work, sms, order=None):
    """The time the last of the blocks with work `work` ends when dealt in `order` (default: index order) to `sms`
    SMs, each block to the SM that frees first. Raises ValueError for a bad `sms` or an `order` that is not a
    permutation of the blocks."""
    sms = positive_int("sms", sms)
    order = list(range(len(work))) if order is None else list(order)
    if sorted(order) != list(range(len(work))):
        raise ValueError(f"order: expected a permutation of the {len(work)} blocks, got {order!r}")
    free = [(0, sm) for sm in range(sms)]  # (time the SM frees, SM)
    end = 0
    for i in order:
        t, sm = heapq.heappop(free)
        heapq.heappush(free, (t + work[i], sm))
        end = max(end, t + work[i])
    return end


def heaviest_first(work):
    """The blocks in decreasing order of work, ties in reverse index order (for causal masking: Tr-1, ..., 0)."""
    return sorted(range(len(work)), key=lambda i: (-work[i], -i))


def grid(algo, tiles, batch_heads=1):
    """The work of each block of `algo`'s grid (fa1 or fa2: its record's ``grid``) in launch order, for
    `batch_heads` (batch, head) pairs whose blocks of rows visit `tiles` (``tiles_per_block``) each. Raises
    ValueError for another algorithm or a bad `batch_heads`."""
    batch_heads = positive_int("batch_heads", batch_heads)
    record = REGISTRY.get(algo)
    if record is None or record.grid is None:
        raise ValueError(f"grid: expected {_which()}, got {algo!r}")
    return record.grid(list(tiles), batch_heads)


def schedule(work, sms):
    """The blocks of `work` on `sms` SMs: {sms, blocks, tiles (the work of all), waves (blocks / sms), launch_order
    and heaviest_first (the times the last block ends, ``finish_time``), lower_bound, slowdown (launch_order over
    heaviest_first), idle (per order: the percent of the SMs' time, up to the end, that no block runs)}."""
    sms = positive_int("sms", sms)
    ends = {"launch_order": finish_time(work, sms), "heaviest_first": finish_time(work, sms, heaviest_first(work))}
    total = sum(work)
    return {
        "sms": sms,
        "blocks": len(work),
        "tiles": total,
        "waves": len(work) / sms,
        **ends,
        "lower_bound": lower_bound(work, sms),
        "slowdown": ends["launch_order"] / ends["heaviest_first"] if total else 1.0,
        "idle": {order: 100 * (1 - total / (sms * end)) if end else 0.0 for order, end in ends.items()},
    }
