"""What the tensor-core kernels' records (fa2_mma, fa2_pipe, fa3) share, written once in descriptor.py: the checks of
a launch, of the inputs' alignment, and verify's rounded inputs."""

import numpy as np
import pytest

from kernelviz.cuda import kernels
from kernelviz.cuda.descriptor import TENSOR_CORE, check_aligned, check_tensor_core, rounded_qkv

TENSOR_CORE_KERNELS = ("fa2_mma", "fa2_pipe", "fa3")


def test_each_check_names_the_kernel_and_what_was_wrong():
    ok = dict(name="k", tiles=(64, 32), d=64, fits=True, takes="Br = 64", threads=256, block=(2, "warpgroups"))
    check_tensor_core(**ok, dtype="bf16")  # 2 warpgroups: 256 threads
    with pytest.raises(ValueError, match=r"^k takes Br = 64, not Br=64, Bc=32, d=64$"):
        check_tensor_core(**{**ok, "fits": False}, dtype="fp16")
    with pytest.raises(kernels.ThreadLimitError, match=r"^k runs 2 warpgroups, 256 threads a block, not 128$"):
        check_tensor_core(**{**ok, "threads": 128}, dtype="fp16")
    with pytest.raises(kernels.ThreadLimitError, match=r"^k runs 8 warps, 256 threads a block, not 128$"):
        check_tensor_core(**{**ok, "threads": 128, "block": (8, "warps")}, dtype="fp16")
    with pytest.raises(ValueError, match=r"^k takes dtype 'fp16' or 'bf16', not 'fp32'$"):
        check_tensor_core(**ok, dtype="fp32")


def test_the_alignment_check_names_the_array_and_its_address():
    arrays = [np.zeros(4, np.float16) for _ in range(3)]
    at = {id(arrays[0]): 0x1000, id(arrays[1]): 0x1000, id(arrays[2]): 0x1006}
    check_aligned("k", arrays[:2] + arrays[:1], lambda x: at[id(x)], 16, "why")
    with pytest.raises(ValueError, match=r"^k: V starts at address 0x1006, 6 bytes past a 16-byte boundary; why "):
        check_aligned("k", arrays, lambda x: at[id(x)], 16, "why")


@pytest.mark.parametrize("dtype, numpy_type", [("fp16", np.float16), ("bf16", None)])
def test_rounded_inputs_are_representable_in_the_dtype(dtype, numpy_type):
    q, k, v = rounded_qkv(2, 8, 16, False, 0, False, 12, dtype)
    assert q.shape == (2, 8, 16) and k.shape == v.shape == (2, 12, 16)
    for x in (q, k, v):
        x = np.asarray(x, dtype=np.float32)
        if numpy_type is not None:
            assert np.array_equal(x.astype(numpy_type).astype(np.float32), x)
        else:  # bf16: the low 16 bits of each float32 are zero
            assert not (x.view(np.uint32) & 0xFFFF).any()
        assert np.abs(x).max() > 0.5  # not all zeros: the check above could fail


def test_the_three_records_take_the_shared_fields():
    for name in TENSOR_CORE_KERNELS:
        record = kernels.kernel(name)
        for field, value in TENSOR_CORE.items():
            assert getattr(record, field) is value, (name, field)
