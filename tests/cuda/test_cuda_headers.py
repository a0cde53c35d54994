"""The headers beside the kernels: the sm_80 PTX wrappers are written once, in mma_sm80.h, and every build of a
kernel (nvcc, NVRTC, the shim's g++) is handed that file."""

import re

from kernelviz.cuda import kernels

WRAPPERS = ("mma_m16n8k16", "ldmatrix_x4", "pack2", "cp_async16", "cp_async_commit", "cp_async_wait")


def definitions(text, name):
    """The lines of `text` that define device function `name` (its signature line)."""
    return re.findall(rf"^__device__ __forceinline__ \w+ {name}\(.*\{{$", text, re.M)


def test_the_sm80_wrappers_are_defined_in_the_header_and_in_no_kernel():
    header = (kernels.FOLDER / "mma_sm80.h").read_text()
    for name in WRAPPERS:
        assert len(definitions(header, name)) == 1, name
        for filename in kernels.FILES.values():
            assert not definitions((kernels.FOLDER / filename).read_text(), name), f"{filename} defines {name} again"


def test_the_check_finds_a_wrapper_written_again():
    """Planted: fa2_pipe.cu with the header's mma wrapper pasted back in is caught by `definitions`."""
    header = (kernels.FOLDER / "mma_sm80.h").read_text()
    pasted = (kernels.FOLDER / "fa2_pipe.cu").read_text() + header
    assert definitions(pasted, "mma_m16n8k16")


def test_every_build_is_handed_the_header():
    assert "mma_sm80.h" in kernels.headers() and "swizzle.h" in kernels.headers()
    users = [f for f in kernels.FILES.values() if '#include "mma_sm80.h"' in (kernels.FOLDER / f).read_text()]
    assert users == ["fa2_mma.cu", "fa2_pipe.cu", "fa3.cu"]
