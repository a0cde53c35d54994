"""The CPU shim runs Hopper's asynchronous units (cpu/hopper.h) faithfully enough that a kernel's bugs show.

hopper_probe.cpp is FA3's pipeline without the softmax: a producer warpgroup loads A once and K_j, V_j into a ring
of two stages with TMA (128-byte swizzle), guarded by full and empty mbarriers; two consumer warpgroups compute
O = sum_j half(A K_j^T) V_j with wgmma (S from two shared-memory descriptors, P V with P from registers and V through
an MN-major descriptor), ping-ponged by named barriers; the epilogue stores half(O) with TMA. Its inputs are
multiples of 1/4 in [-1/2, 1/2] (fp16) or of 1/2 in [-1/2, 1/2] (bf16), so every product and sum is exact and the
NumPy reference is exact too: the shim must give the same bits, under every schedule and copy timing.

Each planted bug changes one line of the probe's kernel (hopper_probe.cuh) and must fail, under both one-at-a-time
schedules (which do not depend on the OS), with the symptom named in BUGS.
"""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from cuda_cases import needs_gxx

from kernelviz.cuda import cpu, half

pytestmark = needs_gxx

PROBE = Path(__file__).with_name("hopper_probe.cpp")
KERNEL = PROBE.with_name("hopper_probe.cuh")
T, KV, D, ROWS = 4, 64, 64, 128

# name: (line in the probe, its replacement, what the run shows). A symptom is ("exit", status, stderr text) or
# "wrong bits" (the run ends normally with an answer other than the reference's) or "nan" (it reads poison).
BUGS = {
    "missing wgmma_wait": ("wgmma_wait<0>();                // S landed in acc", "", "wrong bits"),
    "wrong parity": (
        "mbar_wait(&full[s], phase);",
        "mbar_wait(&full[s], phase ^ 1);",
        ("exit", 6, "mbar_arrive_expect_tx: more arrivals than the count 1"),
    ),
    "missing expect_tx": ("mbar_arrive_expect_tx(&full[s], 2 * TILE_BYTES);", "mbar_arrive(&full[s]);", "nan"),
    "ring overrun": (
        "mbar_wait(&empty[s], phase ^ 1);",
        "",
        ("exit", 6, "mbar_arrive_expect_tx: more arrivals than the count 1"),
    ),
    "missing fence.proxy.async": (
        "fence_proxy_async();",
        "",
        ("exit", 6, "tma_store reads shared memory at offset 49152 that threads wrote with plain stores"),
    ),
    "a plain store that wgmma reads, no fence": (
        "mbar_wait(&full[s], phase);  // K_j and V_j landed",
        "mbar_wait(&full[s], phase); if (tid == 7) sK[s * TILE_BYTES + 2 * tid] += 1;",
        ("exit", 6, "wgmma reads shared memory at offset 16398 that threads wrote with plain stores"),
    ),
    "wrong swizzle in a descriptor": (
        "smem_addr(sK + s * TILE_BYTES + kk * 32), 16, 1024, 128)",
        "smem_addr(sK + s * TILE_BYTES + kk * 32), 16, 1024, 64)",
        "wrong bits",
    ),
    "ping-pong barriers swapped": (
        "named_bar_sync(mine, 256);",
        "named_bar_sync(theirs, 256);",
        ("exit", 5, "wait at named_bar_sync(2, 256) (128 of 256 threads arrived)"),
    ),
    "more registers than the producer released": (
        "setmaxnreg_inc<232>();",
        "setmaxnreg_inc<256>();",
        ("exit", 5, "wait at setmaxnreg_inc<256>"),
    ),
}


def kernel(bug=None):
    """The probe's kernel (hopper_probe.cuh), with `bug` planted."""
    text = KERNEL.read_text()
    if bug is None:
        return text
    old, new, _ = BUGS[bug]
    assert text.count(old) == 1, f"the line to plant {bug!r} in is gone from hopper_probe.cuh: {old!r}"
    return text.replace(old, new)


