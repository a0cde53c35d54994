"""FlashAttention (fa1.py): the K/V tiles in the outer loop, O, l and m read and written back per tile."""

import numpy as np

from .. import formulas
from .._inputs import tiles
from ..algorithm import Algorithm
from ..closed_forms import fa1
from ..fa1 import flash_attention_1
from ..figure_values import action, cells, last_before, plain, tiles_of


def per_block(ledger):
    """The times each Q tile is read (once per K/V tile that visits it), for (batch, head) 0."""
    blocks = ledger.tile_counts("O", "write")  # every block's O is initialized (written) at step 0
    reads = ledger.tile_counts("Q")
    return [reads.get(i, 0) for i in sorted(blocks)]


def answers(done, observed, keys_at):
    """The values of the slots of its figure (pages/flash-attention-1.md) step by step (attention.figure_values):
    Q, K, V in HBM from the start; ``init O,l,m``: O = 0, l = 0, m = -inf in HBM; ``load K,V``: Kj, Vj; ``load
    Q,O,l,m``: Qi and the carries block i left in HBM after its last tile (or the initial ones); ``fill Sij``: the
    scores, tile and cells; ``update m,l,O``: the carries after tile j (the observer's, O normalized by l, as FA1
    keeps it); ``write O,l,m``: those carries back in HBM as Oi, li, mi."""
    s = done.sizes
    q, k, v = (done.inputs[n][0].astype(np.float32) for n in ("q", "k", "v"))
    rows, cols = tiles(s["N"], s["Br"]), tiles(s["N_kv"], s["Bc"])
    first = {**tiles_of("Q", q, rows), **tiles_of("K", k, cols), **tiles_of("V", v, cols)}
    changes = [first]

    def carries(i, c):  # the block's carries, as the observer saw them (c None: the initial ones)
        n = rows[i][1] - rows[i][0]
        if c is None:
            return {"O": [[0.0] * s["d"]] * n, "l": [0.0] * n, "m": ["-inf"] * n}
        return {name: plain(c[name][0]) for name in ("O", "l", "m")}

    for key, at in keys_at[1:]:
        what, i, j, step = action(key), at.get("i"), at.get("j"), {}
        seen = observed.get((i, j))
        if what == "init O,l,m":
            step = {f"{x}{b}": val for b in range(len(rows)) for x, val in carries(b, None).items()}
        elif what == "load K,V":
            step = {"Kj": first[f"K{j}"], "Vj": first[f"V{j}"]}
        elif what == "load Q,O,l,m":
            step = {
                "Qi": first[f"Q{i}"],
                **{f"{x}i": val for x, val in carries(i, last_before(observed, i, j)).items()},
            }
        elif what == "fill Sij" and seen:
            step = cells("Sij", seen["S"][0])
        elif what == "update m,l,O" and seen:
            step = {f"{x}i": val for x, val in carries(i, seen).items()}
        elif what == "write O,l,m" and seen:
            step = {f"{x}{i}": val for x, val in carries(i, seen).items()}
        changes.append(step)
    return changes


ALGORITHM = Algorithm(
    name="fa1",
    function=flash_attention_1,
    bytes=fa1.hbm,
    flops=fa1.flops,
    minimum=formulas.compulsory,
    per_block=per_block,
    grid=lambda tiles, batch_heads: [sum(tiles)] * batch_heads,  # a block per batch_head walks every block of rows
    ledger_records=lambda tr, tc, n_splits: 3 * tr + tc * (2 + 7 * tr),
    observes=True,
    answers=answers,
)
