"""The values the figure's slots hold at the page's sizes, for the figure answers (web/src/figure/ui/hover.js): a
table the page embeds, ``<script type="application/json" id="kv-answers">``, made from the run of the page's
``trace`` entry ``fig`` (or its only entry), the same NumPy run whose ledger its ``{{ trace }}`` numbers count.

    {"sizes": {"N": 8, "N_kv": 8, "Br": 4, "Bc": 4, "causal": 0},   # the figure's sizes, as its form names them
     "keys": [the step list's keys], "changes": [{slot name: value} for each step: what the step gave a slot]}

Which step gives which slot what is the algorithm's: its record's ``answers`` (attention.figure_values), fed by its
observer (a record that ``observes``): the run calls ``observe(*where, **carries)`` (its loop indices, then what it
holds there), and ``observed[where]`` keeps the carries. The table's sizes are the ones the page's kernel drew the
figure at (its ``sizes(...)`` call, the form's names), so the page gives values only while the figure shows them. A
page whose algorithm has none, or that has no ``fig`` run, gets no table: its answers then say what a slot is, whose,
and the bytes it took, without values.
"""

from kernelviz.attention import runs
from kernelviz.attention.topics import REGISTRY


def fig_entry(page):
    """The page's ``trace`` entry the figure is drawn at: ``fig``, or the trace itself when it is one run."""
    trace = page.meta.get("trace") or {}
    if "algo" in trace:
        return trace
    return trace.get("fig") if isinstance(trace.get("fig"), dict) else None


def table(page):
    """The answers table of `page` (module docstring), or None: no figure, no ``fig`` run, or an algorithm whose
    record gives no ``answers``."""
    entry, scene = fig_entry(page), getattr(page, "scene", None)
    record = REGISTRY.get(entry.get("algo")) if entry else None
    if record is None or record.answers is None or not record.observes or not scene:
        return None
    steps = next((n["steps"] for n in scene["nodes"] if n.get("kind") == "step_list"), None)
    if not steps:
        return None
    keys_at = [(st.get("key", ""), st.get("at", {})) for st in steps]
    observed = {}
    sizes = {k: v for k, v in entry.items() if k not in ("algo", "schedule")}
    done = runs.run(record.name, observe=lambda *where, **carries: observed.__setitem__(where, carries), **sizes)
    shown = {n: int(v) for n, v in (getattr(page.run, "sizes", None) or {}).items()}
    return {"sizes": shown, "keys": [k for k, _ in keys_at], "changes": record.answers(done, observed, keys_at)}
