"""On a GPU (CuPy and an NVIDIA device), the kernels agree with attention/'s reference and with the CPU shim.

Without a GPU path every test here is skipped with the reason (launch.problem()); with KERNELVIZ_REQUIRE_GPU=1 each
fails instead, so a machine that is meant to run them cannot pass by skipping them."""

from pathlib import Path

import numpy as np
import pytest
from cuda_cases import TOL, check_probe, lse_err, probe_inputs, qkv, rel_err

from kernelviz.attention.paged_cache import random_batch
from kernelviz.attention.reference import attention_backward_fp64, attention_fp64, paged_attention_fp64
from kernelviz.cuda import cpu, half, kernels, launch
from kernelviz.cuda.verify import MMA_TOL, inputs, softmax_fp64

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def gpu_path():
    """Skip (under KERNELVIZ_REQUIRE_GPU=1: fail) with the reason when the GPU path cannot run here."""
    why = launch.problem()
    if why and launch.required():
        pytest.fail(f"KERNELVIZ_REQUIRE_GPU=1 and no GPU path: {why}", pytrace=False)
    if why:
        pytest.skip(f"no GPU path: {why}")


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [16, 64, 128])
@pytest.mark.parametrize("n", [1, 7, 64, 130, 1000])
@pytest.mark.parametrize("kernel", ["fa1", "fa2"])
def test_attention_kernels_on_the_gpu(kernel, n, d, causal):
    q, k, v = qkv(3, n, d)
    out = launch.run(kernel, q, k, v, causal=causal)
    o_ref, lse_ref = attention_fp64(q, k, v, causal=causal)
    assert rel_err(out["O"], o_ref) <= TOL
    if kernel == "fa2":
        assert lse_err(out["L"], lse_ref) <= TOL


@pytest.mark.parametrize("n, n_kv", [(130, 65), (1000, 4096), (4096, 1000), (1, 130), (9, 0)])
@pytest.mark.parametrize("kernel", ["fa1", "fa2"])
def test_causal_against_a_cache_of_another_length_on_the_gpu(kernel, n, n_kv):
    q, k, v = qkv(2, n, 64, n_kv=n_kv)
    out = launch.run(kernel, q, k, v, causal=True)
    blind = max(0, n - n_kv)  # rows that see no key: O = 0, not NaN
    assert (out["O"][:, :blind] == 0).all()
    if n_kv:
        assert rel_err(out["O"], attention_fp64(q, k, v, causal=True)[0]) <= TOL


@pytest.mark.parametrize("n_splits", [1, 3, 8, 32])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("n", [1, 130, 4096])
def test_flash_decoding_on_the_gpu(n, d, n_splits):
    q, k, v = qkv(3, n, d, decode=True)
    out = launch.run("flash_decoding", q, k, v, n_splits=n_splits)
    assert rel_err(out["O"], attention_fp64(q, k, v)[0]) <= TOL


@pytest.mark.parametrize("d", [16, 64, 128])
@pytest.mark.parametrize("n", [1, 130, 4096])
def test_online_softmax_on_the_gpu(n, d):
    x, v = inputs(3, n, d, kernel="online_softmax")
    out = launch.run("online_softmax", x, v)
    assert rel_err(out["O"], softmax_fp64(x, v)[0]) <= TOL


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [16, 64, 128])
@pytest.mark.parametrize("n", [1, 7, 64, 130, 500])
def test_fa2_backward_on_the_gpu(n, d, causal):
    """dQ is added into by every block j at once here, as it cannot be on the CPU shim: atomicAdd for real."""
    q, k, v, o, do, lse = inputs(2, n, d, kernel="fa2_bwd", causal=causal)
    out = launch.run("fa2_bwd", q, k, v, o, do, lse, causal=causal)
    for name, ref in zip(("dQ", "dK", "dV"), attention_backward_fp64(q, k, v, do, causal=causal), strict=True):
        assert rel_err(out[name], ref) <= TOL, name
    assert rel_err(out["Delta"], (do.astype(np.float64) * o).sum(-1)) <= TOL


@pytest.mark.parametrize("n_splits", [1, 3, 16])
@pytest.mark.parametrize("g", [1, 2, 4, 8])
@pytest.mark.parametrize(("lens", "page_size", "d"), [([1, 130, 4096], 16, 128), ([7, 64, 1000], 32, 64)])
def test_paged_decoding_on_the_gpu(lens, page_size, d, g, n_splits):
    """Pages scattered through the pool, the first shared by every sequence; 2 K/V heads, g query heads each."""
    arrays = random_batch(lens, page_size, 2 * g, 2, d, seed=g, shared_pages=1, spare_pages=5)
    out = launch.run("paged_decoding", *arrays, n_splits=n_splits)
    assert rel_err(out["O"].reshape(arrays[0].shape), paged_attention_fp64(*arrays)) <= TOL


