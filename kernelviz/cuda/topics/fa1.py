"""FA1 (fa1.cu): one block per (batch·head) walks the K/V tiles in its outer loop and every Q tile in its inner one,
writing O, l and m back to HBM each time (grid.x: batch·heads, which holds more than grid.y). Q is (BH, N, D), K and
V (BH, N_kv, D): N_kv keys (0 included), causal masking aligned bottom-right. verify holds O to TOL and m + log l
to TOL against the logsumexp."""

import numpy as np

from ..descriptor import Kernel, Launch, attention_error, attention_figure, attention_inputs, attention_tiles


def shared_bytes(tiles, d):
    br, bc = tiles
    return [4 * (2 * br * d + 2 * bc * d + br * bc + 2 * br)]


def launches(bh, n, d, tiles, threads, n_splits, dtype, smem):
    br, bc = tiles
    return [Launch(f"fa1<{br}, {bc}, {d}>", (bh,), threads, smem[0])]


def arguments(n, scale, causal, n_splits, n_kv, kv_heads, bc):
    n_kv = n if n_kv is None else n_kv
    return [("Q", "K", "V", "O", "l", "m", np.int32(n), np.int32(n_kv), np.float32(scale), np.int32(bool(causal)))]


def lse(out):
    return out["m"].astype(np.float64) + np.log(out["l"].astype(np.float64))


KERNEL = Kernel(
    name="fa1",
    algorithm="fa1",
    default_tiles=attention_tiles,
    shared_bytes=shared_bytes,
    launches=launches,
    inputs=lambda bh, n, d, n_kv: attention_inputs(bh, n, d, n_kv),
    outputs=lambda bh, n, d, n_splits, tiles: {"O": (bh, n, d), "l": (bh, n), "m": (bh, n)},
    arguments=arguments,
    shared_formula="4*(2*Br*D + 2*Bc*D + Br*Bc + 2*Br)",
    error=lambda out, arrays, causal: attention_error(out, arrays, causal, lse),
    n_from_q=True,
    figure=attention_figure,
)
