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
from . import formulas
from ._inputs import itemsize
from .algorithm import DENSE
from .numbers import of, without_flags
from .topics import REGISTRY, TOPICS  # REGISTRY: {name: algorithm.Algorithm}, in the registry's order
from .topics import baseline as baseline_of

# The CLI's names for the attention algorithms, and for the softmax variants of the Online softmax page: views of
# the registry. Each record's closed forms: the bytes its ledger meets, and the FLOPs its ledger.flops meets.
# (``REGISTRY`` is the registry as it is when asked: runs.py reads it, not these, which are taken at import.)
ALGORITHMS = {r.name: r.function for r in TOPICS if r.inputs.storage}
SOFTMAX = {r.name: r.function for r in TOPICS if not r.inputs.storage}
FORMULAS = {r.name: r.bytes for r in TOPICS if r.bytes is not None}
FLOP_FORMULAS = {r.name: r.flops for r in TOPICS if r.flops is not None}
# The most tile steps (a block of query rows on one K/V tile) a run takes without being asked to go on: at d = 64 and
# 64 x 64 tiles NumPy takes about a tenth of a millisecond a step, so this is half a minute or so (N = 32768 for fa2).
WORK_LIMIT = 2**18
SECONDS_PER_STEP = 1e-4  # at Br = Bc = d = 64 (measured: fa2 at N = 16384, 65,536 steps, 6.7 s on one core)


def algorithm(name):
    """The record of algorithm `name` (algorithm.Algorithm). Raises ValueError naming the algorithms there are."""
    if name not in REGISTRY:
        names = [r.name for r in REGISTRY.values() if r.inputs.storage] + [
            r.name for r in REGISTRY.values() if not r.inputs.storage
        ]  # the attention algorithms, then the softmax variants
        raise ValueError(f"algo must be one of {', '.join(names)}, got {name!r}")
    return REGISTRY[name]


@dataclass
class Run:
    """A finished run: the algorithm's name, every size (defaults filled in), the inputs as drawn ({name: array},
    float64) and the algorithm's result (an AttentionResult or a SoftmaxResult, with its ledger)."""

    algo: str
    sizes: dict
    inputs: dict
    result: object
    dtype: str | None = None  # the storage dtype it ran in (None: the softmax variants, float32 throughout)

    @property
    def record(self):
        return REGISTRY[self.algo]

    @property
    def counts(self):
        """What the sizes count: the tiles {Tr, Tc} of an attention run, ceil(N / Br) and ceil(N_kv / Bc); {T},
        ceil(N / Bc), of a softmax run; a paged-decoding run's {pages, tokens, padding, g} (the batch's pages and
        tokens, the empty rows of its last pages, the query heads per K/V head)."""
        return self.record.inputs.counts(self.sizes)

    def numbers(self, sms=None, batch_heads=None):
        """Every number a page may cite of this run (``numbers.of``): its sizes, its ledger's numbers, its counts,
        the baseline's bytes over its own, and its algorithm's extra numbers; with `sms`, the grid dealt to that
        many SMs (``batch_heads`` pairs: default the run's)."""
        return of(self, sms, batch_heads)


def storage(algo, dtype=None):
    """The storage dtype `algo` runs in: `dtype`, or when None its default (float16 for fa2-mma, float32 for the
    others). Raises ValueError, naming what it takes, for a dtype `algo` does not take (its record's dtypes)."""
    record = algorithm(algo)
    takes = record.dtypes
    if dtype is None:
        return takes[0]
    if dtype not in takes:
        why = f" ({record.dtypes_why})" if record.dtypes_why else ""
        owners = [r for r in REGISTRY.values() if dtype in r.dtypes and r.dtypes_why]  # a dtype few algorithms take
        others = f"; {dtype} is " + " and ".join(f"{r.name}'s ({r.known_as})" for r in owners) if owners else ""
        raise ValueError(f"dtype: {algo} takes {' or '.join(takes)}{why}, not {dtype}{others}")
    return dtype


