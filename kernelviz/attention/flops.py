"""Closed-form FLOP counts: what each algorithm's ``ledger.flops`` must add up to, kind by kind.

Pure Python integer arithmetic, like ``formulas`` (its bytes' twin). Each function returns
{"matmul": n, "exp": n, "other": n} with the kinds of ``ledger.Flops``: matmul is 2 per multiply-add of a matrix
product, exp one per exponential or logarithm, other one per elementwise add, subtract, multiply, divide or
comparison. Sizes and the causal rule are those of ``formulas``; ``batch_heads`` multiplies everything.

Work is counted over whole tiles: a diagonal tile under a causal mask is computed whole and then masked, as the
kernels do, and tiles the mask hides entirely are skipped. Per visited tile of r query rows and c keys:

    S = scale * Qi Kj^T        2rcd matmul, rc other
    online-softmax step        2rcd matmul, rc + r exp, 3rc + 2r + 2rd other   (``_inputs.absorb``)

and per block of r rows, the final O = acc / l, L = m + log l: rd + r other, r exp (``_inputs.finish``).
"""

from .formulas import cdiv, tiles_visited


def count(matmul=0, exp=0, other=0):
    return {"matmul": matmul, "exp": exp, "other": other}


def total(flops):
    """All operations of a {kind: count}."""
    return sum(flops.values())


def visited(N, Br, Bc, N_kv=None, causal=False):
    """(rows, cols) of every query-block x K/V-tile pair an FA-style kernel computes, ragged edges included."""
    N_kv = N if N_kv is None else N_kv
    for i in range(cdiv(N, Br)):
        rows = min(Br, N - i * Br)
        for j in range(tiles_visited(i, N, Br, Bc, N_kv, causal)):
            yield rows, min(Bc, N_kv - j * Bc)


def _tiles(d, pairs):
    """Scores and one online-softmax step on each (rows, cols) pair."""
    flops = count()
    for r, c in pairs:
        flops["matmul"] += 4 * r * c * d
        flops["exp"] += r * c + r
        flops["other"] += r * c + 3 * r * c + 2 * r + 2 * r * d
    return flops


def _scale(flops, h):
    return {kind: h * n for kind, n in flops.items()}


def standard(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """S = scale Q K^T on every tile (nothing skipped), a softmax of each whole row (max, subtract, exp, sum,
    divide), O = P V tile by tile with one add of each product into O."""
    N_kv = N if N_kv is None else N_kv
    nn = N * N_kv
    return _scale(count(4 * nn * d, nn, nn + 4 * nn + N * d * cdiv(N_kv, Bc)), batch_heads)


def fa2(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """One online-softmax step per visited tile, one finish per row."""
    flops = _tiles(d, visited(N, Br, Bc, N_kv, causal))
    flops["other"] += N * d + N
    flops["exp"] += N
    return _scale(flops, batch_heads)


def fa1(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """As FA2, but Oi goes back to HBM normalized after every tile: each step multiplies it by l_i first
    (rd) and finishes it again (rd + r other, r exp)."""
    flops = count()
    for r, c in visited(N, Br, Bc, N_kv, causal):
        step = _tiles(d, [(r, c)])
        flops["matmul"] += step["matmul"]
        flops["exp"] += step["exp"] + r
        flops["other"] += step["other"] + r * d + r * d + r
    return _scale(flops, batch_heads)


def flash_decoding(N, d, Br, Bc, n_splits, N_kv=None, causal=False, batch_heads=1, partials="unnormalized"):
    """FA2's tiles shared among the splits (each visited tile once), then per query row a combine of the
    n_splits partials: max, m_s - m_g, exp, w * l, the sum, w * O_s and its sum, one division. With
    partials="lse" each split finishes its rows (O / l: d divisions, m + log l: one log and one add, ``finish``) and
    the combine has no division of O: max, lse_s - max, exp, the sum, w_s / sum, w * O_s and its sum."""
    flops = _tiles(d, visited(N, Br, Bc, N_kv, causal))
    flops["other"] += 4 * n_splits * N + 2 * n_splits * N * d
    flops["exp"] += n_splits * N
    if partials == "lse":
        flops["other"] += n_splits * N * (d + 1)
        flops["exp"] += n_splits * N
    else:
        flops["other"] += N * d
    return _scale(flops, batch_heads)


def fa2_backward(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """The preprocess, 2 N d other (dO * O and its row sum); then per visited tile of r rows and c keys five products
    (S recomputed, dV, dP, dQ, dK: 10rcd matmul), P = exp(S - L) (rc exp), and 4rc + 2rd + 3cd other: scale S,
    S - L, dP - D, P * (dP - D); scale and add into dQ; add into dV; scale and add into dK."""
    flops = count(other=2 * N * d)
    for r, c in visited(N, Br, Bc, N_kv, causal):
        flops["matmul"] += 10 * r * c * d
        flops["exp"] += r * c
        flops["other"] += 4 * r * c + 2 * r * d + 3 * c * d
    return _scale(flops, batch_heads)


def standard_backward(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """Four products over the whole N x N_kv (dV, dP, dQ, dK: 8 N N_kv d matmul), the softmax's backward (4 N N_kv
    other), each tile's product added into its accumulator (dV and dK: Tr N_kv d each; dQ: Tc N d) and dQ, dK
    scaled (N d + N_kv d). Nothing is skipped under a causal mask; P is read back, not recomputed."""
    N_kv = N if N_kv is None else N_kv
    nn, Tr, Tc = N * N_kv, cdiv(N, Br), cdiv(N_kv, Bc)
    other = 4 * nn + 2 * Tr * N_kv * d + Tc * N * d + N * d + N_kv * d
    return _scale(count(8 * nn * d, 0, other), batch_heads)


def paged_decoding(seq_lens, d, page_size, H_q, H_kv, n_splits=1):
    """Each decode block's pages, one online-softmax step of the g = H_q / H_kv rows of its group on each page's r
    rows (the last page's fewer), for each K/V head; then per sequence either the finish of its H_q rows (one
    split) or the combine of the n_splits partials of each of them (as flash decoding's)."""
    g, flops = H_q // H_kv, count()
    for n in seq_lens:
        pages = _tiles(d, [(g, min(page_size, n - p * page_size)) for p in range(cdiv(n, page_size))])
        for kind, value in pages.items():
            flops[kind] += H_kv * value
        if n_splits == 1:
            flops["other"] += H_q * d + H_q
            flops["exp"] += H_q
        else:
            flops["other"] += 4 * n_splits * H_q + 2 * n_splits * H_q * d + H_q * d
            flops["exp"] += n_splits * H_q
    return flops
