"""Flash decoding (flash_decoding.py): the keys cut into splits, each reduced alone, then the partials combined;
its options say how many splits and what a partial holds."""

import numpy as np

from .. import formulas
from .._inputs import tiles
from ..algorithm import Algorithm, Option
from ..closed_forms import flash_decoding as closed
from ..figure_values import action, cells, plain, tiles_of
from ..flash_decoding import flash_decoding, split_tiles


def answers(done, observed, keys_at):
    """The values of the slots of its figure (pages/flash-decoding.md: one query row, block 0 of rows) step by step
    (attention.figure_values): q, K, V in HBM from the start; ``load q``: Qi, and mi = -inf, li = 0, Oi = 0; ``load
    K,V``: split s's j-th tile as Kj, Vj; ``fill Sij``, ``update m,l,O``: the scores and the carries after it (the
    observer's); ``write partials``: the split's last carries as O(s), m(s), l(s); ``combine m``, ``combine l``,
    ``combine O``: the combine's m_g, l_g and acc (the observer's); ``write O``: the row of O."""
    sz = done.sizes
    q, k, v = (done.inputs[n][0].astype(np.float32) for n in ("q", "k", "v"))
    cols = tiles(sz["N_kv"], sz["Bc"])
    owned = split_tiles(len(cols), done.result.params["n_splits"])
    first = {"q": plain(q[:1]), **tiles_of("K", k, cols), **tiles_of("V", v, cols)}
    carries = lambda c: {f"{x}i": plain(c[x][0]) for x in ("m", "l", "O")}  # noqa: E731
    sums = observed.get((0, "combine"))
    changes = [first]
    for key, at in keys_at[1:]:
        what, sp, j, step = action(key), at.get("s"), at.get("j"), {}
        seen = observed.get((0, sp, j))
        if what == "load q":
            step = {"Qi": first["q"], "mi": ["-inf"], "li": [0.0], "Oi": [[0.0] * sz["d"]]}
        elif what == "load K,V":
            step = {"Kj": first[f"K{owned[sp][j]}"], "Vj": first[f"V{owned[sp][j]}"]}
        elif what == "fill Sij" and seen:
            step = cells("Sij", seen["S"][0])
        elif what == "update m,l,O" and seen:
            step = carries(seen)
        elif what == "write partials":
            last = observed.get((0, sp, len(owned[sp]) - 1))
            c = carries(last) if last else {"mi": ["-inf"], "li": [0.0], "Oi": [[0.0] * sz["d"]]}
            step = {f"{x}({sp})": c[f"{x}i"] for x in ("m", "l", "O")}
        elif what.startswith("combine ") and sums:
            name = {"m": "m_g", "l": "l_g", "O": "acc"}[what[-1]]
            step = {name: plain(sums[what[-1]][0])}
        elif what == "write O":
            step = {"O": plain(done.result.o[0][:1])}
        changes.append(step)
    return changes


ALGORITHM = Algorithm(
    name="flash-decoding",
    function=flash_decoding,
    options=(
        Option(
            "splits",
            int,
            formula=True,
            stray="splits is a flash-decoding size",
            lenient=True,
            counted_as=lambda s: min(s.get("splits") or 4, -(-s["N_kv"] // s["Bc"])),  # at most the tiles (4)
        ),
        Option(
            "partials",
            str,
            formula=True,
            choices=("unnormalized", "lse"),
            stray="partials is a flash-decoding option ('unnormalized' or 'lse')",
            help="its partials: O, m, l (default) or normalized O and one log-sum-exp a row",
        ),
    ),
    bytes=closed.hbm,
    flops=closed.flops,
    minimum=formulas.compulsory,
    ledger_records=lambda tr, tc, n_splits: tr * (2 * tc + 7 * n_splits + 1),
    memory=lambda s: {"partials": 8 * s.n_splits * s.bh * s.br * (s.d + 2)},
    observes=True,
    answers=answers,
)
