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

Each count is linear in three sums over the visited pairs of r rows and c keys: the pairs' sum of r c, of r and of
c, which ``pair_sums`` gives in closed form from ``formulas.visited_sums`` (no loop over tiles: any size answers at
once, N = 10^9 included). ``visited`` walks the pairs one by one, as the tests do to hold the two equal.
"""

from .formulas import cdiv, kv_rows_read, q_rows_read, rows_seeing, tiles_visited

# What the browser imports, generated into JavaScript by js_port (web/.gen/flops.js)
JS_MODULES = {
    "flops": (
        "count", "total", "visited", "standard", "fa2", "fa1", "flash_decoding", "fa2_backward", "standard_backward",
        "paged_decoding",
    ),
}  # fmt: skip


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


def pair_sums(N, Br, Bc, N_kv=None, causal=False):
    """(rc, r, c): the sums of rows x cols, of rows and of cols over ``visited``'s pairs, in closed form. A block of
    r rows that visits t tiles covers min(t Bc, N_kv) keys (only the last tile is ragged), so c sums to
    ``kv_rows_read``, r to ``q_rows_read``, and rc to Br ``kv_rows_read`` less the last block's missing rows times
    its keys (it visits all N_kv)."""
    N_kv = N if N_kv is None else N_kv
    keys = kv_rows_read(N, Br, Bc, N_kv, causal)
    short = cdiv(N, Br) * Br - N  # rows the last block lacks
    return Br * keys - short * N_kv, q_rows_read(N, Br, Bc, N_kv, causal), keys


def _tiles(d, rc, r):
    """Scores and one online-softmax step on pairs whose rows x cols sum to `rc` and rows to `r`."""
    return count(4 * rc * d, rc + r, 4 * rc + 2 * r + 2 * r * d)


def _scale(flops, h):
    return {kind: h * n for kind, n in flops.items()}


def standard(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """S = scale Q K^T on every tile (nothing skipped), a softmax of each whole row (max, subtract, exp, sum,
    divide), O = P V tile by tile with one add of each product into O."""
    N_kv = N if N_kv is None else N_kv
    nn = N * N_kv
    return _scale(count(4 * nn * d, nn, nn + 4 * nn + N * d * cdiv(N_kv, Bc)), batch_heads)


def fa2(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """One online-softmax step per visited tile, one finish per row of a block that sees a key (a block that sees
    none writes O = 0 and L = -inf without computing: ``formulas.rows_seeing``)."""
    rc, r, _ = pair_sums(N, Br, Bc, N_kv, causal)
    flops = _tiles(d, rc, r)
    rows = rows_seeing(N, Br, Bc, N_kv, causal)
    flops["other"] += rows * d + rows
    flops["exp"] += rows
    return _scale(flops, batch_heads)


def fa1(N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """As FA2, but Oi goes back to HBM normalized after every tile: each step multiplies it by l_i first
    (rd) and finishes it again (rd + r other, r exp)."""
    rc, r, _ = pair_sums(N, Br, Bc, N_kv, causal)
    flops = _tiles(d, rc, r)
    flops["exp"] += r
    flops["other"] += 2 * r * d + r
    return _scale(flops, batch_heads)


def flash_decoding(N, d, Br, Bc, n_splits, N_kv=None, causal=False, batch_heads=1, partials="unnormalized"):
    """FA2's tiles shared among the splits (each visited tile once), then per query row a combine of the
    n_splits partials: max, m_s - m_g, exp, w * l, the sum, w * O_s and its sum, one division. With
    partials="lse" each split finishes its rows (O / l: d divisions, m + log l: one log and one add, ``finish``) and
    the combine has no division of O: max, lse_s - max, exp, the sum, w_s / sum, w * O_s and its sum."""
    rc, r, _ = pair_sums(N, Br, Bc, N_kv, causal)
    flops = _tiles(d, rc, r)
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
    rc, r, c = pair_sums(N, Br, Bc, N_kv, causal)
    flops = count(10 * rc * d, rc, 2 * N * d + 4 * rc + 2 * r * d + 3 * c * d)
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
        pages = _tiles(d, g * n, g * cdiv(n, page_size))  # each page's g rows on its keys, n in all
        for kind, value in pages.items():
            flops[kind] += H_kv * value
        if n_splits == 1:
            flops["other"] += H_q * d + H_q
            flops["exp"] += H_q
        else:
            flops["other"] += 4 * n_splits * H_q + 2 * n_splits * H_q * d + H_q * d
            flops["exp"] += n_splits * H_q
    return flops
