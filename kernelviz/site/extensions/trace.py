"""Ledger numbers in prose: ``{{ trace.EXPR }}`` is replaced at build time by a number measured by the HBM ledger of
``kernelviz.attention``, so no HBM count on a page is typed by hand.

The sizes come from the page's front matter, one run or several named ones:

    trace: {algo: fa2, N: 8, d: 4, Br: 4, Bc: 4}                       → {{ trace.reads.K }}
    trace: {naive: {algo: naive-softmax, N: 16, b: 4}, fa2: {...}}    → {{ trace.naive.reads.x }}

`algo` is an attention algorithm of ``kernelviz.attention.ALGORITHMS`` (standard, fa1, fa2, flash-decoding: N, d, Br,
Bc required; optional N_kv (default N), n_splits (flash-decoding), causal (false), dtype (float32), heads (1)) or a
softmax variant (naive-softmax, safe-softmax, online-softmax: N and b required, rows optional (1);
online-softmax-output: N, b and d). Each runs once per build on random inputs of those sizes, and EXPR names one
of its numbers (T is a tensor of its ledger: Q, K, V, O, L, S, P, m, l, O_partial, x, y, o, ...):

    trace.reads.T, trace.writes.T          times T is read / written in full (bytes moved over T's size)
    trace.loads.T, trace.stores.T          tile transfers of T from HBM / to HBM
    trace.read_bytes.T, trace.write_bytes.T   bytes of T read / written
    trace.bytes.T                          bytes of T read and written
    trace.bytes.total, .read, .write       all HBM traffic
    trace.ratio_standard                   standard attention's traffic over this algorithm's (attention only; for a
                                           backward pass, the standard backward's, which reads back a stored P)
    trace.peak_sram                        bytes of SRAM of the largest block, as the ledger models it
    trace.flops.matmul, .exp, .other, .total   floating-point operations counted as the run did them (attention)
    trace.cuda.shared_bytes.K              bytes of __shared__ one block of kernel K declares in kernelviz/cuda at
                                           these sizes (fa1, fa2, fd_split, fd_combine, online_softmax,
                                           fa2_bwd_preprocess, fa2_bwd: the host's formula, kernels.shared_bytes,
                                           which the tests hold equal to ptxas's)
    trace.N, .d, .Br, .Bc, .b, ...         the sizes given, and the tile counts Tr = ceil(N/Br), Tc = ceil(N_kv/Bc),
                                           T = ceil(N/b)

The CUDA numbers exist for fa1, fa2, flash-decoding, fa2-backward and online-softmax-output (b is the kernel's tile,
d its D).

``closed_form: true`` in an attention run's sizes takes its numbers from ``kernelviz.attention.formulas`` (which the
tests hold equal to the ledgers) instead of running it, for sizes too large to run at every build (N = 4096): only
trace.bytes.*, trace.read_bytes.*, trace.write_bytes.*, trace.flops.* and trace.ratio_standard, and the sizes.
Whole numbers print as integers with thousands separators, others with 3 significant digits. Placeholders work
in prose and inside ``$…$`` math. An unknown name, or a page without ``trace``, is a warning naming the line.
"""

import copy
import functools
import re

from markdown_it.common.utils import escapeHtml

from ..tokens import walk

PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
ATTENTION = {"N": int, "d": int, "Br": int, "Bc": int, "N_kv": int, "n_splits": int, "heads": int, "causal": bool}
SOFTMAX = {"naive-softmax": "naive_softmax", "safe-softmax": "safe_softmax", "online-softmax": "online_softmax"}


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
    numbers = None
    for token, line in walk(page.tokens):
        is_math = token.type.startswith("math_")
        if token.type != "kv_trace" and not (is_math and "{{" in token.content):
            continue
        if numbers is None:
            numbers = _numbers(page, context.diagnostics)
        if is_math:
            token.content = _fill(token.content, page, numbers, line, context)
        else:
            text = _value(page, token.content, numbers, line, context)
            if text is not None:
                token.meta["text"] = text


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
        if not isinstance(value, dict) or name not in value:
            break
        value, where = value[name], f"{where}.{name}".lstrip(".")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        has = f"{where} has {', '.join(map(str, value))}" if isinstance(value, dict) else f"{where} is a number"
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
            return compute(spec)
        if not all(isinstance(s, dict) for s in spec.values()):
            raise ValueError("expected {algo: ..., sizes} or {name: {algo: ..., sizes}, ...}")
        return {name: compute(s) for name, s in spec.items()}
    except (ValueError, TypeError, KeyError) as e:
        diagnostics.warn(page.file, _trace_line(page), f"trace: {e}")
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


