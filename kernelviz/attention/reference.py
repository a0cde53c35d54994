"""Plain attention in float64: the reference every algorithm and every CUDA kernel is checked against.

    S = scale * Q K^T,   lse = logsumexp(S, axis=-1),   O = exp(S - lse) V,   scale defaults to 1/sqrt(d).

q is (BH, N, d); k and v are (BH, N_kv, d). Inputs are converted to float64 first (no rounding to a storage
dtype here: pass the arrays the kernel actually read, e.g. after casting to float16).

Causal masking is aligned to the bottom-right, as in flash-attn: query row r attends key c iff
``c <= r + (N_kv - N)``. With N == N_kv it is the lower triangle; one query row (decoding) sees every key.

A fully masked row (when N > N_kv, the first N - N_kv rows under causal masking) has output 0 and lse -inf,
the log of an empty sum. (flash-attn stores +inf there for its backward pass; compare finite rows only.)
"""

import numpy as np

from ._inputs import validate


def attention_fp64(q, k, v, causal=False, scale=None):
    """Return (o, lse): o (BH, N, d) and lse (BH, N), both float64. Raises ValueError on bad shapes, non-finite
    inputs or a bad scale, naming the argument."""
    q, k, v, scale = validate(q, k, v, scale)
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    return _attention(q, k, v, causal, scale)


def _attention(q, k, v, causal, scale):
    n, n_kv = q.shape[1], k.shape[1]
    s = scale * np.matmul(q, k.transpose(0, 2, 1))
    if causal:
        allowed = np.arange(n_kv)[None, :] <= np.arange(n)[:, None] + (n_kv - n)
        s = np.where(allowed, s, -np.inf)
    m = s.max(-1, keepdims=True)
    empty = np.isneginf(m)
    p = np.exp(s - np.where(empty, 0.0, m))
    total = p.sum(-1, keepdims=True)
    o = np.matmul(p, v) / np.where(empty, 1.0, total)
    with np.errstate(divide="ignore"):
        lse = np.where(empty, -np.inf, m + np.log(np.where(empty, 1.0, total)))[..., 0]
    return o, lse
