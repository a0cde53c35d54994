"""The values the figure's slots hold at the page's sizes, for the figure answers (web/src/figure/ui/hover.js): a
table the page embeds, ``<script type="application/json" id="kv-answers">``, made from the run of the page's
``trace`` entry ``fig`` (or its only entry), the same NumPy run whose ledger its ``{{ trace }}`` numbers count.

    {"sizes": {"N": 8, "N_kv": 8, "Br": 4, "Bc": 4, "causal": 0},
     "keys": [the step list's keys], "changes": [{slot name: value} for each step: what the step gave a slot]}

A value is a number, a list (a row vector: m, l) or a list of rows (a tile), of the first batch-head; -inf is written
"-inf" (JSON has no infinities). Which step gives which slot what is the algorithm's (``FILLS``, keyed by the
step's action, the slots named as the pages name them: HBM tiles Q0, K1, O0, L0; Qi, Kj, Vj, the cells "Sij r,c" and
the carries mi, li, Oi); a page whose algorithm has none, or no ``fig`` run, gets no table (its answers then say what
a slot is, whose, and the bytes it took, without values).
"""

import math

import numpy as np

from kernelviz.attention import runs
from kernelviz.attention._inputs import tiles


def plain(x):
    """`x` (a NumPy array or number) as JSON values: floats to 6 significant digits, -inf as "-inf"."""
    if isinstance(x, np.ndarray):
        return [plain(v) for v in x.tolist()] if x.ndim else plain(x.item())
    if isinstance(x, list):
        return [plain(v) for v in x]
    x = float(x)
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return float(f"{x:.6g}")


def _fa2(entry, keys_at):
    """The changes of each step of a Flash Attention 2 figure (see the module docstring)."""
    carries = {}
    done = runs.run("fa2", observe=lambda i, j, **c: carries.__setitem__((i, j), c), **entry)
    s = done.sizes
    q, k, v = (done.inputs[n][0].astype(np.float32) for n in ("q", "k", "v"))
    o, lse = done.result.o[0], done.result.lse[0]
    rows, cols = tiles(s["N"], s["Br"]), tiles(s["N_kv"], s["Bc"])
    first = {f"{name}{t}": plain(x[a:b]) for name, x, cut in (("Q", q, rows), ("K", k, cols), ("V", v, cols))
             for t, (a, b) in enumerate(cut)}  # fmt: skip
    changes = [first]
    for key, at in keys_at[1:]:
        action, i, j = _action(key), at.get("i"), at.get("j")
        step = {}
        if action == "load Q":
            n = rows[i][1] - rows[i][0]
            step = {"Qi": first[f"Q{i}"], "mi": ["-inf"] * n, "li": [0.0] * n, "Oi": [[0.0] * s["d"]] * n}
        elif action == "load K,V":
            step = {"Kj": first[f"K{j}"], "Vj": first[f"V{j}"]}
        elif action == "fill Sij" and (i, j) in carries:
            S = plain(carries[i, j]["S"][0])
            step = {"Sij": S, **{f"Sij {r},{c}": x for r, line in enumerate(S) for c, x in enumerate(line)}}
        elif action == "update m,l,O" and (i, j) in carries:
            step = {n: plain(carries[i, j][c][0]) for n, c in (("mi", "m"), ("li", "l"), ("Oi", "O"))}
        elif action == "write O,L":
            a, b = rows[i]
            step = {f"O{i}": plain(o[a:b]), f"L{i}": plain(lse[a:b])}
        changes.append(step)
    return s, changes


def _action(key):
    """The action of a step key: the words before the first name=value ('load K,V i=0 j=1' -> 'load K,V')."""
    return " ".join(w for w in key.split(" ") if "=" not in w)


FILLS = {"fa2": _fa2}  # algorithm -> (trace entry, [(key, at)]) -> (sizes, changes)


def fig_entry(page):
    """The page's ``trace`` entry the figure is drawn at: ``fig``, or the trace itself when it is one run."""
    trace = page.meta.get("trace") or {}
    if "algo" in trace:
        return trace
    return trace.get("fig") if isinstance(trace.get("fig"), dict) else None


def table(page):
    """The answers table of `page` (module docstring), or None: no figure, no ``fig`` run, or an algorithm without
    ``FILLS``."""
    entry, scene = fig_entry(page), getattr(page, "scene", None)
    if not entry or not scene or entry.get("algo") not in FILLS:
        return None
    steps = next((n["steps"] for n in scene["nodes"] if n.get("kind") == "step_list"), None)
    if not steps:
        return None
    keys_at = [(st.get("key", ""), st.get("at", {})) for st in steps]
    sizes, changes = FILLS[entry["algo"]]({k: v for k, v in entry.items() if k != "algo"}, keys_at)
    shown = {n: int(sizes[n]) for n in ("N", "N_kv", "Br", "Bc") if n in sizes}
    shown["causal"] = int(bool(sizes.get("causal")))
    return {"sizes": shown, "keys": [k for k, _ in keys_at], "changes": changes}
