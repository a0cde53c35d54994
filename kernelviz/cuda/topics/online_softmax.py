"""Online softmax (online_softmax.cu): one block per row (grid (BH,), tiles (1, Bc)) reads X (BH, N), one row of
scores per (batch·head), and V (BH, N, D), and writes O = softmax(x) V (BH, D) with the running max m_out and sum
l_out. verify holds O and m + log l to TOL against `softmax_fp64` (its logsumexp), with X spread like attention's
scores at d = 1 (standard normal, times 3)."""

import numpy as np

from ..descriptor import Kernel, Launch, lse_err, rel_err


def softmax_fp64(x, v):
    """(o, lse) in float64: o = softmax(x) V per row, (BH, D), and lse = logsumexp(x), (BH,); x is (BH, N), v is
    (BH, N, D)."""
    x, v = np.asarray(x, dtype=np.float64), np.asarray(v, dtype=np.float64)
    m = x.max(-1, keepdims=True)
    p = np.exp(x - m)
    return np.einsum("bn,bnd->bd", p, v) / p.sum(-1, keepdims=True), (m + np.log(p.sum(-1, keepdims=True)))[:, 0]


def launches(bh, n, d, tiles, threads, n_splits, dtype, smem):
    br, bc = tiles
    if br != 1:
        raise ValueError(f"online softmax takes Br = 1 (one row per block), not Br={br}")
    return [Launch(f"online_softmax<{bc}, {d}>", (bh,), threads, smem[0])]


def verify_inputs(bh, n, d, decode, seed, causal, n_kv, dtype):
    rng = np.random.default_rng(seed)
    x = (3 * rng.standard_normal((bh, n))).astype(np.float32)
    return x, rng.standard_normal((bh, n, d)).astype(np.float32)


def error(out, arrays, causal):
    o_ref, lse_ref = softmax_fp64(*arrays)
    lse = out["m_out"].astype(np.float64) + np.log(out["l_out"].astype(np.float64))
    return max(rel_err(out["O"], o_ref), lse_err(lse, lse_ref))


KERNEL = Kernel(
    name="online_softmax",
    algorithm="online-softmax-output",
    default_tiles=lambda d: (1, 64 if d <= 64 else 32),
    shared_bytes=lambda tiles, d: [4 * (tiles[1] + tiles[1] * d + d + 3)],
    launches=launches,
    inputs=lambda bh, n, d, n_kv: {"X": (bh, n), "V": (bh, n, d)},
    outputs=lambda bh, n, d, n_splits, tiles: {"O": (bh, d), "m_out": (bh,), "l_out": (bh,)},
    arguments=lambda n, scale, causal, n_splits, n_kv, kv_heads, bc: [("X", "V", "O", "m_out", "l_out", np.int32(n))],
    shared_formula="4*(Bc + Bc*D + D + 3)",
    error=error,
    verify_inputs=verify_inputs,
    variants=({},),
    # takes tiles (1, Bc) at a page's {N, d, Bc}
    figure=lambda sizes: (sizes["N"], (1, sizes["Bc"])),
)
