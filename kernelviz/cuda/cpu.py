"""Run the unchanged .cu kernels on the CPU: g++ compiles each with cpu/shim.h and cpu/harness.cpp into a small
program (cached by the hash of its sources), which runs in a subprocess, so a kernel that crashes or hangs fails
its call and nothing else. The harness knows no kernel: it is built with the template instances of a plan
(kernels.instances) and told on its command line which buffers to make and which launches to run, with which
arguments, from the kernel's record (kernels.plan, inputs, outputs, arguments, element_type).

`run(kernel, *inputs, ...)` (the inputs in the order of kernels.inputs) returns the kernel's outputs as float32
arrays (see kernels.outputs). The harness surrounds every buffer with NaN guard zones: an out-of-bounds read shows as
NaN in the outputs, and an out-of-bounds write, or an output element never written, raises KernelRunError.
"""

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import cache, half, kernels, nvrtc
from .descriptor import TensorMap

HERE = Path(__file__).parent / "cpu"
SCHEDULES = ("threads", "forward", "backward")
COPIES = ("random", "late")  # when a cp.async lands (cpu/async.h)
FLAGS = ("-std=c++20", "-O2", "-pthread")
CPU_THREADS = 32
TYPE_CODES = {"float": "f", "unsigned short": "h", "int": "i"}  # cpu/harness.cpp's element types


class KernelRunError(RuntimeError):
    """The kernel's program failed: a guard zone was written, an output was left unwritten, or it crashed."""


def compiler():
    """The path of g++, or None."""
    return shutil.which("g++")


def build(kernel, names, source=None):
    """The path of the CPU program for `kernel` with template instances `names` (as kernels.plan names them, e.g.
    "fa2<32, 32, 64>"). `source`: the .cu text to build instead of the file (tests plant bugs this way). Raises
    RuntimeError if g++ is missing or fails."""
    gxx = compiler()
    if gxx is None:
        raise RuntimeError("g++ is not installed (Debian: apt-get install g++; it needs C++20's <barrier>)")
    source = (kernels.FOLDER / kernels.FILES[kernel]).read_text() if source is None else source
    entries = " ".join(f"E({name})" for name in sorted(set(names)))
    headers = [(HERE / name).read_text() for name in sorted(p.name for p in HERE.glob("*.[hc]*"))]
    headers += kernels.headers().values()
    digest = cache.key(kernel, source, entries, *headers, FLAGS, cache.version(gxx))
    folder = cache.folder()
    exe = folder / f"cpu-{kernel}-{digest}"
    if exe.exists():
        return exe
    src = folder / f"cpu-{kernel}-{digest}.cu"
    cache.write_atomic(src, source.encode())
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        out = Path(tmp) / "a.out"
        command = [gxx, *FLAGS, f"-I{HERE}", f"-I{kernels.FOLDER}", f'-DKV_FILE="{src}"', f"-DKV_ENTRIES={entries}"]
        command += [str(HERE / "harness.cpp"), "-o", str(out)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"g++ failed to build {kernel} for the CPU:\n{done.stderr[-4000:]}")
        out.replace(exe)
    return exe


