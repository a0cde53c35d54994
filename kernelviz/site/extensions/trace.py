"""Ledger numbers in prose: ``{{ trace.EXPR }}`` is replaced at build time by a number measured by the HBM ledger of
``kernelviz.attention``, so no HBM count on a page is typed by hand.

The sizes come from the page's front matter, one run or several named ones:

    trace: {algo: fa2, N: 8, d: 4, Br: 4, Bc: 4}                       → {{ trace.reads.K }}
    trace: {naive: {algo: naive-softmax, N: 16, Bc: 4}, fa2: {...}}   → {{ trace.naive.reads.x }}

`algo` is an algorithm of ``kernelviz.attention.run`` (standard, fa1, fa2, flash-decoding, fa2-mma: N, d, Br, Bc
required; optional N_kv (default N), splits (flash-decoding), causal (false), dtype (float32; fa2-mma: float16, or
bfloat16, which it alone takes), batch_heads (1), warps (4) and p_in_shared (false) (fa2-mma); or a softmax
variant, naive-softmax, safe-softmax, online-softmax: N and Bc required, rows optional (1); online-softmax-output:
N, Bc and d; or paged-decoding: seq_lens (a list of lengths), d and page_size required, H_q (1), H_kv (H_q),
splits (1), dtype optional, a random batch with its pages scattered through the pool). The sizes are named as in
``kernelviz.glossary``; an old name (n_splits, heads, b) is a warning naming the new one, in the front matter and in
a placeholder. Each runs once per build on random inputs of those
sizes, and EXPR names one of its numbers (T is a tensor of its ledger: Q, K, V, O, L, S, P, m, l, O_partial, x, y,
o, ...):

    trace.reads.T, trace.writes.T, trace.loads.T, ...   what the run's ledger answers (``Ledger.numbers``: times
                                           read / written in full, tile transfers, bytes; bytes.total, .read,
                                           .write; peak_sram; flops.matmul, .exp, .other, .total)
    trace.ratio_standard                   standard attention's traffic (its closed form, never run) over this
                                           algorithm's measured one (attention only; for a
                                           backward pass, the standard backward's, which reads back a stored P; at
                                           the same bytes per element: float16 for a bfloat16 fa2-mma)
    trace.shared.T, .total, .store, .load  fa2-mma: bytes of T (Q, K, V, P) stored into shared memory and loaded
                                           from it into registers; P is 0 unless p_in_shared (``Ledger.smem``,
                                           ``formulas.fa2_mma_shared``)
    trace.cuda.shared_bytes.K              bytes of __shared__ one block of kernel K declares in kernelviz/cuda at
                                           these sizes (fa1, fa2, fd_split, fd_combine, online_softmax,
                                           fa2_bwd_preprocess, fa2_bwd, paged_decode, paged_combine, fa2_mma:
                                           ``kernels.shared_memory``, which the tests hold equal to ptxas's)
    trace.N, .d, .Br, .Bc, .N_kv, ...      the run's sizes, and the tile counts Tr = ceil(N/Br), Tc = ceil(N_kv/Bc),
                                           T = ceil(N/Bc) (``Run.counts``); paged decoding: g = H_q / H_kv, pages,
                                           tokens, padding (empty rows of last pages), kv_bytes_per_token (K and V
                                           bytes read per token of the batch)

For fa1 and fa2 runs, the work of each block of query rows (``attention.blocks.tiles_per_block``, read from the
ledger: the K/V tiles block i visits, fewer under the causal mask):

    trace.tiles_per_block.first, .last, .min, .max, .total, .count (the blocks), .mean, .max_over_mean
                                           (.list, the counts themselves, is what a ``tiles-per-block`` chart draws)

and, when the sizes say ``schedule: {gpu: h100, batch_heads: 16}`` (a GPU of ``kernelviz.roofline``, whose SM
count it takes; batch_heads: the (batch, head) pairs of the grid, default the run's), the grid the kernel launches
on that many SMs, one block at a time an SM (``attention.blocks.grid`` and ``.schedule``):

    trace.schedule.sms, .blocks, .tiles, .waves, .batch_heads   the grid
    trace.schedule.launch_order, .heaviest_first, .lower_bound  when the last block ends, in units of one tile
    trace.schedule.slowdown, .idle.launch_order, .idle.heaviest_first   the first over the second; percent idle

The CUDA numbers exist for fa1, fa2, flash-decoding, fa2-backward, paged-decoding, online-softmax-output and
fa2-mma (Bc is the kernel's tile, d its D; paged decoding's tiles are (g, page_size); fa2-mma's 2*(Br + 2*Bc)*(d + 8),
its rows padded by 8 elements, at any sizes the figure draws, though the kernel itself takes Br = 64).

``closed_form: true`` in an attention run's sizes takes its numbers from ``kernelviz.attention.formulas`` (which the
tests hold equal to the ledgers) instead of running it, for sizes too large to run at every build (N = 4096): only
trace.bytes.*, trace.read_bytes.*, trace.write_bytes.*, trace.flops.*, trace.ratio_standard, fa2-mma's
trace.shared.*, and the sizes (``attention.closed_form``). A run past ``runs.WORK_LIMIT`` tile steps (minutes at
every build) or past the memory the machine has is a warning at the ``trace:`` line that says to write it.
Whole numbers print as integers with thousands separators, others with 3 significant digits. Placeholders work
in prose and inside ``$…$`` math. An unknown name, or a page without ``trace``, is a warning naming the line.
"""

