"""The worker pools of the fuzzer and the sweep: ended within a bound, and quiet when interrupted.

``Pool.terminate`` joins every worker, and a worker the pool forked to replace one that ended while the
pool was being torn down waits for ever on the task queue's lock, which the terminating pool holds: the
join never returns (a test session once hung there, in the fuzzer's rate of ``nox -s bench``'s test).
``ending`` terminates the pool from a helper thread and, when that has not finished within ``grace``
seconds, kills every child process left, which lets the joins return.

Interruptions belong to the parent (docs/fuzzing.md, "Interruptions"): a worker

* ignores SIGINT (a Ctrl-C reaches the whole foreground process group; the parent stops the run and
  ends the pool), and so do the testee processes it starts, which inherit the disposition;
* ends on SIGTERM (the pool's terminate) by killing its testee processes first (``at_end``), then
  ``os._exit(0)``;
* ends the same way, without a traceback, when its parent is gone (killed alone): a watch thread sees
  the parent change within ``WATCH_EVERY`` seconds, and a broken pipe or an EOF on the way to the parent
  ends the worker quietly (``_Quiet``) whichever comes first.

Nothing of this runs per example: the watch thread wakes ``1 / WATCH_EVERY`` times a second."""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

GRACE = 10.0
WATCH_EVERY = 0.2  # seconds between two looks at the parent, in a worker

_AT_END: list[Callable[[], None]] = []  # in a worker: what ending it does first (kill its testees)
_STARTED: list[bool] = []  # in a worker: its initializer has finished (what fails after is the way to the parent)


def end(pool: Any, grace: float = GRACE) -> None:
    """``pool.terminate()``, bounded: after ``grace`` seconds every child process still alive is killed."""
    ender = threading.Thread(target=pool.terminate, name="pool-terminate", daemon=True)
    ender.start()
    ender.join(grace)
    if ender.is_alive():
        for child in multiprocessing.active_children():
            child.kill()
        ender.join(grace)


def at_end(callback: Callable[[], None]) -> None:
    """In a worker (its initializer): run ``callback`` when the worker ends, terminated or orphaned."""
    _AT_END.append(callback)


def kill_testees(opened: dict[str, Any]) -> None:
    """Kill the processes of a worker's command testees at once (their groups where the client has one):
    a hung testee would outlive its worker, and nobody reads its answers any more."""
    for impl in opened.values():
        proc = getattr(impl, "_proc", None)
        if proc is None:
            continue
        kill_group = getattr(proc, "kill_group", None)
        if kill_group is not None:
            kill_group()
        try:
            proc.popen.kill()
        except OSError:
            pass


def _quit(*_: Any) -> None:
    """End this worker: what ``at_end`` asked for, then exit at once (no traceback, no result sent)."""
    for callback in _AT_END:
        try:
            callback()
        except Exception:  # noqa: BLE001 - ending anyway: nothing of this worker is read any more
            pass
    os._exit(0)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_EVERY)
    _quit()


def _start(parent: int, initializer: Callable[..., Any], initargs: tuple[Any, ...]) -> None:
    """Every worker's initializer: SIGINT ignored (before any testee starts: they inherit it), SIGTERM and
    the parent's end handled by ``_quit``; then the pool's own initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by ``ending`` around the fork
    signal.signal(signal.SIGTERM, _quit)
    _AT_END.clear()  # a forked worker starts with its parent's module state
    _STARTED.clear()
    threading.Thread(target=_watch, args=(parent,), name="parent-watch", daemon=True).start()
    initializer(*initargs)
    _STARTED.append(True)


class _Quiet:
    """A pool worker process whose run ends quietly when the way to its parent is broken: once the worker
    has started, only the pool's own get and put run outside the task's ``except Exception``, and they let a
    BrokenPipeError (a result sent to a parent that is gone) or an EOF escape, which the process would print
    as a traceback. A failing initializer still fails loudly."""

    def run(self) -> None:
        try:
            super().run()  # type: ignore[misc]
        except (BrokenPipeError, ConnectionResetError, EOFError):
            if not _STARTED:
                raise
            _quit()


class _QuietSpawn(_Quiet, multiprocessing.context.SpawnProcess):  # type: ignore[misc]
    pass


class _SpawnContext(multiprocessing.context.SpawnContext):
    Process = _QuietSpawn


_CONTEXTS: dict[str, Any] = {"spawn": _SpawnContext}

if hasattr(multiprocessing.context, "ForkProcess"):  # not on Windows
    class _QuietFork(_Quiet, multiprocessing.context.ForkProcess):  # type: ignore[misc]
        pass

    class _ForkContext(multiprocessing.context.ForkContext):
        Process = _QuietFork

    _CONTEXTS["fork"] = _ForkContext


@contextmanager
def ending(start_method: str, workers: int, initializer: Callable[..., Any],
           initargs: tuple[Any, ...]) -> Iterator[Any]:
    """A pool of ``workers`` processes that ``end`` ends, however the block is left. SIGINT is blocked in
    this thread while the workers start, so that none of them sees a Ctrl-C before it ignores SIGINT (and
    this process gets it, once unblocked)."""
    context = _CONTEXTS[start_method]()
    block = hasattr(signal, "pthread_sigmask")
    if block:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool = context.Pool(workers, initializer=_start, initargs=(os.getpid(), initializer, initargs))
    finally:
        if block:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        yield pool
    finally:
        end(pool)
