"""Where a row of a K or V tile sits in shared memory, and what ldmatrix pays to read it back: the XOR swizzle of
fa2_pipe.cu, written once. `header()` renders it as C++ (swizzle.h beside the kernels, which the kernel includes and
the CPU shim's bank counter reads; `python -m kernelviz.cuda.swizzle` writes it; a test holds the checked-in copy
equal, and another runs the C++ on the shim against the functions here); a page's picture can read it too (stdlib
only, like fragments.py).

A tile is rows of D 16-bit elements; a row is D/8 chunks of 16 bytes (what one cp.async or one ldmatrix lane moves).
Shared memory is 32 banks of 4 bytes: byte address a is in bank (a / 4) mod 32, so a 128-byte line spans every bank
once and its 8 chunks each take 4 banks (CUDA C++ Programming Guide, "Shared Memory" of compute capability 5.x on).
ldmatrix .x4 gives each of 32 lanes one 16-byte row to read; it is served as 4 phases of 8 lanes (one 8×8 matrix,
128 bytes, a phase), and a phase whose 8 rows fall in distinct banks is one wavefront; rows that share a bank at
different addresses are served one after another (see `wavefronts`; the 8-rows-a-phase reading is NVIDIA's, in the
Nsight Compute documentation of shared-memory wavefronts and CUTLASS's ldmatrix-friendly layouts).

Three layouts of rows (`LAYOUTS`):
- "naive": stride D, chunk c at chunk c. Rows D*2 bytes apart: at D = 64 every row starts at bank 0, so the 8 rows of a
  phase at one column all hit the same 4 banks: 8 wavefronts where 1 would do.
- "padded": stride D + 8 (16 bytes of padding a row, fa2_mma.cu's): row r's chunk c is in bank group (r·(D/8 + 1) + c)
  mod 8, distinct for 8 consecutive rows, so conflict-free for ldmatrix, at the price of D/8 + 1 chunks of SRAM a
  row for D/8 of data, and rows no longer on 128-byte lines.
- "swizzled": stride D, chunk c of row r stored at chunk `physical_chunk(r, c, D/8)` = c XOR (r mod 8) when a row
  has 8 chunks or more: CuTe's Swizzle<3,3,3> (BITS, BASE, SHIFT below: bits [3, 6) of an element offset XORed with
  bits [6, 9)) on the offset within an 8-row × 64-column atom, as FlashAttention 2 lays out its K and V tiles
  (CUTLASS include/cute/swizzle.hpp; flash-attn's kernel_traits.h composes it with an (8, 64) atom). The XOR keeps
  a chunk inside its own 128-byte group, so 8 consecutive rows read at one column land in 8 distinct bank groups,
  with no byte of padding. A row of 2 or 4 chunks (D = 16, 32: several rows share a 128-byte line) XORs c with
  (r // (8 / chunks)) mod chunks instead, the line's index, which keeps the 8 rows of a phase apart too.
"""

from pathlib import Path

HEADER = Path(__file__).parent / "swizzle.h"
BITS, BASE, SHIFT = 3, 3, 3  # CuTe's Swizzle<BITS, BASE, SHIFT> on 16-bit element offsets
CHUNK_ELEMENTS = 1 << BASE  # 8 elements: 16 bytes
LINE_CHUNKS = 1 << BITS  # 8 chunks: 128 bytes, one pass over every bank
ELEMENT_BYTES = 2
CHUNK_BYTES = CHUNK_ELEMENTS * ELEMENT_BYTES
BANKS = 32
BANK_BYTES = 4
PHASE_ROWS = 8  # ldmatrix lanes (16-byte rows) served in one phase
LAYOUTS = ("swizzled", "padded", "naive")


def cute_swizzle(offset, bits, base, shift):
    """CuTe's Swizzle<bits, base, shift> (include/cute/swizzle.hpp) applied to `offset`: the `bits` bits from bit
    base + shift up XORed into the `bits` bits from bit `base` up. The one swizzle function of this package: fa2_pipe's
    Swizzle<3,3,3> on element offsets (`cute`) and Hopper's Swizzle<B,4,3> on byte addresses (hopper.swizzle)."""
    yyy = ((1 << bits) - 1) << (base + shift)
    return offset ^ ((offset & yyy) >> shift)


