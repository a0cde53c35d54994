"""The roofline section of a kernel page: ``{{ roofline }}`` alone in a paragraph becomes a log-log plot of
arithmetic intensity against attainable FLOP/s, with each GPU's roofs (``kernelviz/roofline/gpus.json``) and the
page's algorithms as points at the sizes of the page's form, a choice of realistic sizes (``PRESETS``), and a table
of bytes, FLOPs, intensity, bound and least time on each GPU. Measured runs (``kernelviz.roofline.measured``, the
file bench/gpu.py writes) are drawn beside the bounds when the file is there.

The page says which algorithms and how its form's sizes map to theirs, in its front matter:

    roofline: {algorithms: [fa2, standard], d: 4}
    roofline: {algorithms: [flash-decoding, fa2, standard], N: 1, N_kv: N, Br: 1, d: 4}   # N keys in the form
    roofline: {algorithms: [paged-decoding, standard], seq_lens: [L0, L1], H_kv: 1, d: 4}  # a batch

Each of N, N_kv, d, Br, Bc, causal, splits, batch_heads, dtype (and for a batch seq_lens, page_size, H_q, H_kv) is
a number (fixed), the name of a size of the form (it follows the form), a list of those (seq_lens), or left out:
then the form's size of that name, else its default (N_kv = N, causal off, splits 4 but at most the tiles,
batch_heads 1, float32, H_kv = H_q). With a batch, standard attention is each sequence decoded alone, every query
head on its own (web/src/roofline/model.js ``counted``). The drawing is web/src/roofline/section.js, run here in
the builder's V8 (build-time/render-roofline.js) and again in the browser (entries/roofline.js) when the form or
the preset changes: one drawing code, and one set of formulas, the JavaScript generated from ``attention.formulas``
and ``attention.flops`` (``attention.js_port``) that tests/roofline/test_roofline_js.py holds equal to them.
Beside the plot, a bar per unit (``roofline.units``) gives each algorithm's least time on the GPU the reader picks:
each GPU carries its per-unit rates and tensor rates by instruction family, each algorithm its family and whether
its shared-memory traffic is counted (``instruction``, ``shared``). (Precomputing tables
at build time instead would need one per size the form allows: tens of thousands a page.)
"""

from markdown_it.common.utils import escapeHtml

from ... import attention, glossary
from ...roofline import GPUS, measured, units
from .. import js

RENDERER = "render-roofline.js"
PARAMS = (
    "N",
    "N_kv",
    "d",
    "Br",
    "Bc",
    "causal",
    "splits",
    "batch_heads",
    "dtype",
    "seq_lens",
    "page_size",
    "H_q",
    "H_kv",
)
ALGORITHMS = tuple(attention.FLOP_FORMULAS)  # a point on the roofline needs a FLOP closed form
REALISTIC = [(4096, 64), (4096, 128), (32768, 64), (32768, 128)]  # (N, d), at batch x heads = 32, float16
BATCH_HEADS, TILE = 32, 64
PAGE, PAGED_HEADS = 16, 16  # paged decoding's realistic batch: two sequences of N tokens, 16 query heads each


def presets():
    """The realistic sizes: the form's N (and N_kv) and tiles set, d, batch x heads and dtype fixed; on paged
    decoding's form, both sequences N tokens long, pages of 16 and 16 query heads (2 x 16 = 32 rows)."""
    return [
        {
            "key": f"N{n}-d{d}",
            "label": f"N = {n:,}, d = {d}",
            "form": {
                "N": n,
                "N_kv": n,
                "Br": TILE,
                "Bc": TILE,
                "L0": n,
                "L1": n,
                "page_size": PAGE,
                "H_q": PAGED_HEADS,
            },
            "fixed": {"d": d, "batch_heads": BATCH_HEADS, "dtype": "float16"},
        }
        for n, d in REALISTIC
    ]


def section(page, context, line):
    """The section that replaces a paragraph holding only {{ roofline }} (``extensions.placeholders``), the page
    then loading the roofline's runtime (entries/roofline.js); a front matter it cannot draw is a warning at `line`
    and a sentence in its place."""
    try:
        html = _section(page, context)
    except ValueError as e:
        context.diagnostics.warn(page.file, line, f"{{{{ roofline }}}}: {e}")
        return f'<p class="kv-missing">The roofline could not be drawn: {escapeHtml(str(e))}</p>'
    scripts = page.meta.setdefault("scripts", [])
    if "roofline" not in scripts:
        scripts.append("roofline")
    return html


def spec_of(page):
    """The section's spec (web/src/roofline/model.js): the GPUs, the page's algorithms and sizes, the presets, what
    was measured. ValueError saying what is wrong with the front matter."""
    given = page.meta.get("roofline")
    if not isinstance(given, dict) or not isinstance(given.get("algorithms"), list):
        raise ValueError("the front matter needs roofline: {algorithms: [...], ...} (see extensions/roofline.py)")
    algorithms = given["algorithms"]
    if unknown := [a for a in algorithms if a not in ALGORITHMS]:
        raise ValueError(f"unknown algorithm {unknown[0]!r}; expected some of {', '.join(ALGORITHMS)}")
    run = page.run
    sizes = dict(run.sizes) if run is not None and run.ok and run.sizes else {}
    sizes = {glossary.OLD.get(k, k): v for k, v in sizes.items()}
    mapping = {k: v for k, v in given.items() if k != "algorithms"}
    for name, value in mapping.items():
        if name not in PARAMS:
            raise ValueError(f"unknown size {name!r}; expected some of {', '.join(PARAMS)}")
        for one in value if isinstance(value, list) else [value]:
            if isinstance(one, str) and name != "dtype" and one not in sizes:
                raise ValueError(f"{name}: {one!r} is not a size of the page's form ({', '.join(sizes) or 'none'})")
    needed = ("d",) if "seq_lens" in mapping else ("N", "d")
    missing = [n for n in needed if n not in mapping and n not in sizes]
    if missing:
        raise ValueError(f"no {missing[0]}: give it a number, or a size of the page's form")
    gpus = [
        {k: getattr(g, k) for k in ("key", "name", "hbm_bytes_per_s", "tensor_flops_per_s", "fp32_flops_per_s")}
        | {"units": {u: r for u, (r, _) in units.rates(g).items()}, "families": g.tensor_flops_per_s_by_instruction}
        for g in GPUS.values()
    ]
    records = [attention.topics.REGISTRY[name] for name in algorithms]
    return {
        "gpus": gpus,
        "units": {"counts": units.COUNTS, "tensor": units.TENSOR},
        "instruction": {r.name: r.instruction for r in records if r.instruction},
        "shared": [r.name for r in records if r.shared_unit],
        "algorithms": algorithms,
        "page": mapping,
        "sizes": sizes,
        "presets": presets(),
        "measured": measured.runs(measured.load(), algorithms),
    }


def _section(page, context):
    spec = spec_of(page)
    js.load(js.runtime_script(context.web_dist, RENDERER, "The roofline's build-time renderer"))
    inner = js.call("kvRenderRoofline", {"spec": spec, "state": {"sizes": spec["sizes"], "preset": "figure"}})["html"]
    return f'<section class="kv-roofline" aria-label="Roofline">{inner}</section>'
