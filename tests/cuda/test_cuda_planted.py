"""The CPU harness can fail: a kernel with a planted bug, a missing __syncthreads() or an off-by-one, is caught.

A kernel passes the harness when, under every schedule of cpu/shim.h (free threads, and one thread at a time in
either order), it finishes without touching a guard zone and its answer is within TOL of the reference. Each test
below plants one bug in the real source text and checks that the harness rejects the kernel, deterministically:
the one-at-a-time schedules do not depend on the OS.
"""

import pytest
from cuda_cases import needs_gxx, rel_err

from kernelviz.attention.reference import attention_fp64, paged_attention_fp64
from kernelviz.cuda import cpu, kernels
from kernelviz.cuda.verify import error, inputs, softmax_fp64, tolerance

pytestmark = needs_gxx


def plant(kernel, old, new):
    """The source of `kernel` with the one line holding `old` changed to hold `new` instead."""
    source = (kernels.FOLDER / kernels.FILES[kernel]).read_text()
    assert source.count(old) == 1, f"the line to plant the bug in is gone from {kernels.FILES[kernel]}: {old!r}"
    return source.replace(old, new)


def remove_sync(kernel, waits_for, call="__syncthreads();"):
    """The source of `kernel` without the __syncthreads() (or `call`) whose comment says it waits for `waits_for`."""
    source = (kernels.FOLDER / kernels.FILES[kernel]).read_text()
    lines = [line for line in source.splitlines() if call in line and waits_for in line]
    assert len(lines) == 1, f"no single {call} waits for {waits_for!r}"
    return source.replace(lines[0], "")


def remove_lines(kernel, holding, count):
    """The source of `kernel` without the `count` lines that hold `holding`."""
    source = (kernels.FOLDER / kernels.FILES[kernel]).read_text()
    lines = [line for line in source.splitlines() if holding in line]
    assert len(lines) == count, f"{len(lines)} lines of {kernels.FILES[kernel]} hold {holding!r}, not {count}"
    return "\n".join(line for line in source.splitlines() if holding not in line)


def failures(kernel, source, n=130, d=16, n_kv=None, **options):
    """The schedules under which `kernel` built from `source` fails the harness (empty: it passes); `n_kv` keys
    (default n) for FA1 and FA2; `d`, or 64 for a kernel not built for it (fa3)."""
    d = kernels.head_dims(kernel, (d, 64))[0]
    decode, causal = kernel == "flash_decoding", options.get("causal", False)
    arrays = inputs(2, n, d, decode=decode, seed=7, kernel=kernel, causal=causal, n_kv=n_kv, dtype=options.get("dtype"))
    if kernel == "fa2_bwd":  # its outputs are D, dQ, dK, dV: held to verify's measure of them all
        return _failures(kernel, source, arrays, lambda out: error(kernel, out, *arrays, **options), **options)
    if kernel == "online_softmax":
        o_ref = softmax_fp64(*arrays)[0]
    elif kernel == "paged_decoding":
        o_ref = paged_attention_fp64(*arrays).reshape(-1, d)  # (B*H_q, D), as the kernel writes O
    else:
        o_ref = attention_fp64(*arrays, causal=options.get("causal", False))[0]
    return _failures(kernel, source, arrays, lambda out: rel_err(out["O"], o_ref), **options)


def _failures(kernel, source, arrays, measure, **options):
    failed, tol = [], tolerance(kernel, options.get("dtype"))
    for schedule in cpu.SCHEDULES:
        try:
            out = cpu.run(kernel, *arrays, schedule=schedule, source=source, timeout=60, **options)
        except cpu.KernelRunError as e:
            failed.append((schedule, str(e)))
            continue
        if not measure(out) <= tol:
            failed.append((schedule, f"error {measure(out):.2e}"))
    return failed


def options_of(kernel):
    """The options each kernel is planted with: splits for flash decoding, causal masking for FA1 and FA2."""
    splits = {"n_splits": 3}
    return {"flash_decoding": splits, "paged_decoding": splits, "online_softmax": {}}.get(kernel, {"causal": True})


