"""Pictures of where a tile's 16-byte chunks sit in shared memory, drawn at build time from ``kernelviz.cuda.swizzle``
(the source fa2_pipe.cu's swizzle.h and the CPU shim's bank counter are written from): a fence

    ```swizzle layout="swizzled" d="64"
    The caption.                                 ({{ trace.EXPR }} placeholders are filled)
    ```

draws the first 8 rows of a tile of rows of `d` 16-bit elements (d / 8 chunks a row) in `layout` (one of
``swizzle.LAYOUTS`` but "padded", whose rows are not whole lines): each cell is a physical chunk, labelled with the
logical chunk stored there and coloured by it (``fragments_svg``'s cells, a hue a chunk). Under the picture, a
sentence the fence does not type: the wavefronts one ldmatrix phase takes to read column 0 of those 8 rows in this
layout and in the others (``swizzle.wavefronts``), 1 being conflict-free. A bad attribute is a warning at its line.
"""

from markdown_it.common.utils import escapeHtml

from ...cuda import swizzle
from .. import fragments_svg
from ..fragments_svg import Cell
from . import fence_info, placeholders

LANGUAGE = "swizzle"
DRAWN = ("swizzled", "naive")


def resolve(page, context):
    for token, line, n in fence_info.fences(page.tokens, LANGUAGE):
        token.meta["html"] = _figure(page, token, line, context, f"kv-swz-{n}")


def conflicts(d):
    """{layout: wavefronts of one ldmatrix phase reading column 0 of rows 0..7} for every layout."""
    return {layout: swizzle.wavefronts(swizzle.phase(d, layout)) for layout in swizzle.LAYOUTS}


def _figure(page, token, line, context, ident):
    _, attrs, leftover = fence_info.parse(token.info)

    def warn(message):
        context.diagnostics.warn(page.file, line, f"{LANGUAGE}: {message}")
        return ""

    unknown = sorted(set(attrs) - {"layout", "d"}) + ([leftover] if leftover else [])
    if unknown:
        return warn(f"unknown attribute {', '.join(map(repr, unknown))}; expected layout=... and d=...")
    layout, d = attrs.get("layout"), attrs.get("d", "64")
    if layout not in DRAWN:
        return warn(f"layout={layout!r} is not one of {', '.join(DRAWN)}")
    if not d.isdigit() or int(d) % 64:
        return warn(f"d={d!r} must be a multiple of 64 (rows of whole 128-byte lines)")
    d = int(d)
    grid = swizzle.picture(d, layout)
    cols = len(grid[0])
    cells = [Cell(r, c, (held % 8) * 4, held, f"c{held}") for r, row in enumerate(grid) for c, held in enumerate(row)]
    title = f"Rows 0 to 7 of a tile of d = {d} in shared memory, {layout}: the logical chunk each 16-byte place holds"
    counts = conflicts(d)
    said = ", ".join(f"{name} {counts[name]}" for name in swizzle.LAYOUTS)
    rule = "chunk c of row r at c XOR (r mod 8)" if layout == "swizzled" else "chunk c of every row at c"
    svg = fragments_svg.picture(cells, rows=len(grid), cols=cols, ident=ident, title=title, desc=f"{rule}.")
    caption = escapeHtml(placeholders.fill(token.content.strip(), page, line, context))
    count = escapeHtml(
        f"One ldmatrix phase reading chunk 0 of these 8 rows takes {counts[layout]} wavefront"
        f"{'s' * (counts[layout] != 1)} ({said} for the three layouts; 1 is conflict-free)."
    )
    return (
        f'<figure class="kv-frag-figure">{svg}<figcaption>{caption} <span data-kv="swizzle-wavefronts">'
        f"{count}</span></figcaption></figure>\n"
    )
