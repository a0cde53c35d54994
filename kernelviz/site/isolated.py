"""Run editors in a child process, under a time limit and a memory limit, so nothing they do reaches the builder.

The builder (and ``kernelviz serve``, which rebuilds in its own process) must survive any code a page holds:
``while True: pass``, ``os._exit(0)``, ``raise KeyboardInterrupt``, a huge allocation or a huge ``print``. So the
editors run in a child Python (``python -m kernelviz.site.isolated``), one child per batch of jobs:

    results = run_batches([[Job(sources)], [Job(sources), Job(sources, {"sizes": {...}})]], Limits(seconds=30))
    results[b][j]      # the runner's RunResult of job j of batch b, or one that says why the child stopped

Each job is one ``runner.run(sources, **options)`` from a cleared scene; a batch's jobs run in order in one child
(one process start for many runs, e.g. a page's figure at many sizes), and the batches run side by side. Limits:

- time: each job gets ``seconds``; the child's alarm raises ``EditorTimeout`` in the running code, so the error
  names the editor and line that was running. A child that ignores the alarm is killed ``GRACE`` later (a child
  gets ``STARTUP`` seconds to start, before its first job's time begins).
- memory: the child's address space is capped at ``memory_mb`` (RLIMIT_AS): an allocation beyond it is a
  MemoryError at its line.
- output: the runner keeps ``runner.OUTPUT_LIMIT`` characters of each stream, with a note saying how much was cut.

A child that ends before answering (``os._exit``, a signal, the kernel's OOM killer) gives its job a RunError with
no line (``editor`` None) saying so; the batch's later jobs run in a fresh child. ``KeyboardInterrupt`` raised by an
editor is an error like any other here (the runner re-raises it only for the browser's Stop button).
"""

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field

from ..runner import RunError, RunResult, Source

GRACE = 3.0  # seconds past the time limit before a child that ignores its alarm is killed
STARTUP = 15.0  # seconds more for a child's first job: starting Python and importing the runner, on a busy machine


@dataclass(frozen=True)
class Limits:
    """Per job: `seconds` of wall time; per child: `memory_mb` of address space. Defaults no real page reaches."""

    seconds: float = 60.0
    memory_mb: int = 4096

    def __post_init__(self):
        if not (isinstance(self.seconds, int | float) and 0 < self.seconds <= 24 * 3600):
            raise ValueError(f"editor time limit: expected seconds in (0, 86400], got {self.seconds!r}")
        if not (isinstance(self.memory_mb, int) and 64 <= self.memory_mb <= 1 << 30):
            raise ValueError(f"editor memory limit: expected at least 64 MB, got {self.memory_mb!r}")


@dataclass
class Job:
    """One run: the editors' Sources, and keyword options for ``runner.run`` (e.g. sizes)."""

    sources: list
    options: dict = field(default_factory=dict)

    def to_json(self):
        sources = [s if isinstance(s, Source) else Source(s) for s in self.sources]
        return {"sources": [vars(s) for s in sources], "options": self.options}


class EditorTimeout(Exception):
    """Raised in the running editor when its job reaches the time limit."""


def run_batches(batches, limits=None):
    """Run each batch (a list of Jobs) in a child of its own, side by side. Returns a list of lists of RunResult,
    in the order given. Never raises for what the editors do."""
    limits = limits or Limits()
    children = []
    try:
        children += [_Child(batch, limits) for batch in batches]
        return [child.collect() for child in children]
    finally:  # also on Ctrl-C in the builder: no child is left running (they are in sessions of their own)
        for child in children:
            child.stop()


def run_isolated(sources, limits=None, **options):
    """One run of `sources` in a child: the RunResult."""
    return run_batches([[Job(sources, options)]], limits)[0][0]


