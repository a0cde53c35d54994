"""What an algorithm of this package is to ``run``, the command line and the pages, in one record: an `Algorithm`
says its function, the inputs it takes (an `Inputs`: its sizes, how a run draws them, what they count), its options
(each an `Option`, with its checks), its closed forms (HBM bytes, FLOPs, shared-memory traffic where counted), the
algorithm it is measured against, its storage dtypes and the extra numbers it offers a page. Each record sits in its
own module of ``topics/``; ``topics/__init__.py`` lists them, and runs.py, the trace command and ``{{ trace }}``
loop over that list instead of switching on names.

The kinds of inputs the records share are here too: attention's q, k, v (`DENSE`), a batch in a paged K/V cache
(`PAGED`), and the softmax variants' scores x (`SCORES`, and `SCORES_AND_VALUES` with V).
"""

from collections.abc import Callable
from dataclasses import dataclass

from .. import glossary
from ._inputs import random_normal, tiles
from .paged_cache import random_batch


@dataclass(frozen=True)
class Inputs:
    """A kind of inputs: `sizes` {name: (type, required)} (an algorithm's options come on top), `defaults` (sizes ->
    the sizes with the unrequired ones filled in), `draw` ((sizes, seed) -> {name: float64 array}, in the
    function's argument order), `counts` (sizes -> {name: count}, ``Run.counts``) and `options` (sizes -> the
    keywords the function takes beside the arrays). `storage`: whether the function takes dtype and sram_budget."""

    sizes: dict
    defaults: Callable
    draw: Callable
    counts: Callable
    options: Callable
    storage: bool = True


def _dense_defaults(sizes):
    return {"N_kv": sizes["N"], "batch_heads": 1, "causal": False, **sizes}


def _dense_draw(s, seed):
    bh, n, n_kv, d = s["batch_heads"], s["N"], s["N_kv"], s["d"]
    return dict(zip("qkv", random_normal(seed, (bh, n, d), (bh, n_kv, d), (bh, n_kv, d)), strict=True))


DENSE = Inputs(
    sizes={
        "N": (int, True),
        "d": (int, True),
        "Br": (int, True),
        "Bc": (int, True),
        "N_kv": (int, False),
        "batch_heads": (int, False),
        "causal": (bool, False),
    },
    defaults=_dense_defaults,
    draw=_dense_draw,
    counts=lambda s: {"Tr": len(tiles(s["N"], s["Br"])), "Tc": len(tiles(s["N_kv"], s["Bc"]))},
    options=lambda s: {"Br": s["Br"], "Bc": s["Bc"], "causal": s["causal"]},
)


def _paged_defaults(sizes):
    sizes = {"H_q": 1, "splits": 1, **sizes}
    sizes.setdefault("H_kv", sizes["H_q"])
    return sizes


def _paged_draw(s, seed):
    batch = random_batch(s["seq_lens"], s["page_size"], s["H_q"], s["H_kv"], s["d"], seed=seed)
    return dict(zip(("q", "k_pages", "v_pages", "block_table", "seq_lens"), batch, strict=True))


