"""What a slot of the figure is, for the page to answer a reader who points at it: its facts, as the ``kv`` of the
items that draw it (``draw.slot_items``), a string ``slot:`` + six fields joined by ``|`` (short: every step that
changes a slot carries its facts again):

    slot:Kj|s|block 0|64|r:K1|4

its name (a cell of Sij: ``Sij 0,1``, row 0, column 1); its memory (``MEMORY``: h, s, r; a cell is in its matrix's);
who holds it (the block in view, and the warp for a warp's registers; empty for HBM); the bytes that reached it over
HBM (a tile read from or written to HBM: its bytes; a value computed on chip: 0); how what it holds got there
(``HOW``, with the slot it came from after a colon; empty while it holds what it started with); and at which step.
The page spells them out (web/src/figure/ui/hover.js). Its values at the figure's sizes are the page's to give (they
come from a NumPy run, which this library, standard library only, does not make: see ``kernelviz.site.answers``).
"""

MEMORY = {"hbm": "h", "sram": "s", "reg": "r"}  # HBM, shared memory, registers
# how a slot's content came: r read from HBM (from the tile named), w written to HBM (from the slot named), W written
# to HBM in place (a reset), x copied on chip (from the slot named), c computed on chip, s stale (the tile before's)
HOW = ("r", "w", "W", "x", "c", "s")


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
    """How `event` brought what `slot` holds (``HOW``, with its source's name), and the HBM bytes that moved."""
    src = event.src
    name = src.name if src is not None else ""
    if event.how == "copy" and src is not None and src.memory == "hbm":
        return f"r:{name}", src.bytes
    if event.how == "copy" and slot.memory == "hbm":
        return f"w:{name}", slot.bytes
    if event.how == "copy":
        return f"x:{name}", 0
    if event.after.get("stale"):
        return "s", 0
    if slot.memory == "hbm":
        return "W", slot.bytes
    return "c", 0


def facts(fig, slot, k, arrived=True):
    """The ``kv`` of an item drawing `slot` at step k (module docstring). `arrived` False: its frame's, which says
    what the slot is, not how its content came."""
    parent = getattr(slot, "parent", None)
    level = (parent or slot).memory
    block, owner = fig.steps[k].block, getattr(parent or slot, "owner", None)
    of = f"block {block[0]}" + (f", {owner}" if owner else "") if level != "hbm" and block is not None else ""
    via, moved, at = "", slot.bytes if level == "hbm" else 0, ""
    change = arrivals(fig, k).get(slot) if arrived else None
    if change is not None and change[0] > 0:
        (via, moved), at = how(slot, change[1]), change[0]
    return "slot:" + "|".join(str(x) for x in (slot.name, MEMORY.get(level, level), of, moved, via, at))
