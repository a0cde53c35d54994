"""How numbers are said, as data for the browser: ``web/.gen/words.js`` exports ``BINARY_UNITS`` and ``TIME_UNITS``
(``words.py``'s tables, which ``words.size`` and the roofline command's times read), so web/src/roofline/words.js says
bytes and times from the same units as the command line. The web build (``web/build.mjs``) runs it,

    python3 -m kernelviz.attention.js_words web/.gen
"""

import json
import sys
from pathlib import Path

from .words import BINARY_UNITS, TIME_UNITS

HEADER = "// Generated from kernelviz/attention/words.py by kernelviz/attention/js_words.py: do not edit.\n"


def module_text():
    """The text of words.js."""
    units = json.dumps(list(BINARY_UNITS), ensure_ascii=False)
    times = json.dumps([list(t) for t in TIME_UNITS], ensure_ascii=False)
    return HEADER + f"export const BINARY_UNITS = {units};\nexport const TIME_UNITS = {times};\n"


def write(out_dir):
    """Write words.js into `out_dir` (left alone when unchanged); its path."""
    path = Path(out_dir) / "words.js"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = module_text()
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 -m kernelviz.attention.js_words OUT_DIR")
    write(sys.argv[1])
