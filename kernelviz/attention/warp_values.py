"""The figure answers' values (attention.figure_values) of a figure that draws each warp's registers: FA2 on tensor
cores (pages/flash-attention-2-tensor-cores.md) and its pipelined kernel (pages/flash-attention-2-pipelined.md).

Their slots: Q, K, V tiles in HBM (rounded to the 16-bit storage dtype), O and L in a piece per warp; the block's
shared Qi (and Kj, Vj where the figure has one buffer of each); and per warp w: q<w> (its rows of Qi, A fragments),
b<w> (B fragments: all of Kj for ``mma S``, all of Vj for ``mma PV``), S<w> (its scores, then P in place, each cell
"S<w> r,c"), m<w>, l<w> and o<w> (the accumulator, not divided by l). The run's observer gives S, P, m, l and o,
called as observe(i, j, w, ...) after warp w of block i folds tile j in (fa2_mma.flash_attention_2_mma).
"""

import numpy as np

from ._inputs import stored, tiles
from .figure_values import action, cells, plain, tiles_of


def warp_answers(done, observed, keys_at, shared_kv=True, with_m=True):
    """[{slot: value} for each step] (module docstring). `shared_kv` False: the figure's K/V buffers are a ring whose
    slots share the HBM tiles' names (K0, V0, ...), so no K or V tile gets a value (it could name either). `with_m`
    False: the figure draws no m register."""
    s, params = done.sizes, done.result.params
    q, k, v = (stored(done.inputs[n][0], params["dtype"]).astype(np.float32) for n in ("q", "k", "v"))
    rows, cols = tiles(s["N"], s["Br"]), tiles(s["N_kv"], s["Bc"])
    warps, per = params["warps"], -(-s["Br"] // params["warps"])
    first = tiles_of("Q", q, rows)
    kv = {**tiles_of("K", k, cols), **tiles_of("V", v, cols)}
    if shared_kv:
        first.update(kv)
    changes = [first]
    for key, at in keys_at[1:]:
        what, i, j, step = action(key), at.get("i"), at.get("j"), {}
        own = [
            (min(rows[i][0] + w * per, rows[i][1]), min(rows[i][0] + (w + 1) * per, rows[i][1])) for w in range(warps)
        ]
        seen = {w: observed.get((i, j, w)) for w in range(warps)}
        if what == "load Q":
            step = {"Qi": first[f"Q{i}"]}
        elif what == "ldmatrix Q":
            for w, (a, b) in enumerate(own):
                n = b - a
                step.update({f"q{w}": plain(q[a:b]), f"l{w}": [0.0] * n, **({f"m{w}": ["-inf"] * n} if with_m else {})})
                step[f"o{w}"] = [[0.0] * s["d"]] * n
        elif what == "load K,V" and shared_kv:
            step = {"Kj": kv[f"K{j}"], "Vj": kv[f"V{j}"]}
        for w, c in seen.items():
            if c is None:
                continue
            if what == "mma S":
                step.update({f"b{w}": plain(k[cols[j][0] : cols[j][1]]), **cells(f"S{w}", c["S"][0])})
            elif what == "softmax":
                step.update({f"l{w}": plain(c["l"][0]), **cells(f"S{w}", c["P"][0])})
                step.update({f"m{w}": plain(c["m"][0])} if with_m else {})
            elif what == "mma PV":
                step.update({f"b{w}": plain(v[cols[j][0] : cols[j][1]]), f"o{w}": plain(c["O"][0])})
        if what == "write O,L":
            for w, (a, b) in enumerate(own):
                if b > a:
                    step.update(
                        {
                            f"O{i * warps + w}": plain(done.result.o[0][a:b]),
                            f"L{i * warps + w}": plain(done.result.lse[0][a:b]),
                        }
                    )
        changes.append(step)
    return changes


def warpgroup_answers(done, observed, keys_at):
    """[{slot: value} for each step] of FA3's figure (pages/flash-attention-3.md): Q (a piece per consumer, "Qi.c"),
    K, V in HBM; ``load Q``: the consumers' rows Q1, Q2 in shared memory; ``load K,V`` (j = the tile): the ring's
    stage "K s<t>", "V s<t>" (t = j modulo the stages, which the prologue's loads tell: as many as it issues, or
    fewer when the block has fewer tiles, and then j is below them all); ``wgmma`` (consumer c, turn j): S<c> the
    scores of tile j, o<c> the accumulator after tile j - 1; ``softmax``: m<c>, l<c> after tile j and P<c>;
    ``write O,L``: each consumer's rows. The observer is fa3.flash_attention_3's: observe(i, j, w, ...)."""
    s, params = done.sizes, done.result.params
    q, k, v = (stored(done.inputs[n][0], params["dtype"]).astype(np.float32) for n in ("q", "k", "v"))
    rows, cols = tiles(s["N"], s["Br"]), tiles(s["N_kv"], s["Bc"])
    groups, per = params["warpgroups"], -(-s["Br"] // params["warpgroups"])
    pieces = [(min(a + w * per, b), min(a + (w + 1) * per, b)) for a, b in rows for w in range(groups)]
    first = {f"Q{n // groups}.{n % groups + 1}": plain(q[a:b]) for n, (a, b) in enumerate(pieces) if b > a}
    first.update({**tiles_of("K", k, cols), **tiles_of("V", v, cols)})
    prologue = next((n for n, (key, _) in enumerate(keys_at) if action(key) == "wgmma"), len(keys_at))
    stages = max(1, sum(action(key) == "load K,V" for key, _ in keys_at[:prologue]))
    changes = [first]
    for key, at in keys_at[1:]:
        what, i, j, c, step = action(key), at.get("i"), at.get("j"), at.get("c"), {}
        if what == "load Q":
            step = {f"Q{w + 1}": plain(q[a:b]) for w, (a, b) in enumerate(pieces[i * groups : (i + 1) * groups])}
        elif what == "load K,V":
            step = {f"K s{j % stages}": first[f"K{j}"], f"V s{j % stages}": first[f"V{j}"]}
        elif what == "wgmma":
            now, before = observed.get((i, j, c - 1)), observed.get((i, j - 1, c - 1))
            step = {
                **(cells(f"S{c}", now["S"][0]) if now else {}),
                **({f"o{c}": plain(before["O"][0])} if before else {}),
            }
        elif what == "softmax" and (now := observed.get((i, j, c - 1))):
            step = {f"m{c}": plain(now["m"][0]), f"l{c}": plain(now["l"][0]), f"P{c}": plain(now["P"][0])}
        elif what == "write O,L":
            for n in range(i * groups, (i + 1) * groups):
                a, b = pieces[n]
                if b > a:
                    step.update({f"O{n}": plain(done.result.o[0][a:b]), f"L{n}": plain(done.result.lse[0][a:b])})
        changes.append(step)
    return changes
