"""The HBM ledger: every transfer between HBM and SRAM that an algorithm makes, at tile granularity.

An algorithm registers each HBM tensor it touches (``hbm``), declares the shared memory of each of its
kernels' blocks (``shared``), and records each tile it moves (``read``: HBM -> SRAM, ``write``: SRAM -> HBM).
Nothing else counts bytes: the totals the pages show are sums over these records.

A transfer is one tile of one tensor for one (batch, head) ``bh``, moved by one block of one kernel at one
``step`` of that block's program (step 0 is the block's first action; the figures number steps the same way).

SRAM is counted as CUDA declares it: the tiles a block of a kernel holds, at their full tile size (a block
on a ragged last tile still owns a full tile). ``peak_sram`` is the largest block over the kernels. With a
``sram_budget`` (bytes), declaring a block that does not fit raises ``SramBudgetError``, naming the tiles
that do not fit.

Shared-memory traffic, where an algorithm models its kernel's (``smem``: the tensor-core kernels; FA1, FA2 and FA2's
backward as the book's scalar kernels move it, ``scalar_smem``), is counted too: the bytes a block stores into SRAM
(``store``: from HBM, or from registers) and loads from SRAM into registers (``load``), per tensor, all heads, at
full tile size as the kernel moves them (rows past N are stored as zeros and loaded too). Other algorithms record
none, and their numbers say nothing of it.

Beside the bytes, ``flops`` counts the floating-point work the algorithm does, by kind, as it does it (``Flops``):
the helper that multiplies two matrices or takes an exponential adds what that operation costs.
"""

import contextlib
from collections import Counter
from typing import NamedTuple

READ, WRITE = "read", "write"
STORE, LOAD = "store", "load"  # shared-memory traffic: registers or HBM -> SRAM, and SRAM -> registers


class SramBudgetError(ValueError):
    """A block's tiles do not fit the SRAM budget."""


class Transfer(NamedTuple):
    tensor: str  # the HBM tensor, e.g. "K"
    tile: int | tuple  # the tile's index in that tensor (per head), e.g. j for Kj, (i, j) for Sij
    direction: str  # "read" (HBM -> SRAM) or "write" (SRAM -> HBM)
    nbytes: int
    step: int  # the step of the block's program that moved it
    bh: int  # the (batch, head) it belongs to
    kernel: str
    block: int | tuple  # the block's index in its kernel's grid, per head


MATMUL, EXP, OTHER = "matmul", "exp", "other"
FLOP_KINDS = (MATMUL, EXP, OTHER)


class Flops(Counter):
    """Floating-point operations by kind, over all heads:

    - ``matmul``: 2 per multiply-add of a matrix product (m x k by k x n is 2mkn), the tensor cores' work;
    - ``exp``: one per exponential or logarithm, the special-function units' work;
    - ``other``: one per elementwise add, subtract, multiply, divide or comparison (a row max over c values is c
      comparisons, a row sum c adds: the running value is folded in), the CUDA cores' work.

    Selecting (masking with -inf, replacing -inf by 0) and casting cost nothing."""

    def add(self, kind, count):
        if kind not in FLOP_KINDS:
            raise ValueError(f"kind: expected one of {FLOP_KINDS}, got {kind!r}")
        self[kind] += int(count)

    def matmul(self, a_shape, b_shape):
        """Count the product of stacks of matrices of shapes (..., m, k) and (..., k, n)."""
        *batch, m, k = a_shape
        n = b_shape[-1]
        count = 2 * m * k * n
        for b in batch:
            count *= b
        self.add(MATMUL, count)

    @property
    def by_kind(self):
        """{kind: count} for every kind, in FLOP_KINDS order."""
        return {kind: self[kind] for kind in FLOP_KINDS}


_OBSERVERS = []  # callables told the bytes of each transfer as a ledger records it (``observing``)


@contextlib.contextmanager
def observing(observe):
    """Within the block, call ``observe(nbytes)`` as any ledger records a transfer (all heads of it): the progress of
    a long run (``kernelviz trace`` at large N), whose total the closed forms give in advance."""
    _OBSERVERS.append(observe)
    try:
        yield
    finally:
        _OBSERVERS.remove(observe)


