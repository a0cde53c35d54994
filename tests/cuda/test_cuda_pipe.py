"""fa2_pipe.cu, FA2 on tensor cores with copies in flight, unchanged, on the CPU shim (cp.async landing at random
points or as late as its wait allows, cpu/async.h) against attention/'s float64 reference from the same fp16 or bf16
inputs: O within verify.MMA_TOL (as fa2_mma), L within verify.TOL; and what the shim counts of its ldmatrix phases,
against counts worked by hand. Sizes are small (Bc = 16 gives several tiles at N = 70) to keep the shim quick."""

import numpy as np
import pytest
from cuda_cases import TOL, lse_err, needs_gxx, qkv, rel_err

from kernelviz.attention.reference import attention_fp64
from kernelviz.cuda import cpu, kernels
from kernelviz.cuda.verify import MMA_TOL

pytestmark = needs_gxx
SMALL = (128, 16)  # Br = 128 (8 warps), Bc = 16


def run(dtype, n, d, n_kv=None, causal=False, seed=0, **options):
    q, k, v = qkv(2, n, d, seed=seed, kernel="fa2_pipe", n_kv=n_kv, dtype=dtype)
    out = cpu.run("fa2_pipe", q, k, v, causal=causal, dtype=dtype, **options)
    return out, (attention_fp64(q, k, v, causal=causal) if k.shape[1] else None)


@pytest.mark.parametrize("stages", [1, 2])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_fa2_pipe_matches_reference(dtype, causal, stages):
    out, (o_ref, lse_ref) = run(dtype, 70, 16, causal=causal, stages=stages, tiles=SMALL)
    assert rel_err(out["O"], o_ref) <= MMA_TOL[dtype]
    assert lse_err(out["L"], lse_ref) <= TOL


@pytest.mark.parametrize("d, stages", [(64, 2), (128, 1)])
def test_fa2_pipe_at_its_own_tiles(d, stages):
    """FA2's sizes: Br = 128, Bc = 64; 130 rows make a ragged second block, 3 tiles of keys."""
    out, (o_ref, lse_ref) = run("bf16", 130, d, causal=True, stages=stages, schedule="threads")
    assert rel_err(out["O"], o_ref) <= MMA_TOL["bf16"]
    assert lse_err(out["L"], lse_ref) <= TOL


@pytest.mark.parametrize("n, n_kv, stages", [(70, 33, 2), (40, 150, 2), (130, 7, 1)])
def test_causal_against_a_cache_of_another_length(n, n_kv, stages):
    out, (o_ref, lse_ref) = run("fp16", n, 16, n_kv=n_kv, causal=True, seed=10, stages=stages, tiles=SMALL)
    assert rel_err(out["O"], o_ref) <= MMA_TOL["fp16"]
    assert lse_err(out["L"], lse_ref) <= TOL
    blind = max(0, n - n_kv)  # rows that see no key: O = 0, L = -inf
    assert (out["O"][:, :blind] == 0).all() and np.isneginf(out["L"][:, :blind]).all()


def test_blocks_that_see_no_key_return_before_copying():
    """N = 300, N_kv = 40, causal: block 0 (rows 0-127) sees no key, and writes O = 0, L = -inf."""
    out, (o_ref, lse_ref) = run("fp16", 300, 16, n_kv=40, causal=True, tiles=SMALL)
    assert (out["O"][:, :260] == 0).all() and np.isneginf(out["L"][:, :260]).all()
    assert rel_err(out["O"], o_ref) <= MMA_TOL["fp16"] and lse_err(out["L"], lse_ref) <= TOL


def test_an_empty_cache_gives_zeros():
    out, _ = run("fp16", 9, 16, n_kv=0, tiles=SMALL)
    assert (out["O"] == 0).all() and np.isneginf(out["L"]).all()


def test_every_schedule_and_landing_gives_the_same_bits():
    """The copies land at different points under each schedule and landing, and the answer does not move a bit: the
    waits and barriers order every read after the copy it reads."""
    found = [
        run("bf16", 70, 16, causal=True, schedule=s, copies=c, stages=2, tiles=SMALL)[0]
        for s in cpu.SCHEDULES
        for c in cpu.COPIES
    ]
    for other in found[1:]:
        assert all(np.array_equal(found[0][name], other[name]) for name in found[0])


def test_stages_change_when_copies_land_not_the_answer():
    one, two = (run("fp16", 70, 16, causal=True, stages=s, tiles=SMALL, schedule="forward")[0] for s in (1, 2))
    assert all(np.array_equal(one[name], two[name]) for name in one)