def compute(spec):
    """The numbers of one run, {algo: ..., sizes}. Raises ValueError (or the algorithm's errors) on a bad spec."""
    return copy.deepcopy(_compute(tuple(sorted(spec.items(), key=str))))


@functools.lru_cache(maxsize=64)  # the same run on every rebuild of kernelviz serve
def _compute(items):
    spec = dict(items)
    algo = spec.pop("algo", None)
    if algo in SOFTMAX or algo == "online-softmax-output":
        return _softmax(algo, spec)
    return _attention(algo, spec)


def _sizes(spec, types, required):
    for key, value in spec.items():
        if key not in types:
            raise ValueError(f"unknown trace size {key!r} (this algorithm takes {', '.join(types)})")
        if not isinstance(value, types[key]) or (types[key] is int and isinstance(value, bool)):
            raise ValueError(f"{key} must be {types[key].__name__}, got {value!r}")
        if types[key] is int and value < 1:
            raise ValueError(f"{key} must be at least 1, got {value}")
    missing = [k for k in required if k not in spec]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")


def _attention(algo, spec):
    import numpy as np

    from kernelviz import attention

    if algo not in attention.ALGORITHMS:
        known = [*attention.ALGORITHMS, *SOFTMAX, "online-softmax-output"]
        raise ValueError(f"algo must be one of {', '.join(known)}, got {algo!r}")
    dtype = spec.pop("dtype", "float32")
    closed_form = spec.pop("closed_form", False)
    _sizes(spec, ATTENTION, ("N", "d", "Br", "Bc"))
    if "n_splits" in spec and algo != "flash-decoding":
        raise ValueError("n_splits is a flash-decoding size")
    sizes = {"N_kv": spec["N"], "heads": 1, **spec}
    if closed_form is True:
        return _closed_form(algo, sizes, dtype)
    if closed_form is not False:
        raise ValueError(f"closed_form must be true or false, got {closed_form!r}")
    _fits(algo, sizes, np.dtype(dtype).itemsize)
    rng = np.random.default_rng(0)
    q = rng.standard_normal((sizes["heads"], sizes["N"], sizes["d"]), dtype=np.float32)
    k, v = (rng.standard_normal((sizes["heads"], sizes["N_kv"], sizes["d"]), dtype=np.float32) for _ in "kv")
    options = {"Br": sizes["Br"], "Bc": sizes["Bc"], "causal": sizes.get("causal", False), "dtype": dtype}
    extra = {"n_splits": sizes["n_splits"]} if "n_splits" in sizes else {}
    ledger = attention.ALGORITHMS[algo](q, k, v, **options, **extra).ledger
    baseline = "standard-backward" if algo.endswith("-backward") else "standard"
    standard = attention.ALGORITHMS[baseline](q, k, v, **options).ledger
    out = numbers(ledger, {key: v for key, v in sizes.items() if key != "causal"})
    out["flops"] = {**ledger.flops.by_kind, "total": ledger.total_flops}
    out.update(
        Tr=-(-sizes["N"] // sizes["Br"]),
        Tc=-(-sizes["N_kv"] // sizes["Bc"]),
        ratio_standard=standard.total_bytes / ledger.total_bytes,
    )
    if algo in CUDA_KERNELS:
        out["cuda"] = cuda_numbers(CUDA_KERNELS[algo], sizes["N_kv"], sizes["d"], (sizes["Br"], sizes["Bc"]), sizes)
    return out


def _closed_form(algo, sizes, dtype):
    """The byte numbers of `algo` at `sizes` from its closed form in ``formulas`` (held equal to its ledger by the
    tests), for sizes too large to run at every build: bytes.*, read_bytes.*, write_bytes.* and ratio_standard."""
    from kernelviz.attention import FLOP_FORMULAS, FORMULAS

    baseline = "standard-backward" if algo.endswith("-backward") else "standard"
    extra = {"n_splits": sizes["n_splits"]} if "n_splits" in sizes else {}
    args = (sizes["N"], sizes["d"], sizes["Br"], sizes["Bc"])
    common = dict(N_kv=sizes["N_kv"], causal=sizes.get("causal", False), batch_heads=sizes["heads"])
    common["itemsize"] = 2 if dtype == "float16" else 4
    per = FORMULAS[algo](*args, **common, **extra)
    standard = FORMULAS[baseline](*args, **common)
    total = sum(rw["read"] + rw["write"] for rw in per.values())
    out = {key: v for key, v in sizes.items() if key != "causal"}
    out.update(
        read_bytes={t: rw["read"] for t, rw in per.items()},
        write_bytes={t: rw["write"] for t, rw in per.items()},
        bytes={t: rw["read"] + rw["write"] for t, rw in per.items()},
        ratio_standard=sum(rw["read"] + rw["write"] for rw in standard.values()) / total,
    )
    out["bytes"].update(
        total=total,
        read=sum(out["read_bytes"].values()),
        write=sum(out["write_bytes"].values()),
    )
    common.pop("itemsize")
    flops = FLOP_FORMULAS[algo](*args, **common, **extra)
    out["flops"] = {**flops, "total": sum(flops.values())}
    return out


def _fits(algo, sizes, itemsize, available=None):
    """Raise ValueError, saying what would not fit, when the runs a trace makes (`algo` and its standard baseline,
    for the ratio) need more memory than the machine has (``attention.footprint``): a page's trace at N = 10**6 is a
    message at its line, not a MemoryError, nor the kernel's OOM killer ending the build."""
    from kernelviz.attention import footprint

    have = footprint.available() if available is None else available
    if have is None:
        return
    n, n_kv, d, heads = sizes["N"], sizes["N_kv"], sizes["d"], sizes["heads"]
    tiles = -(-n_kv // sizes["Bc"])
    baseline = "standard-backward" if algo.endswith("-backward") else "standard"
    for name in dict.fromkeys((algo, baseline)):
        splits = sizes.get("n_splits") or min(4, tiles)
        need, parts = footprint.estimate(name, n, n_kv, d, heads, sizes["Br"], sizes["Bc"], itemsize, splits)
        if need > have:
            biggest = max(parts, key=parts.get)
            raise ValueError(
                f"{name} at N={n} N_kv={n_kv} d={d} needs about {footprint.gib(need)} of memory "
                f"({biggest}: {footprint.gib(parts[biggest])}) and {footprint.gib(have)} is available: "
                "choose a smaller N (the numbers scale as the closed forms in attention.formulas say)"
            )


CUDA_KERNELS = {
    "fa1": "fa1",
    "fa2": "fa2",
    "flash-decoding": "flash_decoding",
    "online-softmax-output": "online_softmax",
    "fa2-backward": "fa2_bwd",
}


def cuda_numbers(kernel, n, d, tiles, sizes):
    """{shared_bytes: {launch: bytes}} of `kernel`'s launches at these sizes, from kernels.plan (no device limit:
    a page may describe tiles too large for one)."""
    from kernelviz.cuda import kernels

    launches = kernels.plan(kernel, 1, n, d, tiles, n_splits=sizes.get("n_splits", 1), limit=float("inf"))
    return {"shared_bytes": {launch.name.partition("<")[0]: launch.shared_bytes for launch in launches}}


def _softmax(algo, spec):
    import numpy as np

    from kernelviz import attention

    output = algo == "online-softmax-output"
    _sizes(
        spec, {"N": int, "b": int, "rows": int, **({"d": int} if output else {})}, ("N", "b", "d")[: 3 if output else 2]
    )
    sizes = {"rows": 1, **spec}
    rng = np.random.default_rng(0)
    x = rng.standard_normal((sizes["rows"], sizes["N"]), dtype=np.float32)
    if output:
        v = rng.standard_normal((sizes["N"], sizes["d"]), dtype=np.float32)
        ledger = attention.online_softmax_output(x, v, b=sizes["b"]).ledger
    else:
        ledger = getattr(attention, SOFTMAX[algo])(x, b=sizes["b"]).ledger
    out = numbers(ledger, sizes)
    out["T"] = -(-sizes["N"] // sizes["b"])
    if output:
        out["cuda"] = cuda_numbers("online_softmax", sizes["N"], sizes["d"], (1, sizes["b"]), sizes)
    return out


def numbers(ledger, sizes):
    """The numbers a ledger answers (see the module docstring), with `sizes`."""
    per = ledger.per_tensor
    tiles = {"read": {}, "write": {}}
    for t in ledger.transfers:
        tiles[t.direction][t.tensor] = tiles[t.direction].get(t.tensor, 0) + 1
    out = dict(sizes)
    out.update(
        reads={t: ledger.trips(t, "read") for t in ledger.tensor_bytes},
        writes={t: ledger.trips(t, "write") for t in ledger.tensor_bytes},
        loads={t: tiles["read"].get(t, 0) for t in per},
        stores={t: tiles["write"].get(t, 0) for t in per},
        read_bytes={t: rw["read"] for t, rw in per.items()},
        write_bytes={t: rw["write"] for t, rw in per.items()},
        bytes={t: rw["read"] + rw["write"] for t, rw in per.items()},
        peak_sram=ledger.peak_sram,
    )
    out["bytes"].update(total=ledger.total_bytes, read=ledger.read_bytes, write=ledger.write_bytes)
    return out