def run(algo, *, seed=0, dtype=None, sram_budget=None, observe=None, **sizes):
    """Run `algo` (a name of ALGORITHMS or SOFTMAX) at `sizes` on random inputs drawn with `seed`; returns a Run.
    `dtype` (default: ``storage``'s) and `sram_budget` go to the attention algorithms; `observe`, to an algorithm
    whose record ``observes`` (it reports its carries as it goes: the figure answers' values). Raises ValueError for
    an unknown algorithm or size, a size of the wrong type or below 1, a missing one, a dtype the algorithm does not
    take, an observer it does not take, or what the algorithm refuses."""
    sizes, messages = glossary.canonical(sizes, "attention.run")
    for message in messages:
        warnings.warn(message, FutureWarning, stacklevel=2)
    record = algorithm(algo)
    inputs = record.inputs
    common = {"dtype": storage(algo, dtype), "sram_budget": sram_budget} if inputs.storage else {}
    sizes = inputs.defaults(_checked(record, sizes))
    for option in record.options:
        if option.default is not None:
            sizes.setdefault(option.name, option.default)
    arrays = inputs.draw(sizes, seed)
    options = {**inputs.options(sizes), **common}
    options.update({o.argument: sizes[o.name] for o in record.options if o.name in sizes})
    if observe is not None:
        if not record.observes:
            raise ValueError(f"observe: {algo} does not report its carries as it runs (its record's observes)")
        options["observe"] = observe
    return Run(algo, sizes, arrays, record.function(*arrays.values(), **options), common.get("dtype"))


def tile_steps(algo, N, Br, Bc, N_kv=None, causal=False, batch_heads=1):
    """The tile steps a run of attention algorithm `algo` computes, from the closed forms (no loop): the pairs of a
    block of query rows and a K/V tile it visits (``formulas.tile_interactions``; standard attention's three
    kernels skip nothing), twice for a backward pass (its forward, then its own), times batch_heads. A run's time
    goes with it (``seconds``)."""
    record = algorithm(algo)
    pairs = formulas.tile_interactions(N, Br, Bc, N_kv, causal=causal and record.skips_masked)
    return batch_heads * pairs * record.passes


def seconds(algo, steps, Br, Bc, d):
    """About how long `steps` tile steps of `algo` on Br x Bc tiles and head dimension d take in NumPy on one core
    (a guess within a few times either way: machines differ)."""
    return steps * SECONDS_PER_STEP * algorithm(algo).slower * max(0.25, Br * Bc * d / 64**3)


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


