"""Hopper's layouts and rules, written once: which thread of a warpgroup holds which element of a wgmma operand,
how a shared-memory matrix descriptor is encoded, and where its swizzle modes put each element. The CPU shim's
wgmma and TMA (cpu/hopper.h) read them from cpu/hopper_layouts.h, which `header()` renders (`python -m
kernelviz.cuda.hopper` writes it; a test holds the checked-in copy equal to it and the C++ functions equal to these);
the tests check them against the PTX ISA's formulas worked by hand; a page's pictures can draw them (stdlib only).

Fragments (PTX ISA 9.7.15.5.1.1.1, "Matrix Fragments for wgmma.mma_async.m64nNk16"): a warpgroup is 128 threads,
warps 0..3; warp w holds rows 16w..16w+15, with groupID = lane >> 2 and threadID_in_group = lane % 4 inside its warp,
as mma.m16n8k16 does:

- D (64×N, f32), d_0..d_{N/2-1}: row = 16w + groupID + 8·((i >> 1) & 1), col = 8·(i >> 2) + 2·threadID_in_group +
  (i & 1): the m16n8 accumulator repeated N/8 times along the columns.
- A from registers (64×16, f16/bf16), a_0..a_7 (two a register, the lower index in the low half): the same formula
  with N = 16, which is mma.m16n8k16's A fragment for warp w's 16 rows.

Swizzle (the TMA's CU_TENSOR_MAP_SWIZZLE_{32,64,128}B and wgmma's descriptor modes, which agree): within each
repeat of 256, 512 or 1024 bytes, the 16-byte chunk of a byte address is XORed with bits 7.. of the address:
physical = a ^ (((a >> 7) & mask) << 4), mask 1, 3 or 7 (CuTe's Swizzle<1,4,3>, <2,4,3>, <3,4,3>). Addresses are
offsets in the CTA's shared window, whose base is 1024-aligned, so the pattern follows the absolute address.

Descriptor (64 bits): start address >> 4 in bits 0-13, leading-dimension byte offset (LBO) >> 4 in 16-29,
stride-dimension byte offset (SBO) >> 4 in 32-45, base offset in 49-51, swizzle mode in 62-63 (0 none, 1 128B,
2 64B, 3 32B). The canonical layouts it describes, as the byte offset of element (mn, k) of an operand tile before
the swizzle (16-bit elements, W the swizzle width in bytes; mn the row of A or the column of B):

- K-major, swizzled: (mn % 8)·W + (mn // 8)·SBO + 2k          (LBO unused)
- K-major, none:     (mn % 8)·16 + (mn // 8)·SBO + (k // 8)·LBO + 2(k % 8)
- MN-major, swizzled: 2(mn % (W/2)) + (mn // (W/2))·LBO + (k % 8)·W + (k // 8)·SBO
- MN-major, none:     2(mn % 8) + (mn // 8)·SBO + (k % 8)·16 + (k // 8)·LBO
"""

from pathlib import Path

from . import cpp_header
from .swizzle import cute_swizzle

HEADER = Path(__file__).parent / "cpu" / "hopper_layouts.h"
WARPGROUP = 128
SWIZZLES = (0, 32, 64, 128)  # bytes
MODE = {0: 0, 128: 1, 64: 2, 32: 3}  # swizzle bytes -> descriptor bits 62-63
DESC_FIELDS = {"start": (0, 14), "lbo": (16, 14), "sbo": (32, 14), "base": (49, 3), "mode": (62, 2)}  # (bit, width)


def wgmma_d(thread, i):
    """(row, col) in D (64×N) of accumulator element d_i of `thread` (0..127) of the warpgroup."""
    warp, lane = thread // 32, thread % 32
    group, tig = lane >> 2, lane % 4
    return 16 * warp + group + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * tig + (i & 1)


def wgmma_a(thread, i):
    """(row, k) in A (64×16) of element a_i (0..7) of `thread`, when A comes from registers."""
    return wgmma_d(thread, i)


def swizzle(address, width):
    """The physical byte address of logical `address` under a swizzle of `width` bytes (0, 32, 64 or 128)."""
    if width not in SWIZZLES:
        raise ValueError(f"swizzle must be one of {SWIZZLES} bytes, not {width}")
    bits = {0: 0, 32: 1, 64: 2, 128: 3}[width]  # Swizzle<bits, 4, 3>: 2^bits 16-byte chunks of a line permuted
    return cute_swizzle(address, bits, 4, 3)


def encode_desc(start, lbo, sbo, width, base=0):
    """The 64-bit descriptor of a tile at byte offset `start` with byte offsets `lbo` and `sbo` (multiples of 16,
    below 2^18) and a swizzle of `width` bytes."""
    for name, value in (("start", start), ("lbo", lbo), ("sbo", sbo)):
        if value % 16 or not 0 <= value >> 4 < 1 << 14:
            raise ValueError(f"{name} must be a multiple of 16 below 2^18 bytes, not {value}")
    fields = {"start": start >> 4, "lbo": lbo >> 4, "sbo": sbo >> 4, "base": base, "mode": MODE[width]}
    return sum(value << DESC_FIELDS[name][0] for name, value in fields.items())


