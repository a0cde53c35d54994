"""One run of an algorithm on random inputs of given sizes: what ``kernelviz trace`` prints and what the pages'
``{{ trace }}`` numbers are read from.

    done = run("fa2", N=8, d=4, Br=4, Bc=4)            # attention: N, d, Br, Bc required; N_kv (N),
    done.result.ledger.trips("K")                       #   splits and partials ("unnormalized" or "lse": flash-
                                                        #   decoding's), causal, batch_heads (1),
    run("fa2-mma", N=8, d=4, Br=4, Bc=4, warps=2)       #   warps (4) and p_in_shared (false): fa2-mma's
    run("online-softmax-output", N=16, Bc=4, d=2)       # softmax: N, Bc required; rows (1); d (the output's)
    run("paged-decoding", seq_lens=[5, 9], d=4, page_size=4)  # paged: H_q (1), H_kv (H_q), splits (1)

The inputs are standard normals from ``default_rng(seed)`` (``_inputs.random_normal``): q (batch_heads, N, d), then
k and v (batch_heads, N_kv, d); for the softmax variants x (rows, N), then V (N, d); for paged decoding
``paged_cache.random_batch`` (its pages scattered through the pool). HBM counts depend on the sizes
only, never on the values. The storage dtype is float32 by default, float16 for fa2-mma (``storage``); bfloat16 is
fa2-mma's alone. The sizes are named as in ``kernelviz.glossary`` (an old name, n_splits or b, works
with a FutureWarning naming the new one). A bad size raises ValueError naming it; the algorithm's own checks follow.
"""

import warnings
from dataclasses import dataclass

from .. import glossary
from . import flops, formulas
from ._backward import traced
from ._inputs import itemsize, random_normal, tiles
from .fa1 import flash_attention_1
from .fa2 import flash_attention_2
from .fa2_backward import flash_attention_2_backward
from .fa2_mma import flash_attention_2_mma
from .flash_decoding import flash_decoding
from .paged_cache import random_batch
from .paged_decoding import paged_decoding
from .softmax import naive_softmax, online_softmax, online_softmax_output, safe_softmax
from .standard import standard_attention
from .standard_backward import standard_attention_backward

# The CLI's names for the attention algorithms, and for the softmax variants of the Online softmax page.
ALGORITHMS = {
    "standard": standard_attention,
    "fa1": flash_attention_1,
    "fa2": flash_attention_2,
    "flash-decoding": flash_decoding,
    # the backward passes: each runs its forward for O and L, then the backward on a random dO (_backward.traced)
    "fa2-backward": traced(flash_attention_2, flash_attention_2_backward),
    "standard-backward": traced(standard_attention, standard_attention_backward, needs=("do",)),
    "fa2-mma": flash_attention_2_mma,  # on tensor cores: 16-bit storage only (``storage``), warps, shared traffic
    "paged-decoding": paged_decoding,  # on a batch in a paged cache, not q, k, v: run() draws one (random_batch)
}
# The closed-form count each one's ledger meets, and the closed-form FLOP count each one's ledger.flops meets.
FORMULAS = {
    "standard": formulas.standard,
    "fa1": formulas.fa1,
    "fa2": formulas.fa2,
    "flash-decoding": formulas.flash_decoding,
    "fa2-backward": formulas.fa2_backward,
    "standard-backward": formulas.standard_backward,
    "fa2-mma": formulas.fa2,  # FA2's HBM traffic exactly; its shared-memory traffic: formulas.fa2_mma_shared
    "paged-decoding": formulas.paged_decoding,
}
FLOP_FORMULAS = {
    "standard": flops.standard,
    "fa1": flops.fa1,
    "fa2": flops.fa2,
    "flash-decoding": flops.flash_decoding,
    "fa2-backward": flops.fa2_backward,
    "standard-backward": flops.standard_backward,
    "fa2-mma": flops.fa2,  # the same work: rounding P to 16 bits is a cast, which costs nothing
    "paged-decoding": flops.paged_decoding,
}
OBSERVED = ("fa2",)  # the algorithms that report their carries as they go (run's observe)
# the storage dtypes each algorithm takes (the first: its default); the others take float32 and float16
DTYPES = {"fa2-mma": ("float16", "bfloat16")}  # tensor cores' mma.m16n8k16 takes 16-bit operands
MMA_OPTIONS = ("warps", "p_in_shared")  # fa2-mma's alone, as splits is flash decoding's
MAX_WARPS = 32  # a CUDA block has at most 1024 threads: 32 warps of 32
# The most tile steps (a block of query rows on one K/V tile) a run takes without being asked to go on: at d = 64 and
# 64 x 64 tiles NumPy takes about a tenth of a millisecond a step, so this is half a minute or so (N = 32768 for fa2).
WORK_LIMIT = 2**18
SECONDS_PER_STEP = 1e-4  # at Br = Bc = d = 64 (measured: fa2 at N = 16384, 65,536 steps, 6.7 s on one core)
SLOWER = {"fa2-mma": 4}  # its warps and 16-bit rounding: 4096 steps in 1.1 s where fa2 takes 0.25 s
SOFTMAX = {
    "naive-softmax": naive_softmax,
    "safe-softmax": safe_softmax,
    "online-softmax": online_softmax,
    "online-softmax-output": online_softmax_output,
}
# {name: (type, required)} of each kind of run's sizes
ATTENTION_SIZES = {
    "N": (int, True),
    "d": (int, True),
    "Br": (int, True),
    "Bc": (int, True),
    "N_kv": (int, False),
    "splits": (int, False),
    "batch_heads": (int, False),
    "causal": (bool, False),
    "warps": (int, False),
    "p_in_shared": (bool, False),
    "partials": (str, False),
}
SOFTMAX_SIZES = {"N": (int, True), "Bc": (int, True), "rows": (int, False)}
PAGED_SIZES = {
    "seq_lens": (list, True),
    "d": (int, True),
    "page_size": (int, True),
    "H_q": (int, False),
    "H_kv": (int, False),
    "splits": (int, False),
}


