"""Nothing a testee starts outlives the run (docs/protocol.md, "Processes").

A testee runs in a process group of its own, killed as a group (harness/testees/process.py), but a child it
starts in a session of its own (``setsid``) leaves that group, and when the testee dies it is re-parented out
of the harness's tree: the group kill misses it. On Linux a process that starts testees (the command's process,
and each worker of the fuzz and sweep pools, harness/fuzzing/pools.py) makes itself a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``, ``become``): an orphan anywhere below it is re-parented to it instead of
init, so it stays in the harness's tree. At the end of the run (``end_descendants``: the command's exit in
harness/model/status.py ``exit_with``, a worker's end) every descendant is sent SIGTERM, then SIGKILL after a
short grace, and the harness's own children among them are reaped.

Where it cannot be a subreaper (not Linux, or prctl refused), ``become`` says once on stderr what that leaves
unguarded; the group kills still run. The multiprocessing helpers of this process (a pool's fork server,
its resource tracker) are not signalled: they end by themselves when this process does (their descendants, a
worker left behind, are).
"""

from __future__ import annotations

import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
GRACE = 1.0  # seconds between SIGTERM and SIGKILL
_POLL = 0.02

_BECAME: dict[int, bool] = {}  # pid -> whether it is a subreaper (the flag is not inherited over a fork)
_SAID: list[bool] = []


def become(quiet: bool = False) -> bool:
    """Make this process a child subreaper (once per process); whether it is one. Where it cannot, say so on
    stderr once (``quiet``: not from here; a pool worker, whose parent says it)."""
    pid = os.getpid()
    if pid in _BECAME:
        return _BECAME[pid]
    reason = _prctl()
    _BECAME[pid] = reason is None
    if reason is not None and not quiet and not _SAID:
        _SAID.append(True)
        try:
            print(f"note: {reason}: a process a testee starts in a session of its own (setsid) may outlive "
                  "the run (its process group is still killed)", file=sys.stderr)
        except (OSError, ValueError):
            pass
    if reason is None:
        _register_end()
    return _BECAME[pid]


def _prctl() -> str | None:
    """Set PR_SET_CHILD_SUBREAPER; None when done, else why not."""
    if not sys.platform.startswith("linux"):
        return f"not Linux ({sys.platform}): the harness cannot adopt the orphans of its testees"
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return f"prctl(PR_SET_CHILD_SUBREAPER) failed ({os.strerror(ctypes.get_errno())})"
    except (OSError, AttributeError) as exc:
        return f"prctl(PR_SET_CHILD_SUBREAPER) is not available ({exc})"
    return None


def _register_end() -> None:
    """The command's exit (harness/model/status.py ``exit_with``) ends every descendant this process has."""
    from harness.model import status

    if end_descendants not in status.ENDING:
        status.ENDING.append(end_descendants)


def _parents() -> dict[int, list[int]]:
    """Every process's children, from /proc (a process that ends while it is read is left out)."""
    found: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
            if fields[0] == b"Z":
                continue  # ended, waiting to be reaped: nothing to signal (its children are re-parented)
            found.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return found


def descendants(pid: int | None = None) -> list[int]:
    """Every running process below ``pid`` (this process), parents before their children."""
    below = _parents()
    out: list[int] = []
    todo = [os.getpid() if pid is None else pid]
    while todo:
        for child in below.get(todo.pop(), []):
            if child not in out:
                out.append(child)
                todo.append(child)
    return out


def _helpers() -> set[int]:
    """This process's multiprocessing helpers (a fork server, a resource tracker), when it has them."""
    found: set[int] = set()
    forkserver = sys.modules.get("multiprocessing.forkserver")
    tracker = sys.modules.get("multiprocessing.resource_tracker")
    for module, instance, attribute in ((forkserver, "_forkserver", "_forkserver_pid"),
                                        (tracker, "_resource_tracker", "_pid")):
        pid = getattr(getattr(module, instance, None), attribute, None)
        if isinstance(pid, int):
            found.add(pid)
    return found


def _reap(pids: set[int]) -> None:
    """Reap those of ``pids`` that are this process's children and have ended (never blocks)."""
    for pid in list(pids):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pids.discard(pid)  # not ours (a grandchild: its parent reaps it), or reaped already
            continue
        except OSError:
            continue
        if done:
            pids.discard(pid)


def end_descendants(grace: float = GRACE) -> list[int]:
    """End every process below this one but its multiprocessing helpers: SIGTERM, then SIGKILL to what is left
    after ``grace`` seconds; reap this process's own children among them. Processes that appear below while it
    runs (re-parented orphans) are ended too. The pids it signalled."""
    spared = _helpers()
    signalled: set[int] = set()
    ours: set[int] = set()
    killing = False
    until = time.monotonic() + grace
    stop = until + 2.0  # SIGKILL ends anything within this, but for a process stuck in the kernel
    while True:
        me = os.getpid()
        parents = _parents()
        left = [pid for pid in descendants() if pid not in spared]
        ours.update(pid for pid in parents.get(me, []) if pid in left)
        now = time.monotonic()
        if not killing and now >= until:
            killing = True
        for pid in left:
            if killing or pid not in signalled:
                try:
                    os.kill(pid, signal.SIGKILL if killing else signal.SIGTERM)
                except OSError:
                    pass
                signalled.add(pid)
        _reap(ours)
        if not left or now >= stop:
            break
        time.sleep(_POLL)
    _reap(ours)
    return sorted(signalled)