def refusal(algo, sizes, dtype, available=None):
    """Why a run of attention algorithm `algo` at `sizes` (``run``'s) in storage `dtype` is not to be made unasked (a
    sentence saying what to write instead: closed_form: true, or a smaller N), or None: it needs more memory than
    the machine has (``footprint``: `available` bytes, default what it says) or more tile steps than WORK_LIMIT.
    Only for an algorithm on q, k, v; sizes missing or of the wrong type are left for ``run`` to name."""
    from . import footprint

    if algorithm(algo).inputs is not DENSE:
        return None
    have = footprint.available() if available is None else available
    try:
        n, d, Br, Bc = (int(sizes[k]) for k in ("N", "d", "Br", "Bc"))
        n_kv, heads = int(sizes.get("N_kv", n)), int(sizes.get("batch_heads", 1))
    except (KeyError, TypeError, ValueError):
        return None
    if min(n, d, Br, Bc, n_kv, heads) < 1:
        return None
    instead = "add closed_form: true to the trace's sizes (bytes, FLOPs and ratio_standard at any size) or choose a "
    instead += "smaller N"
    splits = sizes.get("splits") or min(4, -(-n_kv // Bc))
    need, parts = footprint.estimate(algo, n, n_kv, d, heads, Br, Bc, itemsize(dtype), splits)
    if have is not None and need > have:
        biggest = max(parts, key=parts.get)
        return (
            f"{algo} at N={n} N_kv={n_kv} d={d} needs about {footprint.gib(need)} of memory "
            f"({biggest}: {footprint.gib(parts[biggest])}) and {footprint.gib(have)} is available: {instead}"
        )
    if problem := too_long(algo, n, d, Br, Bc, n_kv, bool(sizes.get("causal")), heads):
        return f"{problem} at every build: {instead}"
    return None


def duration(s):
    """Seconds in the unit that reads: "40 s", "12 min", "3.1 h", "5.2 days"."""
    for unit, scale in (("days", 86400), ("h", 3600), ("min", 60)):
        if s >= 2 * scale:
            return f"{s / scale:.2g} {unit}" if s < 10 * scale else f"{s / scale:,.0f} {unit}"
    return f"{max(1, round(s))} s"


def baseline(algo):
    """What `algo`'s traffic is measured against (its record's baseline): standard attention, or for a backward
    pass the standard backward (which reads back the P its forward stored)."""
    against = baseline_of(algorithm(algo))
    return None if against is None else against.name


def dense(algo):
    """The record of `algo`, an algorithm on q, k, v with closed forms (``closed_form``'s), or ValueError."""
    names = [r.name for r in REGISTRY.values() if r.inputs is DENSE and r.bytes is not None]
    if algo not in names:
        raise ValueError(f"algo must be one of {', '.join(names)}, got {algo!r}")
    return REGISTRY[algo]


def closed_form(algo, *, dtype=None, **sizes):
    """The numbers of attention algorithm `algo` at `sizes` from its closed forms (its record's bytes and flops,
    which the tests hold equal to its ledger), without running it, for sizes too large to run at every build:
    {sizes..., read_bytes: {T: bytes}, write_bytes, bytes (with total, read, write), flops (by kind, with total),
    ratio_standard (``baseline``'s traffic over this one's); where the record has a shared closed form (fa2-mma's
    ``closed_forms.fa2_mma.shared``) also shared, as ``Ledger.shared_numbers``}. Raises ValueError as ``run`` does."""
    record = dense(algo)
    sizes = DENSE.defaults(_checked(record, sizes))
    for option in record.options:
        if option.default is not None:
            sizes.setdefault(option.name, option.default)
    extra = {o.argument: sizes[o.name] for o in record.options if o.formula and o.name in sizes}
    args = (sizes["N"], sizes["d"], sizes["Br"], sizes["Bc"])
    common = dict(N_kv=sizes["N_kv"], causal=sizes["causal"], batch_heads=sizes["batch_heads"])
    size = itemsize(storage(algo, dtype))
    per = record.bytes(*args, **common, **extra, itemsize=size)
    against = baseline_of(record).bytes(*args, **common, itemsize=size)
    total = sum(rw["read"] + rw["write"] for rw in per.values())
    out = dict(sizes)
    out.update(
        read_bytes={t: rw["read"] for t, rw in per.items()},
        write_bytes={t: rw["write"] for t, rw in per.items()},
        bytes={t: rw["read"] + rw["write"] for t, rw in per.items()},
        ratio_standard=sum(rw["read"] + rw["write"] for rw in against.values()) / total,
    )
    out["bytes"].update(total=total, read=sum(out["read_bytes"].values()), write=sum(out["write_bytes"].values()))
    counted = record.flops(*args, **common, **extra)
    out["flops"] = {**counted, "total": sum(counted.values())}
    if record.shared is not None:
        options = {o.argument: sizes[o.name] for o in record.options if not o.formula and o.name in sizes}
        shared = record.shared(*args, **common, **options, itemsize=size)
        out.update(shared={t: sl["store"] + sl["load"] for t, sl in shared.items()})
        stores, loads = (sum(sl[way] for sl in shared.values()) for way in ("store", "load"))
        out["shared"].update(total=stores + loads, store=stores, load=loads)
    return out


def closed_numbers(algo, dtype=None, **sizes):
    """``closed_form``'s numbers as a page cites them: the true-or-false sizes left out, as ``Run.numbers`` does."""
    return without_flags(REGISTRY[algo], closed_form(algo, dtype=dtype, **sizes))


def _checked(record, sizes):
    """`sizes` checked against the record's sizes {name: (type, required)} and its options' own checks; a size only
    other algorithms take is an error saying whose it is (the option's `stray`)."""
    kinds = record.sizes
    strays = {}
    for key, value in sizes.items():
        if key not in kinds:
            theirs = [o for r in REGISTRY.values() for o in r.options if o.name == key]
            if not theirs:
                raise ValueError(f"unknown size {key!r} (this algorithm takes {', '.join(kinds)})")
            strays.setdefault(theirs[0].stray, []).append(key)
            continue
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
    for stray, keys in strays.items():
        raise ValueError(stray.format(given=" and ".join(keys), algo=record.name))
    for option in record.options:
        if option.name in sizes and option.check is not None and (problem := option.check(sizes[option.name])):
            raise ValueError(problem)
    return sizes
