"""The sizes a kernel editor draws at: its defaults, overridden by the sizes the runner was given.

    N, Br, Bc = sizes(N=8, Br=4, Bc=4)   # in the kernel editor
    N, causal = sizes(N=8, causal=0)     # a size whose default is 0 may be 0: a switch (0 off, 1 on)
    N, N_kv = sizes(N=8, N_kv="N")       # a size whose default is another (earlier) size: N_kv is N unless given

returns the defaults in the order they are named, each replaced by the size of that name the runner was given
(``runner.run(sources, sizes={"N": 12})``: the size form of the page, a prerendered scene, a test). The names and
the values used are remembered (``used()``), so the site builder knows which sizes a page's figure has, and so are
the sizes whose default is another size (``tied()``: {"N_kv": "N"}), which the page's size form keeps equal to it
while the reader leaves them so, and which are prerendered equal to it. The names
are the glossary's (``kernelviz.glossary``): an old one (``n_splits``) works, with a warning naming the new one
(``splits``) on stderr, and the size is then given and remembered under the new name. Each value is a ``Size``: an
int that knows its name, so that the figure library can say which size to change when a loop asks for a tile a
tensor does not have ("K has 2 tiles at N = 8, Bc = 4").
"""

import sys

from .. import glossary

_given = {}  # name -> int: what the runner was given for the run in progress
_used = {}  # name -> int: what the last call of sizes() returned
_tied = {}  # name -> name: the sizes of the last call whose default is another size


class Size(int):
    """A size the kernel editor was given: an int (arithmetic on it gives plain ints) with its `name` ('N')."""

    def __new__(cls, value, name):
        size = super().__new__(cls, value)
        size.name = name
        return size

    def __repr__(self):
        return int.__repr__(self)

    __str__ = __repr__


def _checked(func, name, value, least=1):
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ValueError(f"{func}: {name} must be a whole number at least {least}, got {value!r}")
    return value


def give(given):
    """Set the sizes for the run that follows (`given`: a dict name -> int, or None for none) and forget the last
    call's. The values are checked by the kernel's sizes() call, so a bad one is an error at that line."""
    if given is not None and not isinstance(given, dict):
        raise TypeError(f"sizes: the sizes given to the runner must be a dict of name -> int, got {given!r}")
    _given.clear()
    _given.update({str(n): v for n, v in (given or {}).items()})
    _used.clear()
    _tied.clear()


def sizes(**defaults):
    """The sizes named by `defaults` (name=default), in that order, as a tuple: each default replaced by the size
    of that name the runner was given. Raises ValueError when a default or a given size is not a whole number >= 1
    (>= 0 for a size whose default is 0), when a default that is a name (N_kv="N") is not that of a size named before
    it with a number, or when the runner was given a size this call does not name (so a misspelt size in a URL is an
    error, not ignored)."""
    if not defaults:
        raise TypeError("sizes: name at least one size with its default, e.g. sizes(N=8, Br=4, Bc=4)")
    defaults = _named(defaults, "sizes")
    given = _named(_given, "sizes (given to the runner)")
    tied = {n: v for n, v in defaults.items() if isinstance(v, str)}
    for name, value in defaults.items():
        if name in tied:
            before = [n for n in list(defaults)[: list(defaults).index(name)] if n not in tied]
            if value not in before:
                raise ValueError(
                    f"sizes: {name}={value!r} must name a size given a number before it "
                    f"({', '.join(before) or 'none here'}), e.g. sizes(N=8, N_kv='N')"
                )
            continue
        _checked("sizes", name, value, least=0 if value == 0 else 1)
        if value == 0 and name in given:
            _checked("sizes (given to the runner)", name, given[name], least=0)
    for name, value in given.items():
        if defaults.get(name) != 0:
            _checked("sizes (given to the runner)", name, value)
    unknown = [n for n in given if n not in defaults]
    if unknown:
        raise ValueError(
            f"sizes: the runner was given {', '.join(f'{n}={given[n]}' for n in unknown)}, "
            f"but this kernel's sizes are {', '.join(defaults)}"
        )
    _used.clear()
    for n, d in defaults.items():
        _used[n] = given.get(n, _used[d] if n in tied else d)
    _tied.clear()
    _tied.update(tied)
    return tuple(Size(v, n) for n, v in _used.items())


def _named(sizes, where):
    """`sizes` named as in the glossary; each old name is a line on stderr (which the runner keeps and the editor
    shows), every time, unlike Python's warnings, which show once and which a test harness may catch."""
    sizes, messages = glossary.canonical(sizes, where)
    for message in messages:
        print(f"warning: {message}", file=sys.stderr)
    return sizes


def tied():
    """{name: the size its default is} of the last call of sizes() since the runner started ({"N_kv": "N"})."""
    return dict(_tied)


def used():
    """{name: value} of the last call of sizes() since the runner started, in its order; {} when none."""
    return dict(_used)


class _Dealt(list):
    """split_tiles' list: indexing past the last split says how many splits there are, and which size makes more."""

    def __getitem__(self, index):
        if isinstance(index, int) and not -len(self) <= index < len(self):
            n = len(self)
            raise IndexError(
                f"split {index}: there are {n} splits at splits = {n} (0 to {n - 1}); {index + 1} splits need "
                f"splits = {index + 1}: set it in the size form beside the figure, or in sizes(...)"
            )
        return super().__getitem__(index)


def split_tiles(tiles, splits):
    """Flash decoding's partition of `tiles` K/V tiles among `splits` splits, as flash-attn's split-KV kernel deals
    them (n_blocks_per_split): ceil(tiles / splits) whole tiles a split, in order, so trailing splits may own fewer
    or none (4 tiles in 3 splits: [0, 1], [2, 3], []). A list of `splits` ranges of tile indices. The same partition
    as attention.flash_decoding.split_tiles and cuda/flash_decoding.cu's tiles_per_split (tested equal)."""
    per = -(-tiles // splits)
    return _Dealt(range(min(s * per, tiles), min((s + 1) * per, tiles)) for s in range(splits))
