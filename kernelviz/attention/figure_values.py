"""What a record's ``answers`` gives the figure answers (kernelviz.site.answers): the values its figure's slots hold,
step by step, at the sizes of one run, as JSON.

    changes = record.answers(done, observed, keys_at)   # [{slot name: value} for each step: what it gave a slot]

``done`` is the Run, ``observed`` what the algorithm's observer collected ({(block, tile): carries}), ``keys_at`` the
figure's steps as (key, at) pairs (a key is its action then its loop indices: ``'load K,V i=0 j=1'``). A value is a
number, a list or a list of rows, of the first batch-head; -inf is written "-inf" (JSON has no infinities).
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
