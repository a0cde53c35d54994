"""FlashAttention-2 (fa2.py): the Q tiles in the outer loop, O, l and m kept on chip, O and L written once."""

import numpy as np

from .. import fa2_block, formulas
from .._inputs import tiles
from ..algorithm import Algorithm
from ..closed_forms import fa2
from ..fa2 import flash_attention_2
from ..figure_values import action, plain, tiles_of


def per_block(ledger):
    """The K tiles each block of query rows reads (one K read per tile it visits), for (batch, head) 0."""
    blocks = ledger.tile_counts("O", "write")  # every block writes its O tile once (one that sees no key too)
    visits = {i: 0 for i in blocks}
    for t in ledger.transfers:
        if t.tensor == "K" and t.direction == "read" and t.bh == 0:
            visits[t.block] += 1
    return [visits[i] for i in sorted(visits)]


def answers(done, observed, keys_at):
    """The values of the slots of its figure (pages/flash-attention-2.md) step by step (attention.figure_values):
    the tiles of Q, K and V in HBM from the start; ``load Q``: Qi, and the carries mi = -inf, li = 0, Oi = 0;
    ``load K,V``: Kj, Vj; ``fill Sij``: the scores, the whole tile ("Sij") and each cell ("Sij r,c"); ``update
    m,l,O``: the carries after tile j (the observer's); ``write O,L``: the block's rows of O and L in HBM."""
    s = done.sizes
    q, k, v = (done.inputs[n][0].astype(np.float32) for n in ("q", "k", "v"))
    rows, cols = tiles(s["N"], s["Br"]), tiles(s["N_kv"], s["Bc"])
    first = {**tiles_of("Q", q, rows), **tiles_of("K", k, cols), **tiles_of("V", v, cols)}
    changes = [first]
    for key, at in keys_at[1:]:
        what, i, j, step = action(key), at.get("i"), at.get("j"), {}
        carries = observed.get((i, j))
        if what == "load Q":
            n = rows[i][1] - rows[i][0]
            step = {"Qi": first[f"Q{i}"], "mi": ["-inf"] * n, "li": [0.0] * n, "Oi": [[0.0] * s["d"]] * n}
        elif what == "load K,V":
            step = {"Kj": first[f"K{j}"], "Vj": first[f"V{j}"]}
        elif what == "fill Sij" and carries:
            S = plain(carries["S"][0])
            step = {"Sij": S, **{f"Sij {r},{c}": x for r, line in enumerate(S) for c, x in enumerate(line)}}
        elif what == "update m,l,O" and carries:
            step = {name: plain(carries[c][0]) for name, c in (("mi", "m"), ("li", "l"), ("Oi", "O"))}
        elif what == "write O,L":
            a, b = rows[i]
            step = {f"O{i}": plain(done.result.o[0][a:b]), f"L{i}": plain(done.result.lse[0][a:b])}
        changes.append(step)
    return changes


ALGORITHM = Algorithm(
    name="fa2",
    function=flash_attention_2,
    title="Flash Attention 2",
    block=fa2_block.tiles,
    bytes=fa2.hbm,
    flops=fa2.flops,
    minimum=formulas.compulsory,
    per_block=per_block,
    grid=lambda tiles, batch_heads: tiles * batch_heads,  # a block per (batch_head, block of rows)
    ledger_records=lambda tr, tc, n_splits: tr * (2 * tc + 3),
    observes=True,
    answers=answers,
)