class _Child:
    """A child running `jobs` in order; collect() gathers one RunResult per job, restarting after a death."""

    def __init__(self, jobs, limits):
        self.jobs, self.limits = list(jobs), limits
        self._start(self.jobs)

    def _start(self, jobs):
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop(), after the child ends
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        limits = json.dumps({"seconds": self.limits.seconds, "memory_mb": self.limits.memory_mb})
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__, limits],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            start_new_session=True,  # a Ctrl-C at the terminal is the server's, not the child's
        )
        payload = "".join(json.dumps(job.to_json()) + "\n" for job in jobs).encode()
        try:
            self.process.stdin.write(payload)
            self.process.stdin.close()
        except BrokenPipeError:
            pass  # the child died at once; collect() reports it
        self.buffer = b""
        self.timed_out = False
        self.started = False  # whether the child said it is ready: the runner imported, the jobs read

    def collect(self):
        results = []
        while len(results) < len(self.jobs):
            if not self.started:
                self.started = self._next_line(STARTUP) == b"ready"
            line = self._next_line(self.limits.seconds + GRACE) if self.started else None
            try:
                results.append(_result(json.loads(line)))
            except (TypeError, ValueError, KeyError):  # no line (the child stopped), or not one of ours
                results.append(_failed(self._why_stopped()))
                self.stop()
                if len(results) < len(self.jobs):
                    self._start(self.jobs[len(results) :])
        self.stop()
        return results

    def _next_line(self, seconds):
        """The next result line, or None when the child ends or takes longer than `seconds` (then it is killed)."""
        deadline = time.monotonic() + seconds
        fd = self.process.stdout.fileno()
        with selectors.DefaultSelector() as selector:  # not select(): a serving process may hold fds past 1024
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.timed_out = True
                    return None
                if selector.select(left):
                    chunk = os.read(fd, 1 << 20)
                    if not chunk:
                        self.timed_out = False
                        return None
                    self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def _why_stopped(self):
        if self.timed_out and not self.started:
            return f"the process to run the editors did not start within {STARTUP:g} s"
        if self.timed_out:
            return (
                f"the editors ran past the time limit ({self.limits.seconds:g} s) and did not stop when interrupted; "
                "the process running them was killed"
            )
        self.stop()
        code = self.process.returncode
        if code < 0:
            how = f"was killed by signal {signal.Signals(-code).name}"
            if -code == signal.SIGKILL:
                how += f" (out of memory? the limit is {self.limits.memory_mb} MB)"
        else:
            how = f"exited with status {code} (os._exit or a crash)"
        return f"the process running the editors {how} before they finished" + (f": {self.tail}" if self.tail else "")

    def stop(self):
        """Kill the child if it still runs, and keep the last line it wrote on stderr (`tail`)."""
        if self.stderr.closed:
            return
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.process.stdout.close()
        self.stderr.seek(0)
        text = self.stderr.read()[-2000:].decode("utf-8", "replace").strip()
        self.tail = text.splitlines()[-1] if text else ""
        self.stderr.close()


def _failed(message):
    return RunResult(None, error=RunError(None, "", None, None, "EditorProcessError", message, message))


def _result(data):
    error = data.get("error")
    return RunResult(
        data["scene"],
        data["stdout"],
        data["stderr"],
        RunError(**error) if error else None,
        data["outputs"],
        data.get("sizes", {}),
    )


def _alarm(seconds):
    def raise_timeout(signum, frame):
        raise EditorTimeout(f"the editors ran past the time limit ({seconds:g} s)")

    return raise_timeout


def _child(limits):
    """The child: read every job (all of stdin, so the parent never blocks writing), then run each, writing one
    JSON line per result on the original stdout; fd 1 then points nowhere, so stray writes cannot corrupt them."""
    import resource

    from ..runner import run

    jobs = [json.loads(line) for line in sys.stdin.read().splitlines() if line]
    results = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 0)
    memory = limits["memory_mb"] << 20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    signal.signal(signal.SIGALRM, _alarm(limits["seconds"]))
    results.write("ready\n")
    results.flush()
    for job in jobs:
        sources = [Source(**s) for s in job["sources"]]
        results.write(_answer(run, sources, job["options"], limits) + "\n")
        results.flush()


def _answer(run, sources, options, limits):
    """One job's result as a JSON line; a failure outside the editors' code (the alarm or the memory limit reached
    in pie or the runner, a Scene that is not JSON) is a RunError with no line."""
    signal.setitimer(signal.ITIMER_REAL, limits["seconds"])
    try:
        result = run(sources, interrupts=False, **options)
    except BaseException as exc:  # noqa: BLE001 - whatever stopped the run is the job's error
        message = str(exc) or type(exc).__name__
        result = RunResult(None, error=RunError(None, "", None, None, type(exc).__name__, message, message))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if result.error is not None and result.error.kind == "MemoryError" and not result.error.message:
        result.error.message = f"the editors used more than the memory limit ({limits['memory_mb']} MB)"
    data = result.to_dict()
    try:
        return json.dumps(data, allow_nan=False)
    except (ValueError, TypeError, RecursionError) as exc:
        message = f"the Scene cannot be written as JSON: {exc}"
        data.update(scene=None, error=asdict(RunError(None, "", None, None, type(exc).__name__, message, message)))
        return json.dumps(data)


if __name__ == "__main__":
    _child(json.loads(sys.argv[1]))