class Ledger:
    """Transfers recorded by one run of an algorithm; see the module docstring."""

    def __init__(self, sram_budget=None):
        if sram_budget is not None and (isinstance(sram_budget, bool) or int(sram_budget) != sram_budget):
            raise ValueError(f"sram_budget: expected a whole number of bytes or None, got {sram_budget!r}")
        if sram_budget is not None and sram_budget <= 0:
            raise ValueError(f"sram_budget: must be positive, got {sram_budget}")
        self.sram_budget = sram_budget
        self.tensor_bytes = {}  # name -> bytes of the whole tensor in HBM (all heads)
        self.sram = {}  # kernel -> {tile name: bytes} held by one block
        self.transfers = []
        self.smem_bytes = {}  # tensor -> {"store": bytes, "load": bytes} of shared-memory traffic (all heads)
        self.flops = Flops()

    # ---- recording (used by the algorithms) ----

    def hbm(self, name, nbytes):
        """Register an HBM tensor of `nbytes` bytes (all heads)."""
        self.tensor_bytes[name] = int(nbytes)

    def shared(self, kernel, **tiles):
        """Declare the shared memory of one block of `kernel`: tile name -> bytes. Checks the budget."""
        tiles = {name: int(b) for name, b in tiles.items()}
        total = sum(tiles.values())
        if self.sram_budget is not None and total > self.sram_budget:
            fit, used = [], 0
            for name, b in tiles.items():
                if used + b > self.sram_budget:
                    break
                fit.append(name)
                used += b
            over = [f"{n} ({b} B)" for n, b in tiles.items() if n not in fit]
            raise SramBudgetError(
                f"{kernel}: a block needs {total} bytes of SRAM, over the budget of {self.sram_budget} bytes; "
                f"{', '.join(fit) or 'nothing'} fit ({used} B), these tiles do not: {', '.join(over)}"
            )
        self.sram[kernel] = tiles

    def read(self, tensor, tile, nbytes, *, step, kernel, block, heads):
        """Record that each head in `heads` (a count) read `nbytes` bytes of `tensor`'s `tile`."""
        self._add(tensor, tile, READ, nbytes, step, kernel, block, heads)

    def write(self, tensor, tile, nbytes, *, step, kernel, block, heads):
        """Record that each head in `heads` (a count) wrote `nbytes` bytes of `tensor`'s `tile`."""
        self._add(tensor, tile, WRITE, nbytes, step, kernel, block, heads)

    def smem(self, tensor, direction, nbytes, *, heads=1):
        """Record that each head in `heads` (a count) moved `nbytes` bytes of `tensor` into shared memory
        (`direction` "store") or out of it into registers ("load"). 0 bytes registers the tensor, so that the
        numbers name it with 0 (FA2 on tensor cores: P, which stays in registers)."""
        if direction not in (STORE, LOAD):
            raise ValueError(f"direction: expected {STORE!r} or {LOAD!r}, got {direction!r}")
        moved = self.smem_bytes.setdefault(tensor, {STORE: 0, LOAD: 0})
        moved[direction] += int(nbytes) * heads

    def _add(self, tensor, tile, direction, nbytes, step, kernel, block, heads):
        nbytes = int(nbytes)
        self.transfers.extend(Transfer(tensor, tile, direction, nbytes, step, bh, kernel, block) for bh in range(heads))
        for observe in _OBSERVERS:
            observe(nbytes * heads)

    # ---- questions (used by the pages, the CLI and the tests) ----

    @property
    def per_tensor(self):
        """{tensor: {"read": bytes, "write": bytes}} for every registered tensor, in registration order."""
        out = {name: {READ: 0, WRITE: 0} for name in self.tensor_bytes}
        for t in self.transfers:
            out.setdefault(t.tensor, {READ: 0, WRITE: 0})[t.direction] += t.nbytes
        return out

    @property
    def total_bytes(self):
        return sum(t.nbytes for t in self.transfers)

    @property
    def read_bytes(self):
        return sum(t.nbytes for t in self.transfers if t.direction == READ)

    @property
    def write_bytes(self):
        return sum(t.nbytes for t in self.transfers if t.direction == WRITE)

    @property
    def peak_sram(self):
        """Bytes of SRAM held by the largest block of any kernel."""
        return max((sum(tiles.values()) for tiles in self.sram.values()), default=0)

    def trips(self, tensor, direction=READ):
        """How many times `tensor` was moved in full: its bytes moved in `direction` over its size.
        E.g. FA2 with 2 blocks of Q rows reads K twice: ``trips("K") == 2.0``."""
        return self.per_tensor[tensor][direction] / self.tensor_bytes[tensor]

    def tile_counts(self, tensor, direction=READ, bh=0):
        """{tile: how many times it was moved in `direction`} for head `bh` (None: all heads together)."""
        return Counter(
            t.tile for t in self.transfers if t.tensor == tensor and t.direction == direction and bh in (None, t.bh)
        )

    @property
    def total_flops(self):
        return sum(self.flops.values())

    def numbers(self):
        """What the pages ask of a ledger (``{{ trace.reads.K }}`` and kin), as {question: {tensor: number}} or
        {question: number}, T a tensor:

            reads[T], writes[T]            times T is read / written in full (``trips``)
            loads[T], stores[T]            tile transfers of T from HBM / to HBM
            read_bytes[T], write_bytes[T]  bytes of T read / written
            bytes[T]                       bytes of T read and written; bytes[total], [read], [write]: all traffic
            peak_sram                      bytes of SRAM of the largest block (``peak_sram``)
            flops[kind]                    floating-point operations by kind (matmul, exp, other), and total
            shared[T]                      bytes of T stored into and loaded from shared memory; shared[total],
                                           [store], [load]: all of it (only when the run recorded any, ``smem``)
        """
        per = self.per_tensor
        tiles = {READ: Counter(), WRITE: Counter()}
        for t in self.transfers:
            tiles[t.direction][t.tensor] += 1
        moved = {t: rw[READ] + rw[WRITE] for t, rw in per.items()}
        return dict(
            reads={t: self.trips(t, READ) for t in self.tensor_bytes},
            writes={t: self.trips(t, WRITE) for t in self.tensor_bytes},
            loads={t: tiles[READ][t] for t in per},
            stores={t: tiles[WRITE][t] for t in per},
            read_bytes={t: rw[READ] for t, rw in per.items()},
            write_bytes={t: rw[WRITE] for t, rw in per.items()},
            bytes={**moved, "total": self.total_bytes, "read": self.read_bytes, "write": self.write_bytes},
            peak_sram=self.peak_sram,
            flops={**self.flops.by_kind, "total": self.total_flops},
            **({"shared": self.shared_numbers()} if self.smem_bytes else {}),
        )

    def shared_numbers(self):
        """{T: bytes of T stored and loaded, ..., "total", "store", "load"} of the shared-memory traffic (``smem``)."""
        per = {t: sl[STORE] + sl[LOAD] for t, sl in self.smem_bytes.items()}
        store = sum(sl[STORE] for sl in self.smem_bytes.values())
        load = sum(sl[LOAD] for sl in self.smem_bytes.values())
        return {**per, "total": store + load, STORE: store, LOAD: load}

    def summary(self):
        """A plain dict: per_tensor, total_bytes, flops by kind, peak_sram and sram per kernel (the CLI's JSON); and
        where the run recorded shared-memory traffic, shared: {per_tensor: {T: {store, load}}, store, load, total}."""
        out = {
            "total_bytes": self.total_bytes,
            "flops": self.flops.by_kind,
            "per_tensor": self.per_tensor,
            "peak_sram_bytes": self.peak_sram,
            "sram": {kernel: dict(tiles) for kernel, tiles in self.sram.items()},
        }
        if self.smem_bytes:
            numbers = self.shared_numbers()
            out["shared"] = {"per_tensor": {t: dict(sl) for t, sl in self.smem_bytes.items()}}
            out["shared"].update({k: numbers[k] for k in (STORE, LOAD, "total")})
        return out
