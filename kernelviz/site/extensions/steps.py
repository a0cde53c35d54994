"""Bullets bound to steps of the page's figure: a list item that starts with ``[step: KEY]``.

    - [step: load Q i=0] Qi = Q[i]; Oi = 0; mi = -inf; li = 0

renders as ``<li data-step="K" data-step-key="load Q i=0" data-step-label="block 0 · load Q0">Qi = Q[i]; …</li>``:
the marker is removed; KEY is a
step's ``key`` (its meaning, e.g. ``load K,V i=0 j=1``) or, for figures whose steps have no keys, its ``label``,
in the step list of the Scene the page's editors drew (the first step list; step 0 is the initial figure). K is the
index of the first step of that name in the built figure; ``data-step-key`` is written when KEY is a key, and the
browser then plays the first step with that key in the figure as it is now (other sizes, an edited kernel), or,
when the figure now has no keys (the seed pages' own code, pasted and run), the first step with the label the step
had in the built figure (``data-step-label``: the pages label their steps in the seeds' words). An
unknown name is a warning naming the page and line. CUDA blocks resolve their ``step=`` the same way.
"""

import difflib
import re

from ..tokens import walk

MARK = re.compile(r"^\[step:\s*([^\]\n]*?)\s*\]\s*")


def plugin(md):
    md.core.ruler.before("inline", "kv_step_bullets", _mark)


def _mark(state):
    tokens = state.tokens
    for i in range(2, len(tokens)):
        item, inline = tokens[i - 2], tokens[i]
        if inline.type == "inline" and tokens[i - 1].type == "paragraph_open" and item.type == "list_item_open":
            m = MARK.match(inline.content)
            if m:
                inline.content = inline.content[m.end() :]
                item.meta["step_label"] = m.group(1)


def index(page, label, line, diagnostics):
    """The index of the step labelled `label` in `page`'s figure, or None (warning, unless the editors failed:
    their error is the warning that matters)."""
    steps = page.steps()
    if label in steps:
        return steps[label]
    if page.run is not None and not page.run.ok:
        return None
    if not steps:
        diagnostics.warn(page.file, line, f"step {label!r}: the page has no figure with a step list")
        return None
    close = difflib.get_close_matches(label, list(steps), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else f"; the figure has {len(steps)} steps"
    diagnostics.warn(page.file, line, f"unknown step label {label!r}{hint}")
    return None


def resolve(page, context):
    for token, line in walk(page.tokens):
        if token.type == "list_item_open" and "step_label" in token.meta:
            name = token.meta["step_label"]
            k = index(page, name, line, context.diagnostics)
            if k is not None:
                token.attrSet("data-step", str(k))
                if name in page.step_keys():
                    token.attrSet("data-step-key", name)
                    if page.step_label(k):
                        token.attrSet("data-step-label", page.step_label(k))