@pytest.mark.parametrize("kernel", kernels.KERNELS)
def test_the_unchanged_kernels_pass(kernel):
    source = (kernels.FOLDER / kernels.FILES[kernel]).read_text()
    options = options_of(kernel)
    assert failures(kernel, source, **options) == []


MISSING_SYNCS = [
    ("fa2", "the whole of Kj and Vj in SRAM"),
    ("fa2", "every score of the tile"),
    ("fa2", "every row done with Kj, Vj, Sij"),
    ("fa1", "Qi and the carries in SRAM"),
    ("fa1", "every row's new Oi, li, mi"),
    ("flash_decoding", "alpha and P~ij from thread 0"),
    ("flash_decoding", "l_global from thread 0"),
    ("online_softmax", "the whole tile in SRAM"),
    ("online_softmax", "the weights and the factor from thread 0"),
    ("online_softmax", "every thread done with xi, vi, factor"),
    ("fa2_bwd", "Qi, dOi, Li, Di (the first time, Kj, Vj too) in SRAM"),
    ("fa2_bwd", "every Pij before dVj and dSij"),
    ("fa2_bwd", "every dSij before dQ and dKj"),
    ("fa2_bwd", "every thread done with Qi, dOi, Pij, dSij"),
    ("paged_decoding", "the page's index before any thread loads"),
    ("paged_decoding", "every score of the page"),
    ("paged_decoding", "alpha and P~ of every head"),
    ("paged_decoding", "m_global and l_global from thread 0"),
    ("fa2_mma", "the whole of Kj and Vj in SRAM before any warp"),
    ("fa2_mma", "every warp done with Kj, Vj"),
]


@pytest.mark.parametrize(("kernel", "waits_for"), MISSING_SYNCS)
def test_a_missing_syncthreads_is_caught(kernel, waits_for):
    splits = kernel in ("flash_decoding", "paged_decoding")
    options = {"n_splits": 3} if splits else {"causal": True} if kernel == "fa2_bwd" else {}
    failed = failures(kernel, remove_sync(kernel, waits_for), **options)
    # Caught by at least one deterministic schedule, so on every run, not only when the OS interleaves badly.
    assert {s for s, _ in failed} & {"forward", "backward"}, failed


