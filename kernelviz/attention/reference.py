"""Plain attention in float64: the reference every algorithm and every CUDA kernel is checked against.

    S = scale * Q K^T,   lse = logsumexp(S, axis=-1),   O = exp(S - lse) V,   scale defaults to 1/sqrt(d).

q is (BH, N, d); k and v are (BH, N_kv, d). Inputs are converted to float64 first (no rounding to a storage
dtype here: pass the arrays the kernel actually read, e.g. after casting to float16).

Causal masking is aligned to the bottom-right, as in flash-attn: query row r attends key c iff
``c <= r + (N_kv - N)``. With N == N_kv it is the lower triangle; one query row (decoding) sees every key.

``paged_attention_fp64`` is the same attention for paged decoding's batch (see ``paged_decoding``): each sequence's K/V
gathered token by token from its pages into one contiguous array, each query head attending its group's K/V head.

A fully masked row (when N > N_kv, the first N - N_kv rows under causal masking) has output 0 and lse -inf,
the log of an empty sum. (flash-attn stores +inf there for its backward pass; compare finite rows only.)

``attention_backward_fp64`` is the gradient, in float64, written from the chain rule through each row's softmax
Jacobian, independently of the backward algorithms (no Δ = rowsum(dO * O) shortcut): with p = softmax(s) of one row,
ds = J dp where J = diag(p) - p p^T is the Jacobian of the softmax and dp = V dO_row; then dV = P^T dO,
dQ = scale * dS K, dK = scale * dS^T Q. A fully masked row has p = 0, so J = 0 and it contributes nothing.
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


def attention_backward_fp64(q, k, v, do, causal=False, scale=None):
    """Return (dq, dk, dv) in float64, the gradients of sum(o * do) for o = attention_fp64(q, k, v)[0], shaped
    like q, k, v. Raises ValueError on bad shapes or non-finite inputs, naming the argument."""
    q, k, v, scale = validate(q, k, v, scale)
    do = np.asarray(do, dtype=np.float64)
    if do.shape != q.shape:
        raise ValueError(f"do: expected q's shape {q.shape}, got {do.shape}")
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    o, lse = _attention(q, k, v, causal, scale)
    n, n_kv = q.shape[1], k.shape[1]
    dq, dk, dv = np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
    for b in range(q.shape[0]):
        for r in range(n):
            if np.isneginf(lse[b, r]):
                continue  # fully masked: p = 0
            keys = np.arange(n_kv) <= r + (n_kv - n) if causal else np.ones(n_kv, bool)
            s = scale * k[b, keys] @ q[b, r]
            p = np.exp(s - s.max())
            p /= p.sum()
            jacobian = np.diag(p) - np.outer(p, p)
            ds = jacobian @ (v[b, keys] @ do[b, r])
            dv[b, keys] += np.outer(p, do[b, r])
            dq[b, r] = scale * ds @ k[b, keys]
            dk[b, keys] += scale * np.outer(ds, q[b, r])
    return dq, dk, dv


def paged_attention_fp64(q, k_pages, v_pages, block_table, seq_lens, scale=None):
    """o (batch, H_q, d) in float64 for q (batch, H_q, d), pools (pages, page_size, H_kv, d), block_table and seq_lens:
    token t of sequence b is k_pages[block_table[b][t // page_size], t % page_size]; query head h attends K/V head
    h // (H_q / H_kv). Runs attention_fp64 on each sequence's gathered K/V (no check of the table: pass a valid one)."""
    q = np.asarray(q)
    page_size, H_kv = k_pages.shape[1], k_pages.shape[2]
    heads = [h * H_kv // q.shape[1] for h in range(q.shape[1])]  # h // g
    out = np.empty(q.shape)
    for b in range(q.shape[0]):
        rows = [(block_table[b][t // page_size], t % page_size) for t in range(int(seq_lens[b]))]
        k = np.stack([k_pages[p, r] for p, r in rows], axis=1)  # (H_kv, L, d)
        v = np.stack([v_pages[p, r] for p, r in rows], axis=1)
        out[b] = attention_fp64(q[b][:, None, :], k[heads], v[heads], scale=scale)[0][:, 0]
    return out
