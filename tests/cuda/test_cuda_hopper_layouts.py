"""Hopper's layouts (kernelviz/cuda/hopper.py, their one source) are the PTX ISA's and CuTe's, and the CPU shim's
C++ (cpu/hopper_layouts.h) is the same.

Two independent checks: a few lanes and addresses worked by hand from the PTX ISA's formulas (wgmma .m64nNk16
fragments, 9.7.15.5; the shared-memory matrix descriptor and its swizzle modes, 9.7.15.5.1), and every lane and
address against NVIDIA CUTLASS's CuTe definitions, evaluated here as CuTe evaluates a layout (the coordinate split
column-major over the shape, dotted with the stride). Compared with CUTLASS commit 7107b055 (2026-08-20):
- include/cute/atom/mma_traits_sm90_gmma.hpp line 434, CLayout_64xN = ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512)),
  (thread, value) -> m + 64 n of the accumulator; line 451, ALayout_64x16, the same with N = 16 for A in registers;
- the same file, lines 160-195: the canonical K-major and MN-major layouts each descriptor mode describes, in
  elements, T = 8 16-bit elements (16 bytes);
- include/cute/swizzle.hpp lines 55-79, Swizzle<B, M, S>: offset ^ ((offset & yyy_msk) >> S), yyy_msk = (2^B - 1)
  << (M + S); 128B = Swizzle<3,4,3>, 64B = <2,4,3>, 32B = <1,4,3> (the same file's Layout_*_SW*_Atom, lines 74-84);
- include/cute/arch/mma_sm90_desc.hpp lines 48-53 and 108-126: GmmaDescriptor's bit fields (start 0-13, LBO 16-29,
  SBO 32-45, base offset 49-51, layout type 62-63 with B128 = 1, B64 = 2, B32 = 3).
"""

import subprocess

import pytest
from cuda_cases import needs_gxx

from kernelviz.cuda import cpu, hopper


def cute(shape, stride, index):
    """CuTe's layout function: `index` split column-major over the (flat) `shape`, dotted with `stride`."""
    out = 0
    for extent, step in zip(shape, stride, strict=True):
        out += (index % extent) * step
        index //= extent
    return out


# Worked by hand. Thread t of the warpgroup: warp w = t // 32, lane l = t % 32, groupID = l >> 2, tig = l % 4;
# d_i at row 16w + groupID + 8·((i >> 1) & 1), col 8·(i >> 2) + 2·tig + (i & 1).
#   t = 0:   w 0, g 0, tig 0 -> rows 0/8, cols 0, 1 then 8, 9.
#   t = 5:   w 0, g 1, tig 1 -> rows 1/9, cols 2, 3 then 10, 11.
#   t = 127: w 3, g 7, tig 3 -> rows 55/63, cols 6, 7 then 14, 15.
HAND = {
    0: [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)],
    5: [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)],
    127: [(55, 6), (55, 7), (63, 6), (63, 7), (55, 14), (55, 15), (63, 14), (63, 15)],
}


def test_the_accumulator_layout_is_the_isa_formula():
    for thread, elements in HAND.items():
        assert [hopper.wgmma_d(thread, i) for i in range(8)] == elements, thread
        assert [hopper.wgmma_a(thread, i) for i in range(8)] == elements, thread
    # t = 45: w 1, l 13, g 3, tig 1; d_62 of m64n256k16: i >> 2 = 15, (i >> 1) & 1 = 1 -> row 16 + 3 + 8, col 120 + 2.
    assert hopper.wgmma_d(45, 62) == (27, 122)


