"""Places that hold data, and what they hold: slots in HBM, in a block's shared memory (SRAM) and in registers.

A ``Slot`` is a w by h box centred at (x, y), in canvas units, y up. What a slot holds is a ``look``: a dict with
``label``, ``fill``, ``stroke`` (colours, usually ``@name`` from the palette), ``level`` (how many K, V tiles have
been folded into it: its shade) and ``stale`` (True while it holds a value that a new tile has made useless).

A ``Tensor`` is a matrix in HBM cut into tiles of ``tile`` rows (the last one ragged when ``tile`` does not divide
``rows``): a list of tile slots, each knowing its ``bytes`` (``itemsize`` bytes an element: float32's 4 unless
told), which is what the HBM counter adds up when a tile is read or written.
"""

from .sizing import used

BYTES = 4  # float32: an element's bytes unless a tensor says otherwise


def look(label="", fill="none", stroke="@edge", level=0, stale=False):
    """What a slot holds, as drawn (see the module docstring)."""
    return {"label": label, "fill": fill, "stroke": stroke, "level": level, "stale": stale}


class Slot:
    """A place that holds data (see the module docstring). `memory`: 'hbm', 'sram' (drawn only while its block is in
    view, framed, with `caption` under it) or 'reg' (in view with its block, unframed unless it is a warp's:
    ``Figure.reg``). `holds`: the look it starts with. `kind`: the palette name of what it is ('q', 'm', 'o', ...),
    for its colours. `bytes`: its size in HBM, or, for a slot of shared memory that counts its traffic, in SRAM.
    `cells`: the slots it is made of (the Br by Bc cells of Sij), filled one by one."""

    def __init__(self, name, x, y, w, h, memory="hbm", holds=None, kind=None, font=13, caption=None, bytes=0):
        self.name, self.x, self.y, self.w, self.h = name, x, y, w, h
        self.memory, self.holds, self.kind, self.font, self.bytes = memory, holds, kind, font, bytes
        self.frame = memory == "sram"
        self.caption = (name if self.frame else "") if caption is None else caption
        self.cells = []
        self.caption_drop = 0  # canvas units: how far under its place its caption is drawn (layout.stagger)

    def __repr__(self):
        return f"Slot({self.name!r})"

    @property
    def left(self):
        return self.x - self.w / 2

    @property
    def bottom(self):
        return self.y - self.h / 2


class Tensor(list):
    """The tiles of a matrix in HBM, in order (a list of Slots), with its name, rows and columns. Indexing past the
    last tile raises IndexError saying how many tiles there are at which sizes, and which size gives more."""

    def __init__(self, name, rows, cols, tile, tiles, itemsize=BYTES):
        super().__init__(tiles)
        self.cuts = list(tile) if isinstance(tile, (list, tuple)) else None  # tiles of several sizes
        tile = max(self.cuts) if self.cuts else tile
        self.name, self.rows, self.cols, self.tile, self.itemsize = name, rows, cols, tile, itemsize

    def __getitem__(self, index):
        if isinstance(index, int) and not -len(self) <= index < len(self):
            raise IndexError(too_few_tiles(self, index))
        return super().__getitem__(index)

    @property
    def bytes(self):
        return self.rows * self.cols * self.itemsize


def size_name(value):
    """The name of the size `value` is: its own (a ``sizing.Size``), or that of the only size the kernel's
    ``sizes`` call gave this value; None when there is none or several."""
    if getattr(value, "name", None):
        return value.name
    names = [n for n, v in used().items() if v == value]
    return names[0] if len(names) == 1 else None


def too_few_tiles(tensor, index):
    """Why `tensor`[`index`] is not a tile, in the reader's sizes: 'K[2]: K has 2 tiles at N = 8, Bc = 4 (K[0] to
    K[1]); 3 tiles need N = 12: set it in the size form beside the figure, or in sizes(...)'. A size is named
    when it came from ``sizes`` (a ``sizing.Size``) or is the only size of its value, else given as rows."""
    name, count, rows, tile = tensor.name, len(tensor), tensor.rows, tensor.tile
    if tensor.cuts:  # tiles of several sizes: no one size gives more
        have = f"{name}[0] to {name}[{count - 1}]" if count > 1 else f"only {name}[0]"
        return f"{name}[{index}]: {name} has {count} tile{'s' if count != 1 else ''} ({have})"
    rows_name, tile_name = size_name(rows), size_name(tile)
    at = f"{rows_name} = {rows}" if rows_name else f"{rows} rows"
    at += f", {tile_name} = {tile}" if tile_name else f" in tiles of {tile}" if tile != 1 else ""
    have = f"{name}[0] to {name}[{count - 1}]" if count > 1 else f"only {name}[0]"
    says = f"{name}[{index}]: {name} has {count} tile{'s' if count != 1 else ''} at {at} ({have})"
    if index < 0:
        return says
    need = (index + 1) * tile
    if not rows_name:
        return f"{says}; {index + 1} tiles need {need} rows"
    where = "set it in the size form beside the figure, or in sizes(...)"
    return f"{says}; {index + 1} tiles need {rows_name} = {need}: {where}"


def tile_rows(rows, tile):
    """The number of rows of each tile when `rows` rows are cut into tiles of `tile`: the last one may be short.
    `tile` may also be the list of the tiles' rows itself (cuts of several sizes), which must add up to `rows`."""
    if isinstance(tile, (list, tuple)):
        if not tile or any(not isinstance(n, int) or n < 1 for n in tile) or sum(tile) != rows:
            raise ValueError(f"hbm: tile must be a size or a list of positive rows adding up to {rows}, got {tile!r}")
        return list(tile)
    return [min(tile, rows - start) for start in range(0, rows, tile)]


def flat(slots):
    """A slot, or a (nested) list of slots, as one flat list."""
    if not isinstance(slots, (list, tuple)):
        return [slots]
    return [s for x in slots for s in flat(x)]


def spread(widths, gap, centre=0.0):
    """The centres of boxes of `widths` side by side, `gap` apart, the row centred on `centre`."""
    total = 0.0
    for w in widths:  # not sum(): Python 3.12 (Pyodide) sums floats more exactly than 3.11, and the two must agree
        total += w
    x, centres = centre - (total + gap * (len(widths) - 1)) / 2, []
    for w in widths:
        centres.append(x + w / 2)
        x += w + gap
    return centres
