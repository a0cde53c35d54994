"""What a GPU refuses, the planner refuses on every backend before anything runs: more threads per block than a
kernel's registers allow (fd_split<64, 64> takes ~90 registers a thread, so not 1,024 threads), and more
batch·heads than grid.y holds (65,535)."""

import pytest
from cuda_cases import TOL, needs_gxx, needs_nvrtc, qkv, rel_err

from kernelviz.attention.reference import attention_fp64
from kernelviz.cuda import cpu, kernels, nvrtc

FD64 = ["fd_split<64, 64>", "fd_combine<64>"]


@pytest.mark.parametrize(
    ("registers", "threads"),
    [
        (32, 1024),  # 1,024 registers a warp: 64 warps fit, CUDA's 32 warps are the limit
        (64, 1024),  # 2,048 a warp: exactly 32 warps
        (65, 896),  # 2,080 -> 2,304 a warp (units of 256): 28 warps
        (92, 672),  # 2,944 -> 3,072 a warp: 21 warps
        (255, 256),  # 8,160 -> 8,192 a warp: 8 warps
    ],
)
def test_threads_a_block_can_have_at_a_register_count(registers, threads):
    assert kernels.register_thread_limit(registers) == threads


@needs_nvrtc
def test_the_planner_takes_its_thread_limit_from_the_compiled_registers():
    limits = nvrtc.thread_limits("flash_decoding", FD64)
    registers = max(nvrtc.build("flash_decoding", FD64, arch).rows[FD64[0]].registers for arch in ("sm_80", "sm_90"))
    assert registers * 1024 > kernels.REGISTERS_PER_BLOCK  # the kernel cannot run 1,024 threads
    most, why = limits[FD64[0]]
    assert most == kernels.register_thread_limit(registers) < 1024 and f"{registers} registers" in why
    with pytest.raises(kernels.ThreadLimitError, match=rf"fd_split<64, 64> can run at most {most} threads"):
        kernels.plan("flash_decoding", 2, 130, 64, threads=1024, n_splits=2, thread_limits=limits)
    assert kernels.plan("flash_decoding", 2, 130, 64, threads=most, n_splits=2, thread_limits=limits)


@needs_nvrtc
@needs_gxx
def test_the_cpu_shim_refuses_what_the_gpu_would_and_runs_what_it_would():
    q, k, v = qkv(1, 130, 64, decode=True)
    with pytest.raises(kernels.ThreadLimitError, match=r"fd_split<64, 64> can run at most \d+ threads .* not 1024"):
        cpu.run("flash_decoding", q, k, v, threads=1024, n_splits=2)
    out = cpu.run("flash_decoding", q, k, v, threads=512, n_splits=2)  # over ALWAYS_FITS, within the registers
    assert rel_err(out["O"], attention_fp64(q, k, v)[0]) <= TOL


def test_the_cpu_shim_without_nvrtc_refuses_threads_it_cannot_check(monkeypatch):
    monkeypatch.setattr(nvrtc, "_probe", lambda: (None, "ImportError: no cuda.bindings"))
    q, k, v = qkv(1, 8, 16, decode=True)
    with pytest.raises(kernels.ThreadLimitError, match="checking needs NVRTC .ImportError: no cuda.bindings"):
        cpu.run("flash_decoding", q, k, v, threads=kernels.ALWAYS_FITS + 1)


@pytest.mark.parametrize("kernel", ["fa2", "flash_decoding"])
def test_batch_heads_beyond_grid_y_are_refused(kernel):
    with pytest.raises(ValueError, match="65,536 blocks in grid.y, which holds at most 65,535: batch·heads"):
        kernels.plan(kernel, 65536, 64, 64)
    assert kernels.plan(kernel, 65535, 64, 64)[0].grid[1] == 65535


def test_fa1_puts_batch_heads_in_grid_x_which_holds_more():
    assert kernels.plan("fa1", 65536, 64, 64)[0].grid == (65536,)


@needs_gxx
def test_the_cpu_shim_refuses_a_grid_the_gpu_would():
    q, k, v = qkv(65536, 1, 1, decode=True)
    with pytest.raises(ValueError, match="grid.y"):
        cpu.run("flash_decoding", q, k, v, tiles=(1, 1))


@needs_nvrtc
@pytest.mark.parametrize("kernel", kernels.KERNELS)
def test_every_default_launch_fits_the_registers_of_what_nvrtc_builds(kernel):
    """The launches the GPU makes by default (kernels.GPU_THREADS threads) at each head dimension the tests use,
    built together as test_cuda_nvrtc builds them (one cached build per architecture)."""
    plans = {d: kernels.plan(kernel, 2, 130, d, n_splits=2) for d in kernels.head_dims(kernel, (16, 64, 128))}
    limits = nvrtc.thread_limits(kernel, [launch.name for launches in plans.values() for launch in launches])
    for d, launches in plans.items():
        assert {launch.name for launch in launches} <= set(limits)
        kernels.plan(kernel, 2, 130, d, n_splits=2, thread_limits=limits)  # raises ThreadLimitError if not