VARIANTS = [None, *BUGS]  # variant k of the build: the probe, then each bug


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """The probe built with every variant in one program (one compile: the headers are parsed once)."""
    folder = tmp_path_factory.mktemp("hopper")
    spaces = [f"namespace v{k} {{\n{kernel(bug)}}}\n" for k, bug in enumerate(VARIANTS)]
    listed = ", ".join(f"{{v{k}::probe<false>, v{k}::probe<true>}}" for k in range(len(VARIANTS)))
    (folder / "variants.inc").write_text("".join(spaces) + f"#define KV_VARIANTS {listed}\n")
    exe = folder / "hopper_probe"
    command = [cpu.compiler(), "-std=c++20", "-O0", "-pthread", f"-I{cpu.HERE}", f"-I{KERNEL.parent}"]
    command += [f'-DKV_VARIANT_FILE="{folder / "variants.inc"}"', str(PROBE), "-o", str(exe)]
    subprocess.run(command, check=True)
    return exe


def inputs(dtype):
    rng = np.random.default_rng(5)
    scale = 4 if dtype == "fp16" else 2
    a, k, v = (
        rng.integers(-2 if dtype == "fp16" else -1, 3 if dtype == "fp16" else 2, shape) / scale
        for shape in ((ROWS, D), (T * KV, D), (T * KV, D))
    )
    return a, k, v


def reference(a, k, v, dtype, ragged):
    """The exact sum_j half(A K_j^T) V_j rounded once to `dtype`, as bits; `ragged`: K and V's last 10 rows read as
    zero and O's last 5 rows never written (0x7fad)."""
    if ragged:
        k, v = k.copy(), v.copy()
        k[-10:] = v[-10:] = 0
    o = np.zeros((ROWS, D))
    for j in range(T):
        s = a @ k[j * KV : (j + 1) * KV].T
        assert np.array_equal(half.round(s, dtype), s), "the inputs must keep S exact in 16 bits"
        o += s @ v[j * KV : (j + 1) * KV]
    out = half.bits(o, dtype)
    if ragged:
        out[-5:] = 0x7FAD
    return out


def run(exe, schedule, dtype, ragged=False, seed=None, bug=None):
    a, k, v = inputs(dtype)
    data = b"".join(half.bits(x, dtype).tobytes() for x in (a, k, v))
    env = dict(os.environ, KVSHIM_ASYNC_SEED=str(seed)) if seed else None
    args = [str(exe), schedule, str(int(dtype == "bf16")), str(int(ragged)), str(VARIANTS.index(bug))]
    done = subprocess.run(args, input=data, capture_output=True, timeout=300, env=env)
    out = np.frombuffer(done.stdout, np.uint16).reshape(ROWS, D) if done.returncode == 0 else None
    return done, out, reference(a, k, v, dtype, ragged)


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("schedule", cpu.SCHEDULES)
def test_the_round_trip_gives_numpys_bits(probe, schedule, dtype):
    done, out, ref = run(probe, schedule, dtype)
    assert done.returncode == 0, done.stderr.decode()
    assert np.array_equal(out, ref)


@pytest.mark.parametrize("seed", [1, 2])
def test_copies_landing_at_random_points_give_the_same_bits(probe, seed):
    done, out, ref = run(probe, "forward", "fp16", seed=seed)
    assert done.returncode == 0, done.stderr.decode()
    assert np.array_equal(out, ref)


def test_tma_fills_zeros_outside_the_tensor_and_clips_its_stores(probe):
    done, out, ref = run(probe, "backward", "fp16", ragged=True)
    assert done.returncode == 0, done.stderr.decode()
    assert np.array_equal(out, ref)
    assert (out[-5:] == 0x7FAD).all() and (out[:-5] != 0x7FAD).any()


@pytest.mark.parametrize("bug", list(BUGS))
@pytest.mark.parametrize("schedule", ["forward", "backward"])
def test_a_planted_bug_fails(probe, bug, schedule):
    done, out, ref = run(probe, schedule, "fp16", bug=bug)
    symptom = BUGS[bug][2]
    if symptom == "wrong bits":
        assert done.returncode == 0, done.stderr.decode()
        assert not np.array_equal(out, ref)
    elif symptom == "nan":
        assert done.returncode == 0, done.stderr.decode()
        assert np.isnan(half.values(out, "fp16")).any()
    else:
        _, status, text = symptom
        assert done.returncode == status, done.stderr.decode()
        assert text in done.stderr.decode()