def decode_desc(desc):
    """{start, lbo, sbo (bytes), base, width (swizzle bytes)} of a descriptor."""
    raw = {name: (desc >> bit) & ((1 << width) - 1) for name, (bit, width) in DESC_FIELDS.items()}
    width = {mode: w for w, mode in MODE.items()}[raw["mode"]]
    return {
        "start": raw["start"] << 4,
        "lbo": raw["lbo"] << 4,
        "sbo": raw["sbo"] << 4,
        "base": raw["base"],
        "width": width,
    }


def operand_offset(mn, k, lbo, sbo, width, mn_major):
    """Byte offset from the start address of element (mn, k) of a 16-bit operand tile, before the swizzle (the
    canonical layouts in the module docstring)."""
    if not mn_major and width:
        return (mn % 8) * width + (mn // 8) * sbo + 2 * k
    if not mn_major:
        return (mn % 8) * 16 + (mn // 8) * sbo + (k // 8) * lbo + 2 * (k % 8)
    if width:
        per_row = width // 2
        return 2 * (mn % per_row) + (mn // per_row) * lbo + (k % 8) * width + (k // 8) * sbo
    return 2 * (mn % 8) + (mn // 8) * sbo + (k % 8) * 16 + (k // 8) * lbo


def operand_address(desc, mn, k, mn_major):
    """The physical shared-memory byte address that a wgmma reads for element (mn, k) of the operand `desc`
    describes."""
    d = decode_desc(desc)
    return swizzle(d["start"] + operand_offset(mn, k, d["lbo"], d["sbo"], d["width"], mn_major), d["width"])


def owners(rows=64, cols=16, layout=wgmma_d):
    """A rows×cols tile as rows of (thread, i): who holds each element (what a picture colours by thread)."""
    grid = [[None] * cols for _ in range(rows)]
    for thread in range(WARPGROUP):
        for i in range(rows * cols // WARPGROUP):
            r, c = layout(thread, i)
            grid[r][c] = (thread, i)
    return grid


def chunks(width, lines=8):
    """The picture of a swizzle: [line][physical 16-byte chunk] = the logical chunk that lands there, for `lines`
    128-byte lines from a 1024-aligned address (a swizzle is its own inverse, so the same map read either way)."""
    return [[swizzle(128 * line + 16 * c, width) % 128 // 16 for c in range(8)] for line in range(lines)]


def header():
    """C++ for the CPU shim (HEADER, included by cpu/hopper.h): KV_WGMMA_D[128][4][2], the (row, col) of the first
    four accumulator elements of each thread (element i lies 8·(i >> 2) columns right of element i % 4), the
    descriptor's fields, and kv_swizzle and kv_operand_offset, the functions above."""
    table = cpp_header.array("KV_WGMMA_D", [[wgmma_d(t, i) for i in range(4)] for t in range(WARPGROUP)])
    fields = "\n".join(
        f"inline constexpr int KV_DESC_{name.upper()}_BIT = {bit}, KV_DESC_{name.upper()}_WIDTH = {width};"
        for name, (bit, width) in DESC_FIELDS.items()
    )
    widths = ", ".join(str({m: w for w, m in MODE.items()}[m]) for m in range(4))
    table += "inline constexpr int KV_WGMMA_D_COLS_PER_4 = 8;  // element i: KV_WGMMA_D[t][i % 4] plus 8 * (i >> 2) "
    table += "columns\n"
    functions = f"""{table}
{fields}
inline constexpr int KV_DESC_MODE_WIDTH_BYTES[4] = {{{widths}}};  // swizzle bytes of descriptor mode 0..3

// Physical byte address of logical `a` under a swizzle of `width` bytes (0, 32, 64, 128).
inline constexpr uint32_t kv_swizzle(uint32_t a, int width) {{
    uint32_t mask = width == 128 ? 7 : width == 64 ? 3 : width == 32 ? 1 : 0;
    return a ^ (((a >> 7) & mask) << 4);
}}

// Byte offset from the start of element (mn, k) of a 16-bit wgmma operand tile, before the swizzle.
inline constexpr uint32_t kv_operand_offset(int mn, int k, uint32_t lbo, uint32_t sbo, int width, bool mn_major) {{
    if (!mn_major && width) return (mn % 8) * width + (mn / 8) * sbo + 2 * k;
    if (!mn_major) return (mn % 8) * 16 + (mn / 8) * sbo + (k / 8) * lbo + 2 * (k % 8);
    if (width) return 2 * (mn % (width / 2)) + (mn / (width / 2)) * lbo + (k % 8) * width + (k / 8) * sbo;
    return 2 * (mn % 8) + (mn / 8) * sbo + (k % 8) * 16 + (k / 8) * lbo;
}}
"""
    return cpp_header.header("hopper", "the PTX ISA's wgmma layouts and swizzles", ["#include <cstdint>\n", functions])


if __name__ == "__main__":
    HEADER.write_text(header())
    print(f"wrote {HEADER}")
