"""The CUDA blocks' lines and the C arithmetic of their values, computed by the browser's own code
(web/src/page/cuda-code.js and c-expr.js, bundled into the runtime's ``build-time/cuda-blocks.js``) in the builder's
embedded V8 (``js``): one implementation serves the page the builder writes and the page the reader opens.

    texts(blocks, file, sizes, web_dist)     # [each block's lines as plain text]: what a block holds before it is
                                             # opened, and with JavaScript off
    htmls(blocks, file, sizes, web_dist)     # [... as the HTML the browser renders when it is opened]
    evaluate(expr, values, web_dist)         # the integer value of a C expression, or None

`blocks` and `file` are the data the builder writes (see cuda-code.js): each block's lines, region, notes, indices
and host formulas, and the cited kernel's lines as highlighted tokens. Raises BuildError when the runtime has no
such script.
"""

from pathlib import Path

from . import js

SCRIPT = Path("build-time") / "cuda-blocks.js"  # relative to the runtime folder (web/dist)


def _load(web_dist):
    js.load(js.runtime_script(web_dist, SCRIPT.name, "The CUDA blocks' renderer"))


def texts(blocks, file, sizes, web_dist):
    _load(web_dist)
    return js.call("kvCudaBlocks", {"blocks": blocks, "file": file, "sizes": sizes, "as": "text"})


def htmls(blocks, file, sizes, web_dist):
    _load(web_dist)
    return js.call("kvCudaBlocks", {"blocks": blocks, "file": file, "sizes": sizes, "as": "html"})


def evaluate(expr, values, web_dist):
    """The integer value of the C expression `expr` with names from `values` (c-expr.js), or None."""
    _load(web_dist)
    return js.call("kvEvaluate", {"expr": expr, "values": values})
