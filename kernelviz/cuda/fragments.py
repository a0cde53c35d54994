"""Which lane of a warp holds which element of a tensor-core operand: the fragment layouts of the PTX ISA that
fa2_mma.cu relies on, written once. The CPU shim's emulation of mma and ldmatrix reads them as tables from
cpu/fragments.h, which `header()` renders (`python -m kernelviz.cuda.fragments` writes it; a test holds the checked-in
copy equal to it); the tests check them against the ISA's formulas worked by hand; and a page's pictures of a 16×16
tile coloured by lane can read them (stdlib only, like figlib).

A layout maps (lane, i) to (row, col): lane 0..31 of the warp, i the index of the element in the lane's registers,
low to high (two 16-bit elements a 32-bit register, the lower index in the low half). With
groupID = lane >> 2 and threadID_in_group = lane % 4 (PTX ISA 9.7.14.5.8, "Matrix Fragments for mma.m16n8k16 with
floating point type", .f16 and .bf16):

- A (16×16, row-major), a0..a7: row = groupID for i in {0, 1, 4, 5}, else groupID + 8;
  col = threadID_in_group*2 + (i & 1), plus 8 for i >= 4.
- B (16×8, "col": K×N read column by column), b0..b3: row = threadID_in_group*2 + (i & 1), plus 8 for i >= 2;
  col = groupID.
- C and D (16×8, float32), c0..c3: row = groupID for i < 2, else groupID + 8; col = threadID_in_group*2 + (i & 1).

ldmatrix.sync.aligned.m8n8.x4.shared.b16 (PTX ISA 9.7.14.5.15) loads four 8×8 matrices of 16-bit elements: lanes
8m..8m+7 give the addresses of rows 0..7 of matrix m, and every lane receives, in register m, the elements
(row lane >> 2, cols 2*(lane % 4) and 2*(lane % 4) + 1) of matrix m: a group of four lanes holds a row. With .trans it
receives the transpose's: (rows 2*(lane % 4) and 2*(lane % 4) + 1, col lane >> 2) of the matrix as stored.
"""

from pathlib import Path

from . import cpp_header
from .cpp_header import array

HEADER = Path(__file__).parent / "cpu" / "fragments.h"
WARP = 32
SHAPES = {"A": (16, 16), "B": (16, 8), "C": (16, 8)}  # rows, cols of each mma.m16n8k16 operand
ELEMENTS = {"A": 8, "B": 4, "C": 4}  # elements a lane holds


def mma_a(lane, i):
    """(row, col) in A (16×16) of element a_i of `lane`."""
    group, tig = lane >> 2, lane % 4
    row = group if i in (0, 1, 4, 5) else group + 8
    return row, tig * 2 + (i & 1) + (8 if i >= 4 else 0)


def mma_b(lane, i):
    """(row, col) in B (16×8, k by n) of element b_i of `lane`."""
    group, tig = lane >> 2, lane % 4
    return tig * 2 + (i & 1) + (8 if i >= 2 else 0), group


def mma_c(lane, i):
    """(row, col) in C or D (16×8) of element c_i of `lane`."""
    group, tig = lane >> 2, lane % 4
    return group + (8 if i >= 2 else 0), tig * 2 + (i & 1)


def ldmatrix(lane, i, trans=False):
    """(matrix, row, col) of the 8×8 matrix element that `lane` receives as its i-th 16-bit element of an
    ldmatrix .x4 (register i // 2, low half when i is even); `trans`: with .trans."""
    matrix, half = i // 2, i % 2
    row, col = lane >> 2, 2 * (lane % 4) + half
    return (matrix, col, row) if trans else (matrix, row, col)


def ldmatrix_row_lane(matrix, row):
    """The lane whose address names `row` of `matrix` in an ldmatrix .x4."""
    return 8 * matrix + row


def ldmatrix_source(lane, i, trans=False):
    """(the lane that gave the row's address, the column in that 8-element row) of `lane`'s i-th element of an
    ldmatrix .x4: where the shim takes it from."""
    matrix, row, col = ldmatrix(lane, i, trans)
    return ldmatrix_row_lane(matrix, row), col


LAYOUTS = {"A": mma_a, "B": mma_b, "C": mma_c}


def table(operand):
    """[[(row, col) of element i] for lane 0..31] of mma operand "A", "B" or "C"."""
    return [[LAYOUTS[operand](lane, i) for i in range(ELEMENTS[operand])] for lane in range(WARP)]


def owners(operand):
    """The operand's tile as rows of (lane, i): who holds each element (what a picture colours by lane)."""
    rows, cols = SHAPES[operand]
    grid = [[None] * cols for _ in range(rows)]
    for lane, elements in enumerate(table(operand)):
        for i, (r, c) in enumerate(elements):
            grid[r][c] = (lane, i)
    return grid


def header():
    """C++ for the CPU shim (HEADER, which cpu/warp.h includes): the tables above as constexpr arrays
    KV_MMA_A[32][8][2], KV_MMA_B[32][4][2], KV_MMA_C[32][4][2] (row, col), and KV_LDMATRIX[32][8][2] and
    KV_LDMATRIX_TRANS (ldmatrix_source: the lane whose row, the column in it)."""

    parts = [array(f"KV_MMA_{op}", table(op)) for op in LAYOUTS]
    for name, trans in (("KV_LDMATRIX", False), ("KV_LDMATRIX_TRANS", True)):
        parts += [array(name, [[ldmatrix_source(lane, i, trans) for i in range(8)] for lane in range(WARP)])]
    return cpp_header.header("fragments", "the PTX ISA's fragment layouts", parts)


if __name__ == "__main__":
    HEADER.write_text(header())
    print(f"wrote {HEADER}")