import copy
import functools
import re

from markdown_it.common.utils import escapeHtml

from ... import glossary
from ..tokens import walk

PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
FLAGS = ("causal", "p_in_shared")  # a run's true-or-false sizes: not numbers a page quotes


def plugin(md):
    md.inline.ruler.before("escape", "kv_trace", _placeholder)
    md.add_render_rule("kv_trace", _render)


def _placeholder(state, silent):
    if not state.src.startswith("{{", state.pos):
        return False
    m = PLACEHOLDER.match(state.src, state.pos)
    if not m:
        return False
    if not silent:
        token = state.push("kv_trace", "", 0)
        token.content = m.group(1)
    state.pos = m.end()
    return True


def _render(renderer, tokens, idx, options, env):
    token = tokens[idx]
    if "text" not in token.meta:
        return f'<span class="kv-trace kv-missing">{{{{ {escapeHtml(token.content)} }}}}</span>'
    return f'<span class="kv-trace" title="{escapeHtml(token.content)}">{escapeHtml(token.meta["text"])}</span>'


def resolve(page, context):
    for token, line in walk(page.tokens):
        is_math = token.type.startswith("math_")
        if token.type != "kv_trace" and not (is_math and "{{" in token.content):
            continue
        numbers = numbers_of(page, context)
        if is_math:
            token.content = _fill(token.content, page, numbers, line, context)
        else:
            text = _value(page, token.content, numbers, line, context)
            if text is not None:
                token.meta["text"] = text


def numbers_of(page, context):
    """The numbers of the page's trace, computed once a build (see ``_numbers``): None without one, False when it
    failed (and said so)."""
    if "trace" not in page.env:
        page.env["trace"] = _numbers(page, context.diagnostics)
    return page.env["trace"]


def fill(text, page, line, context):
    """`text` with each ``{{ trace.EXPR }}`` replaced by its number ('?' when unknown, with a warning at `line`)."""
    return _fill(text, page, numbers_of(page, context), line, context)


def _fill(tex, page, numbers, line, context):
    """`tex` with each placeholder replaced by its number ('?' when unknown, with a warning)."""
    return PLACEHOLDER.sub(lambda m: _value(page, m.group(1), numbers, line, context) or "?", tex)


def _value(page, expr, numbers, line, context):
    """The text of `expr` ('trace.reads.K'), or None with a warning."""
    if numbers is False:  # the trace itself failed, and said so
        return None
    if numbers is None:
        context.diagnostics.warn(page.file, line, f"{{{{ {expr} }}}}: the page's front matter has no trace")
        return None
    head, *path = expr.split(".")
    value, where = (numbers, "trace") if head == "trace" else ({"trace": numbers}, "")
    for name in path if head == "trace" else [head]:
        if isinstance(value, dict) and name not in value and glossary.OLD.get(name) in value:  # an old size name
            context.diagnostics.warn(page.file, line, glossary.renamed(name, f"{{{{ {expr} }}}}"))
            name = glossary.OLD[name]
        if not isinstance(value, dict) or name not in value:
            break
        value, where = value[name], f"{where}.{name}".lstrip(".")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        has = f"{where} has {', '.join(map(str, value))}" if isinstance(value, dict) else f"{where} is a number"
        has = f"{where} is a list (a chart draws it), not a number" if isinstance(value, (list, tuple)) else has
        context.diagnostics.warn(page.file, line, f"{{{{ {expr} }}}}: unknown trace name; {has}")
        return None
    return format_number(value)


