"""Compile the kernels with nvcc, no GPU needed, and read what ptxas says about each: registers, shared memory,
spills, stack. Results are cached by the hash of the source, the instances, the flags and nvcc's version.

`compile_file(kernel)` compiles one .cu file for its architectures (ARCHS, or its record's `archs`: sm_90a for a
Hopper kernel) and returns a Row per (template instance, architecture).
"""

import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import cache, kernels
from .descriptor import ARCHS  # noqa: F401  (compile.ARCHS: the default architectures, for the tests)

HEAD_DIMS = (64, 128)  # the instances compiled: default tiles for each of these
FLAGS = ("-std=c++17", "-O3", "-fatbin", "-Xptxas", "-v")

_ENTRY = re.compile(r"Compiling entry function '(\w+)' for '(sm_\d+a?)'")
_USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")  # no smem part: a kernel without __shared__
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


@dataclass(frozen=True, order=True)
class Row:
    """What ptxas reported for one template instance on one architecture (Rows sort by kernel, then arch)."""

    kernel: str
    arch: str
    registers: int
    shared_bytes: int
    spill_stores: int
    spill_loads: int
    stack_bytes: int


def nvcc():
    """The path of nvcc, or None: $PATH first, then /usr/local/cuda/bin."""
    return shutil.which("nvcc") or shutil.which("nvcc", path="/usr/local/cuda/bin")


def instances(kernel, head_dims=HEAD_DIMS):
    """The template names compiled for `kernel`, e.g. ['fa2<32, 32, 64>', 'fa2<16, 16, 128>'] (fa2_mma: for fp16
    and bf16, 'fa2_mma<64, 64, 64, 0>', 'fa2_mma<64, 64, 64, 1>', ...)."""
    names = []
    for d in kernels.head_dims(kernel, head_dims):  # every launch of the default tiles' plan: combines, dtypes, options
        for options in kernels.kernel(kernel).compiled_options:
            names += kernels.instances(kernel, kernels.default_tiles(kernel, d), d, **options)
    return list(dict.fromkeys(names))


def demangle(symbol):
    """'_Z3fa2ILi32ELi32ELi64EEv...' -> 'fa2<32, 32, 64>' (the Itanium mangling of int template arguments)."""
    m = re.match(r"_Z(\d+)", symbol)
    if not m:
        return symbol
    start = m.end()
    name = symbol[start : start + int(m.group(1))]
    args = re.match(r"I((?:Li-?\d+E)+)E", symbol[start + len(name) :])
    if not args:
        return name
    return f"{name}<{', '.join(re.findall(r'Li(-?[0-9]+)E', args.group(1)))}>"


def parse_ptxas(log):
    """The Rows in a ptxas -v log."""
    rows, entry = [], None
    frame = (0, 0, 0)
    for line in log.splitlines():
        if m := _ENTRY.search(line):
            entry, frame = (demangle(m.group(1)), m.group(2)), (0, 0, 0)
        elif (m := _FRAME.search(line)) and entry:
            frame = tuple(int(x) for x in m.groups())
        elif (m := _USED.search(line)) and entry:
            registers, smem = int(m.group(1)), int(m.group(2) or 0)
            rows.append(Row(entry[0], entry[1], registers, smem, frame[1], frame[2], frame[0]))
            entry = None
    return rows


def compile_file(kernel, archs=None, head_dims=HEAD_DIMS, source=None):
    """Compile `kernel`'s .cu (or `source`, its text) for `archs` (default: kernels.archs, its own); return its
    Rows, sorted. Raises RuntimeError
    with nvcc's message when nvcc or its host compiler is missing or the compile fails."""
    exe = nvcc()
    if exe is None:
        raise RuntimeError("nvcc is not installed: install the CUDA toolkit (it compiles without a GPU)")
    if shutil.which("gcc") is None:  # nvcc's host compiler, which it looks for on PATH
        raise RuntimeError(f"nvcc ({exe}) needs its host compiler, gcc, on PATH (Debian: apt-get install g++)")
    path = kernels.FOLDER / kernels.FILES[kernel]
    source = path.read_text() if source is None else source
    names = instances(kernel, head_dims)
    archs = archs or kernels.archs(kernel)
    gencode = [x for arch in archs for x in ("-gencode", f"arch=compute_{arch[3:]},code={arch}")]
    folder = cache.folder()
    headers = kernels.headers()
    key = cache.key(source, names, gencode, FLAGS, cache.version(exe), *headers.values())
    log_path = folder / f"nvcc-{kernel}-{key}.log"
    if not log_path.exists():
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            unit = Path(tmp) / f"{kernel}.cu"
            pointers = ", ".join(f"(void*)&{name}" for name in names)
            unit.write_text(f"{source}\n\n// the instances to compile\nvoid* kv_instances[] = {{{pointers}}};\n")
            command = [exe, *FLAGS, *gencode, f"-I{kernels.FOLDER}", "-o", str(Path(tmp) / "out.fatbin"), str(unit)]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"nvcc failed on {path.name}:\n{done.stderr[-4000:]}")
            cache.write_atomic(log_path, (done.stdout + done.stderr).encode())
    rows = parse_ptxas(log_path.read_text())
    return sorted(rows)


def compile_all(archs=None, head_dims=HEAD_DIMS):
    """{kernel: [Row, ...]} for every kernel, compiled in parallel (for `archs`, default each its own)."""
    with ThreadPoolExecutor(len(kernels.KERNELS)) as pool:
        futures = {k: pool.submit(compile_file, k, archs, head_dims) for k in kernels.KERNELS}
        return {k: f.result() for k, f in futures.items()}


def table(rows):
    """The Rows as a fixed-width text table."""
    header = ("kernel", "arch", "registers", "smem bytes", "spill stores", "spill loads", "stack")
    body = [(r.kernel, r.arch, r.registers, r.shared_bytes, r.spill_stores, r.spill_loads, r.stack_bytes) for r in rows]
    widths = [max(len(str(x)) for x in column) for column in zip(header, *body, strict=True)]
    lines = [
        "  ".join(
            str(x).ljust(w) if i < 2 else str(x).rjust(w) for i, (x, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in (header, *body)
    ]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])
