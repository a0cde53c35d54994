"""Progress for work that takes seconds (a build's stages, verify's kernel runs): a tqdm bar on stderr, only on a
terminal, so pipes and logs stay clean; it clears itself when done. A bar draws only once `delay` (DELAY) seconds
have passed, so quick work shows nothing; a bar that names stages with ``set_postfix_str`` draws at once, so it is
made with delay=0 (or it would not clear itself). A terminal that reports no size (0 columns: some terminal emulators
and tools that run commands in a pseudo-terminal) gets a bar of WIDTH columns on a screen of HEIGHT rows, not none
(tqdm hides a bar past a screen's last row, and there is none in 0 rows).

    with progress.bar(total=3, desc="build", unit="stage", enabled=True) as bar:
        bar.set_postfix_str("math")
        bar.update()
"""

import io
import os
import sys

from tqdm import tqdm

DELAY = 2.0  # seconds before a bar appears
WIDTH, HEIGHT = 80, 24  # a bar's columns and the screen's rows on a terminal that reports no size


def bar(total=None, desc="", unit="it", enabled=True, file=None, delay=None, unit_scale=False):
    """A tqdm bar; `enabled=False` (a library caller) makes one that draws nothing but can still be updated.
    `unit_scale`: counts in k, M, G (bytes)."""
    file = file or sys.stderr
    sized = _columns(file) > 0  # tqdm draws nothing at all in 0 columns and 0 rows
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        disable=None if enabled else True,  # None: only on a terminal
        delay=DELAY if delay is None else delay,
        leave=False,
        file=file,
        dynamic_ncols=sized,
        ncols=None if sized else WIDTH,
        nrows=None if sized else HEIGHT,
    )


def _columns(file):
    """The width of the terminal `file` writes to: 0 when it reports none, -1 when it is no terminal (tqdm's
    default width applies)."""
    try:
        return os.get_terminal_size(file.fileno()).columns
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return -1