def format_number(x):
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    return f"{x:,}" if isinstance(x, int) else f"{x:.3g}"


def _numbers(page, diagnostics):
    """The numbers of the page's trace (see the module docstring); None without one, False when it failed."""
    spec = page.meta.get("trace")
    if spec is None:
        return None
    try:
        if "algo" in spec:
            return compute(_named(spec, "trace", page, diagnostics))
        if not all(isinstance(s, dict) for s in spec.values()):
            raise ValueError("expected {algo: ..., sizes} or {name: {algo: ..., sizes}, ...}")
        return {name: compute(_named(s, f"trace.{name}", page, diagnostics)) for name, s in spec.items()}
    except (ValueError, TypeError, KeyError) as e:
        message = str(e)  # (the glossary's errors name where they are: trace.RUN)
        diagnostics.warn(page.file, _trace_line(page), message if message.startswith("trace") else f"trace: {message}")
        return False
    except MemoryError:  # past the estimate (a system that does not say what it has): the same, at its line
        diagnostics.warn(page.file, _trace_line(page), "trace: the run did not fit in memory; choose a smaller N")
        return False


def _trace_line(page):
    """The line of the front matter's ``trace:`` field in the page file (the front matter's when not found)."""
    lines = page.source.splitlines()
    for k in range(page.meta_line, min(len(lines), page.meta_line + 200)):
        if lines[k].startswith("trace:"):
            return k + 1
        if lines[k].strip() == "---":
            break
    return page.meta_line


def _named(spec, where, page, diagnostics):
    """`spec` with its sizes named as in the glossary: an old name is a warning at the front matter."""
    spec, messages = glossary.canonical(spec, where)
    for message in messages:
        diagnostics.warn(page.file, page.meta_line, message)
    return spec


def compute(spec):
    """The numbers of one run, {algo: ..., sizes}. Raises ValueError (or the algorithm's errors) on a bad spec."""

    def hashable(v):
        return tuple(sorted(v.items())) if isinstance(v, dict) else tuple(v) if isinstance(v, list) else v

    items = ((key, hashable(v)) for key, v in spec.items())  # hashable, for the cache
    return copy.deepcopy(_compute(tuple(sorted(items, key=str))))


@functools.lru_cache(maxsize=64)  # the same run on every rebuild of kernelviz serve
def _compute(items):
    from kernelviz import attention
    from kernelviz.attention import FORMULAS, blocks, formulas
    from kernelviz.attention._inputs import itemsize
    from kernelviz.attention.runs import baseline, storage
    from kernelviz.cuda import kernels

    sizes = dict(items)
    algo = sizes.pop("algo", None)
    grid = _schedule_spec(algo, sizes.pop("schedule", None), sizes.get("batch_heads", 1))
    attending = algo in attention.ALGORITHMS
    options = {"dtype": storage(algo, sizes.pop("dtype", None))} if attending else {}
    closed_form = sizes.pop("closed_form", False) if attending else False
    if not isinstance(closed_form, bool):
        raise ValueError(f"closed_form must be true or false, got {closed_form!r}")
    if closed_form and grid is not None:
        raise ValueError("schedule needs the ledger's tiles per block: it does not go with closed_form")
    if closed_form:
        return {k: v for k, v in attention.closed_form(algo, **options, **sizes).items() if k not in FLAGS}
    if attending and algo != "paged-decoding":
        _fits(algo, sizes, itemsize(options["dtype"]))
    done = attention.run(algo, **options, **sizes)
    out = {key: v for key, v in done.sizes.items() if key not in FLAGS}
    out.update(done.result.ledger.numbers())
    out.update(done.counts)
    if algo in ("fa1", "fa2"):
        out["tiles_per_block"] = _per_block(blocks.tiles_per_block(done.result))
    if grid is not None:
        sms, batch_heads = grid
        work = blocks.grid(algo, out["tiles_per_block"]["list"], batch_heads)
        out["schedule"] = {**blocks.schedule(work, sms), "batch_heads": batch_heads}
    if algo == "paged-decoding":  # K and V bytes read per token of the batch
        out["kv_bytes_per_token"] = (out["read_bytes"]["K"] + out["read_bytes"]["V"]) // out["tokens"]
    elif attending:  # the baseline's bytes from its closed form (the tests hold it equal to its ledger): not run
        s = done.sizes
        standard = FORMULAS[baseline(algo)](
            s["N"], s["d"], s["Br"], s["Bc"], N_kv=s["N_kv"], causal=s["causal"], batch_heads=s["batch_heads"],
            itemsize=itemsize(options["dtype"]),  # the same bytes per element: float16's for a bfloat16 fa2-mma
        )  # fmt: skip
        out["ratio_standard"] = formulas.total(standard) / done.result.ledger.total_bytes
    shared = kernels.shared_memory(algo, done.sizes)
    if shared is not None:
        out["cuda"] = {"shared_bytes": shared}
    return out


