"""Check the kernels against attention/'s float64 reference, on the GPU when there is one, else through the CPU
shim, and tabulate the results (what ptxas says about them is compile.py's table).

The error measure is attention/'s: max |o - o_ref| over max |o_ref|, at most TOL, with the reference computed from the
same float32 inputs the kernel read. L (and FA1's m + log l) is held to TOL relative to max(1, |lse|), and is -inf
exactly where the reference's is (a row that sees no key under causal masking with N > N_kv). Online softmax is
held to the same measures against `softmax_fp64`: its O, and m + log d against the row's logsumexp. FA2's backward is
held to rel_err on each of dQ, dK, dV against `attention_backward_fp64` (the gradient through the softmax's Jacobian)
and on D against rowsum(dO * O) in float64, given O and L from the float64 forward, rounded to float32.
Paged decoding's O is held to TOL against `paged_attention_fp64`, on a batch of BH sequences of lengths N and
N // 2 + 1.

FA2 on tensor cores (fa2_mma) reads Q, K, V rounded to fp16 or bf16 (the reference reads the same rounded values) and
is held to MMA_TOL[dtype] = 4u, u the format's unit roundoff (2^-11 for fp16, 2^-8 for bf16): its O is rounded to
16 bits once on the way out (at most u of |o|), and P~ is rounded to 16 bits before it multiplies V (each weight
off by at most u, which moves o by at most u·max|v| and, the errors being independent, far less in practice); its
scores, m, l and accumulators are fp32, so L is held, with O, to the same measure. Measured on the shim (verify's 48
checks): O within 0.72u for fp16 and 0.93u for bf16, L within 1e-7.
"""

from dataclasses import dataclass

import numpy as np

from kernelviz.attention.paged_cache import random_batch
from kernelviz.attention.reference import attention_backward_fp64, attention_fp64, paged_attention_fp64
from kernelviz.progress import bar

from . import cpu, half, kernels, launch

TOL = 1e-5
MMA_TOL = {dtype: 4 * u for dtype, u in half.UNIT_ROUNDOFF.items()}
SHAPES = [(2, n, d) for n in (1, 7, 64, 130) for d in (16, 64)]  # (BH, N, d)
SPLITS = (1, 3, 8)


@dataclass(frozen=True)
class Check:
    kernel: str
    backend: str
    shape: tuple
    option: str  # "causal", "splits=3", ...
    error: float  # relative error of O (and L), NaN if any output is not finite
    tol: float = TOL  # what error must not exceed (tolerance())

    @property
    def ok(self):
        return bool(self.error <= self.tol)


def tolerance(kernel, dtype=None):
    """The largest relative error `kernel`'s check allows: TOL, or for fa2_mma MMA_TOL[dtype] (default fp16)."""
    return MMA_TOL[dtype or "fp16"] if kernel == "fa2_mma" else TOL


