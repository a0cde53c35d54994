"""Run the unchanged .cu kernels on the CPU: g++ compiles each with cpu/shim.h and cpu/harness.cpp into a small
program (cached by the hash of its sources), which runs in a subprocess, so a kernel that crashes or hangs fails
its call and nothing else.

`run(kernel, q, k, v, ...)` (online softmax: `run("online_softmax", x, v, ...)`) returns the kernel's outputs as float32
arrays (see kernels.outputs). The harness surrounds every buffer with NaN guard zones: an out-of-bounds read shows as
NaN in the outputs, and an out-of-bounds write, or an output element never written, raises KernelRunError.
"""

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from . import cache, half, kernels, nvrtc

HERE = Path(__file__).parent / "cpu"
SCHEDULES = ("threads", "forward", "backward")
FLAGS = ("-std=c++20", "-O2", "-pthread")
CPU_THREADS = 32
_DEFINE = {
    "fa1": "KV_FA1",
    "fa2": "KV_FA2",
    "fa2_mma": "KV_FA2_MMA",
    "flash_decoding": "KV_FD",
    "online_softmax": "KV_SOFTMAX",
    "fa2_bwd": "KV_FA2_BWD",
    "paged_decoding": "KV_PAGED",
}


class KernelRunError(RuntimeError):
    """The kernel's program failed: a guard zone was written, an output was left unwritten, or it crashed."""


def compiler():
    """The path of g++, or None."""
    return shutil.which("g++")


def build(kernel, configs, source=None):
    """The path of the CPU program for `kernel` with template instances `configs` [(Br, Bc, D), ...].
    `source`: the .cu text to build instead of the file (tests plant bugs this way). Raises RuntimeError if g++
    is missing or fails."""
    gxx = compiler()
    if gxx is None:
        raise RuntimeError("g++ is not installed (Debian: apt-get install g++; it needs C++20's <barrier>)")
    source = (kernels.FOLDER / kernels.FILES[kernel]).read_text() if source is None else source
    configs = " ".join(f"C({br},{bc},{d})" for br, bc, d in sorted(set(configs)))
    headers = [(HERE / name).read_text() for name in ("shim.h", "warp.h", "fragments.h", "harness.cpp")]
    digest = cache.key(kernel, source, configs, *headers, FLAGS, cache.version(gxx))
    folder = cache.folder()
    exe = folder / f"cpu-{kernel}-{digest}"
    if exe.exists():
        return exe
    src = folder / f"cpu-{kernel}-{digest}.cu"
    cache.write_atomic(src, source.encode())
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        out = Path(tmp) / "a.out"
        command = [gxx, *FLAGS, f"-I{HERE}", f'-DKV_FILE="{src}"', f"-D{_DEFINE[kernel]}"]
        command += [f"-DKV_CONFIGS={configs}", str(HERE / "harness.cpp"), "-o", str(out)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"g++ failed to build {kernel} for the CPU:\n{done.stderr[-4000:]}")
        out.replace(exe)
    return exe


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
):
    """Run `kernel` on the CPU and return {output name: float32 array}.

    arrays: the kernel's inputs in the order of kernels.inputs: q, k, v, (BH, N, D) arrays (FA1, FA2: k and v are (BH,
    N_kv, D); flash decoding: q is (BH, 1, D)), or for online softmax x (BH, N) and v (BH, N, D), or for fa2_bwd q, k,
    v, o, do and lse (BH, N), or for paged decoding q, k_pages, v_pages, block_table, seq_lens (kernels.paged_sizes;
    its tiles are the data's (G, PAGE)); scale defaults to 1/sqrt(D); tiles (Br, Bc) default to
    kernels.default_tiles; `threads` per block (default CPU_THREADS; fa2_mma: its 128); `schedule` one of SCHEDULES
    (see cpu/shim.h); `source` replaces the .cu text; `dtype` ("fp16", the default, or "bf16"): fa2_mma's, to which
    its float32 q, k, v are rounded (half.round) and its O is read back from (as float32). Raises, before running,
    SharedMemoryError if the tiles would not fit a GPU and ThreadLimitError for more threads than the kernel's
    registers allow on one, ValueError for what the kernel would read out of bounds, or misaligned
    (kernels.check_inputs: a paged length of 0, a page outside the pool, a length past its table row);
    KernelRunError if the program fails or times out (FA2's backward: also if a plain store changed dQ, which
    blocks share; see cpu/shim.h)."""
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, not {schedule!r}")
    given = arrays
    arrays = [np.ascontiguousarray(x, dtype=t) for x, t in zip(arrays, kernels.dtypes(kernel, arrays), strict=True)]
    mma = kernel == "fa2_mma"
    dtype = (dtype or "fp16") if mma else None
    if threads is None:
        threads = kernels.WARP * kernels.MMA_WARPS if mma else CPU_THREADS
    bh, n, d, n_kv = kernels.sizes(kernel, arrays)
    if not mma:  # fa2_mma's are checked as they are passed, in 16 bits, below
        kernels.check_inputs(kernel, given, arrays, np.asarray, address)
    tiles = kernels.tiles_for(kernel, arrays, d, tiles)
    plan = dict(dtype=dtype) if mma else {}
    launches = kernels.plan(kernel, bh, n, d, tiles, threads, n_splits, **plan)  # the same checks as on a GPU ...
    if threads > kernels.ALWAYS_FITS:  # ... and the registers of what the GPU would run
        names = [launch.name for launch in launches]
        limits = _thread_limits(kernel, names, source)
        kernels.plan(kernel, bh, n, d, tiles, threads, n_splits, thread_limits=limits, **plan)
    if mma:
        arrays = [half.bits(x, dtype) for x in arrays]
        kernels.check_inputs(kernel, given, arrays, np.asarray, address)
    scale = 1.0 / np.sqrt(d) if scale is None else scale
    exe = build(kernel, [(*tiles, d)], source)
    argv = [exe, bh, n, n_kv, d, *tiles, threads, schedule, int(bool(causal)), n_splits, repr(float(scale))]
    argv += kernels.extra_sizes(kernel, arrays) + ([int(dtype == "bf16")] if mma else [])
    try:
        done = subprocess.run(
            [str(a) for a in argv],
            input=b"".join(x.tobytes() for x in arrays),
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as e:
        raise KernelRunError(f"{kernel} did not finish in {timeout} s (a deadlock at a __syncthreads()?)") from e
    if done.returncode != 0:
        raise KernelRunError(f"{kernel} failed (exit {done.returncode}): {done.stderr.decode().strip()}")
    result, data, at = {}, done.stdout, 0
    for name, shape in kernels.outputs(kernel, bh, n, d, n_splits, tiles).items():
        wide = np.uint16 if mma and name == "O" else np.float32  # fa2_mma's O: 16-bit, as its inputs
        size = int(np.prod(shape)) * np.dtype(wide).itemsize
        found = np.frombuffer(data[at : at + size], dtype=wide).reshape(shape)
        result[name] = half.values(found, dtype) if wide is np.uint16 else found.copy()
        at += size
    if at != len(data):
        raise KernelRunError(f"{kernel} wrote {len(data)} bytes, expected {at}")
    return result
