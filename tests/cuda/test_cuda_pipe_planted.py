"""The shim catches what goes wrong with copies in flight: each test plants one bug in fa2_pipe.cu's text (as
test_cuda_planted does for the other kernels) and checks that the harness rejects it, deterministically: under the
one-at-a-time schedules, whose copies land either as late as the PTX ISA allows or at random points from a seed
fixed per schedule (cpu/async.h), so the same on every run. A read that no wait orders after its copy reads, landing
late, the NaN pattern the shared memory starts with or the previous tile; a copy that refills a buffer too early
shows when it lands early, at random.

Sizes: N = 70 against 70 keys, Bc = 16 (5 tiles), d = 16, causal; each planted source is one g++ build."""

import pytest
from cuda_cases import needs_gxx, qkv, rel_err

from kernelviz.attention.reference import attention_fp64
from kernelviz.cuda import cpu, kernels
from kernelviz.cuda.verify import MMA_TOL

pytestmark = needs_gxx
ORDERS = [(s, "late") for s in ("forward", "backward")] + [(s, "random") for s in cpu.SCHEDULES]


def source():
    return (kernels.FOLDER / "fa2_pipe.cu").read_text()


def plant(old, new, count=1):
    """fa2_pipe.cu with `old` (found `count` times) replaced by `new`."""
    text = source()
    assert text.count(old) == count, f"the text to plant the bug in is gone from fa2_pipe.cu: {old!r}"
    return text.replace(old, new)


def failures(text, orders=ORDERS, stages=2, **options):
    """The (schedule, copies) of `orders` under which fa2_pipe built from `text` fails: it crashes, or its O is not
    within MMA_TOL of the reference."""
    q, k, v = qkv(1, 70, 16, seed=7, kernel="fa2_pipe", dtype="fp16")
    o_ref = attention_fp64(q, k, v, causal=True)[0]
    failed = []
    for schedule, copies in orders:
        try:
            out = cpu.run(
                "fa2_pipe", q, k, v, causal=True, tiles=(128, 16), schedule=schedule, copies=copies, source=text,
                stages=stages, timeout=60, **options,
            )  # fmt: skip
        except cpu.KernelRunError as e:
            failed.append((schedule, copies, str(e)))
            continue
        if not rel_err(out["O"], o_ref) <= MMA_TOL["fp16"]:
            failed.append((schedule, copies, f"error {rel_err(out['O'], o_ref):.2e}"))
    return failed


def deterministic(failed):
    """The orders of `failed` that fail on every run: one thread at a time, copies landing late or seeded."""
    return {(s, c) for s, c, _ in failed if s != "threads"}


@pytest.mark.parametrize("stages", [1, 2])
def test_the_unchanged_kernel_passes_every_order(stages):
    assert failures(source(), stages=stages) == []


def test_a_missing_wait_group_is_caught():
    """Without the wait of wait_copy, tile j's copies land when the thread returns: the scores read NaN."""
    text = plant("        cp_async_wait_newer<STAGES - 1>(min(STAGES - 1, Tc - 1 - j));\n", "")
    failed = failures(text)
    assert {("forward", "late"), ("backward", "late")} <= deterministic(failed), failed


def test_wait_group_1_in_place_of_0_at_the_last_tile_is_caught():
    """At the last tile nothing newer is in flight, so it must wait for everything; wait_group 1 leaves the last
    tile's own group in flight."""
    text = plant("if constexpr (MAX == 0) cp_async_wait<0>();", "if constexpr (MAX == 0) cp_async_wait<1>();")
    failed = failures(text)
    assert {("forward", "late"), ("backward", "late")} <= deterministic(failed), failed


def test_a_buffer_refilled_while_another_warp_reads_it_is_caught():
    """Without the barrier of `release`, the first warp to finish tile j issues tile j + 2 into j's buffer while the
    others still read it (stages = 2), and with one stage tile j + 1 into the only buffer. Landing late hides it
    (the copy lands at the next wait, after the barrier every warp passes when done with tile j); landing at random
    points, early, shows it."""
    line = "        __syncthreads();  // waits for: every warp done with buffer j % STAGES"
    text = source()
    [full] = [x for x in text.splitlines() if x.startswith(line)]
    text = text.replace(full + "\n", "")
    for stages in (2, 1):
        failed = failures(text, stages=stages)
        assert {("forward", "random"), ("backward", "random")} & deterministic(failed), (stages, failed)


def test_a_swizzle_applied_on_store_and_not_on_load_is_caught():
    """The copies store K swizzled; ldmatrix reading it back as if unswizzled reads other keys' chunks."""
    text = plant("ldmatrix_x4<false>(b, &Kj[at<S, SWIZZLE>(", "ldmatrix_x4<false>(b, &Kj[at<S, 0>(")
    failed = failures(text, orders=[("forward", "late"), ("threads", "random")])
    assert len(failed) == 2 and all("error" in why for *_, why in failed), failed


def test_rows_padded_by_4_elements_are_misaligned_and_caught():
    """Rows D + 4 elements apart start 8 bytes off a 16-byte boundary every other row: cp.async (and ldmatrix)
    needs 16-byte aligned addresses, and the shim reports the first misaligned copy (exit status 6)."""
    text = plant("constexpr int S = SWIZZLE ? D : D + 8;", "constexpr int S = SWIZZLE ? D : D + 4;")
    failed = failures(text, orders=[("forward", "late")], swizzle=0)
    assert len(failed) == 1 and "exit 6" in failed[0][2] and "not 16-byte aligned" in failed[0][2], failed


def test_fa2_mmas_rows_padded_by_4_are_caught_by_ldmatrix():
    """fa2_mma.cu's padding D + 8 made D + 4, which today's checks of its answer alone could miss on a CPU (its copies
    are memcpy there): the shim's ldmatrix now refuses the misaligned row address."""
    text = (kernels.FOLDER / "fa2_mma.cu").read_text()
    old = "constexpr int S = D + 8;"
    assert text.count(old) == 1
    q, k, v = qkv(1, 20, 16, kernel="fa2_mma", dtype="fp16")
    with pytest.raises(cpu.KernelRunError, match="exit 6.*ldmatrix: lane .* not 16-byte aligned"):
        cpu.run("fa2_mma", q, k, v, source=text.replace(old, "constexpr int S = D + 4;"))