def test_an_off_by_one_in_the_causal_mask_is_caught():
    source = plant("fa2", "(causal && col0 + c > row0 + r + shift)", "(causal && col0 + c >= row0 + r + shift)")
    failed = failures("fa2", source, causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


@pytest.mark.parametrize("kernel", ["fa1", "fa2"])
@pytest.mark.parametrize("n, n_kv", [(130, 65), (70, 200)])
def test_the_unchanged_kernels_pass_against_a_cache_of_another_length(kernel, n, n_kv):
    source = (kernels.FOLDER / kernels.FILES[kernel]).read_text()
    assert failures(kernel, source, n=n, n_kv=n_kv, causal=True) == []


def test_a_row_that_sees_no_key_divided_by_its_zero_sum_is_caught():
    """Without the guard, O = 0 / 0 = NaN for the N - N_kv rows that see no key."""
    source = plant("fa2", "li[r] > 0.f ? Oi[r][k]/li[r] : 0.f;", "Oi[r][k]/li[r];")
    assert failures("fa2", source, n=130, n_kv=130, causal=True) == []  # every row sees a key
    failed = failures("fa2", source, n=130, n_kv=65, causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


@pytest.mark.parametrize("n, n_kv", [(130, 130), (130, 65), (70, 200)])
def test_a_tile_skipped_one_too_early_is_caught_in_fa2(n, n_kv):
    """The block stops one K/V tile short of its diagonal: the keys its last rows see in that tile are lost."""
    source = plant("fa2", "min(Tc, last/Bc + 1);", "min(Tc, last/Bc);")
    failed = failures("fa2", source, n=n, n_kv=n_kv, causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


@pytest.mark.parametrize("n, n_kv", [(130, 130), (130, 65), (70, 200)])
def test_a_tile_skipped_one_block_too_early_is_caught_in_fa1(n, n_kv):
    """The inner loop starts one block of Q later: the block holding the tile's diagonal never sees the tile."""
    source = plant("fa1", "max(0, col0 - shift)/Br : 0;", "max(0, col0 - shift)/Br + 1 : 0;")
    failed = failures("fa1", source, n=n, n_kv=n_kv, causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


@pytest.mark.parametrize("kernel", ["fa1", "fa2"])
def test_a_diagonal_mask_without_the_shift_is_caught(kernel):
    """Masking as if N_kv = N (the rule before the kernels took another N_kv) fails when they differ."""
    source = plant(kernel, "> row0 + r + shift);", "> row0 + r);")
    assert failures(kernel, source, n=130, n_kv=130, causal=True) == []  # the same rule when N_kv = N
    failed = failures(kernel, source, n=130, n_kv=200, causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


def test_an_off_by_one_write_past_the_last_row_is_caught():
    source = plant("fa2", "if (row0 + r < N) O[(row0 + r)*D + k]", "if (row0 + r <= N) O[(row0 + r)*D + k]")
    failed = failures("fa2", source)  # N = 130 is not a multiple of Br = 32, so row N exists in the last block
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)
    assert all("write out of bounds: O[" in why for _, why in failed), failed


def test_an_off_by_one_read_past_the_last_key_is_caught():
    source = plant("fa2", "bool in = col0 + c < N_kv;", "bool in = col0 + c <= N_kv;")
    failed = failures("fa2", source)  # reads K, V row N: the guard zone's NaN reaches O through P = 0 times NaN
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


def test_an_off_by_one_split_boundary_is_caught():
    line = "n_end = min(n_start + tiles_per_split*Bc, N);"
    source = plant("flash_decoding", line, line.replace(", N)", " + 1, N)"))
    failed = failures("flash_decoding", source, n_splits=3)  # the first key of the next split counted twice
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


def test_online_softmax_without_the_rescale_is_caught():
    source = plant("online_softmax", "o[k] = factor*o[k] + wv;", "o[k] = o[k] + wv;")
    failed = failures("online_softmax", source)  # o is no longer moved onto the new max, nor renormalized
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


def test_online_softmax_reading_past_the_row_is_caught():
    source = plant("online_softmax", "int cols = min(Bc, N - col0);", "int cols = min(Bc, N - col0 + 1);")
    failed = failures("online_softmax", source)  # the last row reads X[N] and V[N]: the guard zone's NaN
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


@pytest.mark.slow
def test_the_barrier_between_the_tiles_of_a_split_is_caught():
    """flash_decoding.cu's barrier after the P~V update: without it a thread's loads of the next tile overwrite Kj,
    Vj and Sij while other threads still read them. Only a split of several tiles has a next tile (at N = 130 and 3
    splits each split is one tile), and the overwrite reaches another thread's column only when the block has more
    threads than D: here each of 2 splits has 2 tiles of 64 keys (N = 256, D = 16), with the GPU's 128 threads."""
    options = dict(n=256, n_splits=2, threads=kernels.GPU_THREADS)
    unchanged = (kernels.FOLDER / kernels.FILES["flash_decoding"]).read_text()
    assert failures("flash_decoding", unchanged, **options) == []
    failed = failures("flash_decoding", remove_sync("flash_decoding", "every thread done with Kj, Vj, Sij"), **options)
    assert {s for s, _ in failed} & {"forward", "backward"}, failed


def test_a_plain_store_into_dq_is_caught_as_not_atomic():
    """On a GPU the blocks j add into the same rows of dQ at once, and a plain += loses updates. The shim runs blocks
    one after another, so it cannot lose one: it watches dQ instead, and any change not made by atomicAdd fails."""
    source = plant("fa2_bwd", "atomicAdd(&dQ[(row0 + r)*D + k], scale*acc);", "dQ[(row0 + r)*D + k] += scale*acc;")
    failed = failures("fa2_bwd", source, causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)
    assert all("not atomic: dQ[" in why for _, why in failed), failed


def test_d_from_the_rows_of_the_key_tile_is_caught():
    """With K and V on the outer loop, the block's own index is the key tile's: D (one value per query row) must be
    read at the query block's rows, row0, not at the key tile's, col0."""
    source = plant(
        "fa2_bwd", "Di[r] = row0 + r < N ? Delta[row0 + r] : 0.f;", "Di[r] = col0 + r < N ? Delta[col0 + r] : 0.f;"
    )
    failed = failures("fa2_bwd", source, causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


def test_an_off_by_one_in_the_backward_causal_mask_is_caught():
    source = plant(
        "fa2_bwd", "(causal && col0 + c > row0 + r + N_kv - N)", "(causal && col0 + c >= row0 + r + N_kv - N)"
    )
    failed = failures("fa2_bwd", source, causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


@pytest.mark.parametrize(
    ("old", "new", "bug"),
    [
        ("page = block_table[p];", "page = p;", "the logical page taken for the physical one"),
        ("block_table += (long)b*max_pages;", "", "sequence 0's row of the table read for every sequence"),
    ],
)
def test_paged_decoding_taking_the_wrong_page_is_caught(old, new, bug):
    failed = failures("paged_decoding", plant("paged_decoding", old, new), n_splits=3)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES), bug


def test_paged_decoding_reading_the_last_page_whole_is_caught():
    """The rows of the last page past the sequence's end hold other data (here random; in a server, the next tokens
    of nobody): attending them changes O. The batch's lengths, 130 and 66, are not multiples of the page, 16."""
    source = plant("paged_decoding", "int rows = min(PAGE, len - p*PAGE);", "int rows = PAGE;")
    failed = failures("paged_decoding", source, n_splits=1)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


# fa2_mma: the bugs of a tensor-core kernel, planted at N = 130 (three blocks of 64 rows, the last ragged), d = 16.


def test_fa2_mma_without_the_syncwarp_after_loading_q_is_caught():
    """Each lane copies a part of its warp's 16 rows of Q; ldmatrix then reads rows other lanes wrote. Without the
    __syncwarp() a lane that issues ldmatrix before they have written reads what was there before."""
    source = remove_sync("fa2_mma", "the warp's 16 rows of Qi", call="__syncwarp();")
    failed = failures("fa2_mma", source)
    assert {s for s, _ in failed} & {"forward", "backward"}, failed


def test_fa2_mma_taking_a_row_max_without_the_quad_shuffle_is_caught():
    """Each lane sees 2 of every 8 columns of its rows: without the shuffles across the quad, the four lanes of a row
    subtract different maxes from its scores, and P~ and l no longer agree."""
    source = remove_lines("fa2_mma", "mx = fmaxf(mx, __shfl_xor_sync(", 2)
    failed = failures("fa2_mma", source, causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


def test_fa2_mma_summing_l_without_the_quad_shuffle_is_caught():
    source = remove_lines("fa2_mma", "l[h] += __shfl_xor_sync(", 2)
    failed = failures("fa2_mma", source, causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)


@pytest.mark.parametrize(
    ("old", "new", "bug"),
    [
        (
            "&Kj[n*16 + lane/16*8 + lane%8][k*16 + lane/8%2*8]",
            "&Kj[n*16 + lane/8%2*8 + lane%8][k*16 + lane/16*8]",
            "Kj's ldmatrix addressed as Vj's: lanes 8-15 and 16-23 name each other's rows",
        ),
        (
            "pack2<BF16>(s[2*k][2], s[2*k][3]),",
            "pack2<BF16>(s[2*k + 1][0], s[2*k + 1][1]),",
            "P~'s A fragment built from the accumulators in the wrong order (a1 from the next tile's c0, c1)",
        ),
        ("[(long)row*D + 8*n + 2*t]", "[(long)row*D + 8*n + 2*(t ^ 1)]", "O's columns stored by the wrong lane"),
    ],
)
def test_fa2_mma_with_a_wrong_lane_mapping_is_caught(old, new, bug):
    failed = failures("fa2_mma", plant("fa2_mma", old, new), causal=True)
    assert {s for s, _ in failed} == set(cpu.SCHEDULES), bug


def test_fa2_mma_in_bf16_is_checked_too():
    source = (kernels.FOLDER / kernels.FILES["fa2_mma"]).read_text()
    assert failures("fa2_mma", source, causal=True, dtype="bf16") == []
    failed = failures("fa2_mma", remove_lines("fa2_mma", "mx = fmaxf(mx, __shfl_xor_sync(", 2), dtype="bf16")
    assert {s for s, _ in failed} == set(cpu.SCHEDULES)