@pytest.mark.parametrize("tiles, d", [((16, 32), 64), ((8, 16), 128), ((7, 5), 13)])
def test_the_backward_ledger_models_the_shared_memory_the_kernel_declares(tiles, d):
    """FA2 backward's ledger holds, per block of its main kernel, the tiles fa2_bwd.cu declares (float32)."""
    import numpy as np

    from kernelviz.attention import flash_attention_2_backward

    q = np.ones((1, 3, d))
    ledger = flash_attention_2_backward(q, q, q, q, q, np.zeros((1, 3)), Br=tiles[0], Bc=tiles[1]).ledger
    assert sum(ledger.sram["fa2_bwd"].values()) == kernels.shared_bytes("fa2_bwd", tiles, d)[1]
    assert sum(ledger.sram["fa2_bwd_preprocess"].values()) == kernels.shared_bytes("fa2_bwd", tiles, d)[0] == 0


def test_the_shared_memory_a_page_quotes_is_each_launchs_at_the_runs_sizes():
    """kernels.shared_memory answers {{ trace....cuda.shared_bytes.K }}: the __shared__ arrays of the .cu files,
    counted here by hand (fa2: Qi, Oi of Br×D, Kj, Vj of Bc×D, Sij of Br×Bc, m, l of Br; fd_split: q, o of D, Kj,
    Vj of Bc×D, s of Bc, 3 scalars; fd_combine: o of D and 2 scalars), even beyond a device's 48 KiB."""
    assert kernels.shared_memory("fa2", {"N": 8, "d": 4, "Br": 4, "Bc": 2}) == {"fa2": 4 * (32 + 16 + 8 + 8)}
    big = kernels.shared_memory("fa1", {"N": 1024, "d": 128, "Br": 64, "Bc": 64})
    assert big == {"fa1": 4 * (2 * 64 * 128 * 2 + 64 * 64 + 2 * 64)} and big["fa1"] > kernels.STATIC_SHARED_LIMIT
    fd = kernels.shared_memory("flash-decoding", {"N": 1, "N_kv": 16, "d": 4, "Br": 1, "Bc": 4, "splits": 2})
    assert fd == {"fd_split": 4 * (8 + 32 + 4 + 3), "fd_combine": 4 * (4 + 2)}
    assert kernels.shared_memory("online-softmax-output", {"N": 16, "Bc": 4, "d": 2}) == {
        "online_softmax": 4 * (4 + 8 + 2 + 3)
    }
    assert kernels.shared_memory("standard", {"N": 8, "d": 4, "Br": 4, "Bc": 4}) is None


def test_a_kernel_with_dynamic_shared_memory_quotes_it_with_the_static():
    """fa3 declares no static __shared__: all it takes is dynamic, fa3.cu's fa3_shared_bytes, counted here by hand
    (1 KiB of alignment slack, Q of 128 x d and 2 stages of K_j and V_j of Bc x d, 16-bit, 5 mbarriers of 8 bytes). A
    static-only count would quote 0. The same bytes as the launch plan gives the device."""
    quoted = kernels.shared_memory("fa3", {"N": 256, "d": 64, "Br": 128, "Bc": 128})
    assert quoted == {"fa3": 1024 + 2 * 128 * 64 + 2 * 2 * (2 * 128 * 64) + 8 * 5} == {"fa3": 82_984}
    (launch,) = kernels.plan("fa3", 1, 256, 64, (128, 128), dtype="fp16")
    assert launch.shared_bytes == 0 and launch.dynamic_bytes == quoted["fa3"]


def test_fa2_mmas_shared_memory_is_what_ptxas_reported_and_any_size_a_figure_draws():
    """kernels.shared_memory("fa2-mma") answers {{ trace....cuda.shared_bytes.fa2_mma }}: 2*(Br + 2*Bc)*(D + 8) bytes,
    equal to the checked-in ptxas/NVRTC report for every fa2_mma instance compiled, and defined at a figure's
    4×4 tiles too, which the kernel itself (Br = 64, multiples of 16) does not take."""
    import re

    from kernelviz.cuda import report

    seen = 0
    for table in report.checked_in():
        for row in table.rows["fa2_mma"]:
            br, bc, d, _ = map(int, re.findall(r"\d+", row.kernel.partition("<")[2]))
            sizes = {"N": 4096, "d": d, "Br": br, "Bc": bc}
            assert kernels.shared_memory("fa2-mma", sizes) == {"fa2_mma": row.shared_bytes}, row
            seen += 1
    assert seen >= 8  # (64, 64, 64) and (64, 32, 128), fp16 and bf16, sm_80 and sm_90
    assert kernels.shared_memory("fa2-mma", {"N": 8, "d": 4, "Br": 4, "Bc": 4}) == {"fa2_mma": 2 * 12 * 12}
