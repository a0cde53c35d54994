"""Where compiled kernels are kept: $KERNELVIZ_CACHE, else ~/.cache/kernelviz, under cuda/; files named by the
hash of everything that went into them, so a second build of the same inputs is a lookup."""

import functools
import hashlib
import os
import subprocess
import tempfile
from pathlib import Path


def folder():
    """The cache folder, created if missing."""
    root = Path(os.environ.get("KERNELVIZ_CACHE") or Path.home() / ".cache" / "kernelviz")
    path = root / "cuda"
    path.mkdir(parents=True, exist_ok=True)
    return path


def key(*parts):
    """A short hex digest of `parts` (str or bytes)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


@functools.cache  # once per process: cpu.run builds (a cache lookup) on every call
def version(exe):
    """What `exe --version` prints (a compiler's version, part of every key of what it built)."""
    return subprocess.run([exe, "--version"], capture_output=True, text=True).stdout


def write_atomic(path, data):
    """Write `data` (bytes) to `path` through a temporary file, so a reader never sees half of it."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
