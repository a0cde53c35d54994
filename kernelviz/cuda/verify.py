"""Check the kernels against attention/'s float64 reference, on the GPU when there is one, else through the CPU
shim, and tabulate the results (what ptxas says about them is compile.py's table).

The error measure is attention/'s: max |o - o_ref| over max |o_ref|, at most TOL, with the reference computed from the
same float32 inputs the kernel read. L (the logsumexp each row ends with, however the kernel writes it) is held to
TOL relative to max(1, |lse|), and is -inf exactly where the reference's is (a row that sees no key under causal
masking with N > N_kv). Each kernel's record (descriptor.Kernel, in topics/) says the rest: its inputs, its
reference and error, its tolerance (a kernel on 16-bit inputs: MMA_TOL[dtype] = 4u, u the format's unit roundoff)
and the variants it is checked under; its module's docstring says why.
"""

from dataclasses import dataclass

from kernelviz.progress import bar

from . import cpu, kernels, launch
from .descriptor import MMA_TOL, SPLITS, TOL, lse_err, qkv, rel_err
from .topics import softmax_fp64

__all__ = ["MMA_TOL", "SPLITS", "TOL", "lse_err", "rel_err", "softmax_fp64"]  # the measures, for the tests
SHAPES = [(2, n, d) for n in (1, 7, 64, 130) for d in (16, 64)]  # (BH, N, d)


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
    """The largest relative error `kernel`'s check allows: TOL, or what its record says (for 16-bit inputs
    MMA_TOL[dtype], the default dtype its first)."""
    return kernels.kernel(kernel).tolerance(dtype)


def inputs(bh, n, d, decode=False, seed=0, kernel=None, causal=False, n_kv=None, dtype=None):
    """Random float32 q, k, v; k and v have `n_kv` rows (default n); q has one row per (batch·head) when `decode`.
    With a `kernel`, what its record's verify_inputs makes for it (e.g. rounded to `dtype` for a kernel on 16-bit
    inputs, the values the kernel reads; a kernel's own inputs, with `causal` masking where they derive from a
    forward pass)."""
    if kernel is None:
        return qkv(bh, n, d, decode, seed, n_kv)
    return kernels.kernel(kernel).make_inputs(bh, n, d, decode, seed, causal, n_kv, dtype)


def error(kernel, out, *arrays, causal=False):
    """The relative error of `out` (a kernel's outputs, for inputs `arrays`) by its record's measure against its
    reference: for attention, O by rel_err against attention_fp64 and L (however the kernel keeps it) by lse_err."""
    return kernels.kernel(kernel).error(out, arrays, causal)


def checks(backend=None, shapes=SHAPES, progress=False, **options):
    """Run every kernel on `shapes` under each of its record's variants (attention: with and without causal
    masking, and causal against fewer and more keys than queries; split kernels: for each of SPLITS) on `backend`
    ("gpu", "cpu", or None for the GPU when there is one) and return the Checks; a kernel only at the head
    dimensions it is built for. `progress`: a bar of the runs on a
    terminal when they take seconds (``kernelviz.progress``)."""
    backend = backend or ("gpu" if launch.available() else "cpu")
    run = launch.run if backend == "gpu" else cpu.run
    found = []
    total = sum(len(variants(kernel)) for _, _, d in shapes for kernel in kernels.KERNELS if takes(kernel, d))
    with bar(total=total, desc=f"verify ({backend})", unit="run", enabled=progress) as runs:
        for bh, n, d in shapes:
            for kernel in (k for k in kernels.KERNELS if takes(k, d)):
                decode = kernels.kernel(kernel).decode
                for variant in variants(kernel):
                    n_kv = variant.pop("n_kv", lambda n: n)(n)
                    causal, dtype = variant.get("causal", False), variant.get("dtype")
                    arrays = inputs(bh, n, d, decode, kernel=kernel, causal=causal, n_kv=n_kv, dtype=dtype)
                    out = run(kernel, *arrays, **variant, **options)
                    option = "causal" if causal else "full"
                    option += f" N_kv={n_kv}" if n_kv != n else ""
                    option = f"splits={variant['n_splits']}" if "n_splits" in variant else option
                    option = f"{dtype} {option}" if dtype else option
                    option += "".join(
                        f" {key}={variant[key]}" for key in kernels.kernel(kernel).options if key in variant
                    )
                    err = error(kernel, out, *arrays, causal=causal)
                    found.append(Check(kernel, backend, (bh, n, d), option, err, tolerance(kernel, dtype)))
                    runs.update()
    return found


def takes(kernel, d):
    """Whether `kernel` is built for head dimension d (fa3: 64 and 128 only; the others any)."""
    return bool(kernels.head_dims(kernel, (d,)))


def variants(kernel):
    """The options `kernel` is checked under (fresh dicts: checks pops their n_kv)."""
    return [dict(variant) for variant in kernels.kernel(kernel).variants]


def tolerances():
    """The tolerances in words: "tolerance 1e-05, relative", and each kernel's own per dtype where it has others
    (e.g. "; fa2_mma: fp16 0.002, bf16 0.016")."""
    words = [f"tolerance {TOL:g}, relative"]
    for kernel in kernels.KERNELS:
        own = [(t, tolerance(kernel, t)) for t in kernels.compiled_dtypes(kernel)]
        if any(tol != TOL for _, tol in own):
            words.append(f"{kernel}: " + ", ".join(f"{t} {tol:.2g}" if t else f"{tol:.2g}" for t, tol in own))
    return "; ".join(words)


def table(found):
    """The Checks as a text table, one line each."""
    lines = [f"{'kernel':<16}{'backend':<9}{'BH, N, d':<14}{'option':<31}{'rel. error':>12}{'tolerance':>11}  result"]
    for c in found:
        shape = ", ".join(map(str, c.shape))
        result = "ok" if c.ok else "FAIL"
        lines.append(f"{c.kernel:<16}{c.backend:<9}{shape:<14}{c.option:<31}{c.error:>12.2e}{c.tol:>11.1e}  {result}")
    return "\n".join(lines)
