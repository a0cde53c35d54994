"""The record of a kernel's steps on HBM and SRAM: what the kernel editor's loops call.

    fig = Figure('Q, K and V wait in HBM; no block has started')
    Q = fig.hbm('Q', rows=N, cols=d, tile=Br, kind='q')         # a Tensor: its tiles are slots in HBM
    Qi = fig.sram('Qi', rows=Br, cols=d, kind='q')                # a slot in the shared memory of a block
    fig.blocks(Tr)                                               # the grid of CUDA blocks
    fig.zoom(0, [Qi, ...]); fig.step('zoom', 'block 0: its shared memory', i=0)
    fig.copy(Q[0], Qi); fig.step('load Q', 'load Q0', i=0)       # reads Q0's bytes from HBM
    fig.draw('fa2')                                              # lays out from the sizes, draws with pie

Each action records into the step being built; ``step(action, caption, label=None, **at)`` ends it with its key
(``action`` then each loop index as ``name=value``: ``'load K,V i=0 j=1'``), its loop indices ``at``, its label in
the step list (in words, with the tensors' names: ``'block 0 · j = 1 · load K1, V1'``) and its caption. The
HBM counter adds the bytes of every tile copied from or to HBM, and of every HBM tile ``reset`` writes.

A figure whose shared memory says its ``itemsize`` also counts the traffic of SRAM, as a second counter: a copy from
HBM stores the whole slot (a ragged tile is padded, as a kernel pads it with zeros); a copy between SRAM and
registers (``reg``: a warp's registers) moves as many elements as the register slot holds, at the SRAM slot's size
an element (a warp that loads its 16 rows of a 64-row tile loads 16 rows' bytes); a copy from SRAM to HBM (a TMA
store) reads the whole slot. ``access`` counts what the drawing shows no copy for: an instruction reading its
operands where they lie in shared memory (``wgmma``), the zeros a TMA writes for rows past a tensor's end.
"""

from .layout import UNIT
from .memory import BYTES, Slot, Tensor, flat, look, tile_rows
from .timeline import Timeline

SHADES = 4  # a carry darkens one shade per tile folded into it, up to @kind-4
MASKED = {"fill": "@paper", "stroke": "@edge"}  # a score the causal mask hides


class Event:
    """How a slot changes in a step: 'copy' (flies in from `src`) or 'paint' (changes in place). `before`, `after`:
    what it holds at the start and the end of the step. `n` of `of`: its turn, when slots change one by one."""

    def __init__(self, how, before, after, src=None, n=0, of=1):
        self.how, self.before, self.after, self.src, self.n, self.of = how, before, after, src, n, of


class Step:
    """One recorded step: its key, loop indices and caption; what every slot holds at its end (`holds`); how the
    step changed the slots (`events`); the block in view (`block`: (square, slots) or None); HBM bytes so far; its
    label in the step list (by default its key); SRAM bytes so far (`shared`, when the figure counts them)."""

    def __init__(self, key, at, caption, holds, events, block, hbm, label=None, shared=0):
        self.key, self.at, self.caption, self.label = key, at, caption, label or key
        self.holds, self.events, self.block, self.hbm, self.shared = holds, events, block, hbm, shared


