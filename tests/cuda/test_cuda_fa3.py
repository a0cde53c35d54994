"""FlashAttention 3 (fa3.cu) on the CPU shim: against the fp64 reference within MMA_TOL (its two 16-bit roundings, as
fa2_mma) in fp16 and bf16, causal or not, ragged N and N_kv both ways, rows that see no key; the same bits under
every schedule; what it refuses; its registers per role; and bugs planted in its own lines caught."""

import re

import numpy as np
import pytest
from cuda_cases import needs_gxx, needs_nvrtc

from kernelviz.cuda import cpu, kernels, nvrtc, verify
from kernelviz.cuda.descriptor import MMA_TOL

pytestmark = needs_gxx
SOURCE = (kernels.FOLDER / "fa3.cu").read_text()


def check(bh, n, n_kv, d, causal, dtype, schedule="forward", source=None):
    """fa3's outputs on the shim and verify's error of them (O against attention_fp64, L against its lse)."""
    arrays = verify.inputs(bh, n, d, kernel="fa3", causal=causal, n_kv=n_kv, dtype=dtype, seed=n + n_kv)
    out = cpu.run("fa3", *arrays, causal=causal, dtype=dtype, schedule=schedule, source=source, timeout=300)
    return out, verify.error("fa3", out, *arrays, causal=causal)


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize(
    "bh, n, n_kv, d, causal",
    [
        (2, 130, 130, 64, False),  # two blocks, the second's rows past N zero-filled by the TMA
        (2, 130, 130, 64, True),
        (1, 100, 257, 128, True),  # more keys than rows: three tiles, the last of one key
        (2, 300, 100, 64, True),  # fewer: rows 0..199 see no key, O = 0 and L = -inf; the first block loads nothing
    ],
)
def test_within_mma_tol_of_the_fp64_reference(bh, n, n_kv, d, causal, dtype):
    _, err = check(bh, n, n_kv, d, causal, dtype)
    assert err <= MMA_TOL[dtype], err


def test_every_schedule_gives_the_same_bits():
    """The threads free-running, or one at a time in either order, with copies landing at seeded random points and
    whenever no thread can run (shim.h's wait_until): the same O and L, bit for bit."""
    found = [check(2, 130, 65, 64, True, "bf16", schedule)[0] for schedule in cpu.SCHEDULES]
    for other in found[1:]:
        for name in ("O", "L"):
            np.testing.assert_array_equal(other[name], found[0][name])


def test_what_it_refuses_is_named():
    q = np.zeros((1, 8, 64), np.float32)
    with pytest.raises(ValueError, match=r"fa3 takes Br = 128, Bc in \(64, 128\) and d in \(64, 128\).*d=16"):
        cpu.run("fa3", q[..., :16], q[..., :16], q[..., :16])
    with pytest.raises(kernels.ThreadLimitError, match="fa3 runs 3 warpgroups, 384 threads a block, not 128"):
        cpu.run("fa3", q, q, q, threads=128)
    with pytest.raises(ValueError, match=r"N_kv = 0.*no empty dimension"):
        cpu.run("fa3", q, q[:, :0], q[:, :0])
    k = q.copy()
    with pytest.raises(ValueError, match="fa3: K starts at address 0x1008, 8 bytes past a 16-byte boundary"):
        kernels.check_inputs("fa3", (q, k, q), (q, k, q), np.asarray, lambda x: 0x1008 if x is k else 0x1000)


@needs_nvrtc
def test_registers_per_role_fit_the_sm():
    """ptxas gives every thread the launch's registers (NVRTC's build: no spills); setmaxnreg then moves them from the
    producer warpgroup (down to P) to the two consumers (up to C): 128 P + 256 C must fit the 65,536 of the SM, as
    the launch's 384 x registers do, and P <= registers <= C."""
    names = kernels.instances("fa3", (128, 128), 128)
    rows = nvrtc.build("fa3", names, "sm_90a").rows.values()
    (low,) = map(int, re.findall(r"setmaxnreg_dec<(\d+)>\(\);", SOURCE))
    (high,) = map(int, re.findall(r"setmaxnreg_inc<(\d+)>\(\);", SOURCE))
    for row in rows:
        assert row.spill_stores == row.spill_loads == 0, row
        assert 384 * row.registers <= 65536 and low <= row.registers <= high
    assert 128 * low + 256 * high <= 65536 and (low, high) == (24, 240)


PLANTED = [  # (what, the line as it is, the line planted, what catches it)
    ("a missing wgmma wait: the softmax reads S_j before it lands", "wgmma_wait<1>();", "wgmma_wait<2>();", "O"),
    (
        "a wrong parity: the consumer passes a full barrier whose copies have not landed",
        "mbar_wait(&full[j%STAGES], j/STAGES & 1);",
        "mbar_wait(&full[j%STAGES], (j/STAGES & 1) ^ 1);",
        "O",
    ),
    (
        "a missing expect_tx: full[s] completes on the arrival alone",
        "mbar_arrive_expect_tx(&full[s], 2*KV_BYTES);",
        "mbar_arrive(&full[s]);",
        "O",
    ),
    (
        "the ring overrun: the producer refills a stage before its empty barrier",
        "mbar_wait(&empty[s], (round & 1) ^ 1);",
        "",
        "O",
    ),
    ("a missing fence.proxy.async before the TMA store", "fence_proxy_async();         // the threads'", "//", "O"),
    (
        "K's descriptor with the wrong swizzle",
        "make_smem_desc(smem_addr(Kj + k/4*Bc*128 + k%4*32), 16, 1024, 128)",
        "make_smem_desc(smem_addr(Kj + k/4*Bc*128 + k%4*32), 16, 1024, 64)",
        "O",
    ),
    ("the ping-pong barriers swapped", "named_bar_sync(1 + w, 256);", "named_bar_sync(2 - w, 256);", "O"),
]


@pytest.mark.parametrize(("what", "line", "planted", "_"), PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_bug_fails(what, line, planted, _):
    """Each bug in fa3.cu's own lines, on a case with a full ring (three tiles, two stages), ragged and causal: the
    shim reports it (a deadlock, a read of memory written without a fence) or the answer is off."""
    assert SOURCE.count(line) == 1, line
    try:
        _, err = check(1, 130, 300, 64, True, "fp16", source=SOURCE.replace(line, planted))
    except cpu.KernelRunError:
        return
    assert not err <= MMA_TOL["fp16"], f"{what}: error {err:.2e} within tolerance"


def test_shared_memory_past_what_the_host_gave_is_reported():
    """The shim's dynamic shared memory is the bytes the host gives the launch (fa3_shared_bytes), as on a GPU, not
    the most sm_90 allows: a planted layout that starts its tiles 2 KiB further on (past the 1 KiB of alignment
    slack) puts the last stage's V and the mbarriers past the end, and the shim names it."""
    line = "u8 *Qs = base, *Ks"
    assert SOURCE.count(line) == 1
    with pytest.raises(cpu.KernelRunError, match="shared memory"):
        check(1, 130, 300, 64, True, "fp16", source=SOURCE.replace(line, "u8 *Qs = base + 2048, *Ks"))
