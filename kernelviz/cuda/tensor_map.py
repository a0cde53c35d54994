"""A TMA tensor map as a kernel argument (FA3's Q, K, V and O): what a kernel's record lists among its launch's
arguments, next to buffer names and scalars. It views a buffer as a contiguous row-major tensor of `dims` (innermost
first) and copies `box` elements of it at a time, swizzled in shared memory by `swizzle` bytes; the CPU harness
makes a kvshim::TensorMap of it (cpu/hopper.h), as a GPU launch would make a CUtensorMap with
cuTensorMapEncodeTiled (same field meanings; elements outside the tensor read as zero)."""

from dataclasses import dataclass

SWIZZLES = (0, 32, 64, 128)


@dataclass(frozen=True)
class TensorMap:
    buffer: str  # the buffer it views, by name
    dims: tuple  # elements in each dim, innermost first
    box: tuple  # elements copied in each dim
    swizzle: int = 128  # bytes

    def __post_init__(self):
        where = f"tensor map of {self.buffer}"
        if not 1 <= len(self.dims) <= 5 or len(self.box) != len(self.dims):
            raise ValueError(f"{where}: dims {self.dims} and box {self.box} must have the same rank, 1 to 5")
        if any(d < 1 for d in self.dims) or any(not 1 <= b <= 256 for b in self.box):
            raise ValueError(f"{where}: dims must be positive and box entries 1 to 256, not {self.dims}, {self.box}")
        if self.swizzle not in SWIZZLES:
            raise ValueError(f"{where}: swizzle must be one of {SWIZZLES} bytes, not {self.swizzle}")

    def argv(self, index):
        """The harness's argument for it, its buffer being buffer number `index` (cpu/harness.cpp)."""
        return f"t{index}:{','.join(map(str, self.dims))}:{','.join(map(str, self.box))}:{self.swizzle}"
