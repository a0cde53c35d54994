"""FA2's backward pass (fa2_backward.py), run after its forward for O and L on a random dO (_backward.traced);
measured against the standard backward, which reads back the P its forward stored."""

import numpy as np

from .. import formulas
from .._backward import traced
from .._inputs import tiles
from ..algorithm import Algorithm
from ..closed_forms import fa2_backward
from ..fa2 import flash_attention_2
from ..fa2_backward import flash_attention_2_backward
from ..figure_values import action, cells, plain, tiles_of


def answers(done, observed, keys_at):
    """The values of the slots of its figure (pages/flash-attention-2-backward.md) step by step
    (attention.figure_values): Q, K, V, O, dO, L in HBM from the start (O, L the forward's, dO the one drawn);
    ``load O,dO``: a block's rows in registers; ``write Δ,dQ``: Δ (the observer's) and dQ = 0; ``load K,V``: Kj, Vj,
    dKj = dVj = 0; ``load Q,dO,L,Δ``: block i's rows; ``recompute P``, ``update dV``, ``fill dS``, ``read dQ``, ``add
    dQ``, ``update dK``: what the observer saw main block j compute from block i; ``write dK,dV``: the tile's."""
    s, res = done.sizes, done.result
    x = {n: done.inputs[n][0].astype(np.float32) for n in ("q", "k", "v")}
    o, do, lse = (np.asarray(a[0], np.float32) for a in (res.o, res.do, res.lse))
    rows, cols = tiles(s["N"], s["Br"]), tiles(s["N_kv"], s["Bc"])
    first = {**tiles_of("Q", x["q"], rows), **tiles_of("K", x["k"], cols), **tiles_of("V", x["v"], cols)}
    first.update({**tiles_of("O", o, rows), **tiles_of("dO", do, rows), **tiles_of("L", lse, rows)})
    delta = {i: plain(c["Δ"][0]) for (i, *rest), c in observed.items() if not rest}
    changes = [first]
    for key, at in keys_at[1:]:
        what, i, j, step = action(key), at.get("i"), at.get("j"), {}
        seen = observed.get((i, j))
        if what == "load O,dO":
            step = {"O row": first[f"O{i}"], "dO row": first[f"dO{i}"]}
        elif what == "write Δ,dQ":
            step = {"Δ row": delta[i], f"Δ{i}": delta[i], f"dQ{i}": [[0.0] * s["d"]] * len(delta[i])}
        elif what == "load K,V":
            zero = [[0.0] * s["d"]] * (cols[j][1] - cols[j][0])
            step = {"Kj": first[f"K{j}"], "Vj": first[f"V{j}"], "dKj": zero, "dVj": zero}
        elif what == "load Q,dO,L,Δ":
            step = {"Qi": first[f"Q{i}"], "dOi": first[f"dO{i}"], "Li": first[f"L{i}"], "Δi": delta[i]}
        elif seen and what in ("recompute P", "fill dS"):
            step = cells("Pij" if what == "recompute P" else "dSij", seen["P" if what == "recompute P" else "dS"][0])
        elif seen and what in ("update dV", "update dK"):
            step = {f"{what[-2:]}j": plain(seen[what[-2:]][0])}
        elif seen and what == "read dQ":
            step = {"dQ[i]": plain(seen["dQ_read"][0])}
        elif seen and what == "add dQ":
            step = {"dQ[i]": plain(seen["dQ"][0]), f"dQ{i}": plain(seen["dQ"][0])}
        elif what == "write dK,dV":
            a, b = cols[j]
            step = {f"dK{j}": plain(res.dk[0][a:b]), f"dV{j}": plain(res.dv[0][a:b])}
        changes.append(step)
    return changes


ALGORITHM = Algorithm(
    name="fa2-backward",
    function=traced(flash_attention_2, flash_attention_2_backward),
    api=flash_attention_2_backward,
    bytes=fa2_backward.hbm,
    flops=fa2_backward.flops,
    minimum=formulas.compulsory_backward,
    family="backward",
    passes=2,
    ledger_records=lambda tr, tc, n_splits: tr * (2 * tc + 3) + 4 * tr + tc * (4 + 6 * tr),  # forward, then its own
    memory=lambda s: {"gradients": s.gradients()},
    observes=True,
    answers=answers,
)