@pytest.mark.parametrize("n", [16, 64, 256])
def test_the_accumulator_layout_is_cutes(n):
    shape, stride = (4, 8, 4, 2, 2, n // 8), (128, 1, 16, 64, 8, 512)  # CLayout_64xN, thread modes then value modes
    for thread in range(128):
        for i in range(n // 2):
            index = cute(shape, stride, thread + 128 * i)
            assert hopper.wgmma_d(thread, i) == (index % 64, index // 64), (thread, i)


def test_the_a_register_layout_is_cutes():
    shape, stride = (4, 8, 4, 2, 2, 2), (128, 1, 16, 64, 8, 512)  # ALayout_64x16
    for thread in range(128):
        for i in range(8):
            index = cute(shape, stride, thread + 128 * i)
            assert hopper.wgmma_a(thread, i) == (index % 64, index // 64), (thread, i)


def test_each_element_is_held_by_one_thread():
    held = [e for row in hopper.owners(64, 64) for e in row]
    assert None not in held and len(set(held)) == 64 * 64


# Swizzle by hand: chunk (bits 4-6) ^= bits 7.. masked to the mode's width.
#   128B: 0x80 = line 1, chunk 0 -> chunk 1: 0x90.  0x3f0 = line 7, chunk 7 -> chunk 0: 0x380.
#         1154 = 0b100_1000_0010: line bits 7-9 = 001, chunk 000 -> 001: 1170.
#   64B:  0x180 = line 3 (bits 7-8 = 11), chunk 0 -> 3: 0x1b0.  32B: 0x80 -> 0x90, 0x100 (bit 7 clear) -> 0x100.
@pytest.mark.parametrize(
    "address, width, expected",
    [
        (0x80, 128, 0x90),
        (0x3F0, 128, 0x380),
        (1154, 128, 1170),
        (0x180, 64, 0x1B0),
        (0x80, 32, 0x90),
        (0x100, 32, 0x100),
    ],
)
def test_the_swizzle_is_the_isa_pattern(address, width, expected):
    assert hopper.swizzle(address, width) == expected
    assert hopper.swizzle(address, 0) == address


@pytest.mark.parametrize("width, bits", [(32, 1), (64, 2), (128, 3)])
def test_the_swizzle_is_cutes(width, bits):
    yyy = ((1 << bits) - 1) << (4 + 3)  # Swizzle<bits, 4, 3>
    for address in range(4096):
        assert hopper.swizzle(address, width) == address ^ ((address & yyy) >> 3), address


def test_a_swizzle_only_moves_bytes_within_their_line():
    for width in hopper.SWIZZLES:
        for address in range(0, 2048, 7):
            assert hopper.swizzle(address, width) // 128 == address // 128
            assert hopper.swizzle(hopper.swizzle(address, width), width) == address


def test_the_swizzle_picture():
    """128B: line r XORs its chunk index with r (line 3: 3 2 1 0 7 6 5 4); 64B with r % 4; 32B with r % 2."""
    assert hopper.chunks(128)[3] == [3, 2, 1, 0, 7, 6, 5, 4]
    assert hopper.chunks(64)[6] == [2, 3, 0, 1, 6, 7, 4, 5]  # 6 % 4 = 2
    assert hopper.chunks(32)[5] == [1, 0, 3, 2, 5, 4, 7, 6]  # 5 % 2 = 1
    assert hopper.chunks(0)[7] == list(range(8))
    assert all(sorted(line) == list(range(8)) for w in hopper.SWIZZLES for line in hopper.chunks(w, 16))


def test_the_descriptor_fields():
    # start 1024 -> 64 in bits 0-13 (0x40); LBO 16 -> 1 << 16; SBO 1024 -> 64 << 32; 128B -> mode 1 << 62.
    desc = hopper.encode_desc(1024, 16, 1024, 128)
    assert desc == 0x4000_0040_0001_0040
    assert hopper.decode_desc(desc) == {"start": 1024, "lbo": 16, "sbo": 1024, "base": 0, "width": 128}
    assert hopper.encode_desc(0, 0, 0, 64) >> 62 == 2 and hopper.encode_desc(0, 0, 0, 32) >> 62 == 3
    with pytest.raises(ValueError, match="sbo must be a multiple of 16"):
        hopper.encode_desc(0, 16, 1000, 128)


# CuTe's canonical layouts (mma_traits_sm90_gmma.hpp lines 160-195), in 16-bit elements with T = 8; the first mode
# is MN, the second K; LBO and SBO in elements.
def cute_k_major(mn, k, lbo, sbo, width):
    t = 8
    if width == 0:  # ((8,m),(T,2)):((1T,SBO),(1,LBO))
        return cute((8, 8), (t, sbo), mn) + cute((t, 2), (1, lbo), k)
    rows = width // 16  # ((8,m),(T,2)):((wT,SBO),(1,T)), w = 2, 4, 8 for 32B, 64B, 128B
    return cute((8, 8), (rows * t, sbo), mn) + cute((t, 2), (1, t), k)


def cute_mn_major(mn, k, lbo, sbo, width):
    t = 8
    if width == 0:  # ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
        return cute((t, 1, 32), (1, t, sbo), mn) + cute((8, 2), (t, lbo), k)
    w = width // 16  # ((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))
    return cute((t, w, 32), (1, t, lbo), mn) + cute((8, 2), (w * t, sbo), k)


@pytest.mark.parametrize("width", hopper.SWIZZLES)
def test_the_operand_layouts_are_cutes(width):
    lbo, sbo = 4096, 1024  # bytes
    for mn in range(64):
        for k in range(16):
            got = hopper.operand_offset(mn, k, lbo, sbo, width, mn_major=False)
            assert got == 2 * cute_k_major(mn, k, lbo // 2, sbo // 2, width), ("K-major", width, mn, k)
            got = hopper.operand_offset(mn, k, lbo, sbo, width, mn_major=True)
            assert got == 2 * cute_mn_major(mn, k, lbo // 2, sbo // 2, width), ("MN-major", width, mn, k)


def test_a_k_major_128b_tile_is_what_tma_wrote():
    """A 64-row tile of 64 halves that TMA wrote with a 128-byte swizzle (row r at byte 128 r, then swizzled) is read
    back by the descriptor of each k-step (start + 32 bytes a step of 16, SBO 1024): element (r, 16 s + k)."""
    for step in range(4):
        desc = hopper.encode_desc(2048 + 32 * step, 16, 1024, 128)
        for r in range(64):
            for k in range(16):
                tma = hopper.swizzle(2048 + 128 * r + 2 * (16 * step + k), 128)
                assert hopper.operand_address(desc, r, k, mn_major=False) == tma


def test_the_header_holds_the_layouts():
    assert hopper.HEADER.read_text() == hopper.header(), (
        "cpu/hopper_layouts.h is stale: python -m kernelviz.cuda.hopper"
    )


PROBE = """
#include <cstdio>
#include <initializer_list>

#include "hopper_layouts.h"
int main() {
    for (int t = 0; t < 128; t++)
        for (int i = 0; i < 4; i++) std::printf("d %d %d %d %d\\n", t, i, KV_WGMMA_D[t][i][0], KV_WGMMA_D[t][i][1]);
    for (int w : {0, 32, 64, 128})
        for (unsigned a = 0; a < 2048; a += 3) std::printf("s %d %u %u\\n", w, a, kv_swizzle(a, w));
    for (int w : {0, 32, 64, 128})
        for (int major = 0; major < 2; major++)
            for (int mn = 0; mn < 64; mn += 3)
                for (int k = 0; k < 16; k++)
                    std::printf("o %d %d %d %d %u\\n", w, major, mn, k, kv_operand_offset(mn, k, 4096, 1024, w, major));
}
"""


@needs_gxx
def test_the_cpp_functions_are_the_python_ones(tmp_path):
    (tmp_path / "layouts.cpp").write_text(PROBE)
    exe = tmp_path / "layouts"
    build = [cpu.compiler(), "-std=c++20", f"-I{cpu.HERE}", str(tmp_path / "layouts.cpp"), "-o", str(exe)]
    subprocess.run(build, check=True)
    lines = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(lines) == 512 + 4 * 683 + 8 * 22 * 16
    for line in lines:
        kind, *v = line.split()
        v = list(map(int, v))
        if kind == "d":
            assert hopper.wgmma_d(v[0], v[1]) == (v[2], v[3]), line
        elif kind == "s":
            assert hopper.swizzle(v[1], v[0]) == v[2], line
        else:
            assert hopper.operand_offset(v[2], v[3], 4096, 1024, v[0], bool(v[1])) == v[4], line
