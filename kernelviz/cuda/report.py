"""The compilers' report on the kernels, for the whole-kernel pages: what ptxas says (registers, shared memory, spills,
stack) for each template instance (compile.instances) and architecture, as NVRTC builds it (what the GPU launcher
loads) and as nvcc builds it.

`tables()` compiles when a compiler is present (cached by compile.py and nvrtc.py, so a second build is a lookup),
and otherwise reads REPORT, the copy checked in beside the kernels, written by `kernelviz verify --compile
--write-report`; the tests hold that copy equal to what the compilers say whenever they are present. A Table says
where its rows came from, and a checked-in table whose .cu files changed since it was written says so too.
"""

import hashlib
import json
import re
import shutil
from dataclasses import asdict, dataclass

from . import compile, kernels, nvrtc

REPORT = kernels.FOLDER / "report.json"


@dataclass(frozen=True)
class Table:
    """The rows one compiler reported: `compiler` ("NVRTC 13.0", "nvcc 13.0.88"), {kernel: [compile.Row]},
    `origin` (how they were obtained, in words) and `stale` (.cu and .h files changed since, for a checked-in copy)."""

    compiler: str
    rows: dict
    origin: str
    stale: tuple = ()


def digests():
    """{file name: sha256 of its text} of every kernel's .cu file and of the headers they include (mma_sm80.h, ...)."""
    files = [*kernels.FILES.values(), *kernels.headers()]
    return {f: hashlib.sha256((kernels.FOLDER / f).read_bytes()).hexdigest() for f in files}


def live():
    """The Tables of the compilers present (NVRTC; nvcc, when gcc, its host compiler, is on PATH too), compiled now
    or found in the build cache; [] if none.
    Raises RuntimeError when a present compiler fails on a kernel."""
    found = []
    if nvrtc.version() is not None:
        major, minor = nvrtc.version()
        found.append(Table(f"NVRTC {major}.{minor}", nvrtc.build_all(), "compiled for this build"))
    exe = compile.nvcc()
    if exe is not None and shutil.which("gcc") is not None:  # without its host compiler nvcc cannot build
        m = re.search(r"release [\d.]+, V([\d.]+)", compile.cache.version(exe))
        found.append(Table(f"nvcc {m.group(1) if m else ''}".strip(), compile.compile_all(), "compiled for this build"))
    return found


def checked_in(path=REPORT):
    """The Tables saved in `path`, each marked with the .cu and .h files changed since; [] when there is no file."""
    if not path.is_file():
        return []
    saved = json.loads(path.read_text())
    now = digests()
    stale = tuple(sorted(f for f in now if saved.get("sources", {}).get(f) != now[f]))
    origin = f"from {path.name}, checked in beside the kernels (this build found no compiler)"
    return [
        Table(t["compiler"], {k: [compile.Row(**r) for r in rows] for k, rows in t["rows"].items()}, origin, stale)
        for t in saved["tables"]
    ]


def tables():
    """live() when a compiler is present, else checked_in()."""
    return live() or checked_in()


def write(path=REPORT):
    """Save live()'s Tables to `path` (sorted, stable JSON); RuntimeError when no compiler is present."""
    found = live()
    if not found:
        raise RuntimeError("no compiler: install nvcc, or NVRTC (pip install cuda-bindings nvidia-cuda-nvrtc)")
    data = {
        "sources": digests(),
        "tables": [
            {"compiler": t.compiler, "rows": {k: [asdict(r) for r in rows] for k, rows in t.rows.items()}}
            for t in found
        ],
    }
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path