class Figure:
    """The record of a kernel's steps, and its drawing (``draw``). `caption`: what the canvas says before the first
    step. `d`: the head dimension the tensors are drawn with (the sizes of the counter's bytes)."""

    def __init__(self, caption="Setup ready"):
        self.tensors, self.slots, self.groups, self.count = [], [], {}, 0
        self.holds, self.pending, self.block, self.hbm_bytes, self.shared_bytes = {}, {}, None, 0, 0
        self.steps = [Step("start", {}, caption, {}, {}, None, 0)]
        self.time = None  # the Timeline drawn beside the shared memory and registers (``timeline``), if any

    # ---- what the figure is made of ----

    def hbm(self, name, rows, cols=1, tile=1, kind=None, empty=False, label=None, width=None, itemsize=BYTES):
        """A matrix in HBM of `rows` by `cols` elements of `itemsize` bytes (float32's 4; 2 for float16), cut into
        tiles of `tile` rows (or of the rows of each tile, a list): a Tensor of slots named name + tile index
        (``label``: a function of the index for another name). `kind`: its palette colours (@kind and @kind-fill);
        `empty`: it holds nothing yet (an output); `width`: its width in canvas units, by default from `cols`."""
        name_of = label or (lambda t: f"{name}{t}")
        tiles = []
        for t, n in enumerate(tile_rows(rows, tile)):
            holds = None if empty else look(name_of(t), f"@{kind}-fill", f"@{kind}")
            slot = Slot(name_of(t), 0, 0, 0, 0, "hbm", holds, kind, bytes=n * cols * itemsize)
            slot.rows, slot.frame, slot.caption = n, empty, ""  # an empty tile: a frame, waiting for its result
            tiles.append(slot)
        tensor = Tensor(name, rows, cols, tile, tiles, itemsize)
        tensor.width = width
        self.tensors.append(tensor)
        self.slots.extend(tiles)
        return tensor

    def sram(self, name, rows, cols, kind=None, cells=False, group="block", memory="sram", caption=None, row=0,
             width=None, itemsize=None, height=None):  # fmt: skip
        """A slot of `rows` by `cols` in the shared memory of a block (`memory='reg'`: in its registers, drawn
        under it, in register row `row`). `group`: which kernel's blocks have it (a figure of two kernels has
        two). `cells`: it is drawn as rows x cols cells that fill one by one (Sij); ``cells="rows"``: a cell a row
        (Og: a row a head), which the kernel paints with the slot (``fig.update(Og, Og.cells)``). `width`: its width
        in canvas units, by default from `cols`; `height`: its height, by default every slot's (``layout.SLOT_HEIGHT``;
        a tile whose cells are read one by one needs more). `itemsize`: its elements' bytes, when the figure counts
        SRAM's traffic (see the module docstring)."""
        slot = Slot(name, 0, 0, 0, 0, memory, None, kind, caption=caption, bytes=rows * cols * (itemsize or 0))
        slot.rows, slot.cols, slot.group, slot.row, slot.width = rows, cols, group, row, width
        slot.itemsize, slot.owner, slot.height = itemsize, None, height
        self.slots.append(slot)
        self.groups.setdefault(group, []).append(slot)
        if cells not in (False, True, "rows"):
            raise ValueError(f"sram: {name}: cells must be True, False or 'rows', got {cells!r}")
        slot.cell_cols = 1 if cells == "rows" else cols
        if cells:
            slot.cells = [
                Slot(f"{name} {r},{c}", 0, 0, 0, 0, "reg") for r in range(rows) for c in range(slot.cell_cols)
            ]
            for cell in slot.cells:
                cell.group, cell.parent, cell.kind = group, slot, kind  # (the slot's colours: reset, update)
            self.slots.extend(slot.cells)
        return slot

    def reg(self, name, rows, cols, kind=None, owner="warp 0", cells=False, group="block", width=None, caption=None):
        """A slot of `rows` by `cols` in the registers of `owner` (a warp): the registers are a memory level of
        their own, under the shared memory, a row for each owner, named at its left, like a table whose columns
        are what every owner holds: only the last row's slots show their `caption` (by default their name), under
        them, as the columns' heads. Each is framed, empty, while its block is in view (a register is there before
        it holds anything). `cells`, `group`, `width`: as for ``sram``."""
        slot = self.sram(name, rows, cols, kind, cells, group, "reg", width=width)
        slot.owner, slot.column, slot.frame = owner, name if caption is None else caption, True
        return slot

    def timeline(self, lanes, rates, title="time"):
        """A Timeline (figlib.timeline) beside the on-chip memory: `lanes` [(name, colour)], `rates` {key: count per
        second}. Each action scheduled on it (``Timeline.act``) belongs to the step being recorded: drawn filled once
        the player is past that step, outlined in ink at it, an empty frame before it."""
        self.time = Timeline(lanes, rates, title, clock=lambda: len(self.steps))
        return self.time

    def blocks(self, count):
        """The grid of `count` CUDA blocks, one square each; `zoom` shows one of them."""
        self.count = count

    # ---- the actions of a step ----

    def now(self, slot):
        """What `slot` holds now, this step's actions included."""
        return self.pending[slot].after if slot in self.pending else self.holds.get(slot, slot.holds)

    def _event(self, slot, how, after, src=None, n=0, of=1):
        before = self.pending[slot].before if slot in self.pending else self.holds.get(slot, slot.holds)
        self.pending[slot] = Event(how, before, after, src, n, of)

    def zoom(self, block, slots):
        """From this step on, SRAM shows the shared memory of block `block` (an index into the grid): `slots`
        (with their cells), empty, as they are when a block starts."""
        if not 0 <= block < self.count:
            raise ValueError(
                f"zoom: block {block} is not in the grid of {self.count} blocks (fig.blocks(count)): a loop over "
                "more blocks than the sizes give; change the sizes in the form beside the figure or in sizes(...)"
            )
        shown = flat(slots)
        self.block = (block, shown + [c for s in shown for c in s.cells])
        for s in self.block[1]:
            self.holds[s] = s.holds

    def copy(self, src, dst, label=None, rows=None):
        """Copy what each slot of `src` holds into the matching slot of `dst` (slots or lists of slots): a tile
        from HBM into SRAM (its bytes are read from HBM), or a result back (its bytes are written; it is labelled
        with the name of its place in HBM, or with `label`). `rows`: only the first `rows` rows of each HBM tile
        of `src` are read (a page the sequence fills in part), and only their bytes count."""
        src, dst = flat(src), flat(dst)
        if len(src) != len(dst):
            raise ValueError(f"copy: {len(src)} slots to copy into {len(dst)}")
        for a, b in zip(src, dst, strict=True):
            moved = dict(self.now(a) or look())
            if b.memory == "hbm" or not moved["label"]:  # a result in HBM is named by its place there
                moved["label"] = b.name
            if label is not None:
                moved["label"] = label
            if a.memory == "hbm":
                self.hbm_bytes += a.bytes if rows is None else a.bytes * min(rows, a.rows) // a.rows
            if b.memory == "hbm":
                self.hbm_bytes += b.bytes
            self.shared_bytes += shared_traffic(a, b)
            self._event(b, "copy", moved, src=a)

    def access(self, *slots):
        """Count the bytes of each of `slots` (slots of shared memory, or lists of them) as SRAM traffic once, drawing
        nothing: an access the figure shows no copy for (``wgmma`` reading its operands where they lie; the TMA
        writing zeros for the rows of its box past a tensor's end). A slot that is not in shared memory, or does
        not say its itemsize, counts nothing (the figure does not count SRAM's traffic)."""
        self.shared_bytes += sum(s.bytes for s in flat(list(slots)) if s.memory == "sram" and getattr(s, "itemsize", 0))

    def paint(self, slots, in_turn=False, **fields):
        """Change what `slots` hold in place: `fields` (label, fill, stroke, level, stale) replace theirs. With
        `in_turn`, one after another, like the cells of a matrix being computed."""
        slots = flat(slots)
        for n, s in enumerate(slots):
            after = {**(self.now(s) or look()), **fields}
            self._event(s, "paint", after, n=n if in_turn else 0, of=len(slots) if in_turn else 1)

    def reset(self, *slots, label=""):
        """Start each slot afresh (O = 0, l = 0, m = -inf): empty, outlined in its colour, showing `label` (an HBM
        slot: by default its name). An HBM slot is written: its bytes count."""
        for s in flat(slots):
            hbm = s.memory == "hbm"
            self.hbm_bytes += s.bytes if hbm else 0
            shown = label or (s.name if hbm else "")
            self.paint(s, label=shown, fill="@paper", stroke=f"@{s.kind}", level=0, stale=False)

    def fill(self, slot, masked=None):
        """The cells of `slot` (Sij) fill one after another, in the other shade than the tile before. `masked`: a
        function (row, col) -> bool of the cells a mask hides (their score is -inf): they are drawn masked, empty
        (@paper) in an @edge outline (``MASKED``), in their turn among the others."""
        level = (self.now(slot.cells[0]) or look())["level"] + 1
        self.paint(slot.cells, in_turn=True, fill=f"@s-{2 - level % 2}", stroke="@s", level=level, stale=False)
        if masked is not None:
            for n, cell in enumerate(slot.cells):
                if masked(*divmod(n, slot.cols)):
                    self.pending[cell].after.update(MASKED)

    def update(self, *slots, label=None):
        """Each slot absorbs one more tile: it turns a shade darker (@kind-1 to @kind-4) and is no longer stale;
        `label`, if given, is what it shows now (a value)."""
        for s in flat(slots):
            level = (self.now(s) or look())["level"] + 1
            shown = {} if label is None else {"label": label}
            self.paint(s, fill=f"@{s.kind}-{min(level, SHADES)}", stroke=f"@{s.kind}", level=level, stale=False,
                       **shown)  # fmt: skip

    def stale(self, *slots):
        """What `slots` (or their cells) hold was computed from the tile just replaced: grey until updated."""
        for s in flat(slots):
            held = [c for c in s.cells or [s] if (self.now(c) or look())["level"] > 0]
            if held:
                self.paint(held, fill="@stale", stale=True)

    def start(self):
        """Make what was recorded so far (a block in view, slots reset to their first values) the figure as it
        opens: step 0, with the caption given to ``Figure``, which no step animates into. Only before the first
        ``step``; without it the figure opens on HBM alone."""
        if len(self.steps) > 1:
            raise ValueError("start: the figure's opening is recorded before its first step (fig.step)")
        first, (holds, _) = self.steps[0], self._settle()
        self.steps[0] = Step(first.key, first.at, first.caption, holds, {}, self.block, self.hbm_bytes,
                             shared=self.shared_bytes)  # fmt: skip

    def step(self, action, caption, label=None, **at):
        """End the step being recorded. Its key is `action` followed by each loop index of `at` as name=value
        ('load K,V i=0 j=1'): what bullets and CUDA blocks bind to. `label` names it in the step list, in words
        with the tensors' names ('block 0 · j = 1 · load K1, V1'; by default the key); `caption` says in a sentence
        what it does. Keys need not be unique; square brackets are not allowed in keys or labels (they are
        Markdown-hostile: a bullet names a step as [step: KEY])."""
        key = " ".join([action, *(f"{n}={v}" for n, v in at.items())])
        if label is not None and (not isinstance(label, str) or not label.strip()):
            raise ValueError(f"step: {key!r}: label must be a non-empty string, got {label!r}")
        for what, text in (("key", key), ("label", label or "")):
            if "[" in text or "]" in text:
                raise ValueError(f"step: {text!r}: a step's {what} has no square brackets")
        holds, changes = self._settle()
        self.steps.append(Step(key, dict(at), caption, holds, changes, self.block, self.hbm_bytes, label,
                               self.shared_bytes))  # fmt: skip

    def _settle(self):
        """End what is being recorded: each pending change becomes what its slot holds. (What every slot holds now,
        the changes.)"""
        changes, self.pending = self.pending, {}
        for s, e in changes.items():
            self.holds[s] = e.after
        return {s: self.holds.get(s, s.holds) for s in self.slots}, changes

    @property
    def counts_shared(self):
        """Whether the figure counts SRAM's traffic: some slot of shared memory says its itemsize."""
        return any(getattr(s, "itemsize", None) for s in self.slots)

    def draw(self, name, unit=UNIT):
        """Lay the figure out from its sizes and put it on the canvas (see ``draw``)."""
        from .draw import draw

        draw(self, name, unit)


def shared_traffic(src, dst):
    """The bytes a copy from `src` to `dst` moves through SRAM (see the module docstring): 0 unless one end is a
    slot of shared memory that says its itemsize."""
    counted = lambda s: s.memory == "sram" and getattr(s, "itemsize", None)  # noqa: E731
    if counted(dst) and src.memory == "hbm":
        return dst.bytes
    if counted(dst) and src.memory == "reg":
        return src.rows * src.cols * dst.itemsize
    if counted(src) and dst.memory == "reg":
        return dst.rows * dst.cols * src.itemsize
    if counted(src) and dst.memory == "hbm":
        return src.bytes
    return 0