def inputs(bh, n, d, decode=False, seed=0, kernel=None, causal=False, n_kv=None, dtype=None):
    """Random float32 q, k, v; k and v have `n_kv` rows (default n); q has one row per (batch·head) when `decode`;
    for kernel "fa2_mma" rounded to `dtype` (default "fp16"; half.round), the values the kernel reads. For
    kernel "online_softmax": x, v, with x (BH, N) scores spread like attention's at d = 1 (standard normal, times 3).
    For "fa2_bwd": q, k, v, o, do, lse, with o and lse the float64 forward of q, k, v (with `causal` masking) rounded to
    float32, do random. For "paged_decoding": a batch of BH
    sequences of lengths N, N // 2 + 1, ... in pages scattered through a pool (random_batch; the first page shared,
    as a common prefix), with 2 K/V heads in groups and pages of kernels.PAGED_TILES."""
    if kernel == "paged_decoding":
        g, page = kernels.PAGED_TILES
        lens = [max(1, n // (1 + b) + b) for b in range(bh)]
        return random_batch(lens, page, 2 * g, 2, d, seed=seed, shared_pages=1, spare_pages=2)
    rng = np.random.default_rng(seed)
    if kernel == "online_softmax":
        x = (3 * rng.standard_normal((bh, n))).astype(np.float32)
        return x, rng.standard_normal((bh, n, d)).astype(np.float32)
    q = rng.standard_normal((bh, 1 if decode else n, d)).astype(np.float32)
    n_kv = n if n_kv is None else n_kv
    k, v = (rng.standard_normal((bh, n_kv, d)).astype(np.float32) for _ in range(2))
    if kernel == "fa2_bwd":
        o, lse = (x.astype(np.float32) for x in attention_fp64(q, k, v, causal=causal))
        return q, k, v, o, rng.standard_normal((bh, n, d)).astype(np.float32), lse
    if kernel == "fa2_mma":
        return tuple(half.round(x, dtype or "fp16") for x in (q, k, v))
    return q, k, v


def rel_err(x, ref):
    """max |x - ref| / max |ref| (over 1 where ref is all zeros); inf if x is not finite."""
    x = np.asarray(x, dtype=np.float64)
    if not np.isfinite(x).all():
        return float("inf")
    return float(np.abs(x - ref).max() / (np.abs(ref).max() or 1.0))


def lse_err(x, ref):
    """max |x - ref| / max(1, max |ref|) over the finite entries of ref; inf if x is not finite there, or is not
    -inf where ref is -inf (a row that sees no key)."""
    x, ref = np.asarray(x, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    empty = np.isneginf(ref)
    if not np.isneginf(x[empty]).all() or not np.isfinite(x[~empty]).all():
        return float("inf")
    if empty.all():
        return 0.0
    return float(np.abs(x[~empty] - ref[~empty]).max() / max(1.0, float(np.abs(ref[~empty]).max())))


def softmax_fp64(x, v):
    """(o, lse) in float64: o = softmax(x) V per row, (BH, D), and lse = logsumexp(x), (BH,); x is (BH, N), v is
    (BH, N, D)."""
    x, v = np.asarray(x, dtype=np.float64), np.asarray(v, dtype=np.float64)
    m = x.max(-1, keepdims=True)
    p = np.exp(x - m)
    return np.einsum("bn,bnd->bd", p, v) / p.sum(-1, keepdims=True), (m + np.log(p.sum(-1, keepdims=True)))[:, 0]


def error(kernel, out, *arrays, causal=False):
    """The larger of the errors of `out` (a kernel's outputs, for inputs `arrays`) against attention_fp64 (online
    softmax: softmax_fp64): O by rel_err, and L (FA1: m + log l; online softmax: m + log d) by lse_err."""
    if kernel == "paged_decoding":
        q = arrays[0]
        return rel_err(out["O"].reshape(q.shape), paged_attention_fp64(*arrays))
    if kernel == "online_softmax":
        o_ref, lse_ref = softmax_fp64(*arrays)
        lse = out["m_out"].astype(np.float64) + np.log(out["l_out"].astype(np.float64))
        return max(rel_err(out["O"], o_ref), lse_err(lse, lse_ref))
    if kernel == "fa2_bwd":
        q, k, v, o, do, _ = arrays
        grads = attention_backward_fp64(q, k, v, do, causal=causal)
        d_ref = (do.astype(np.float64) * o).sum(-1)
        errors = [rel_err(out[name], g) for name, g in zip(("dQ", "dK", "dV"), grads, strict=True)]
        return max(rel_err(out["D"], d_ref), *errors)
    if arrays[1].shape[1] == 0:  # an empty cache: every row sees no key
        o_ref, lse_ref = np.zeros(arrays[0].shape), np.full(arrays[0].shape[:2], -np.inf)
    else:
        o_ref, lse_ref = attention_fp64(*arrays, causal=causal)
    err = rel_err(out["O"], o_ref)
    if kernel in ("fa2", "fa2_mma"):
        err = max(err, lse_err(out["L"], lse_ref))
    elif kernel == "fa1":
        with np.errstate(divide="ignore", invalid="ignore"):
            err = max(err, lse_err(out["m"].astype(np.float64) + np.log(out["l"].astype(np.float64)), lse_ref))
    return err


def checks(backend=None, shapes=SHAPES, progress=False, **options):
    """Run every kernel on `shapes` with and without causal masking (FA1 and FA2 also causal against fewer and
    more keys than queries: N_kv = ceil(N/2) and 2N) (flash and paged decoding: for each of SPLITS; online
    softmax: once) on
    `backend` ("gpu", "cpu", or None for the GPU when there is one) and return the Checks. `progress`: a bar of the
    runs on a terminal when they take seconds (``kernelviz.progress``)."""
    backend = backend or ("gpu" if launch.available() else "cpu")
    run = launch.run if backend == "gpu" else cpu.run
    found = []
    total = len(shapes) * sum(len(variants(kernel)) for kernel in kernels.KERNELS)
    with bar(total=total, desc=f"verify ({backend})", unit="run", enabled=progress) as runs:
        for bh, n, d in shapes:
            for kernel in kernels.KERNELS:
                decode = kernel == "flash_decoding"
                for variant in variants(kernel):
                    n_kv = variant.pop("n_kv", lambda n: n)(n)
                    causal, dtype = variant.get("causal", False), variant.get("dtype")
                    arrays = inputs(bh, n, d, decode, kernel=kernel, causal=causal, n_kv=n_kv, dtype=dtype)
                    out = run(kernel, *arrays, **variant, **options)
                    option = "causal" if causal else "full"
                    option += f" N_kv={n_kv}" if n_kv != n else ""
                    option = f"splits={variant['n_splits']}" if "n_splits" in variant else option
                    option = f"{dtype} {option}" if dtype else option
                    err = error(kernel, out, *arrays, causal=causal)
                    found.append(Check(kernel, backend, (bh, n, d), option, err, tolerance(kernel, dtype)))
                    runs.update()
    return found


def variants(kernel):
    """The options `kernel` is checked under."""
    if kernel in ("flash_decoding", "paged_decoding"):
        return [{"n_splits": s} for s in SPLITS]
    if kernel == "online_softmax":
        return [{}]
    if kernel == "fa2_bwd":
        return [{"causal": False}, {"causal": True}]
    fewer, more = (lambda n: -(-n // 2)), (lambda n: 2 * n)  # FA1, FA2: also fewer and more keys than queries
    if kernel == "fa2_mma":  # in fp16 and bf16
        plain = [{"dtype": t, "causal": c} for t in half.DTYPES for c in (False, True)]
        ragged = [{"dtype": "fp16", "causal": True, "n_kv": fewer}, {"dtype": "bf16", "causal": True, "n_kv": more}]
        return plain + ragged
    return [{"causal": False}, {"causal": True}, {"causal": True, "n_kv": fewer}, {"causal": True, "n_kv": more}]


def table(found):
    """The Checks as a text table, one line each."""
    lines = [f"{'kernel':<16}{'backend':<9}{'BH, N, d':<14}{'option':<23}{'rel. error':>12}{'tolerance':>11}  result"]
    for c in found:
        shape = ", ".join(map(str, c.shape))
        result = "ok" if c.ok else "FAIL"
        lines.append(f"{c.kernel:<16}{c.backend:<9}{shape:<14}{c.option:<23}{c.error:>12.2e}{c.tol:>11.1e}  {result}")
    return "\n".join(lines)
