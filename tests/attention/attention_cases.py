"""Helpers for the attention tests: random inputs, relative error, and running every algorithm."""

import numpy as np
from hypothesis import strategies as st

from kernelviz.attention import ALGORITHMS
from kernelviz.attention.topics import REGISTRY

# The algorithms on one (q, k, v) of shape (BH, N, d) in float32 or float16; paged decoding takes a batch in a paged
# cache instead, and those on tensor cores (fa2-mma, fa2-pipe, fa3) 16-bit storage only (float16 or bfloat16: their own
# tests).
DENSE = [name for name in ALGORITHMS if name != "paged-decoding" and "float32" in REGISTRY[name].dtypes]
FLOAT32_TOL = 1e-5  # max |o - o_ref| over max |o_ref|, for float32 storage

# The sizes the closed forms (bytes: formulas, FLOPs: flops) are checked on against what the algorithms count:
# one tile, a block taller than N, tiles ragged and whole, N != N_kv both ways, a tile of 9 keys for 64 query rows.
SIZES = [  # (N, N_kv, d, Br, Bc)
    (1, 1, 1, 1, 1),
    (1, 64, 8, 16, 16),
    (7, 7, 4, 8, 8),
    (8, 8, 4, 8, 8),
    (33, 33, 4, 8, 16),
    (50, 20, 3, 7, 5),
    (20, 50, 3, 5, 7),
    (64, 64, 16, 16, 32),
    (100, 37, 2, 64, 9),
]
# ... and drawn at random (hypothesis: @given(**DRAWN, data=st.data()), then n_splits = data.draw(splits(n_kv, Bc))).
DRAWN = {
    "n": st.integers(1, 48),
    "n_kv": st.integers(1, 48),
    "d": st.integers(1, 8),
    "Br": st.integers(1, 24),
    "Bc": st.integers(1, 24),
    "causal": st.booleans(),
    "bh": st.integers(1, 3),
}


def splits(n_kv, Bc):
    """The split counts flash decoding may take at these sizes: 1 to its number of K/V tiles."""
    return st.integers(1, -(-n_kv // Bc))


def grid_splits(n_kv, Bc):
    """The split count of a grid size: 3, or fewer when there are fewer K/V tiles."""
    return min(3, -(-n_kv // Bc))


def closed_form(table, name, n, n_kv, d, Br, Bc, causal, bh, n_splits, **more):
    """Algorithm `name`'s closed form in `table` (FORMULAS or FLOP_FORMULAS) at these sizes; n_splits goes to flash
    decoding alone."""
    extra = {"n_splits": n_splits} if name == "flash-decoding" else {}
    return table[name](n, d, Br, Bc, N_kv=n_kv, causal=causal, batch_heads=bh, **extra, **more)


def qkv(bh, n, d, n_kv=None, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    n_kv = n if n_kv is None else n_kv
    return (
        scale * rng.standard_normal((bh, n, d)),
        scale * rng.standard_normal((bh, n_kv, d)),
        rng.standard_normal((bh, n_kv, d)),
    )


def rel_err(o, ref, magnitude=None):
    """max |o - ref| relative to the output's magnitude, by default max |ref| (1 when ref is all zeros).

    Where the rows of V cancel, |ref| understates the size of what was summed: pass the output's magnitude before
    cancellation, max over rows of sum_j p_j |v_j| (attention of |V|), the scale float32 rounding errors follow."""
    magnitude = np.abs(ref).max() if magnitude is None else magnitude
    return float(np.abs(o.astype(np.float64) - ref).max() / (magnitude if magnitude > 0 else 1.0))


def run(name, q, k, v, **options):
    """Run algorithm `name`, passing n_splits only to flash decoding."""
    if name != "flash-decoding":
        options.pop("n_splits", None)
    return ALGORITHMS[name](q, k, v, **options)
