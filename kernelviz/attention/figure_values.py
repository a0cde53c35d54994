"""What a record's ``answers`` gives the figure answers (kernelviz.site.answers): the values its figure's slots hold,
step by step, at the sizes of one run, as JSON.

    changes = record.answers(done, observed, keys_at)   # [{slot name: value} for each step: what it gave a slot]

``done`` is the Run, ``observed`` what the algorithm's observer collected ({where: carries}, `where` the indices its
observe call starts with, (block, tile) for FA2), ``keys_at`` the figure's steps as (key, at) pairs (a key is its
action then its loop indices: ``'load K,V i=0 j=1'``). A value is a number, a list or a list of rows, of the first
batch-head; -inf is written "-inf" (JSON has no infinities). A matrix whose figure draws its cells gives each cell
too (`cells`).
"""

import math

import numpy as np


def plain(x):
    """`x` (a NumPy array or number) as JSON values: floats to 6 significant digits, infinities as "-inf", "inf"."""
    if isinstance(x, np.ndarray):
        return [plain(v) for v in x.tolist()] if x.ndim else plain(x.item())
    if isinstance(x, list):
        return [plain(v) for v in x]
    x = float(x)
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return float(f"{x:.6g}")


def action(key):
    """The action of a step key: its words before the first name=value ('load K,V i=0 j=1' -> 'load K,V')."""
    return " ".join(w for w in key.split(" ") if "=" not in w)


def tiles_of(name, x, cuts):
    """{name + index: the rows of `x` of each tile} for tiles `cuts` [(start, stop)]: the tiles of a tensor in HBM."""
    return {f"{name}{t}": plain(x[a:b]) for t, (a, b) in enumerate(cuts)}


def cells(name, x):
    """{name: the rows of `x`, and "name r,c": each cell}: a tile whose figure draws its cells (scores, registers)."""
    rows = plain(x)
    return {name: rows, **{f"{name} {r},{c}": v for r, line in enumerate(rows) for c, v in enumerate(line)}}


def last_before(observed, i, j):
    """The carries block `i` observed last before tile `j` ({(i, j'): carries}, j' < j), or None: it has seen none."""
    seen = [t for (b, t) in observed if b == i and t < j]
    return observed[(i, max(seen))] if seen else None
