"""fa3 on a Hopper GPU (CuPy, an sm_90 device): against the fp64 reference within MMA_TOL, causal against caches of
other lengths, the CPU shim's answer to the format's roundoff, and a misaligned view refused by name. Skipped without
a GPU path (failed under KERNELVIZ_REQUIRE_GPU=1, test_cuda_gpu's fixture), and on a GPU that is not sm_90."""

import numpy as np
import pytest
from cuda_cases import TOL, lse_err, qkv, rel_err
from test_cuda_gpu import gpu_path  # noqa: F401  (autouse: skip or fail without a GPU path)

from kernelviz.attention.reference import attention_fp64
from kernelviz.cuda import cpu, half, launch
from kernelviz.cuda.verify import MMA_TOL

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def hopper(gpu_path):  # noqa: F811
    if launch.architecture() != "sm_90":
        pytest.skip(f"fa3 runs on sm_90 (Hopper) only, this GPU is {launch.architecture()}")


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("n", [1, 7, 130, 1000])
@pytest.mark.parametrize("dtype", half.DTYPES)
def test_fa3_on_the_gpu(dtype, n, d, causal):
    q, k, v = qkv(3, n, d, kernel="fa3", dtype=dtype)
    out = launch.run("fa3", q, k, v, causal=causal, dtype=dtype)
    o_ref, lse_ref = attention_fp64(q, k, v, causal=causal)
    assert rel_err(out["O"], o_ref) <= MMA_TOL[dtype]
    assert lse_err(out["L"], lse_ref) <= TOL


@pytest.mark.parametrize("n, n_kv", [(130, 65), (1000, 4096), (4096, 1000), (1, 130)])
def test_fa3_causal_against_a_cache_of_another_length(n, n_kv):
    q, k, v = qkv(2, n, 128, kernel="fa3", n_kv=n_kv)
    out = launch.run("fa3", q, k, v, causal=True)
    assert (out["O"][:, : max(0, n - n_kv)] == 0).all()
    assert np.isneginf(out["L"][:, : max(0, n - n_kv)]).all()
    assert rel_err(out["O"], attention_fp64(q, k, v, causal=True)[0]) <= MMA_TOL["fp16"]


@pytest.mark.parametrize("dtype", half.DTYPES)
def test_fa3_gpu_and_cpu_shim_agree(dtype):
    """Both round P~ and O to 16 bits once, summing in orders that may differ: to the format's roundoff."""
    if cpu.compiler() is None:
        pytest.skip("g++ is missing")
    q, k, v = qkv(2, 130, 64, kernel="fa3", dtype=dtype)
    gpu = launch.run("fa3", q, k, v, causal=True, dtype=dtype)
    host = cpu.run("fa3", q, k, v, causal=True, dtype=dtype, schedule="forward")
    assert rel_err(gpu["O"], host["O"].astype(np.float64)) <= 2 * half.UNIT_ROUNDOFF[dtype]
    assert lse_err(gpu["L"], host["L"].astype(np.float64)) <= TOL


def test_a_misaligned_view_is_refused_before_the_tensor_map():
    import cupy

    buffer = cupy.zeros(64 * 64 + 8, cupy.float16)
    k16 = buffer[1 : 1 + 64 * 64].reshape(1, 64, 64)
    q16 = cupy.zeros((1, 64, 64), cupy.float16)
    with pytest.raises(ValueError, match=r"fa3: K starts at address 0x[0-9a-f]+, 2 bytes past a 16-byte boundary"):
        launch.run("fa3", q16, k16, q16)
