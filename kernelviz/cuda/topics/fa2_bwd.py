"""FA2's backward (fa2_bwd.cu): fa2_bwd_preprocess (grid (ceil(N / Br), BH)) writes Delta = rowsum(dO * O) and zeroes
dQ; fa2_bwd (grid (ceil(N / Bc), BH)) walks the Q tiles for each K/V tile, writes dK and dV, and adds into dQ with
atomicAdd (blocks share it: the CPU harness watches it). It reads Q, K, V, O, dO (BH, N, D) and L (BH, N), and
writes Delta (BH, N), dQ, dK, dV. verify holds each of dQ, dK, dV to TOL by rel_err against attention_backward_fp64 (the
gradient through the softmax's Jacobian), and Delta against rowsum(dO * O) in float64, given O and L from the float64
forward, rounded to float32."""

import numpy as np

from kernelviz.attention.reference import attention_backward_fp64, attention_fp64

from ..descriptor import Kernel, Launch, attention_figure, draw_qkv, rel_err

GRADIENTS = ("dQ", "dK", "dV")


def shared_bytes(tiles, d):  # fa2_bwd_preprocess, fa2_bwd
    br, bc = tiles
    return [0, 4 * (4 * bc * d + 2 * br * d + 2 * br * bc + 2 * br)]


def launches(bh, n, d, tiles, threads, n_splits, dtype, smem):
    br, bc = tiles
    return [
        Launch(f"fa2_bwd_preprocess<{br}, {d}>", (-(-n // br), bh), threads, smem[0]),
        Launch(f"fa2_bwd<{br}, {bc}, {d}>", (-(-n // bc), bh), threads, smem[1]),
    ]


def arguments(n, scale, causal, n_splits, n_kv, kv_heads, bc):
    n32 = np.int32(n)  # N_kv = N: the host runs it on square attention, as the forward kernels
    return [
        ("O", "dO", "Delta", "dQ", n32),
        ("Q", "K", "V", "dO", "L", "Delta", *GRADIENTS, n32, n32, np.float32(scale), np.int32(bool(causal))),
    ]


def verify_inputs(bh, n, d, decode, seed, causal, n_kv, dtype):
    """q, k, v, o, do, lse, with o and lse the float64 forward of q, k, v (with `causal` masking) rounded to
    float32, do random."""
    rng = np.random.default_rng(seed)
    q, k, v = draw_qkv(rng, bh, n, d, decode, n_kv)
    o, lse = (x.astype(np.float32) for x in attention_fp64(q, k, v, causal=causal))
    return q, k, v, o, rng.standard_normal((bh, n, d)).astype(np.float32), lse


def error(out, arrays, causal):
    q, k, v, o, do, _ = arrays
    grads = attention_backward_fp64(q, k, v, do, causal=causal)
    d_ref = (do.astype(np.float64) * o).sum(-1)
    errors = [rel_err(out[name], g) for name, g in zip(GRADIENTS, grads, strict=True)]
    return max(rel_err(out["Delta"], d_ref), *errors)


KERNEL = Kernel(
    name="fa2_bwd",
    algorithm="fa2-backward",
    # K, V, dK, dV of Bc keys and Q, dO of Br rows: twice the forward's tiles
    default_tiles=lambda d: (16, 32) if d <= 64 else (8, 16),
    shared_bytes=shared_bytes,
    launches=launches,
    inputs=lambda bh, n, d, n_kv: {name: (bh, n, d) for name in ("Q", "K", "V", "O", "dO")} | {"L": (bh, n)},
    outputs=lambda bh, n, d, n_splits, tiles: {"Delta": (bh, n)} | {name: (bh, n, d) for name in GRADIENTS},
    arguments=arguments,
    shared_formula="4*(4*Bc*D + 2*Br*D + 2*Br*Bc + 2*Br)",
    error=error,
    verify_inputs=verify_inputs,
    variants=({"causal": False}, {"causal": True}),
    watch=(1, "dQ"),  # blocks j share dQ: only atomicAdd may change it in fa2_bwd
    figure=attention_figure,
)
