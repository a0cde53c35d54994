"""swizzle.py, the one source of fa2_pipe.cu's shared-memory layout: CuTe's Swizzle<3,3,3> where it says so, a
permutation of each row's chunks, the wavefronts of an ldmatrix phase worked by hand for each layout, and the C++ that
the kernel and the shim include (swizzle.h) equal to it, as text and as what it computes."""

import subprocess

import pytest
from cuda_cases import needs_gxx

from kernelviz.cuda import cpu, swizzle


def test_the_checked_in_header_is_what_swizzle_py_writes():
    assert swizzle.HEADER.read_text() == swizzle.header(), "run: python -m kernelviz.cuda.swizzle"


@pytest.mark.parametrize("d", [64, 128, 256])
def test_rows_of_8k_chunks_are_cutes_swizzle_of_each_8_by_64_atom(d):
    """FA2 tiles its K and V in atoms of 8 rows × 64 columns, each Swizzle<3,3,3>(row*64 + col) (flash-attn's
    kernel_traits.h): the same element lands at the same place of its atom, for every atom of the row."""
    for row in range(16):
        for col in range(d):
            atom = col // 64 * 64
            assert swizzle.offset(row, col, d) == row * d + atom + swizzle.cute(row % 8 * 64 + col % 64) - row % 8 * 64


def test_rows_of_two_chunks_are_cutes_swizzle_of_the_offset():
    """At D = 16 four rows share a 128-byte line, and the swizzle is CuTe's on the plain offset (8 rows)."""
    assert [swizzle.offset(r, c, 16) for r in range(8) for c in range(16)] == [swizzle.cute(x) for x in range(128)]


@pytest.mark.parametrize("d", [16, 32, 64, 128])
def test_each_row_keeps_its_chunks_and_only_permutes_them(d):
    for row in range(16):
        chunks = [swizzle.physical_chunk(row, c, d // 8) for c in range(d // 8)]
        assert sorted(chunks) == list(range(d // 8))
        assert all(p // 8 == c // 8 for c, p in enumerate(chunks))  # a chunk stays in its own 128 bytes


def test_the_picture_of_a_64_column_tile():
    """Row r holds at physical chunk p the logical chunk p XOR r: row 1 swaps neighbours, row 7 reverses."""
    grid = swizzle.picture(64, "swizzled")
    assert grid[0] == list(range(8)) and grid[1] == [1, 0, 3, 2, 5, 4, 7, 6] and grid[7] == list(range(7, -1, -1))
    assert swizzle.picture(64, "padded") == swizzle.picture(64, "naive") == [list(range(8))] * 8


# Wavefronts of one ldmatrix phase (8 rows at one 16-byte column), worked by hand. Naive: rows 2D bytes apart, so
# the chunk of row r is in bank group (r*D/8 + c) mod 8: all 8 rows in one group at D >= 64 (8 wavefronts), in
# 8/(D/8) groups at D = 16, 32 (2, 4). Padded: (r*(D/8 + 1) + c) mod 8, distinct for 8 consecutive r (D/8 + 1 is odd
# when D/8 is even): 1. Swizzled: 1.
HAND = {"naive": {16: 2, 32: 4, 64: 8, 128: 8}, "padded": dict.fromkeys((16, 32, 64, 128), 1)}
HAND["swizzled"] = HAND["padded"]


@pytest.mark.parametrize("layout", swizzle.LAYOUTS)
@pytest.mark.parametrize("d", [16, 32, 64, 128])
def test_wavefronts_of_a_phase_are_those_worked_by_hand(layout, d):
    for first_row in (0, 8, 16):
        for col in range(0, d, 8):
            assert swizzle.wavefronts(swizzle.phase(d, layout, first_row, col)) == HAND[layout][d], (first_row, col)


def test_a_word_two_lanes_read_is_given_once():
    assert swizzle.wavefronts([0] * 8) == 1 and swizzle.wavefronts([0, 128]) == 2 and swizzle.wavefronts([0, 16]) == 1


def test_bad_rows_and_layouts_are_refused():
    with pytest.raises(ValueError, match="rows of 2, 4 or a multiple of 8 chunks"):
        swizzle.physical_chunk(0, 0, 6)
    with pytest.raises(ValueError, match="layout must be one of"):
        swizzle.offset(0, 0, 64, "diagonal")


PROBE = r"""
#include "shim.h"
#include "../swizzle.h"
#include <cstdio>
int main() {
    for (int chunks : {2, 4, 8, 16})
        for (int row = 0; row < 16; row++)
            for (int c = 0; c < chunks; c++) std::printf("%d ", kv_swizzle(row, c, chunks));
}
"""


@needs_gxx
def test_the_cpp_computes_what_the_python_does(tmp_path):
    (tmp_path / "probe.cpp").write_text(PROBE)
    exe = tmp_path / "probe"
    subprocess.run(
        [cpu.compiler(), *cpu.FLAGS, f"-I{cpu.HERE}", str(tmp_path / "probe.cpp"), "-o", str(exe)], check=True
    )
    found = [int(x) for x in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
    expected = [swizzle.physical_chunk(r, c, n) for n in (2, 4, 8, 16) for r in range(16) for c in range(n)]
    assert found == expected


def test_one_swizzle_function_serves_fa2_pipe_and_hopper():
    """swizzle.cute_swizzle is CuTe's Swizzle<B, M, S>, worked here by hand: 0x1C0 under <1, 4, 3> has bit 7 set, XORed
    into bit 4 (0x1D0); under <3, 3, 3> bits [6, 9) = 0b111 go into bits [3, 6) (0x1F8). fa2_pipe's `cute` and
    Hopper's byte swizzle are both it."""
    from kernelviz.cuda import hopper

    assert swizzle.cute_swizzle(0x1C0, 1, 4, 3) == 0x1D0
    assert swizzle.cute_swizzle(0x1C0, 3, 3, 3) == 0x1F8 == swizzle.cute(0x1C0)
    assert hopper.swizzle(0x1C0, 32) == 0x1D0 and hopper.swizzle(0x1C0, 128) == swizzle.cute_swizzle(0x1C0, 3, 4, 3)
