"""Ledger numbers in prose: ``{{ trace.EXPR }}`` is replaced at build time by a number measured by the HBM ledger of
``kernelviz.attention``, so no HBM count on a page is typed by hand. The placeholder itself is
``extensions.placeholders``' (which hands ``trace.`` here); this module reads the page's runs and looks names up.

The sizes come from the page's front matter, one run or several named ones:

    trace: {algo: fa2, N: 8, d: 4, Br: 4, Bc: 4}                       → {{ trace.reads.K }}
    trace: {naive: {algo: naive-softmax, N: 16, Bc: 4}, fa2: {...}}   → {{ trace.naive.reads.x }}

`algo` is an algorithm of ``kernelviz.attention.run``: its registry, ``attention.topics``, lists them and the
sizes each takes (today standard, fa1, fa2, flash-decoding, fa2-mma: N, d, Br, Bc required; optional N_kv
(default N), splits (flash-decoding), causal (false), dtype (float32; fa2-mma: float16, or bfloat16, which it alone
takes), batch_heads (1), warps (4) and p_in_shared (false) (fa2-mma); or a softmax variant, naive-softmax,
safe-softmax, online-softmax: N and Bc required, rows optional (1); online-softmax-output: N, Bc and d; or
paged-decoding: seq_lens (a list of lengths), d and page_size required, H_q (1), H_kv (H_q), splits (1), dtype
optional, a random batch with its pages scattered through the pool). The sizes are named as in
``kernelviz.glossary``; an old name (n_splits, heads, b) is a warning naming the new one, in the front matter and in
a placeholder. Each runs once per build on random inputs of those sizes, and EXPR names one of its numbers
(``Run.numbers``, whose vocabulary ``kernelviz.attention.numbers`` lists; T is a tensor of its ledger: Q, K, V, O,
L, S, P, m, l, O_partial, x, y, o, ...):

    trace.reads.T, trace.writes.T, trace.loads.T, ...   what the run's ledger answers (``Ledger.numbers``: times
                                           read / written in full, tile transfers, bytes; bytes.total, .read,
                                           .write; peak_sram; flops.matmul, .exp, .other, .total)
    trace.ratio_standard                   standard attention's traffic (its closed form, never run) over this
                                           algorithm's measured one (attention only; for a
                                           backward pass, the standard backward's, which reads back a stored P; at
                                           the same bytes per element: float16 for a bfloat16 fa2-mma)
    trace.shared.T, .total, .store, .load  fa2-mma: bytes of T (Q, K, V, P) stored into shared memory and loaded
                                           from it into registers; P is 0 unless p_in_shared (``Ledger.smem``,
                                           ``closed_forms.fa2_mma.shared``)
    trace.cuda.shared_bytes.K              bytes of shared memory one block of kernel K takes in kernelviz/cuda at
                                           these sizes, static __shared__ and dynamic (fa1, fa2, fd_split,
                                           fd_combine, online_softmax, fa2_bwd_preprocess, fa2_bwd, paged_decode,
                                           paged_combine, fa2_mma, fa3: ``kernels.shared_memory``; the tests hold the
                                           static part equal to ptxas's)
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

from ... import glossary

COMPUTE_ERRORS = (ValueError, TypeError, KeyError)


def numbers_of(page, context):
    """The numbers of the page's trace, computed once a build (see ``_numbers``): None without one, False when it
    failed (and said so)."""
    if "trace" not in page.env:
        page.env["trace"] = _numbers(page, context.diagnostics)
    return page.env["trace"]


def value(page, expr, line, context):
    """The text of `expr` ('trace.reads.K'), or None with a warning at `line`."""
    numbers = numbers_of(page, context)
    if numbers is False:  # the trace itself failed, and said so
        return None
    if numbers is None:
        context.diagnostics.warn(page.file, line, f"{{{{ {expr} }}}}: the page's front matter has no trace")
        return None
    head, *path = expr.split(".")
    found, where = (numbers, "trace") if head == "trace" else ({"trace": numbers}, "")
    for name in path if head == "trace" else [head]:
        if isinstance(found, dict) and name not in found and glossary.OLD.get(name) in found:  # an old size name
            context.diagnostics.warn(page.file, line, glossary.renamed(name, f"{{{{ {expr} }}}}"))
            name = glossary.OLD[name]
        if not isinstance(found, dict) or name not in found:
            break
        found, where = found[name], f"{where}.{name}".lstrip(".")
    if not isinstance(found, (int, float)) or isinstance(found, bool):
        has = f"{where} has {', '.join(map(str, found))}" if isinstance(found, dict) else f"{where} is a number"
        has = f"{where} is a list (a chart draws it), not a number" if isinstance(found, (list, tuple)) else has
        context.diagnostics.warn(page.file, line, f"{{{{ {expr} }}}}: unknown trace name; {has}")
        return None
    return format_number(found)


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
    except COMPUTE_ERRORS as e:
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
    """The run's numbers (``Run.numbers``), or its closed forms' (``runs.closed_numbers``), and the shared memory
    its CUDA kernel declares at its sizes (``kernels.shared_memory``), where it has one."""
    from kernelviz import attention
    from kernelviz.attention import runs
    from kernelviz.cuda import kernels

    sizes = dict(items)
    algo = sizes.pop("algo", None)
    grid = _schedule_spec(algo, sizes.pop("schedule", None), sizes.get("batch_heads", 1))
    stored = runs.algorithm(algo).inputs.storage  # it takes a storage dtype (the softmax variants do not)
    options = {"dtype": runs.storage(algo, sizes.pop("dtype", None))} if stored else {}
    closed_form = sizes.pop("closed_form", False) if stored else False
    if not isinstance(closed_form, bool):
        raise ValueError(f"closed_form must be true or false, got {closed_form!r}")
    if closed_form and grid is not None:
        raise ValueError("schedule needs the ledger's tiles per block: it does not go with closed_form")
    if closed_form:
        return runs.closed_numbers(algo, **options, **sizes)
    if stored:
        _fits(algo, sizes, options["dtype"])
    sms, batch_heads = grid or (None, None)
    done = attention.run(algo, **options, **sizes)
    out = done.numbers(sms, batch_heads)
    shared = kernels.shared_memory(algo, done.sizes)
    if shared is not None:
        out["cuda"] = {"shared_bytes": shared}
    return out


def _schedule_spec(algo, spec, run_batch_heads):
    """(SMs, batch_heads) of a trace's ``schedule: {gpu: KEY, batch_heads: COUNT}`` (as ``compute`` makes it
    hashable: sorted pairs), or None without one. Raises ValueError naming what is wrong."""
    if spec is None:
        return None
    from kernelviz.attention.numbers import schedule_problem
    from kernelviz.attention.runs import algorithm
    from kernelviz.roofline import gpu

    if problem := schedule_problem(algorithm(algo).name):
        raise ValueError(problem)
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


def _fits(algo, sizes, dtype):
    """Raise ValueError, saying what would not fit or take too long, when the run a trace makes needs more memory
    than the machine has or more tile steps than ``runs.WORK_LIMIT`` (minutes of every build): a page's trace at
    N = 10**6 is a message at its line naming the page's algorithm and what to write instead (closed_form: true),
    not a MemoryError, the kernel's OOM killer, nor a build that never ends (``runs.refusal``)."""
    from kernelviz.attention import runs

    if problem := runs.refusal(algo, sizes, dtype):
        raise ValueError(problem)
