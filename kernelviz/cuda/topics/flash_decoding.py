"""Flash decoding (flash_decoding.cu): one query row per (batch·head), Q (BH, 1, D), against N keys, K and V
(BH, N, D), split n_splits ways: fd_split's blocks (grid (n_splits, BH)) each reduce their own K/V tiles to a
partial O, m and l, and fd_combine (grid (BH,)) merges them. Its tiles are (1, Bc). verify holds O to TOL for each of
verify's SPLITS."""

import numpy as np

from ..descriptor import SPLITS, Kernel, Launch, attention_error, attention_figure


def tiles_per_split(n, bc, n_splits):
    """The K/V tiles each split owns: ceil(ceil(n / bc) / n_splits), flash-attn's split-KV partition
    (n_blocks_per_split). Split s owns tiles [s*T, (s+1)*T) of the ceil(n / bc), so the last of its tiles may be
    short, and trailing splits may own none (e.g. 4 tiles in 3 splits: 2, 2, 0)."""
    tiles = -(-n // bc)
    return -(-tiles // n_splits)


def shared_bytes(tiles, d):  # fd_split, fd_combine
    br, bc = tiles
    return [4 * (2 * d + 2 * bc * d + bc + 3), 4 * (2 + d)]


def launches(bh, n, d, tiles, threads, n_splits, dtype, smem):
    br, bc = tiles
    if br != 1 or n_splits < 1:
        raise ValueError(f"flash decoding takes Br = 1 and n_splits >= 1, not Br={br}, n_splits={n_splits}")
    return [
        Launch(f"fd_split<{bc}, {d}>", (n_splits, bh), threads, smem[0]),
        Launch(f"fd_combine<{d}>", (bh,), threads, smem[1]),
    ]


def outputs(bh, n, d, n_splits, tiles):
    return {
        "O_partial": (bh, n_splits, d),
        "m_partial": (bh, n_splits),
        "l_partial": (bh, n_splits),
        "O": (bh, 1, d),
    }


def arguments(n, scale, causal, n_splits, n_kv, kv_heads, bc):
    partial = ("O_partial", "m_partial", "l_partial")
    if bc is None:
        raise ValueError("flash decoding's arguments need bc, the K/V tile its splits are made of")
    splits, per = np.int32(n_splits), np.int32(tiles_per_split(n, bc, n_splits))
    return [("Q", "K", "V", *partial, np.int32(n), np.float32(scale), splits, per), (*partial, "O", splits)]


KERNEL = Kernel(
    name="flash_decoding",
    algorithm="flash-decoding",
    default_tiles=lambda d: (1, 64 if d <= 64 else 32),
    shared_bytes=shared_bytes,
    launches=launches,
    inputs=lambda bh, n, d, n_kv: {"Q": (bh, 1, d), "K": (bh, n, d), "V": (bh, n, d)},
    outputs=outputs,
    arguments=arguments,
    shared_formula="4*(2*D + 2*Bc*D + Bc + 3)",
    error=lambda out, arrays, causal: attention_error(out, arrays, causal),
    variants=tuple({"n_splits": s} for s in SPLITS),
    decode=True,
    host_formulas={"tiles_per_split": "((N + Bc - 1)/Bc + splits - 1)/splits", "n_splits": "splits"},
    figure=attention_figure,
)