def test_bad_launches_are_refused_with_what_was_wrong():
    q, k, v = qkv(1, 8, 48, kernel="fa2_pipe")
    with pytest.raises(ValueError, match="swizzled: 16, 32 or a multiple of 64"):
        cpu.run("fa2_pipe", q, k, v)
    q, k, v = qkv(1, 8, 16, kernel="fa2_pipe")
    with pytest.raises(kernels.ThreadLimitError, match="8 warps, 256 threads a block, not 128"):
        cpu.run("fa2_pipe", q, k, v, threads=128)
    with pytest.raises(ValueError, match=r"fa2_pipe: stages must be one of \(2, 1\), not 3"):
        cpu.run("fa2_pipe", q, k, v, stages=3)
    with pytest.raises(ValueError, match="fa2_mma takes no template options, not 'stages'"):
        cpu.run("fa2_mma", q, k, v, stages=2)
    with pytest.raises(kernels.SharedMemoryError, match="needs 294912 bytes of dynamic shared memory .* allows 166912"):
        kernels.plan("fa2_pipe", 1, 8, 128, (128, 256))  # 2*(128 + 2*2*256)*128, over sm_80's 163 KiB


def test_its_shared_memory_is_dynamic_and_fits_sm80_at_its_tiles():
    """2*(Br + 2*stages*Bc)*S bytes: at d = 128, 2 stages, 2*(128 + 256)*128 = 98,304 (over 48 KiB: opted in)."""
    [launch] = kernels.plan("fa2_pipe", 1, 130, 128)
    assert (launch.shared_bytes, launch.dynamic_bytes, launch.threads) == (0, 98304, 256)
    [padded] = kernels.plan("fa2_pipe", 1, 130, 64, stages=1, swizzle=0)
    assert padded.dynamic_bytes == 2 * (128 + 2 * 64) * (64 + 8)


def misaligned(shape, by=2):
    """A float16 array whose first element sits `by` bytes past a 16-byte boundary (a view into a larger buffer)."""
    size = int(np.prod(shape))
    buffer = np.zeros(size + 16, np.float16)
    start = next(i for i in range(8) if (buffer.ctypes.data + 2 * i) % 16 == by)
    return buffer[start : start + size].reshape(shape)


def test_a_pointer_off_a_16_byte_boundary_is_refused_naming_it():
    q = np.zeros((1, 64, 16), np.float16)
    v = misaligned(q.shape, by=8)
    at = v.ctypes.data
    with pytest.raises(ValueError, match=f"fa2_pipe: V starts at address {at:#x}, 8 bytes past a 16-byte boundary"):
        kernels.check_inputs("fa2_pipe", (q, q, v), (q, q, v), np.asarray, cpu.address)
    kernels.check_inputs("fa2_pipe", (q, q, q), (q, q, q), np.asarray, cpu.address)  # aligned: passes


def ldmatrix_count(bh, n, d, bc, tiles_of_block):
    """ldmatrix .x4 a run issues, by hand: each of a block's 8 warps loads Q once (D/16), and per tile of keys K
    (Bc/16 × D/16, for S) and V (the same, for P V)."""
    return bh * 8 * sum(d // 16 + tiles * 2 * (bc // 16) * (d // 16) for tiles in tiles_of_block)


NAIVE = ("constexpr int S = SWIZZLE ? D : D + 8;", "constexpr int S = SWIZZLE ? D : D;")  # rows unpadded, unswizzled


@pytest.mark.parametrize("d, naive_wavefronts", [(16, 2), (64, 8)])
def test_bank_conflicts_swizzled_none_padded_none_naive_as_worked_by_hand(d, naive_wavefronts):
    """Per phase (8 lanes' 16-byte rows at one column): swizzled and padded rows fall in 8 distinct bank groups (1
    wavefront); naive rows 2D bytes apart share groups: at D = 16 rows r and r + 4 share one (2 wavefronts), at
    D = 64 all 8 (8). N = 70, Bc = 16, not causal: one block a batch-head, 5 tiles of keys."""
    source = (kernels.FOLDER / "fa2_pipe.cu").read_text()
    assert source.count(NAIVE[0]) == 1
    q, k, v = qkv(1, 70, d, kernel="fa2_pipe", dtype="fp16")
    phases = 4 * ldmatrix_count(1, 70, d, 16, [5])
    for swizzle, text, per_phase in ((1, source, 1), (0, source, 1), (0, source.replace(*NAIVE), naive_wavefronts)):
        _, counted = cpu.run("fa2_pipe", q, k, v, tiles=SMALL, swizzle=swizzle, source=text, counters=True)
        assert (counted.ldmatrix_phases, counted.ldmatrix_wavefronts) == (phases, per_phase * phases), swizzle
    assert counted.conflicts == (naive_wavefronts - 1) * phases