@pytest.mark.parametrize("kernel", [k for k in kernels.KERNELS if not kernels.kernel(k).sixteen_bit])  # 16-bit: below
def test_gpu_and_cpu_shim_agree(kernel):
    if cpu.compiler() is None:
        pytest.skip("g++ is missing")
    options = {"flash_decoding": {"n_splits": 3}, "paged_decoding": {"n_splits": 3}, "online_softmax": {}}
    options = options.get(kernel, {"causal": True})
    arrays = inputs(2, 130, 64, decode=kernel == "flash_decoding", kernel=kernel, causal=True)
    gpu, host = launch.run(kernel, *arrays, **options), cpu.run(kernel, *arrays, **options)
    for name in gpu:
        np.testing.assert_allclose(gpu[name], host[name], rtol=1e-5, atol=1e-6)


def test_tiles_too_big_for_the_device_are_refused_before_launch():
    q, k, v = qkv(1, 64, 128)
    with pytest.raises(kernels.SharedMemoryError, match="needs 147968 bytes"):
        launch.run("fa2", q, k, v, tiles=(64, 64))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [16, 64, 128])
@pytest.mark.parametrize("n", [1, 7, 64, 130, 1000])
@pytest.mark.parametrize("dtype", half.DTYPES)
def test_fa2_mma_on_the_gpu(dtype, n, d, causal):
    """Tensor cores for real: O within verify.MMA_TOL of the float64 reference on the same rounded inputs, L within
    TOL (fp32 softmax statistics; the GPU's exp2 is approximate to a few ulp)."""
    q, k, v = qkv(3, n, d, kernel="fa2_mma", dtype=dtype)
    out = launch.run("fa2_mma", q, k, v, causal=causal, dtype=dtype)
    o_ref, lse_ref = attention_fp64(q, k, v, causal=causal)
    assert rel_err(out["O"], o_ref) <= MMA_TOL[dtype]
    assert lse_err(out["L"], lse_ref) <= TOL


@pytest.mark.parametrize("n, n_kv", [(130, 65), (1000, 4096), (4096, 1000), (1, 130), (9, 0)])
def test_fa2_mma_causal_against_a_cache_of_another_length_on_the_gpu(n, n_kv):
    q, k, v = qkv(2, n, 64, kernel="fa2_mma", n_kv=n_kv)
    out = launch.run("fa2_mma", q, k, v, causal=True)
    assert (out["O"][:, : max(0, n - n_kv)] == 0).all()
    if n_kv:
        assert rel_err(out["O"], attention_fp64(q, k, v, causal=True)[0]) <= MMA_TOL["fp16"]


@pytest.mark.parametrize("swizzle", [1, 0])
@pytest.mark.parametrize("stages", [1, 2])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [16, 64, 128])
@pytest.mark.parametrize("n", [1, 130, 1000])
@pytest.mark.parametrize("dtype", half.DTYPES)
def test_fa2_pipe_on_the_gpu(dtype, n, d, causal, stages, swizzle):
    """cp.async, its waits, the swizzle (or padding) and dynamic shared memory for real (98,304 bytes at d = 128 and
    2 stages: past 48 KiB, so launch.py must set the attribute): fa2_mma's tolerances."""
    q, k, v = qkv(3, n, d, kernel="fa2_pipe", dtype=dtype)
    out = launch.run("fa2_pipe", q, k, v, causal=causal, dtype=dtype, stages=stages, swizzle=swizzle)
    o_ref, lse_ref = attention_fp64(q, k, v, causal=causal)
    assert rel_err(out["O"], o_ref) <= MMA_TOL[dtype]
    assert lse_err(out["L"], lse_ref) <= TOL


@pytest.mark.parametrize("stages", [1, 2])
@pytest.mark.parametrize("n, n_kv", [(130, 65), (1000, 4096), (4096, 1000), (1, 130), (9, 0)])
def test_fa2_pipe_causal_against_a_cache_of_another_length_on_the_gpu(n, n_kv, stages):
    q, k, v = qkv(2, n, 128, kernel="fa2_pipe", n_kv=n_kv)
    out = launch.run("fa2_pipe", q, k, v, causal=True, stages=stages)
    assert (out["O"][:, : max(0, n - n_kv)] == 0).all()
    if n_kv:
        assert rel_err(out["O"], attention_fp64(q, k, v, causal=True)[0]) <= MMA_TOL["fp16"]


