"""What a slot of the figure is, for the page to answer a reader who points at it: its facts, as the ``kv`` of the
items that draw it (``draw.slot_items``), a string ``slot:`` + JSON:

    {"slot": "Kj", "in": "shared memory", "of": "block 0", "bytes": 64, "via": "read from HBM: K1", "step": 4}

``slot``: its name (a cell of Sij: ``"Sij 0,1"``, row 0, column 1); ``in``: its memory (HBM, shared memory,
registers; a cell is in its matrix's); ``of``: who holds it (the block in view, and the warp for a warp's registers;
none for HBM); ``bytes``: what reached it over HBM (a tile read from or written to HBM: its bytes; a value computed on
chip: 0); ``via``: how what it holds got there, and ``step``: at which step (absent while it holds what it started
with). Its values at the figure's sizes are the page's to give (they come from a NumPy run, which this library,
standard library only, does not make: see ``kernelviz.site.answers``).
"""

import json

MEMORY = {"hbm": "HBM", "sram": "shared memory", "reg": "registers"}


def arrivals(fig, k):
    """{slot: (step, Event)} of the last change of each slot up to step k (each step's events: ``record.Step``),
    remembered on the figure so that a long kernel walks its steps once."""
    memo = fig.__dict__.setdefault("_arrivals", [])
    while len(memo) <= k:
        last = dict(memo[-1]) if memo else {}
        n = len(memo)
        for slot, event in fig.steps[n].events.items():
            last[slot] = (n, event)
        memo.append(last)
    return memo[k]


def how(slot, event):
    """In words, how `event` brought what `slot` holds; and the HBM bytes it moved into or out of the slot."""
    src = event.src
    if event.how == "copy" and src is not None and src.memory == "hbm":
        return f"read from HBM: {src.name}", src.bytes
    if event.how == "copy" and slot.memory == "hbm":
        return f"written to HBM from {src.name if src is not None else 'the chip'}", slot.bytes
    if event.how == "copy":
        return f"copied on chip from {src.name if src is not None else 'another slot'}", 0
    if event.after.get("stale"):
        return "stale: computed from the tile before", 0
    if slot.memory == "hbm":
        return "written to HBM", slot.bytes
    return "computed on chip", 0


def facts(fig, slot, k, arrived=True):
    """The ``kv`` of an item drawing `slot` at step k: ``slot:`` + the JSON of its facts (module docstring).
    `arrived` False: its frame's, which says what the slot is, not how its content came."""
    parent = getattr(slot, "parent", None)
    level = (parent or slot).memory
    out = {"slot": slot.name, "in": MEMORY.get(level, level)}
    block = fig.steps[k].block
    if level != "hbm" and block is not None:
        owner = getattr(parent or slot, "owner", None)
        out["of"] = f"block {block[0]}" + (f", {owner}" if owner else "")
    out["bytes"] = slot.bytes if level == "hbm" else 0
    change = arrivals(fig, k).get(slot) if arrived else None
    if change is not None and change[0] > 0:
        out["via"], out["bytes"] = how(slot, change[1])
        out["step"] = change[0]
    return "slot:" + json.dumps(out, separators=(",", ":"), ensure_ascii=False)