def command_line(kernel, launches, arguments, buffers, schedule, threads, shapes=None):
    """cpu/harness.cpp's argv after the program: `buffers` [(name, C element type, elements, is output)],
    `launches` (kernels.plan's) with their `arguments` (kernels.arguments': names of `buffers`, scalars, and
    descriptor.TensorMaps of buffers whose `shapes` {name: shape} say their dims), and the output the kernel's record
    watches in its launch."""
    index = {name: i for i, (name, *_) in enumerate(buffers)}
    argv = [schedule, threads, len(buffers)]
    for name, ctype, size, output in buffers:
        argv += [name, TYPE_CODES[ctype], size, "o" if output else "i"]
    argv.append(len(launches))
    watch = kernels.kernel(kernel).watch
    for at, (launch, args) in enumerate(zip(launches, arguments, strict=True)):
        grid = (*launch.grid, 1, 1)[:3]
        watched = index[watch[1]] if watch and watch[0] == at else -1
        argv += [launch.name, *grid, launch.dynamic_bytes, watched, len(args)]
        for a in args:
            if isinstance(a, str):
                argv.append(f"b{index[a]}")
            elif isinstance(a, TensorMap):  # t<buffer>,<rank>,<dims...>,<box...>,<swizzle>, innermost first
                dims = a.dims(shapes[a.name])
                argv.append(",".join(map(str, (f"t{index[a.name]}", len(dims), *dims, *a.box, a.swizzle))))
            elif isinstance(a, np.floating):
                argv.append(f"f{float(a)!r}")
            else:
                argv.append(f"i{int(a)}")
    return [str(a) for a in argv]


def address(x):
    """The address of NumPy array x's first element (what kernels.check_inputs checks the alignment of)."""
    return x.ctypes.data


def _thread_limits(kernel, names, source):
    if nvrtc.version() is None:
        raise kernels.ThreadLimitError(
            f"more than {kernels.ALWAYS_FITS} threads per block may not fit a kernel's registers, and checking needs "
            f"NVRTC ({nvrtc.problem()}): pip install cuda-bindings nvidia-cuda-nvrtc, or use fewer threads"
        )
    return nvrtc.thread_limits(kernel, names, source=source)


