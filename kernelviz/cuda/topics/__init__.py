"""The kernels of kernelviz/cuda, one record each (descriptor.Kernel), in one list: the registry that kernels.py,
verify.py, launch.py, cpu.py and the CPU harness loop over. A kernel is its .cu file beside this package and its
module here; this list, and the helpers its module offers the rest of the package by name, are the only other
place that names it (tests/cuda/test_cuda_registry.py holds that)."""

from . import fa1, fa2, fa2_bwd, fa2_mma, fa2_pipe, fa3, flash_decoding, online_softmax, paged_decoding
from .fa2_mma import LOAD_BYTES, MMA_BR, MMA_WARPS, check_mma
from .flash_decoding import tiles_per_split
from .online_softmax import softmax_fp64
from .paged_decoding import PAGED_TILES, paged_sizes

TOPICS = tuple(
    module.KERNEL
    for module in (
        online_softmax,
        fa1,
        fa2,
        flash_decoding,
        fa2_bwd,
        paged_decoding,
        fa2_mma,
        fa2_pipe,
        fa3,
    )  # verify's order
)

__all__ = [
    "LOAD_BYTES",
    "MMA_BR",
    "MMA_WARPS",
    "PAGED_TILES",
    "TOPICS",
    "check_mma",
    "paged_sizes",
    "softmax_fp64",
    "tiles_per_split",
]
