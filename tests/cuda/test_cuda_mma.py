"""fa2_mma.cu, FA2 on tensor cores, unchanged, on the CPU shim (its mma, ldmatrix and shuffles emulated warp by warp)
against attention/'s float64 reference, computed from the same fp16 or bf16 inputs. O is held to verify.MMA_TOL
(4 units of roundoff of the format: O and P~ are rounded to 16 bits, see verify's docstring); L, computed in fp32
throughout, to verify.TOL."""

import numpy as np
import pytest
from cuda_cases import TOL, lse_err, needs_gxx, qkv, rel_err

from kernelviz.attention.reference import attention_fp64
from kernelviz.cuda import cpu, half, kernels
from kernelviz.cuda.verify import MMA_TOL

pytestmark = needs_gxx


def run(dtype, n, d, n_kv=None, causal=False, seed=0, **options):
    q, k, v = qkv(2, n, d, seed=seed, kernel="fa2_mma", n_kv=n_kv, dtype=dtype)
    out = cpu.run("fa2_mma", q, k, v, causal=causal, dtype=dtype, **options)
    return out, attention_fp64(q, k, v, causal=causal) if k.shape[1] else None


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("n, d", [(1, 16), (7, 64), (64, 16), (130, 64), (130, 128)])
@pytest.mark.parametrize("dtype", half.DTYPES)
def test_fa2_mma_matches_reference(dtype, n, d, causal):
    out, (o_ref, lse_ref) = run(dtype, n, d, causal=causal)
    assert rel_err(out["O"], o_ref) <= MMA_TOL[dtype]
    assert lse_err(out["L"], lse_ref) <= TOL


def test_the_errors_are_those_of_16_bit_rounding():
    """The tolerance is not slack hiding a bug: bf16's error is about 2^3 times fp16's, as their roundoffs are."""
    errors = {}
    for dtype in half.DTYPES:
        out, (o_ref, _) = run(dtype, 130, 64)
        errors[dtype] = rel_err(out["O"], o_ref)
    assert 4 <= errors["bf16"] / errors["fp16"] <= 16, errors
    assert errors["fp16"] <= half.UNIT_ROUNDOFF["fp16"]  # measured 2.6e-4 against u = 4.9e-4


@pytest.mark.parametrize("n, n_kv", [(130, 65), (130, 260), (64, 1), (1, 130), (100, 37)])
def test_causal_against_a_cache_of_another_length(n, n_kv):
    out, (o_ref, lse_ref) = run("fp16", n, 16, n_kv=n_kv, causal=True, seed=10)
    assert rel_err(out["O"], o_ref) <= MMA_TOL["fp16"]
    assert lse_err(out["L"], lse_ref) <= TOL
    blind = max(0, n - n_kv)  # rows that see no key: O = 0, L = -inf
    assert (out["O"][:, :blind] == 0).all() and np.isneginf(out["L"][:, :blind]).all()
    assert np.isfinite(out["L"][:, blind:]).all()


def test_without_the_mask_against_a_cache_of_another_length():
    out, (o_ref, _) = run("bf16", 37, 32, n_kv=90, tiles=(64, 16))
    assert rel_err(out["O"], o_ref) <= MMA_TOL["bf16"]


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_an_empty_cache_gives_zeros(causal):
    out, _ = run("fp16", 9, 16, n_kv=0, causal=causal)
    assert (out["O"] == 0).all() and np.isneginf(out["L"]).all()


def test_every_schedule_gives_the_same_bits():
    """The emulation is deterministic: lanes meet at every collective, and nothing depends on who arrives first."""
    found = [run("bf16", 70, 32, causal=True, schedule=s)[0] for s in cpu.SCHEDULES]
    for other in found[1:]:
        assert all(np.array_equal(found[0][name], other[name]) for name in found[0])


def test_bad_launches_are_refused_with_what_was_wrong():
    q, k, v = qkv(1, 8, 24, kernel="fa2_mma")
    with pytest.raises(ValueError, match="fa2_mma takes Br = 64 and Bc, d multiples of 16, not Br=64, Bc=64, d=24"):
        cpu.run("fa2_mma", q, k, v)
    q, k, v = qkv(1, 8, 16, kernel="fa2_mma")
    with pytest.raises(kernels.ThreadLimitError, match="4 warps, 128 threads a block, not 64"):
        cpu.run("fa2_mma", q, k, v, threads=64)
    with pytest.raises(ValueError, match="dtype 'fp16' or 'bf16', not 'fp8'"):
        cpu.run("fa2_mma", q, k, v, dtype="fp8")