def cute(offset):
    """CuTe's Swizzle<3,3,3> applied to an element offset: bits [6, 9) XORed into bits [3, 6)."""
    return cute_swizzle(offset, BITS, BASE, SHIFT)


def physical_chunk(row, chunk, chunks):
    """The 16-byte chunk of row `row` (of a tile) where logical chunk `chunk` of the row is stored, in a row of
    `chunks` chunks (D/8): chunk XOR (row mod 8) for chunks >= 8; for 2 or 4 chunks, chunk XOR the index mod chunks of
    the 128-byte line the row is on. Raises ValueError for a row size the swizzle does not cover (under 8 chunks and
    not 2 or 4; or not a multiple of 8)."""
    if chunks % LINE_CHUNKS and chunks not in (2, 4):
        raise ValueError(f"the swizzle takes rows of 2, 4 or a multiple of 8 chunks (D = 16, 32, 64k), not {chunks}")
    if chunks >= LINE_CHUNKS:
        return chunk ^ (row % LINE_CHUNKS)
    return chunk ^ (row // (LINE_CHUNKS // chunks) % chunks)


def stride(d, layout):
    """Elements from one row of a tile to the next: D, or D + 8 for "padded"."""
    return d + CHUNK_ELEMENTS if layout == "padded" else d


def offset(row, col, d, layout="swizzled"):
    """Element offset of (row, col) of a tile of rows of `d` elements, in `layout` (one of LAYOUTS)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
    if layout != "swizzled":
        return row * stride(d, layout) + col
    chunk = physical_chunk(row, col // CHUNK_ELEMENTS, d // CHUNK_ELEMENTS)
    return row * d + chunk * CHUNK_ELEMENTS + col % CHUNK_ELEMENTS


def bank(byte_address):
    """The bank of a byte address in shared memory."""
    return byte_address // BANK_BYTES % BANKS


def wavefronts(row_addresses):
    """Wavefronts one phase of ldmatrix takes to read 16-byte rows at these byte addresses: the most distinct 4-byte
    words any one bank must give (a word read by two lanes is given once). 1 when conflict-free."""
    words = {}
    for at in row_addresses:
        for w in range(at // BANK_BYTES, (at + CHUNK_BYTES) // BANK_BYTES):
            words.setdefault(w % BANKS, set()).add(w)
    return max(len(ws) for ws in words.values())


def phase(d, layout, first_row=0, col=0):
    """Byte addresses of the 8 rows one ldmatrix phase reads: rows first_row.. first_row + 7 at column `col`."""
    return [offset(first_row + r, col, d, layout) * ELEMENT_BYTES for r in range(PHASE_ROWS)]


def picture(d, layout, rows=PHASE_ROWS):
    """[[logical chunk stored at each physical chunk] for each row]: what a figure of the tile's SRAM draws."""
    chunks = d // CHUNK_ELEMENTS
    grid = []
    for r in range(rows):
        line = [None] * chunks
        for c in range(chunks):
            at = offset(r, c * CHUNK_ELEMENTS, d, layout) - r * stride(d, layout)
            line[at // CHUNK_ELEMENTS] = c
        grid.append(line)
    return grid


def header():
    """C++ for the kernel and the CPU shim (HEADER): kv_swizzle(row, chunk, chunks), physical_chunk's rule with this
    module's constants, and the bank geometry the shim counts ldmatrix's wavefronts with."""
    return f"""// Written by `python -m kernelviz.cuda.swizzle` from swizzle.py: the XOR swizzle of a tile's 16-byte
// chunks (CuTe's Swizzle<{BITS},{BASE},{SHIFT}> within an 8-row atom) and shared memory's banks. Not edited by hand.
#pragma once

#define KV_BANKS {BANKS}
#define KV_BANK_BYTES {BANK_BYTES}
#define KV_CHUNK_BYTES {CHUNK_BYTES}
#define KV_PHASE_ROWS {PHASE_ROWS}

// The chunk of row `row` where logical chunk `chunk` of a row of `chunks` chunks is stored.
__host__ __device__ __forceinline__ constexpr int kv_swizzle(int row, int chunk, int chunks) {{
    return chunks >= {LINE_CHUNKS} ? chunk ^ (row % {LINE_CHUNKS}) : chunk ^ (row / ({LINE_CHUNKS} / chunks) % chunks);
}}
"""


if __name__ == "__main__":
    HEADER.write_text(header())
    print(f"wrote {HEADER}")
