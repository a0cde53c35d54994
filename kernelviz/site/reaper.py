"""Processes that leave their group: on Linux a guard becomes the subreaper of its descendants, so an editor's
child that calls setsid (or starts with ``start_new_session=True``) stays in its family tree, and the guard can
find and end it by walking /proc. Elsewhere these do nothing and the process group is all that is killed."""

import contextlib
import os
import signal
import sys
import time

KILL_ROUNDS = 100  # rounds of killing a guard's descendants (a process may fork while the others die)
PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def subreaper():
    """Make this process the subreaper of its descendants (Linux's prctl): an orphan among them becomes its child,
    not init's, so that `descendants` finds it. Returns whether it is one (False where there is no prctl)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(pid):
    """The processes, not ended, whose parent chain leads to `pid`, read from /proc ([] where there is none)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    children = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rpartition(b")")[2].split()  # after the name, which may hold anything
        except OSError:  # ended meanwhile
            continue
        if fields and fields[0] != b"Z":  # a zombie has ended (and has no children: they were handed on)
            children.setdefault(int(fields[1]), []).append(int(name))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), ()):
            found.append(child)
            stack.append(child)
    return found


def kill_descendants(pid):
    """SIGKILL every descendant of `pid` (see `descendants`), round after round until none is left (or
    KILL_ROUNDS). Returns whether none is left."""
    for _ in range(KILL_ROUNDS):
        found = descendants(pid)
        if not found:
            return True
        for child in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(child, signal.SIGKILL)
        time.sleep(0.01)
    return not descendants(pid)
