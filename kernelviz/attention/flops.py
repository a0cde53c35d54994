"""The helpers of the closed-form FLOP counts: what each algorithm's ``ledger.flops`` must add up to, kind by kind.

Each algorithm's own count lives beside its record (``closed_forms.fa2.flops``, published as ``flops.fa2``); this
module holds what they share. Pure Python integer arithmetic, like ``formulas`` (its bytes' twin). Each function returns
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

from .formulas import cdiv, kv_rows_read, q_rows_read, tiles_visited

# What the browser imports, generated into JavaScript by js_port (web/.gen/flops.js): every algorithm's `flops`
# (closed_forms/<stem>.py) under its stem, and these helpers (formulas.JS_MODULES says how)
JS_MODULES = {"flops": {"form": "flops", "as": "{stem}", "helpers": ("count", "total", "visited")}}


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


def tile_steps(d, rc, r):
    """Scores and one online-softmax step on pairs whose rows x cols sum to `rc` and rows to `r`."""
    return count(4 * rc * d, rc + r, 4 * rc + 2 * r + 2 * r * d)


def scaled(flops, h):
    return {kind: h * n for kind, n in flops.items()}