@pytest.mark.parametrize("stages", [1, 2])
def test_fa2_pipe_gpu_and_cpu_shim_agree(stages):
    """As fa2_mma's: to the format's roundoff (the sums' order may differ), not to the bit."""
    q, k, v = qkv(2, 130, 64, kernel="fa2_pipe", dtype="bf16")
    gpu = launch.run("fa2_pipe", q, k, v, causal=True, dtype="bf16", stages=stages)
    host = cpu.run("fa2_pipe", q, k, v, causal=True, dtype="bf16", stages=stages)
    assert rel_err(gpu["O"], host["O"].astype(np.float64)) <= 2 * half.UNIT_ROUNDOFF["bf16"]
    assert lse_err(gpu["L"], host["L"].astype(np.float64)) <= TOL


@pytest.mark.parametrize("dtype", half.DTYPES)
def test_fa2_mma_gpu_and_cpu_shim_agree(dtype):
    """Both round O and P~ to 16 bits once; they may sum in different orders, so they agree to the format's
    roundoff, not to the bit."""
    q, k, v = qkv(2, 130, 64, kernel="fa2_mma", dtype=dtype)
    gpu = launch.run("fa2_mma", q, k, v, causal=True, dtype=dtype)
    host = cpu.run("fa2_mma", q, k, v, causal=True, dtype=dtype)
    assert rel_err(gpu["O"], host["O"].astype(np.float64)) <= 2 * half.UNIT_ROUNDOFF[dtype]
    assert lse_err(gpu["L"], host["L"].astype(np.float64)) <= TOL


@pytest.mark.parametrize("dtype", half.DTYPES)
def test_the_hardwares_fragments_are_the_documented_layout(dtype):
    """The probe the shim runs (fragment_probe.cuh, after fa2_mma.cu's device functions) on the GPU: the registers of
    each lane after ldmatrix and mma.sync are fragments.py's layout, which the shim emulates and a page draws."""
    import cupy

    source = (kernels.FOLDER / "fa2_mma.cu").read_text() + (Path(__file__).parent / "fragment_probe.cuh").read_text()
    name = f"probe<{int(dtype == 'bf16')}>"
    # the kernel's #include "mma_sm80.h" (its PTX wrappers) is found beside it: CuPy compiles a copy in a temp folder
    options = ("-std=c++17", f"--include-path={kernels.FOLDER}")
    module = cupy.RawModule(code=source, options=options, name_expressions=[name])
    m, n, f = probe_inputs(dtype)
    regs, acc = cupy.zeros(32 * 12, cupy.uint32), cupy.zeros(32 * 16, cupy.float32)
    shuffled, packed = cupy.zeros(64, cupy.float32), cupy.zeros(32, cupy.uint32)
    args = (cupy.asarray(half.bits(m, dtype)), cupy.asarray(half.bits(n, dtype)), cupy.asarray(f))
    module.get_function(name)((1,), (32,), (*args, regs, acc, shuffled, packed))
    got = [cupy.asnumpy(x) for x in (regs, acc, shuffled, packed)]
    check_probe(dtype, m, n, f, got[0].reshape(32, 3, 4), got[1].reshape(32, 4, 4), got[2].reshape(32, 2), got[3])


def test_bad_launcher_inputs_are_refused_on_the_gpu_as_on_the_shim():
    """The checks of tests/cuda/test_cuda_paged.py, with device arrays: a length of 0 and a page outside the pool
    refused by name (not NaN, not an illegal address), and a float16 view 2 bytes past a 16-byte boundary (passed to
    fa2_mma as it is, no copy) refused before its 16-byte loads."""
    import cupy

    q, k, v, table, lens = (cupy.asarray(x) for x in random_batch([5, 9], 4, 2, 1, 16))
    zero = lens.copy()
    zero[1] = 0
    with pytest.raises(ValueError, match=r"seq_lens\[1\] = 0: sequence 1 must have at least 1 token"):
        launch.run("paged_decoding", q, k, v, table, zero)
    outside = table.copy()
    outside[1, 2] = 9
    with pytest.raises(ValueError, match=r"block_table\[1, 2\] = 9: page 2 of sequence 1 is not a page of the pool"):
        launch.run("paged_decoding", q, k, v, outside, lens)
    buffer = cupy.zeros(64 * 16 + 8, cupy.float16)
    k16 = buffer[1 : 1 + 64 * 16].reshape(1, 64, 16)
    q16 = cupy.zeros((1, 64, 16), cupy.float16)
    with pytest.raises(ValueError, match="fa2_mma: K starts at address .*, 2 bytes past a 16-byte boundary"):
        launch.run("fa2_mma", q16, k16, q16)
