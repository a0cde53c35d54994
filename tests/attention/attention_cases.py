"""Helpers for the attention tests: random inputs, relative error, and running every algorithm."""

import numpy as np

from kernelviz.attention import ALGORITHMS

# The algorithms on one (q, k, v) of shape (BH, N, d); paged decoding takes a batch in a paged cache instead.
DENSE = [name for name in ALGORITHMS if name != "paged-decoding"]
FLOAT32_TOL = 1e-5  # max |o - o_ref| over max |o_ref|, for float32 storage


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
