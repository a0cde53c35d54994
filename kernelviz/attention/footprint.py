"""How much host memory one run of an algorithm takes, known before anything is allocated, and how much there is.

``estimate(algo, ...)`` is an upper bound on the peak bytes a ``kernelviz trace`` run allocates (the tests hold it
to within a small factor of the peak tracemalloc measures): the random float64 inputs and their copies in the
storage dtype, the outputs, the per-block float32 temporaries, standard attention's S and P (N x N_kv each), and
the ledger, which keeps one record per tile moved per (batch·head). ``available()`` is what the system can still
give: MemAvailable from /proc/meminfo, or less under a cgroup's memory limit.
"""

import contextlib
import math
import os
from pathlib import Path
from typing import NamedTuple

from .topics import REGISTRY

TRANSFER_BYTES = 400  # one ledger record (a NamedTuple and its tile index) and its slot in the list, at most
MARGIN = 8 * 2**20  # what a run allocates besides its arrays and records: small objects, buffers


class Sizes(NamedTuple):
    """What a record's ``memory`` is given: batch·heads, N, N_kv, d, the tiles (at most N and N_kv), the bytes of
    a stored element and the splits."""

    bh: int
    n: int
    n_kv: int
    d: int
    br: int
    bc: int
    itemsize: int
    n_splits: int

    def gradients(self):
        """A backward pass's dO drawn in float64, dQ, dK, dV, and D or the standard backward's dP, dS."""
        bh, n, n_kv, d = self.bh, self.n, self.n_kv, self.d
        return bh * (n + 2 * n_kv) * d * 8 + 8 * bh * n * d + 4 * bh * n

    def scores(self):
        """Standard attention's S and P stored (N x N_kv each), and their float32 temporaries a block of rows."""
        return 2 * self.itemsize * self.bh * self.n * self.n_kv + 16 * self.bh * self.br * self.n_kv


def transfers(algo, n, n_kv, Br, Bc, n_splits):
    """The number of ledger records per (batch·head) without causal masking (which only removes some): its
    record's ``ledger_records(Tr, Tc, splits)``."""
    return REGISTRY[algo].ledger_records(math.ceil(n / Br), math.ceil(n_kv / Bc), n_splits)


def estimate(algo, n, n_kv, d, batch_heads=1, Br=64, Bc=64, itemsize=4, n_splits=1, save=False):
    """Bytes of memory a run of `algo` (a name of ``ALGORITHMS``, backward passes included) allocates at its peak,
    at most. Returns (total, {part: bytes}) with the parts that make it up: those every run has, and its record's
    own (``memory``: S and P stored, gradients, partials, ...)."""
    bh, br, bc = batch_heads, min(Br, n), min(Bc, n_kv)
    qkv = bh * d * (n + 2 * n_kv)
    parts = {
        "inputs (float64, and in the storage dtype)": qkv * (8 + itemsize) + 2 * bh * max(n, n_kv) * d,
        "outputs": bh * n * (d * (itemsize + 8) + 16),
        "tiles": 4 * bh * (8 * br * bc + 6 * (br + bc) * d),
        "ledger": bh * transfers(algo, n, n_kv, Br, Bc, n_splits) * TRANSFER_BYTES,
        "the rest": MARGIN,
    }
    own = REGISTRY[algo].memory
    if own is not None:
        parts.update(own(Sizes(bh, n, n_kv, d, br, bc, itemsize, n_splits)))
    if save:
        parts["saved copies"] = qkv * itemsize
    return sum(parts.values()), parts


def available(meminfo=Path("/proc/meminfo"), cgroup=Path("/sys/fs/cgroup")):
    """Bytes of memory this process can still get, or None where the system does not say (not Linux): the least of
    `meminfo`'s MemAvailable and the cgroup v2 limit under `cgroup` less what the group uses."""
    found = []
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:  # cgroup v2: a container's limit, less what it uses
        limit = (cgroup / "memory.max").read_text().strip()
        if limit != "max":
            found.append(int(limit) - int((cgroup / "memory.current").read_text()))
    except (OSError, ValueError):
        pass
    if not found and hasattr(os, "sysconf"):
        with contextlib.suppress(ValueError, OSError):
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    return max(0, min(found)) if found else None


def gib(nbytes):
    """`nbytes` as text in GiB (MiB below 1 GiB), e.g. "33.1 GiB", "1.8e+30 GiB"."""
    if nbytes < 2**30:
        return f"{nbytes / 2**20:.1f} MiB"
    return f"{nbytes / 2**30:,.1f} GiB" if nbytes < 2**70 else f"{nbytes / 2**30:.1e} GiB"
