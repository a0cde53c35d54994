"""Progress for work that takes seconds (a build's stages, verify's kernel runs): a tqdm bar on stderr, only on a
terminal, so pipes and logs stay clean; it clears itself when done. A bar draws only once `delay` (DELAY) seconds
have passed, so quick work shows nothing; a bar that names stages with ``set_postfix_str`` draws at once, so it is
made with delay=0 (or it would not clear itself).

    with progress.bar(total=3, desc="build", unit="stage", enabled=True) as bar:
        bar.set_postfix_str("math")
        bar.update()
"""

import sys

from tqdm import tqdm

DELAY = 2.0  # seconds before a bar appears


def bar(total=None, desc="", unit="it", enabled=True, file=None, delay=None, unit_scale=False):
    """A tqdm bar; `enabled=False` (a library caller) makes one that draws nothing but can still be updated.
    `unit_scale`: counts in k, M, G (bytes)."""
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        disable=None if enabled else True,  # None: only on a terminal
        delay=DELAY if delay is None else delay,
        leave=False,
        file=file or sys.stderr,
        dynamic_ncols=True,
    )
