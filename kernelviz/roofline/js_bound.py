"""The roofline's units as data for the browser: ``web/.gen/bound.js`` exports ``BOUND_UNITS`` (``roofline.BOUND_UNITS``
as {unit: {counts: [count], rate: the GPU's figure}}), which web/src/roofline/model.js's ``bound`` evaluates as
``roofline.bound`` does: one table, no hand port. The web build (``web/build.mjs``) runs it,

    python3 -m kernelviz.roofline.js_bound web/.gen
"""

import json
import sys
from pathlib import Path

from . import BOUND_UNITS

HEADER = "// Generated from kernelviz/roofline/__init__.py by kernelviz/roofline/js_bound.py: do not edit.\n"


def module_text():
    """The text of bound.js."""
    units = {unit: {"counts": list(counts), "rate": rate} for unit, (counts, rate) in BOUND_UNITS.items()}
    return HEADER + f"export const BOUND_UNITS = {json.dumps(units, indent=2, ensure_ascii=False)};\n"


def write(out_dir):
    """Write bound.js into `out_dir` (left alone when unchanged); its path."""
    path = Path(out_dir) / "bound.js"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = module_text()
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 -m kernelviz.roofline.js_bound OUT_DIR")
    write(sys.argv[1])