@dataclass
class Run:
    """A finished run: the algorithm's name, every size (defaults filled in), the inputs as drawn ({name: array},
    float64) and the algorithm's result (an AttentionResult or a SoftmaxResult, with its ledger)."""

    algo: str
    sizes: dict
    inputs: dict
    result: object

    @property
    def counts(self):
        """What the sizes count: the tiles {Tr, Tc} of an attention run, ceil(N / Br) and ceil(N_kv / Bc); {T},
        ceil(N / Bc), of a softmax run; a paged-decoding run's {pages, tokens, padding, g} (the batch's pages and
        tokens, the empty rows of its last pages, the query heads per K/V head)."""
        s = self.sizes
        if self.algo == "paged-decoding":
            pages = sum(-(-n // s["page_size"]) for n in s["seq_lens"])
            tokens = sum(s["seq_lens"])
            return {"pages": pages, "tokens": tokens, "padding": pages * s["page_size"] - tokens,
                    "g": s["H_q"] // s["H_kv"]}  # fmt: skip
        if self.algo in SOFTMAX:
            return {"T": len(tiles(s["N"], s["Bc"]))}
        return {"Tr": len(tiles(s["N"], s["Br"])), "Tc": len(tiles(s["N_kv"], s["Bc"]))}


def storage(algo, dtype=None):
    """The storage dtype `algo` runs in: `dtype`, or when None its default (float16 for fa2-mma, float32 for the
    others). Raises ValueError, naming what it takes, for a dtype `algo` does not take (DTYPES)."""
    takes = DTYPES.get(algo, ("float32", "float16"))
    if dtype is None:
        return takes[0]
    if dtype not in takes:
        why = " (tensor cores' mma.m16n8k16 takes 16-bit operands)" if algo in DTYPES else ""
        others = "; bfloat16 is fa2-mma's (tensor cores)" if dtype == "bfloat16" else ""
        raise ValueError(f"dtype: {algo} takes {' or '.join(takes)}{why}, not {dtype}{others}")
    return dtype


def run(algo, *, seed=0, dtype=None, sram_budget=None, observe=None, **sizes):
    """Run `algo` (a name of ALGORITHMS or SOFTMAX) at `sizes` on random inputs drawn with `seed`; returns a Run.
    `dtype` (default: ``storage``'s) and `sram_budget` go to the attention algorithms. Raises ValueError for an
    unknown algorithm or size, a size of the wrong type or below 1, a missing one, a dtype the algorithm does not
    take, or what the algorithm refuses. `observe`: the algorithm's observer of its carries, for those that take one
    (``OBSERVED``: fa2's, see flash_attention_2)."""
    if observe is not None and algo not in OBSERVED:
        raise ValueError(f"observe: only {', '.join(OBSERVED)} report their carries, not {algo}")
    sizes, messages = glossary.canonical(sizes, "attention.run")
    for message in messages:
        warnings.warn(message, FutureWarning, stacklevel=2)
    if algo == "paged-decoding":
        return _paged(_checked(algo, sizes, PAGED_SIZES), seed, storage(algo, dtype), sram_budget)
    if algo in ALGORITHMS:
        sizes = _checked(algo, sizes, ATTENTION_SIZES)
        return _attention(algo, sizes, seed, storage(algo, dtype), sram_budget, observe)
    if algo in SOFTMAX:
        kinds = {**SOFTMAX_SIZES, "d": (int, True)} if algo == "online-softmax-output" else SOFTMAX_SIZES
        return _softmax(algo, _checked(algo, sizes, kinds), seed)
    raise ValueError(f"algo must be one of {', '.join([*ALGORITHMS, *SOFTMAX])}, got {algo!r}")


def tile_steps(algo, N, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """The tile steps a run of attention algorithm `algo` computes, from the closed forms (no loop): the pairs of a
    block of query rows and a K/V tile it visits (``formulas.tile_interactions``; standard attention's three
    kernels skip nothing), twice for a backward pass (its forward, then its own), times batch_heads. A run's time
    goes with it (``seconds``)."""
    whole = algo.startswith("standard")
    pairs = formulas.tile_interactions(N, Br, Bc, N_kv, causal=causal and not whole)
    return batch_heads * pairs * (2 if algo.endswith("-backward") else 1)


def seconds(algo, steps, Br, Bc, d):
    """About how long `steps` tile steps of `algo` on Br x Bc tiles and head dimension d take in NumPy on one core
    (a guess within a few times either way: machines differ)."""
    return steps * SECONDS_PER_STEP * SLOWER.get(algo, 1) * max(0.25, Br * Bc * d / 64**3)


def too_long(algo, N, d, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """Why a run of `algo` at these sizes would take minutes or more (a sentence naming the steps, the bound and the
    time they would take), or None within WORK_LIMIT steps."""
    steps = tile_steps(algo, N, Br, Bc, N_kv, causal, batch_heads)
    if steps <= WORK_LIMIT:
        return None
    about = duration(seconds(algo, steps, Br, Bc, d))
    return (
        f"{algo} at N={N} N_kv={N_kv or N} d={d} computes {steps:,} tile steps of {Br}x{Bc} (about {about} in NumPy), "
        f"past the {WORK_LIMIT:,} a run takes unasked"
    )


def duration(s):
    """Seconds in the unit that reads: "40 s", "12 min", "3.1 h", "5.2 days"."""
    for unit, scale in (("days", 86400), ("h", 3600), ("min", 60)):
        if s >= 2 * scale:
            return f"{s / scale:.2g} {unit}" if s < 10 * scale else f"{s / scale:,.0f} {unit}"
    return f"{max(1, round(s))} s"


def baseline(algo):
    """What `algo`'s traffic is measured against: standard attention, or for a backward pass the standard backward
    (which reads back the P its forward stored)."""
    return "standard-backward" if algo.endswith("-backward") else "standard"


def closed_form(algo, *, dtype=None, **sizes):
    """The numbers of attention algorithm `algo` at `sizes` from its closed forms (FORMULAS, FLOP_FORMULAS, which the
    tests hold equal to its ledger), without running it, for sizes too large to run at every build:
    {sizes..., read_bytes: {T: bytes}, write_bytes, bytes (with total, read, write), flops (by kind, with total),
    ratio_standard (``baseline``'s traffic over this one's); for fa2-mma also shared (``formulas.fa2_mma_shared``, as
    ``Ledger.shared_numbers``)}. Raises ValueError as ``run`` does."""
    if algo not in ALGORITHMS or algo == "paged-decoding":
        raise ValueError(
            f"algo must be one of {', '.join(a for a in ALGORITHMS if a != 'paged-decoding')}, got {algo!r}"
        )
    sizes = {"N_kv": sizes.get("N"), "batch_heads": 1, "causal": False, **_checked(algo, sizes, ATTENTION_SIZES)}
    extra = {"n_splits": sizes["splits"]} if "splits" in sizes else {}
    extra.update({"partials": sizes["partials"]} if "partials" in sizes else {})
    args = (sizes["N"], sizes["d"], sizes["Br"], sizes["Bc"])
    common = dict(N_kv=sizes["N_kv"], causal=sizes["causal"], batch_heads=sizes["batch_heads"])
    size = itemsize(storage(algo, dtype))
    per = FORMULAS[algo](*args, **common, **extra, itemsize=size)
    standard = FORMULAS[baseline(algo)](*args, **common, itemsize=size)
    total = sum(rw["read"] + rw["write"] for rw in per.values())
    out = dict(sizes)
    out.update(
        read_bytes={t: rw["read"] for t, rw in per.items()},
        write_bytes={t: rw["write"] for t, rw in per.items()},
        bytes={t: rw["read"] + rw["write"] for t, rw in per.items()},
        ratio_standard=sum(rw["read"] + rw["write"] for rw in standard.values()) / total,
    )
    out["bytes"].update(total=total, read=sum(out["read_bytes"].values()), write=sum(out["write_bytes"].values()))
    counted = FLOP_FORMULAS[algo](*args, **common, **extra)
    out["flops"] = {**counted, "total": sum(counted.values())}
    if algo == "fa2-mma":
        sizes = {"warps": 4, "p_in_shared": False, **sizes}
        mma = {key: sizes[key] for key in MMA_OPTIONS}
        shared = formulas.fa2_mma_shared(*args, **common, **mma, itemsize=size)
        out.update(mma, shared={t: sl["store"] + sl["load"] for t, sl in shared.items()})
        stores, loads = (sum(sl[way] for sl in shared.values()) for way in ("store", "load"))
        out["shared"].update(total=stores + loads, store=stores, load=loads)
    return out


def _checked(algo, sizes, kinds):
    """`sizes` checked against {name: (type, required)}; 'splits' only for flash decoding."""
    for key, value in sizes.items():
        if key not in kinds:
            raise ValueError(f"unknown size {key!r} (this algorithm takes {', '.join(kinds)})")
        kind = kinds[key][0]
        if kind is list and isinstance(value, tuple):
            value = sizes[key] = list(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{key} must be {kind.__name__}, got {value!r}")
        if kind is int and value < 1:
            raise ValueError(f"{key} must be at least 1, got {value}")
        if kind is list and not (
            value and all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in value)
        ):
            raise ValueError(f"{key} must be a list of lengths of at least 1, got {value!r}")
    missing = [k for k, (_, required) in kinds.items() if required and k not in sizes]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    if "splits" in sizes and algo not in ("flash-decoding", "paged-decoding"):
        raise ValueError("splits is a flash-decoding size")
    if "partials" in sizes and algo != "flash-decoding":
        raise ValueError("partials is a flash-decoding option ('unnormalized' or 'lse')")
    if algo != "fa2-mma" and (given := [key for key in MMA_OPTIONS if key in sizes]):
        raise ValueError(f"{' and '.join(given)}: fa2-mma's (warps on tensor cores), not {algo}'s")
    if sizes.get("warps", 1) > MAX_WARPS:
        raise ValueError(warps_problem(sizes["warps"]))
    return sizes


def warps_problem(warps):
    """Why `warps` warps cannot make one block (a sentence), or None."""
    if warps <= MAX_WARPS:
        return None
    return (
        f"warps: {warps:,} warps do not make a block, which has at most {MAX_WARPS} warps ({MAX_WARPS * 32} threads);"
        " the CUDA kernel runs 4 warps of 16 rows each (Br = 64)"
    )


def _attention(algo, sizes, seed, dtype, sram_budget, observe=None):
    sizes = {"N_kv": sizes["N"], "batch_heads": 1, "causal": False, **sizes}
    bh, n, n_kv, d = sizes["batch_heads"], sizes["N"], sizes["N_kv"], sizes["d"]
    q, k, v = random_normal(seed, (bh, n, d), (bh, n_kv, d), (bh, n_kv, d))
    options = dict(Br=sizes["Br"], Bc=sizes["Bc"], causal=sizes["causal"], dtype=dtype, sram_budget=sram_budget)
    if algo == "flash-decoding":
        options[glossary.KEYWORDS["splits"]] = sizes.get("splits")
        if "partials" in sizes:
            options["partials"] = sizes["partials"]
    if algo == "fa2-mma":
        sizes = {"warps": 4, "p_in_shared": False, **sizes}
        options.update({key: sizes[key] for key in MMA_OPTIONS})
    if observe is not None:
        options["observe"] = observe
    result = ALGORITHMS[algo](q, k, v, **options)
    return Run(algo, sizes, {"q": q, "k": k, "v": v}, result)


def _paged(sizes, seed, dtype, sram_budget):
    sizes = {"H_q": 1, "splits": 1, **sizes}
    sizes.setdefault("H_kv", sizes["H_q"])
    batch = random_batch(sizes["seq_lens"], sizes["page_size"], sizes["H_q"], sizes["H_kv"], sizes["d"], seed=seed)
    options = {glossary.KEYWORDS["splits"]: sizes["splits"], "dtype": dtype, "sram_budget": sram_budget}
    result = paged_decoding(*batch, **options)
    names = ("q", "k_pages", "v_pages", "block_table", "seq_lens")
    return Run("paged-decoding", sizes, dict(zip(names, batch, strict=True)), result)


def _softmax(algo, sizes, seed):
    sizes = {"rows": 1, **sizes}
    if algo == "online-softmax-output":
        x, v = random_normal(seed, (sizes["rows"], sizes["N"]), (sizes["N"], sizes["d"]))
        return Run(algo, sizes, {"x": x, "v": v}, online_softmax_output(x, v, **{glossary.KEYWORDS["Bc"]: sizes["Bc"]}))
    (x,) = random_normal(seed, (sizes["rows"], sizes["N"]))
    return Run(algo, sizes, {"x": x}, SOFTMAX[algo](x, **{glossary.KEYWORDS["Bc"]: sizes["Bc"]}))
