"""The fragment layouts of mma.m16n8k16 and ldmatrix (kernelviz/cuda/fragments.py, their one source) are the PTX
ISA's, and the CPU shim's emulation follows them: one warp of fa2_mma.cu's own device functions (fragment_probe.cpp)
loads fragments of known matrices, and every lane's registers are checked against the documented layout, the mma
results against NumPy's product, the shuffles and the rounding to fp16/bf16 against independent values."""

import subprocess
from pathlib import Path

import numpy as np
import pytest
from cuda_cases import EXPECTED, TIES, check_probe, needs_gxx, probe_inputs

from kernelviz.cuda import cpu, fragments, half, kernels

PROBE = Path(__file__).with_name("fragment_probe.cpp")  # and fragment_probe.cuh, its kernel


# PTX ISA 9.7.14.5.8, m16n8k16 with .f16/.bf16, worked by hand from its formulas
# (groupID = lane >> 2, threadID_in_group = lane % 4) for lanes 0, 5 and 31.
ISA = {
    "A": {
        0: [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)],
        5: [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)],
        31: [(7, 6), (7, 7), (15, 6), (15, 7), (7, 14), (7, 15), (15, 14), (15, 15)],
    },
    "B": {
        0: [(0, 0), (1, 0), (8, 0), (9, 0)],
        5: [(2, 1), (3, 1), (10, 1), (11, 1)],
        31: [(6, 7), (7, 7), (14, 7), (15, 7)],
    },
    "C": {
        0: [(0, 0), (0, 1), (8, 0), (8, 1)],
        5: [(1, 2), (1, 3), (9, 2), (9, 3)],
        31: [(7, 6), (7, 7), (15, 6), (15, 7)],
    },
}


@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_the_layouts_are_the_isa_formulas(operand):
    table = fragments.table(operand)
    for lane, elements in ISA[operand].items():
        assert table[lane] == elements, (operand, lane)


@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_each_element_of_a_tile_is_held_by_one_lane(operand):
    rows, cols = fragments.SHAPES[operand]
    held = [e for lane in fragments.table(operand) for e in lane]
    assert sorted(held) == [(r, c) for r in range(rows) for c in range(cols)]
    assert all(owner is not None for row in fragments.owners(operand) for owner in row)


def test_a_quad_holds_a_row_of_the_accumulator():
    """Why the row statistics need two shuffles: row g of a C tile lies in lanes 4g..4g+3 and nowhere else."""
    for row in range(16):
        lanes = {lane for lane, elements in enumerate(fragments.table("C")) for r, _ in elements if r == row}
        assert lanes == set(range(4 * (row % 8), 4 * (row % 8) + 4))


def test_two_accumulator_tiles_are_the_a_operand_of_the_next_mma():
    """FA2's register reuse: a_i of A (16×16) is element i % 4 of C tile i // 4 (of two 16×8 tiles side by side)."""
    for lane in range(32):
        for i in range(8):
            r, c = fragments.mma_c(lane, i % 4)
            assert fragments.mma_a(lane, i) == (r, c + 8 * (i // 4))


def test_ldmatrix_gives_each_lane_a_row_fragment():
    """ISA 9.7.14.5.15: lane l receives row l / 4, columns 2(l % 4) and 2(l % 4) + 1 of each matrix; .trans the
    transpose's; lanes 8m..8m+7 address matrix m's rows."""
    assert [fragments.ldmatrix(5, i) for i in range(8)] == [(m, 1, c) for m in range(4) for c in (2, 3)]
    assert [fragments.ldmatrix(5, i, trans=True) for i in range(8)] == [(m, c, 1) for m in range(4) for c in (2, 3)]
    assert fragments.ldmatrix_source(5, 7) == (25, 3) and fragments.ldmatrix_source(5, 7, trans=True) == (27, 1)


def test_the_header_holds_the_tables():
    text = fragments.header()
    assert fragments.HEADER.read_text() == text, "cpu/fragments.h is stale: python -m kernelviz.cuda.fragments"
    assert "KV_MMA_A[32][8][2]" in text and "KV_LDMATRIX_TRANS[32][8][2]" in text
    assert "    {{0, 0}, {0, 1}, {8, 0}, {8, 1}, {0, 8}, {0, 9}, {8, 8}, {8, 9}}," in text  # lane 0 of A


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """The probe program, built once: fa2_mma.cu's device functions on shim.h."""
    if cpu.compiler() is None:
        pytest.skip("g++ is missing")
    exe = tmp_path_factory.mktemp("probe") / "probe"
    source = kernels.FOLDER / "fa2_mma.cu"
    command = [cpu.compiler(), *cpu.FLAGS, f"-I{cpu.HERE}", f'-DKV_FILE="{source}"', str(PROBE)]
    done = subprocess.run([*command, "-o", str(exe)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return exe


def test_rounding_to_16_bits():
    for dtype in half.DTYPES:
        assert half.bits(np.array(TIES[dtype], np.float32), dtype).tolist() == EXPECTED[dtype]
        assert half.values(half.bits([1.5, -2.25], dtype), dtype).tolist() == [1.5, -2.25]


@needs_gxx
@pytest.mark.parametrize("schedule", cpu.SCHEDULES)
@pytest.mark.parametrize("dtype", half.DTYPES)
def test_every_lanes_registers_follow_the_layout(probe, dtype, schedule):
    m, n, f = probe_inputs(dtype)
    stdin = half.bits(m, dtype).tobytes() + half.bits(n, dtype).tobytes() + f.tobytes()
    done = subprocess.run([str(probe), str(int(dtype == "bf16")), schedule], input=stdin, capture_output=True)
    assert done.returncode == 0, done.stderr
    out = np.frombuffer(done.stdout, np.uint32)
    regs, rest = out[: 32 * 12].reshape(32, 3, 4), out[32 * 12 :]
    acc = rest[: 32 * 16].view(np.float32).reshape(32, 4, 4)
    check_probe(dtype, m, n, f, regs, acc, rest[32 * 16 : 32 * 18].view(np.float32).reshape(32, 2), rest[32 * 18 :])


DEADLOCK = r"""
#include "shim.h"
__global__ void split() {  // lane 0 waits for its block, the rest of its warp for lane 0: never both
    if (threadIdx.x == 0) __syncthreads();
    else __syncwarp();
}
int main() { kvshim::launch(split, dim3{1, 1, 1}, dim3{32, 1, 1}, kvshim::Schedule::forward); }
"""


@needs_gxx
def test_a_warp_split_between_barriers_is_reported_as_a_deadlock(tmp_path):
    """On a GPU this hangs (or is undefined); the shim's turns see that no thread may run, and say so."""
    (tmp_path / "split.cpp").write_text(DEADLOCK)
    exe = tmp_path / "split"
    subprocess.run(
        [cpu.compiler(), *cpu.FLAGS, f"-I{cpu.HERE}", str(tmp_path / "split.cpp"), "-o", str(exe)], check=True
    )
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 5
    assert "deadlock: thread 0 waits at a __syncthreads() that not every thread of its block reaches" in done.stderr
