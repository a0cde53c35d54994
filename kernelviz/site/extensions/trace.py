"""Ledger numbers in prose: ``{{ trace.EXPR }}`` is replaced at build time by a number measured by the HBM ledger of
``kernelviz.attention``, so no HBM count on a page is typed by hand.

The sizes come from the page's front matter:

    trace: {algo: fa2, N: 8, d: 4, Br: 4, Bc: 4}

`algo` is one of ``kernelviz.attention.ALGORITHMS`` (standard, fa1, fa2, flash-decoding); N, d, Br, Bc are required;
optional: N_kv (default N), n_splits (flash-decoding), causal (false), dtype (float32), heads (1). The algorithm runs
once per build on random inputs of those sizes, and EXPR names one of its numbers (T is a tensor of its ledger:
Q, K, V, O, L, S, P, m, l, O_partial, ...):

    trace.reads.T, trace.writes.T          times T is read / written in full (bytes moved over T's size)
    trace.loads.T, trace.stores.T          tile transfers of T from HBM / to HBM
    trace.read_bytes.T, trace.write_bytes.T   bytes of T read / written
    trace.bytes.T                          bytes of T read and written
    trace.bytes.total, .read, .write       all HBM traffic
    trace.ratio_standard                   standard attention's traffic over this algorithm's, at the same sizes
    trace.peak_sram                        bytes of SRAM of the largest block
    trace.N, .N_kv, .d, .Br, .Bc, .Tr, .Tc, .n_splits, .heads   the sizes (Tr = ceil(N/Br), Tc = ceil(N_kv/Bc))

Whole numbers print as integers with thousands separators, others with 3 significant digits. Placeholders work
in prose and inside ``$…$`` math. An unknown name, or a page without ``trace``, is a warning naming the line.
"""

import re

from markdown_it.common.utils import escapeHtml

from ..tokens import walk

PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
SIZES = {"N": int, "d": int, "Br": int, "Bc": int, "N_kv": int, "n_splits": int, "heads": int, "causal": bool}


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
    value = numbers
    head, *path = expr.split(".")
    for name in path if head == "trace" and path else [None]:
        value = value.get(name) if isinstance(value, dict) else None
    if not isinstance(value, (int, float)):
        known = ", ".join(sorted(numbers))
        context.diagnostics.warn(page.file, line, f"{{{{ {expr} }}}}: unknown trace name (known: trace.{{{known}}})")
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
        return compute(spec)
    except (ValueError, TypeError, KeyError) as e:
        diagnostics.warn(page.file, page.meta_line, f"trace {spec}: {e}")
        return False


def compute(spec):
    """The numbers for a front matter `spec`. Raises ValueError (or the algorithm's errors) on a bad spec."""
    import numpy as np

    from kernelviz import attention

    spec = dict(spec)
    algo = spec.pop("algo", None)
    if algo not in attention.ALGORITHMS:
        raise ValueError(f"algo must be one of {', '.join(attention.ALGORITHMS)}, got {algo!r}")
    dtype = spec.pop("dtype", "float32")
    for key, value in spec.items():
        if key not in SIZES:
            raise ValueError(f"unknown trace field {key!r} (known: algo, dtype, {', '.join(SIZES)})")
        if not isinstance(value, SIZES[key]) or (SIZES[key] is int and isinstance(value, bool)):
            raise ValueError(f"{key} must be {SIZES[key].__name__}, got {value!r}")
    missing = [k for k in ("N", "d", "Br", "Bc") if k not in spec]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    sizes = {"N_kv": spec["N"], "heads": 1, "causal": False, **spec}
    rng = np.random.default_rng(0)
    q = rng.standard_normal((sizes["heads"], sizes["N"], sizes["d"]), dtype=np.float32)
    k, v = (rng.standard_normal((sizes["heads"], sizes["N_kv"], sizes["d"]), dtype=np.float32) for _ in "kv")
    options = {"Br": sizes["Br"], "Bc": sizes["Bc"], "causal": sizes["causal"], "dtype": dtype}
    extra = {"n_splits": sizes["n_splits"]} if "n_splits" in sizes else {}
    if extra and algo != "flash-decoding":
        raise ValueError("n_splits is a flash-decoding size")
    ledger = attention.ALGORITHMS[algo](q, k, v, **options, **extra).ledger
    standard = attention.ALGORITHMS["standard"](q, k, v, **options).ledger
    return numbers(ledger, standard, sizes)


def numbers(ledger, standard, sizes):
    """The tree of numbers the placeholders name, from a ledger, standard attention's at the same sizes, and sizes."""
    per = ledger.per_tensor
    tiles = {"read": {}, "write": {}}
    for t in ledger.transfers:
        tiles[t.direction][t.tensor] = tiles[t.direction].get(t.tensor, 0) + 1
    cdiv = lambda a, b: -(-a // b)  # noqa: E731
    out = {key: sizes[key] for key in ("N", "N_kv", "d", "Br", "Bc", "heads") if key in sizes}
    out.update(Tr=cdiv(sizes["N"], sizes["Br"]), Tc=cdiv(sizes["N_kv"], sizes["Bc"]))
    if "n_splits" in sizes:
        out["n_splits"] = sizes["n_splits"]
    out.update(
        reads={t: ledger.trips(t, "read") for t in ledger.tensor_bytes},
        writes={t: ledger.trips(t, "write") for t in ledger.tensor_bytes},
        loads={t: tiles["read"].get(t, 0) for t in per},
        stores={t: tiles["write"].get(t, 0) for t in per},
        read_bytes={t: rw["read"] for t, rw in per.items()},
        write_bytes={t: rw["write"] for t, rw in per.items()},
        bytes={t: rw["read"] + rw["write"] for t, rw in per.items()},
        peak_sram=ledger.peak_sram,
        ratio_standard=standard.total_bytes / ledger.total_bytes,
    )
    out["bytes"].update(total=ledger.total_bytes, read=ledger.read_bytes, write=ledger.write_bytes)
    return out