def run(
    kernel,
    *arrays,
    causal=False,
    scale=None,
    tiles=None,
    threads=None,
    schedule="threads",
    n_splits=1,
    source=None,
    timeout=120,
    dtype=None,
    copies="random",
    seed=0,
    counters=False,
    **options,
):
    """Run `kernel` on the CPU and return {output name: float32 array} (with `counters`, also what the shim counted:
    ({...}, Counters)).

    arrays: the kernel's inputs in the order of kernels.inputs (each kernel's module in topics/ says their shapes;
    where they fix the tiles, kernels.data_tiles, those); scale defaults to 1/sqrt(D); tiles (Br, Bc) default to
    kernels.default_tiles; `threads` per block (default CPU_THREADS, or the threads the kernel's record fixes);
    `schedule` one of SCHEDULES (see cpu/shim.h); `source` replaces the .cu text; `dtype`: for a kernel on 16-bit
    inputs (its record's sixteen_bit) "fp16" (the default) or "bf16", to which its float32 inputs are rounded
    (half.bits) and its 16-bit outputs are read back from (as float32); `copies`: when a cp.async lands
    (cpu/async.h), "random" (at random later points, from `seed` and the schedule) or "late" (as late as its
    wait_group allows); `options`: the kernel's own template options (its record's `options`, e.g. stages=1).
    Raises, before running, SharedMemoryError if the tiles would not fit a GPU and ThreadLimitError for more threads
    than the kernel's registers allow on one, ValueError for what the kernel would read out of bounds, or misaligned
    (kernels.check_inputs: a paged length of 0, a page outside the pool, a length past its table row);
    KernelRunError if the program fails or times out (also if a plain store changed an output that blocks share,
    which the record watches; see cpu/shim.h; a cp.async misaligned, cpu/async.h)."""
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, not {schedule!r}")
    if copies not in COPIES:
        raise ValueError(f"copies must be one of {COPIES}, not {copies!r}")
    record = kernels.kernel(kernel)
    given = arrays
    arrays = [np.ascontiguousarray(x, dtype=t) for x, t in zip(arrays, kernels.dtypes(kernel, arrays), strict=True)]
    dtype = record.dtype(dtype)
    if threads is None:
        threads = record.threads or CPU_THREADS
    bh, n, d, n_kv = kernels.sizes(kernel, arrays)
    kv_heads = kernels.kv_heads(kernel, arrays)
    if not record.sixteen_bit:  # 16-bit inputs are checked as they are passed, in 16 bits, below
        kernels.check_inputs(kernel, given, arrays, np.asarray, address)
    tiles = kernels.tiles_for(kernel, arrays, d, tiles)
    launches = kernels.plan(kernel, bh, n, d, tiles, threads, n_splits, dtype=dtype, **options)  # as on a GPU
    if threads > kernels.ALWAYS_FITS:  # ... and the registers of what the GPU would run
        names = [launch.name for launch in launches]
        limits = _thread_limits(kernel, names, source)
        kernels.plan(kernel, bh, n, d, tiles, threads, n_splits, thread_limits=limits, dtype=dtype, **options)
    inputs = list(kernels.inputs(kernel, bh, n, d, n_kv))
    if record.sixteen_bit:
        wide = [name in record.sixteen_bit for name in inputs]
        arrays = [half.bits(x, dtype) if w else x for w, x in zip(wide, arrays, strict=True)]
        kernels.check_inputs(kernel, given, arrays, np.asarray, address)
    scale = 1.0 / np.sqrt(d) if scale is None else scale
    shapes = kernels.outputs(kernel, bh, n, d, n_splits, tiles)
    sized = [(name, x.size, False) for name, x in zip(inputs, arrays, strict=True)]
    sized += [(name, int(np.prod(shape)), True) for name, shape in shapes.items()]
    buffers = [(name, kernels.element_type(kernel, name), size, output) for name, size, output in sized]
    arguments = kernels.arguments(kernel, n, scale, causal, n_splits, n_kv, kv_heads, bc=tiles[1])
    exe = build(kernel, kernels.instances(kernel, tiles, d, **options), source)
    landing = "late" if copies == "late" else f"random={3 * seed + SCHEDULES.index(schedule)}"
    every = {**kernels.inputs(kernel, bh, n, d, n_kv), **shapes}
    argv = [str(exe), *command_line(kernel, launches, arguments, buffers, f"{schedule}:{landing}", threads, every)]
    try:
        done = subprocess.run(
            argv,
            input=b"".join(x.tobytes() for x in arrays),
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as e:
        raise KernelRunError(f"{kernel} did not finish in {timeout} s (a deadlock at a __syncthreads()?)") from e
    if done.returncode != 0:
        raise KernelRunError(f"{kernel} failed (exit {done.returncode}): {done.stderr.decode().strip()}")
    result, data, at = {}, done.stdout, 0
    for name, shape in shapes.items():
        wide = np.uint16 if name in record.sixteen_bit else np.float32
        size = int(np.prod(shape)) * np.dtype(wide).itemsize
        found = np.frombuffer(data[at : at + size], dtype=wide).reshape(shape)
        result[name] = half.values(found, dtype) if wide is np.uint16 else found.copy()
        at += size
    if at != len(data):
        raise KernelRunError(f"{kernel} wrote {len(data)} bytes, expected {at}")
    return (result, read_counters(done.stderr.decode())) if counters else result


@dataclass(frozen=True)
class Counters:
    """What the shim counted over a run's launches (cpu/warp.h): ldmatrix phases (4 an .x4, 8 rows of 16 bytes each)
    and the shared-memory wavefronts they took; `conflicts`, the wavefronts beyond one a phase."""

    ldmatrix_phases: int
    ldmatrix_wavefronts: int

    @property
    def conflicts(self):
        return self.ldmatrix_wavefronts - self.ldmatrix_phases


def read_counters(stderr):
    """The Counters of the harness's last line of stderr ("counters: ldmatrix_phases=P ldmatrix_wavefronts=W")."""
    found = re.search(r"counters: ldmatrix_phases=(\d+) ldmatrix_wavefronts=(\d+)\s*$", stderr)
    if found is None:
        raise KernelRunError(f"the harness printed no counters: {stderr[-400:]!r}")
    return Counters(int(found.group(1)), int(found.group(2)))