def _schedule_spec(algo, spec, run_batch_heads):
    """(SMs, batch_heads) of a trace's ``schedule: {gpu: KEY, batch_heads: COUNT}`` (as ``compute`` makes it
    hashable: sorted pairs), or None without one. Raises ValueError naming what is wrong."""
    if spec is None:
        return None
    from kernelviz.roofline import gpu

    if algo not in ("fa1", "fa2"):
        raise ValueError(f"schedule is for fa1 and fa2 (whose blocks of rows it deals to SMs), not {algo!r}")
    fields = dict(spec) if isinstance(spec, tuple) and all(isinstance(p, tuple) for p in spec) else None
    if fields is None or "gpu" not in fields or set(fields) - {"gpu", "batch_heads"}:
        given = spec if fields is None else fields
        raise ValueError(f"schedule: expected {{gpu: a100, h100 or h200, batch_heads: COUNT}}, got {given!r}")
    batch_heads = fields.get("batch_heads", run_batch_heads)
    if isinstance(batch_heads, bool) or not isinstance(batch_heads, int) or batch_heads < 1:
        raise ValueError(f"schedule: batch_heads must be a positive integer, got {batch_heads!r}")
    try:
        return gpu(str(fields["gpu"])).sms, batch_heads
    except ValueError as e:
        raise ValueError(f"schedule.{e}") from None


def _per_block(tiles):
    """The numbers of the tiles each block of rows visits (see the module docstring)."""
    mean = sum(tiles) / len(tiles)
    return {
        "list": tiles,
        "count": len(tiles),
        "first": tiles[0],
        "last": tiles[-1],
        "min": min(tiles),
        "max": max(tiles),
        "total": sum(tiles),
        "mean": mean,
        "max_over_mean": max(tiles) / mean if mean else 1.0,
    }


def _fits(algo, sizes, itemsize, available=None):
    """Raise ValueError, saying what would not fit or take too long, when the run a trace makes needs more memory
    than the machine has (``attention.footprint``) or more tile steps than ``runs.WORK_LIMIT`` (minutes of every
    build): a page's trace at N = 10**6 is a message at its line naming the page's algorithm and what to write
    instead (closed_form: true), not a MemoryError, the kernel's OOM killer, nor a build that never ends. Its
    baseline (standard attention, for ratio_standard) comes from the closed forms and is never run. Sizes missing or
    of the wrong type are left for ``attention.run`` to name."""
    from kernelviz.attention import footprint
    from kernelviz.attention.runs import too_long

    have = footprint.available() if available is None else available
    try:
        n, d, Br, Bc = (int(sizes[k]) for k in ("N", "d", "Br", "Bc"))
        n_kv, heads = int(sizes.get("N_kv", n)), int(sizes.get("batch_heads", 1))
    except (KeyError, TypeError, ValueError):
        return
    if min(n, d, Br, Bc, n_kv, heads) < 1:
        return
    instead = "add closed_form: true to the trace's sizes (bytes, FLOPs and ratio_standard at any size) or choose a "
    instead += "smaller N"
    splits = sizes.get("splits") or min(4, -(-n_kv // Bc))
    need, parts = footprint.estimate(algo, n, n_kv, d, heads, Br, Bc, itemsize, splits)
    if have is not None and need > have:
        biggest = max(parts, key=parts.get)
        raise ValueError(
            f"{algo} at N={n} N_kv={n_kv} d={d} needs about {footprint.gib(need)} of memory "
            f"({biggest}: {footprint.gib(parts[biggest])}) and {footprint.gib(have)} is available: {instead}"
        )
    if problem := too_long(algo, n, d, Br, Bc, n_kv, bool(sizes.get("causal")), heads):
        raise ValueError(f"{problem} at every build: {instead}")
