"""Controls that change the figure: the step list.

A step is ``{"label": str, "start": Diff, "move": Diff, "end": Diff, "stagger": [[item, n, count], ...]}``, a Diff a
list of ``[item index, {field: value}]``. Playing step k applies `start`, animates to `move`, then settles on `end`;
a stagger entry delays item `item` by n/count of the move. Each key but the label may be left out (an empty list).
Step 0 is where the figure starts, usually a label alone.

A step may also say what it means, for the page: ``key``, its stable meaning, an action and its indices
(``"load K,V i=0 j=1"``; no square brackets), which bullets and CUDA blocks name (several steps may share a key; a
bullet plays the first); ``at``, its loop indices (``{"i": 0, "j": 1}``, integers); ``caption``, what it does in
words (``"[KV loop: 1] load K1, V1"``).
"""

from . import bounds, checks
from .diagram import field_value, items_of
from .scene import CURRENT

PHASES = ("start", "move", "end")


def _diff(where, diff, count):
    if not isinstance(diff, list):
        raise TypeError(f"pie.ui.step_list: {where} must be a list of [item index, fields], got {diff!r}")
    out = []
    for n, entry in enumerate(diff):
        at = f"{where}[{n}]"
        if not (isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[1], dict)):
            raise TypeError(f"pie.ui.step_list: {at} must be [item index, {{field: value}}], got {entry!r}")
        index = _index(at, entry[0], count)
        fields = {key: field_value("ui.step_list", f"{at} (item {index})", key, v) for key, v in entry[1].items()}
        out.append([index, fields])
    return out


def _index(at, index, count):
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
        raise ValueError(f"pie.ui.step_list: {at} names item {index!r}, but the figure has items 0 to {count - 1}")
    return index


def _stagger(where, stagger, count):
    if not isinstance(stagger, list):
        raise TypeError(f"pie.ui.step_list: {where} must be a list of [item, n, count], got {stagger!r}")
    out = []
    for n, entry in enumerate(stagger):
        at = f"{where}[{n}]"
        ok = isinstance(entry, (list, tuple)) and len(entry) == 3
        ok = ok and all(isinstance(x, int) and not isinstance(x, bool) for x in entry[1:])
        if not ok or not 0 <= entry[1] < entry[2]:
            raise ValueError(f"pie.ui.step_list: {at} must be [item, n, count] with 0 <= n < count, got {entry!r}")
        checks.in_range("ui.step_list", f"{at} count", entry[2], (1, bounds.STAGGER))
        out.append([_index(at, entry[0], count), entry[1], entry[2]])
    return out


def _key(where, key):
    if not isinstance(key, str) or not key.strip() or not bounds.KEY.fullmatch(key):
        raise ValueError(
            f"pie.ui.step_list: {where}.key must be a non-empty string without square brackets "
            f"(e.g. 'load K,V i=0 j=1'), got {key!r}"
        )
    return checks.string("ui.step_list", f"{where}.key", key)


def _at(where, at):
    ok = isinstance(at, dict) and len(at) <= bounds.AT_NAMES and all(isinstance(n, str) and n for n in at)
    if not ok or not all(isinstance(v, int) and not isinstance(v, bool) for v in at.values()):
        raise TypeError(
            f"pie.ui.step_list: {where}.at must be a dict of loop indices, e.g. {{'i': 0, 'j': 1}}, got {at!r}"
        )
    for name, value in at.items():
        checks.in_range("ui.step_list", f"{where}.at[{name!r}]", value, bounds.INDEX)
    return dict(at)


def _step(k, step, count):
    where = f"step {k}"
    if not isinstance(step, dict):
        raise TypeError(f"pie.ui.step_list: {where} must be a dict, got {step!r}")
    unknown = set(step) - {"label", "key", "at", "caption", "stagger", *PHASES}
    if unknown:
        raise ValueError(
            f"pie.ui.step_list: {where} has unknown keys {sorted(unknown)}; "
            "a step has label, key, at, caption, start, move, end and stagger"
        )
    if not isinstance(step.get("label"), str):
        raise TypeError(f"pie.ui.step_list: {where}.label must be a string, got {step.get('label')!r}")
    out = {"label": checks.string("ui.step_list", f"{where}.label", step["label"])}
    if "key" in step:
        out["key"] = _key(where, step["key"])
    if "at" in step:
        out["at"] = _at(where, step["at"])
    if "caption" in step:
        if not isinstance(step["caption"], str):
            raise TypeError(f"pie.ui.step_list: {where}.caption must be a string, got {step['caption']!r}")
        out["caption"] = checks.string("ui.step_list", f"{where}.caption", step["caption"])
    for phase in PHASES:
        if phase in step:
            out[phase] = _diff(f"{where}.{phase}", step[phase], count)
    if "stagger" in step:
        out["stagger"] = _stagger(f"{where}.stagger", step["stagger"], count)
    return out


def step_list(figure, steps, out=None):
    """A list of `steps` that play on the diagram `figure`, checked against it (see the module docstring)."""
    count = len(items_of("ui.step_list", figure))
    if not isinstance(steps, (list, tuple)) or not steps:
        raise TypeError(f"pie.ui.step_list: steps must be a non-empty list of steps, got {steps!r}")
    if len(steps) > bounds.STEPS:
        raise ValueError(
            f"pie.ui.step_list: steps has {len(steps):,} steps; a step list plays at most {bounds.STEPS:,}"
        )
    checked = [_step(k, s, count) for k, s in enumerate(steps)]
    return CURRENT.add("ui.step_list", "step_list", {"figure": figure.ref(), "steps": checked}, out)
