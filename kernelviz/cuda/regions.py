"""Regions of the .cu files (and of the headers they include: mma_sm80.h) that pages cite as ``FILE.cu#NAME``.

A region is the lines between ``// region: NAME`` and the next ``// endregion`` in a file of this folder; the marker
lines are not part of it, and its common indentation is removed. Regions may nest; names are unique per file.

`excerpt(citation)` is the region as a page shows it: with the lines around it that it needs to read on its own
(the loop headers and function that enclose it, the declarations of the names it uses; see scope.Source.context).
"""

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from .scope import Source

FOLDER = Path(__file__).parent
_START = re.compile(r"^\s*//\s*region:\s*(\S+)\s*$")
_END = re.compile(r"^\s*//\s*endregion\b")


class RegionError(ValueError):
    """A missing file or region, or unbalanced markers; the message names the file and line."""


def regions(filename):
    """{name: (first line, last line, text)} of every region of `filename` (lines from 1, markers excluded).
    `filename` names a file under this folder (``fa2.cu``); a path that leads out of it (``../x``, ``/etc/x``, a link
    to elsewhere) is a RegionError, so a page can cite the kernels and nothing else on disk."""
    lines = _path(filename).read_text().splitlines()
    found, open_ = {}, []
    for n, line in enumerate(lines, 1):
        if m := _START.match(line):
            if m.group(1) in found or any(name == m.group(1) for name, _ in open_):
                raise RegionError(f"{filename}:{n}: region {m.group(1)!r} is defined twice")
            open_.append((m.group(1), n))
        elif _END.match(line):
            if not open_:
                raise RegionError(f"{filename}:{n}: endregion without a region")
            name, start = open_.pop()
            body = [x for x in lines[start : n - 1] if not (_START.match(x) or _END.match(x))]
            found[name] = (start + 1, n - 1, textwrap.dedent("\n".join(body)))
    if open_:
        name, start = open_[-1]
        raise RegionError(f"{filename}:{start}: region {name!r} has no endregion")
    return found


def _path(filename):
    """The path of `filename` under this folder; RegionError for a path that leads out of it or a missing file."""
    folder = FOLDER.resolve()
    try:
        path = (folder / filename).resolve()
    except (OSError, ValueError):  # a NUL byte, a loop of links
        path = None
    if path is None or not path.is_relative_to(folder):
        raise RegionError(f"{filename!r} is not a file of the kernels folder {FOLDER}; cite FILE.cu#REGION")
    if not path.is_file():
        raise RegionError(f"no CUDA file {filename!r} in {FOLDER}")
    return path


def _cited(citation):
    """(filename, name, (first, last, text)) of ``FILE.cu#NAME``; RegionError when it is missing."""
    filename, _, name = citation.partition("#")
    found = regions(filename)
    if name not in found:
        raise RegionError(f"{filename} has no region {name!r}; it has {', '.join(found) or 'none'}")
    return filename, name, found[name]


def region(citation):
    """The text of the region that ``FILE.cu#NAME`` cites."""
    return _cited(citation)[2][2]


def is_marker(line):
    """Whether `line` is a ``// region: NAME`` or ``// endregion`` line."""
    return bool(_START.match(line) or _END.match(line))


def source(filename):
    """The scope.Source of `filename` (a file of this folder), whose marker lines are never shown."""
    return Source(_path(filename).read_text(), skip=is_marker)


@dataclass(frozen=True)
class Excerpt:
    """A region and the lines shown with it: `numbers`, sorted (lines from 1), of `source`."""

    filename: str
    name: str
    first: int  # the region's first and last lines
    last: int
    numbers: tuple
    source: Source


def excerpt(citation):
    """The Excerpt of ``FILE.cu#NAME``: the region, with the lines it needs to read on its own. RegionError as
    `region`."""
    filename, name, (first, last, _) = _cited(citation)
    src = source(filename)
    return Excerpt(filename, name, first, last, tuple(src.context(first, last)), src)
