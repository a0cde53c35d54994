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
no line saying so, naming the editor that was running (the child says which before each starts; ``editor`` None
only when none had started); the batch's later jobs run in a fresh child. ``KeyboardInterrupt`` raised by an editor
is an error like any other here (the runner re-raises it only for the browser's Stop button).

Nothing an editor starts or signals outlives its limits or reaches the builder:

- the child is a process group (a session) of its own, killed as a group when its batch ends or is given up: a
  process the editors fork dies with it;
- a process the editors fork cannot write a result (the results pipe is closed in it) and is killed by its own
  alarm when the job's time is up;
- a process that leaves the group (``start_new_session=True``, ``os.setsid()``, a daemon's double fork) is still
  found: on Linux the guard is its descendants' subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), so an orphan among
  them becomes the guard's child, not init's, and every process whose parent chain leads to the guard (read from
  ``/proc``) is killed, by the guard when the editors' process ends and by the builder before it kills the group.
  Elsewhere (no prctl, no /proc) only the group is killed;
- the editors' parent is not the builder but a guard process (``_guard``) that ignores the signals a process may
  catch and relays the editors' exit: ``os.kill(os.getppid(), signal.SIGTERM)`` reaches the guard, not ``build`` or
  ``serve``.
"""

import contextlib
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
from .reaper import descendants, kill_descendants, subreaper  # noqa: F401 (descendants: the tests walk with it)

GRACE = 3.0  # seconds past the time limit before a child that ignores its alarm is killed
RUNNING = b"editor "  # a line the child writes as each editor starts: b"editor 1"
STARTUP = 15.0  # seconds more for a child's first job: starting Python and importing the runner, on a busy machine


MIN_MB, MAX_MB = 64, 1 << 30  # the editors' memory limit: enough to start Python; at most 1 PiB


@dataclass(frozen=True)
class Limits:
    """Per job: `seconds` of wall time; per child: `memory_mb` of address space. Defaults no real page reaches."""

    seconds: float = 60.0
    memory_mb: int = 4096

    def __post_init__(self):
        if not (isinstance(self.seconds, int | float) and 0 < self.seconds <= 24 * 3600):
            raise ValueError(f"editor time limit: expected seconds in (0, 86400], got {self.seconds!r}")
        if not (isinstance(self.memory_mb, int) and MIN_MB <= self.memory_mb <= MAX_MB):
            raise ValueError(
                f"editor memory limit: expected {MIN_MB} to {MAX_MB} MB (1 PiB, past any machine), "
                f"got {self.memory_mb!r}"
            )


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


def run_batches(batches, limits=None, on_done=None):
    """Run each batch (a list of Jobs) in a child of its own, side by side. Returns a list of lists of RunResult,
    in the order given. Never raises for what the editors do. `on_done(i)`, when given, is called as batch i's
    results are in (in order: a build's progress)."""
    limits = limits or Limits()
    children, results = [], []
    try:
        children += [_Child(batch, limits) for batch in batches]
        for i, child in enumerate(children):
            results.append(child.collect())
            if on_done is not None:
                on_done(i)
        return results
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
            line, running = None, None
            if self.started:
                deadline = time.monotonic() + self.limits.seconds + GRACE
                while (line := self._next_line(deadline - time.monotonic())) and line.startswith(RUNNING):
                    running = int(line.removeprefix(RUNNING))  # the child says which editor starts
            try:
                results.append(_result(json.loads(line)))
            except (TypeError, ValueError, KeyError):  # no line (the child stopped), or not one of ours
                results.append(_failed(self._why_stopped(), running))
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
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=GRACE)  # the guard ends as the child ended, at once
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
        """Kill the child's process group (the child, its guard, whatever the editors started), and keep the last
        line it wrote on stderr (`tail`)."""
        if self.stderr.closed:
            return
        if self.process.poll() is None:  # the guard is alive: first what left its group, then the group
            kill_descendants(self.process.pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):  # (the group has ended)
            os.killpg(self.process.pid, signal.SIGKILL)  # the guard leads the group
        self.process.wait()
        self.process.stdout.close()
        self.stderr.seek(0)
        text = self.stderr.read()[-2000:].decode("utf-8", "replace").strip()
        self.tail = text.splitlines()[-1] if text else ""
        self.stderr.close()


def _failed(message, editor=None):
    return RunResult(None, error=RunError(editor, "", None, None, "EditorProcessError", message, message))


def _result(data):
    error = data.get("error")
    return RunResult(
        data["scene"],
        data["stdout"],
        data["stderr"],
        RunError(**error) if error else None,
        data["outputs"],
        data.get("sizes", {}),
        data.get("tied", {}),
    )


def _alarm(seconds):
    def raise_timeout(signum, frame):
        raise EditorTimeout(f"the editors ran past the time limit ({seconds:g} s)")

    return raise_timeout


# what the guard ignores: every signal a process may catch that would end or stop it (not SIGCHLD)
GUARDED = [
    getattr(signal, name)
    for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGPIPE", "SIGTSTP")
    + ("SIGTTIN", "SIGTTOU", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF")
    if hasattr(signal, name)
]


def _guard(limits):
    """The process the builder starts: fork the child that runs the editors, then wait for it, ignoring the signals
    it might send its parent, kill whatever it left running (its descendants: the guard is their subreaper), and end
    as it ended (its status, or killed by its signal)."""
    for signum in GUARDED:
        signal.signal(signum, signal.SIG_IGN)
    reaper = subreaper()
    pid = os.fork()
    if pid == 0:
        for signum in GUARDED:
            signal.signal(signum, signal.SIG_DFL)
        try:
            _child(limits)
        finally:
            os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)  # the pipes are the child's alone: the builder sees their end when the child ends
    os.dup2(devnull, 1)
    while True:  # orphans handed to the guard end too: reap them on the way
        ended, status = os.waitpid(-1, 0)
        if ended == pid:
            break
    if reaper:
        kill_descendants(os.getpid())
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status) else 1)


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
    os.register_at_fork(before=_note_time_left, after_in_child=lambda: _forked(results.fileno()))
    results.write("ready\n")
    results.flush()

    def running(editor):
        results.write(f"{RUNNING.decode()}{editor}\n")
        results.flush()

    for job in jobs:
        sources = [Source(**s) for s in job["sources"]]
        results.write(_answer(run, sources, job["options"], limits, running) + "\n")
        results.flush()


_time_left = [0.0]


def _note_time_left():
    _time_left[0] = signal.getitimer(signal.ITIMER_REAL)[0]


def _forked(results_fd):
    """In a process the editors forked: no access to the results, and an end when the job's time is up."""
    with contextlib.suppress(OSError):
        os.close(results_fd)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the alarm ends it, whatever it catches
    if _time_left[0] > 0:
        signal.setitimer(signal.ITIMER_REAL, _time_left[0])


def _answer(run, sources, options, limits, running=None):
    """One job's result as a JSON line; a failure outside the editors' code (the alarm or the memory limit reached
    in pie or the runner, a Scene that is not JSON) is a RunError with no line. `running(i)` is called as editor i
    starts."""
    signal.setitimer(signal.ITIMER_REAL, limits["seconds"])
    try:
        result = run(sources, interrupts=False, on_editor=running, **options)
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
    _guard(json.loads(sys.argv[1]))
