"""Compile the kernels with NVRTC, CUDA's runtime compiler, to a cubin for one architecture: what the GPU launcher
loads. No GPU is needed, so the tests build on every commit exactly what a GPU would run.

NVRTC comes from PyPI as NVIDIA's `cuda-bindings` (the Python API) and `nvidia-cuda-nvrtc` (the library).
`build(kernel, names, arch)` compiles the template instances `names` (e.g. ["fa2<32, 32, 64>"]) of one .cu file
and returns a Build: the cubin's path, each name's lowered (mangled) symbol, and what ptxas reported for each
instance (compile.Row). Builds are cached by the hash of the source, names, options, architecture and NVRTC's
version.
"""

import json
from dataclasses import dataclass
from functools import cache as memoize
from pathlib import Path

from . import cache, compile, kernels

OPTIONS = ("-std=c++17", "--ptxas-options=-v")


@dataclass(frozen=True)
class Build:
    """One NVRTC compile: `cubin` (a file), {name expression: lowered symbol}, and ptxas's Rows by name."""

    cubin: Path
    lowered: dict
    rows: dict


def _bindings():
    from cuda.bindings import nvrtc

    return nvrtc


@memoize
def _probe():
    """(NVRTC's (major, minor), None), or (None, why not)."""
    try:
        err, major, minor = _bindings().nvrtcVersion()
    except Exception as e:  # ImportError, or the bindings' error when libnvrtc is not found
        return None, f"{type(e).__name__}: {e}"
    if err != 0:
        return None, f"nvrtcVersion() failed with error {int(err)}"
    return (major, minor), None


def version():
    """NVRTC's (major, minor), or None when cuda-bindings or the NVRTC library is missing (`problem()` says why)."""
    return _probe()[0]


def problem():
    """Why NVRTC cannot be used (the error importing or calling it), or None when it can."""
    return _probe()[1]


def _check(result, what):
    err, *values = result
    if err != 0:
        raise RuntimeError(f"NVRTC {what} failed: {_bindings().nvrtcGetErrorString(err)[1].decode()}")
    return values[0] if values else None


def _compile(filename, source, names, arch):
    """(cubin bytes, lowered names, log) from NVRTC; RuntimeError with NVRTC's log when the source fails."""
    nvrtc = _bindings()
    headers = kernels.headers()  # what a kernel may #include (swizzle.h), given to NVRTC by name
    contents, names_h = [t.encode() for t in headers.values()], [n.encode() for n in headers]
    prog = _check(
        nvrtc.nvrtcCreateProgram(source.encode(), filename.encode(), len(headers), contents, names_h), "create"
    )
    try:
        for name in names:
            _check(nvrtc.nvrtcAddNameExpression(prog, name.encode()), f"name expression {name!r}")
        options = [o.encode() for o in (*OPTIONS, f"--gpu-architecture={arch}")]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(options), options)
        log = b" " * _check(nvrtc.nvrtcGetProgramLogSize(prog), "log size")
        _check(nvrtc.nvrtcGetProgramLog(prog, log), "log")
        log = log.rstrip(b"\0 ").decode(errors="replace")
        if err != 0:
            raise RuntimeError(f"NVRTC failed on {filename} for {arch}:\n{log[-4000:]}")
        lowered = {name: _check(nvrtc.nvrtcGetLoweredName(prog, name.encode()), name).decode() for name in names}
        cubin = b" " * _check(nvrtc.nvrtcGetCUBINSize(prog), "cubin size")
        _check(nvrtc.nvrtcGetCUBIN(prog, cubin), "cubin")
        return cubin, lowered, log
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def build(kernel, names, arch, source=None):
    """Compile template instances `names` of `kernel`'s .cu (or `source`, its text) for `arch` ("sm_90") and
    return the Build. Raises RuntimeError when NVRTC is missing, or with NVRTC's log (file and line of each error)
    when the compile fails."""
    found = version()
    if found is None:
        raise RuntimeError("NVRTC is not installed: pip install cuda-bindings nvidia-cuda-nvrtc (no GPU needed)")
    filename = kernels.FILES[kernel]
    source = (kernels.FOLDER / filename).read_text() if source is None else source
    names = list(dict.fromkeys(names))
    key = cache.key(source, names, OPTIONS, arch, found, *kernels.headers().values())
    stem = cache.folder() / f"nvrtc-{kernel}-{arch}-{key}"
    cubin, meta = stem.with_suffix(".cubin"), stem.with_suffix(".json")
    if not (meta.exists() and cubin.exists()):
        data, lowered, log = _compile(filename, source, names, arch)
        cache.write_atomic(cubin, data)
        cache.write_atomic(meta, json.dumps({"lowered": lowered, "log": log}).encode())
    saved = json.loads(meta.read_text())
    rows = {row.kernel: row for row in compile.parse_ptxas(saved["log"])}
    return Build(cubin, saved["lowered"], rows)


def thread_limits(kernel, names, archs=None, source=None):
    """{name: (most threads per block, why)} for template instances `names` of `kernel`: from the registers ptxas
    gives each instance in NVRTC's build for each of `archs` (default: kernels.archs, its own), the smallest limit
    over them (kernels.plan takes this as its thread_limits). Raises RuntimeError when NVRTC is missing or fails."""
    most = {}  # name -> the Row with the most registers over archs
    for arch in archs or kernels.archs(kernel):
        for name, row in build(kernel, names, arch, source).rows.items():
            if name not in most or row.registers > most[name].registers:
                most[name] = row
    limits = {}
    for name, row in most.items():
        why = f"{row.registers} registers a thread on {row.arch}, per NVRTC"
        limits[name] = (kernels.register_thread_limit(row.registers), why)
    return limits


def build_all(archs=None, head_dims=compile.HEAD_DIMS):
    """{kernel: [Row, ...]}: ptxas's report on NVRTC's build of every kernel's instances (compile.instances) for
    each of `archs` (default: each kernel's own), sorted as compile.compile_all sorts nvcc's."""
    found = {}
    for kernel in kernels.KERNELS:
        names = compile.instances(kernel, head_dims)
        rows = [row for arch in archs or kernels.archs(kernel) for row in build(kernel, names, arch).rows.values()]
        found[kernel] = sorted(rows)
    return found