def _paged_counts(s):
    """The batch's pages and tokens, the empty rows of its last pages, the query heads per K/V head."""
    pages = sum(-(-n // s["page_size"]) for n in s["seq_lens"])
    tokens = sum(s["seq_lens"])
    return {"pages": pages, "tokens": tokens, "padding": pages * s["page_size"] - tokens, "g": s["H_q"] // s["H_kv"]}


PAGED = Inputs(
    sizes={
        "seq_lens": (list, True),
        "d": (int, True),
        "page_size": (int, True),
        "H_q": (int, False),
        "H_kv": (int, False),
        "splits": (int, False),
    },
    defaults=_paged_defaults,
    draw=_paged_draw,
    counts=_paged_counts,
    options=lambda s: {glossary.KEYWORDS["splits"]: s["splits"]},
)


def _scores(with_values):
    sizes = {"N": (int, True), "Bc": (int, True), "rows": (int, False)}

    def draw(s, seed):
        if with_values:
            return dict(zip("xv", random_normal(seed, (s["rows"], s["N"]), (s["N"], s["d"])), strict=True))
        return dict(zip("x", random_normal(seed, (s["rows"], s["N"])), strict=True))

    return Inputs(
        sizes={**sizes, "d": (int, True)} if with_values else sizes,
        defaults=lambda s: {"rows": 1, **s},
        draw=draw,
        counts=lambda s: {"T": len(tiles(s["N"], s["Bc"]))},
        options=lambda s: {glossary.KEYWORDS["Bc"]: s["Bc"]},
        storage=False,
    )


SCORES = _scores(with_values=False)  # the softmax variants: x (rows, N), each row softmaxed
SCORES_AND_VALUES = _scores(with_values=True)  # online softmax carrying the output: x (rows, N), then V (N, d)


@dataclass(frozen=True)
class Option:
    """A size only some algorithms take: `name` (as in kernelviz.glossary), its `kind` (int, bool or str), the
    `default` a run fills in (None: left out, and the function's own default holds), the `keyword` the function
    takes it by (default: the glossary's), whether the closed forms of bytes and FLOPs take it too (`formula`),
    the `choices` a str takes, and `stray`, the error for an algorithm without it ({given}: the options given,
    {algo}: that algorithm). `check` (value -> a sentence, or None) refuses values the function would not."""

    name: str
    kind: type
    default: object = None
    keyword: str | None = None
    formula: bool = False
    choices: tuple = ()
    stray: str = "{given}: not an option of {algo}"
    check: Callable | None = None
    lenient: bool = False  # the command line lets other algorithms ignore its flag (--splits) instead of refusing it
    help: str = ""  # what it does, for the command line's --help
    counted_as: Callable | None = None  # sizes -> the value the function runs with, given or not (its default, capped)

    @property
    def argument(self):
        return self.keyword or glossary.KEYWORDS.get(self.name, self.name)


@dataclass(frozen=True)
class Algorithm:
    """One algorithm: `name` (``run``'s, the command line's, a page's ``algo:``), its `function` (f(*arrays,
    **options): the arrays as `inputs` draws them), and what the rest of the package asks of it.

    The closed forms take its sizes as formulas.py's do: `bytes` -> {T: {read, write}} (the ledger meets it
    exactly), `flops` -> {kind: FLOPs}, `shared` -> {T: {store, load}} of shared memory (None where the ledger
    counts none); `minimum` -> {T: {read, write}}, the compulsory traffic the command line compares with;
    `family` ("forward", "backward"; None: measured against none) is the passes it is measured with: against the
    closed-form bytes of the family's `baseline` record (ratio_standard, the command line's vs_standard), which
    `title` names in a sentence ("standard attention"). `extra` (Run -> {name: number or dict}) adds
    numbers of its own to ``Run.numbers``; `per_block` reads from its ledger the tiles each block of rows visits
    (``blocks.tiles_per_block``), and `grid` says the blocks its kernel launches (``blocks.grid``), which
    ``blocks.schedule`` deals to SMs."""

    name: str
    function: Callable
    inputs: Inputs = DENSE
    options: tuple = ()
    bytes: Callable | None = None
    flops: Callable | None = None
    shared: Callable | None = None
    minimum: Callable | None = None
    family: str | None = "forward"
    baseline: bool = False
    title: str = ""
    dtypes: tuple = ("float32", "float16")  # the storage dtypes it takes; the first is its default
    dtypes_why: str = ""  # why it takes only those (a clause), where it differs from the others
    known_as: str = ""  # a few words the errors say it with ("tensor cores")
    instruction: str | None = None  # the tensor-core instruction family its kernel issues ("mma.sync"; roofline.units)
    block: Callable | None = None  # (Br, Bc, d, itemsize) -> {tile: bytes} one block holds on chip (the explorer's)
    extra: Callable | None = None
    per_block: Callable | None = None  # ledger -> [K/V tiles block 0, 1, ... of (batch, head) 0 visits]
    grid: Callable | None = None  # (tiles per block, batch_heads) -> the work of each block of its grid, launch order
    command: str | None = None  # the module whose main(args, roofline) is its `kernelviz trace` (None: the common one)
    slower: float = 1  # its NumPy steps' time over FA2's (runs.seconds)
    ledger_records: Callable = lambda tr, tc, n_splits: tr * (2 * tc + 3)  # per batch·head, unmasked (footprint)
    memory: Callable | None = None  # footprint.Sizes -> {part: bytes} it allocates beyond every run's (footprint)
    skips_masked: bool = True  # it skips the K/V tiles the causal mask hides entirely (runs.tile_steps)
    passes: int = 1  # the passes over the tiles a run takes: 2 for a backward pass (its forward, then its own)
    lighter: str = ""  # what to run instead when it does not fit in memory (the CLI's advice), or ""
    observes: bool = False  # its function takes observe=, called with its carries as it runs (runs.run)
    answers: Callable | None = None  # (Run, observed, [(step key, at)]) -> its figure's values (site.answers)
    api: Callable | bool = True  # what kernelviz.attention exports for it: its function, another, or nothing (False)

    @property
    def public(self):
        """The function kernelviz.attention exports for it under its own name (``api``), or None."""
        return self.function if self.api is True else (self.api or None)

    @property
    def sizes(self):
        """{name: (type, required)} of every size it takes: its inputs' and its options'."""
        return {**self.inputs.sizes, **{o.name: (o.kind, False) for o in self.options}}

    def option(self, name):
        return next((o for o in self.options if o.name == name), None)
