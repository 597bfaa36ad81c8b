"""The worker pools of the fuzzer and the sweep: ended within a bound, and quiet when interrupted.

``Pool.terminate`` joins every worker, and a worker the pool forked to replace one that ended while the
pool was being torn down waits for ever on the task queue's lock, which the terminating pool holds: the
join never returns (a test session once hung there, in the fuzzer's rate of ``nox -s bench``'s test).
``ending`` terminates the pool from a helper thread and, when that has not finished within ``grace``
seconds, kills every child process left, which lets the joins return.

Interruptions belong to the parent (docs/fuzzing.md, "Interruptions"): a worker

* ignores SIGINT (a Ctrl-C reaches the whole foreground process group; the parent stops the run and
  ends the pool), and so do the testee processes it starts, which inherit the disposition;
* lets SIGTERM and SIGHUP pass too (a SIGTERM to the whole process group: the parent takes it for a Ctrl-C,
  harness/model/status.py, and ends the pool). A worker that ended there, while it waited for a task, would
  hold the task queue's lock for ever, and the pool's terminate, which takes that lock first, would wait
  for it (20 s, both of ``end``'s graces, measured). The testees it starts get the default dispositions of
  both (the handler is not inherited over an exec);
* ends on ``END_SIGNAL`` (SIGUSR1: the pool's terminate, ``_Quiet.terminate``) by killing its testee
  processes first (``at_end``), then every process left below it (it is a child subreaper, so the orphans
  of its testees, ``setsid`` ones included, are: harness/testees/reaper.py), then ``os._exit(0)``;
* ends the same way, without a traceback, when its parent is gone (killed alone): a watch thread sees
  the parent change within ``WATCH_EVERY`` seconds, and a broken pipe or an EOF on the way to the parent
  ends the worker quietly (``_Quiet``) whichever comes first.

Nothing of this runs per example: the watch thread wakes ``1 / WATCH_EVERY`` times a second.

How the workers start is decided here alone (``start_method``, used by the fuzzer and the sweep):
``forkserver`` on Linux (the server imports the pool initializer's module once, and each worker it forks
starts with the harness imported), ``spawn`` elsewhere; never ``fork``.

A pool's workers start their own testees (Pyodide's take seconds, more on a busy machine), and a time budget counts
from the moment every one of them has (docs/fuzzing.md, "How the budget is counted"): ``Starts`` is what the
workers say of their start (up, or the implementation that did not come up and why; a worker's initializer never
raises, which would have the pool start it again and again, each printing a traceback) and what the driver waits
on, within a bounded start-up allowance (``Starts.wait``). A worker the pool starts again later (one that died)
says so too: ``Starts.restarts``."""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from harness.testees import reaper

GRACE = 10.0
WATCH_EVERY = 0.2  # seconds between two looks at the parent, in a worker
END_GRACE = 0.5  # seconds a worker's leftover processes get between SIGTERM and SIGKILL as it ends
# What the pool's terminate sends a worker (where there is no SIGUSR1, SIGTERM, and the worker ends on it).
END_SIGNAL = getattr(signal, "SIGUSR1", signal.SIGTERM)
# Held off in the pool's process while its workers start (each worker lets them in once it handles them).
HELD = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1") if hasattr(signal, name))

_AT_END: list[Callable[[], None]] = []  # in a worker: what ending it does first (kill its testees)
_STARTED: list[bool] = []  # in a worker: its initializer has finished (what fails after is the way to the parent)


class StartFailed(Exception):
    """An implementation did not come up in a worker (its message names it and why), or the workers were not up
    within the start-up allowance: the run ends with that verdict (status UNAVAILABLE), never a traceback."""


class Starts:
    """What a pool's workers say of their start, shared with them (made from the pool's context, passed in its
    initializer's arguments): how many came up (every start, a replacement's too) and the first failure."""

    MESSAGE = 2048  # bytes of the first failure kept

    def __init__(self, ctx: Any) -> None:
        self.up = ctx.Value("i", 0)
        self.failure = ctx.Array("c", self.MESSAGE)

    def came_up(self) -> None:
        """In a worker: its testees answered their start."""
        with self.up.get_lock():
            self.up.value += 1

    def failed(self, message: str) -> None:
        """In a worker: an implementation did not come up (the first failure is kept)."""
        with self.failure.get_lock():
            if not self.failure.value:
                self.failure.value = message.encode("utf-8", "replace")[:self.MESSAGE - 1].replace(b"\0", b" ")

    def failure_text(self) -> str:
        return bytes(self.failure.value).decode("utf-8", "replace")

    def wait(self, workers: int, allowance: float, poll: float = 0.02) -> float:
        """Wait until ``workers`` workers are up; the time.monotonic() they were. StartFailed when one says an
        implementation did not come up, or when ``allowance`` seconds pass first."""
        until = time.monotonic() + allowance
        while True:
            if self.failure.value:
                raise StartFailed(self.failure_text())
            if self.up.value >= workers:
                return time.monotonic()
            if time.monotonic() >= until:
                raise StartFailed(f"{workers - self.up.value} of {workers} worker(s) had not started their "
                                  f"implementations within the start-up allowance of {allowance:g} s")
            time.sleep(poll)

    def restarts(self, workers: int) -> int:
        """Workers started again after the first ``workers`` came up (the pool replaces one that died)."""
        return max(0, self.up.value - workers)


def startup_allowance(deadlines: Iterable[float]) -> float:
    """How long the workers may take to come up: twice the largest start-up deadline of the implementations (a
    start that exits by a signal is tried again) and ``GRACE`` for the worker processes themselves."""
    return 2 * max([float(deadline) for deadline in deadlines] + [0.0]) + GRACE


def start_method() -> str:
    """How the pools start their workers: ``forkserver`` on Linux, ``spawn`` elsewhere (macOS and Windows:
    their Python's default), never ``fork``. A fork from a multi-threaded process may leave a lock held for
    ever in the child (Python 3.12 warns; 3.14 no longer forks by default). The harness's process is
    multi-threaded whenever a command testee is open (its client's reader and watch threads), and a pool
    started from a single thread still forks the workers that replace ended ones from its own handler
    thread; a fork server is a single-threaded process of its own. Measured (docs/fuzzing.md, "Worker
    start"): as many examples per second as with ``fork``, a pool's start about 0.4 s longer."""
    return "forkserver" if sys.platform.startswith("linux") else "spawn"


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
    try:
        reaper.end_descendants(END_GRACE)
    except Exception:  # noqa: BLE001 - ending anyway
        pass
    os._exit(0)


def _parents_turn(*_: Any) -> None:
    """In a worker, SIGTERM and SIGHUP from outside: nothing here; the parent, which got it too or is ended by
    it, ends the pool (``_Quiet.terminate``) or is gone (``_watch``)."""


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_EVERY)
    _quit()


def _start(parent: int, environ: dict[str, str] | None, initializer: Callable[..., Any],
           initargs: tuple[Any, ...]) -> None:
    """Every worker's initializer: SIGINT ignored (before any testee starts: they inherit it), SIGTERM and
    SIGHUP let pass (``_parents_turn``), ``END_SIGNAL`` and the parent's end handled by ``_quit``, the worker a
    child subreaper; then the pool's own initializer.
    ``parent``: the process that started this worker (the pool's, or its fork server, which ends when the pool's
    process does; 0: not known, the worker's parent as it starts). ``environ``: the pool's process's environment
    as the pool started, for a worker that did not inherit it (a fork server keeps the one it started with,
    which a later pool of the same process, a test's, may have changed since)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is not None and number != END_SIGNAL:
            signal.signal(number, _parents_turn)
    signal.signal(END_SIGNAL, _quit)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(HELD))  # blocked by ``ending`` around the fork
    reaper.become(quiet=True)  # the pool's process says it once when it cannot
    _AT_END.clear()  # a forked worker starts with its parent's module state
    _STARTED.clear()
    if environ is not None and environ != os.environ:
        os.environ.clear()
        os.environ.update(environ)
    parent = parent or os.getppid()
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

    def terminate(self) -> None:
        """The pool's terminate: ``END_SIGNAL`` (a worker lets SIGTERM from outside pass)."""
        send = getattr(getattr(self, "_popen", None), "_send_signal", None)
        if END_SIGNAL == signal.SIGTERM or send is None:
            super().terminate()  # type: ignore[misc]
            return
        self._check_closed()  # type: ignore[attr-defined]
        send(END_SIGNAL)


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

if hasattr(multiprocessing.context, "ForkServerProcess"):  # not on Windows
    class _QuietForkServer(_Quiet, multiprocessing.context.ForkServerProcess):  # type: ignore[misc]
        pass

    class _ForkServerContext(multiprocessing.context.ForkServerContext):
        Process = _QuietForkServer

    _CONTEXTS["forkserver"] = _ForkServerContext


def context(start_method: str) -> Any:
    """The pools' multiprocessing context of ``start_method`` (what shares state with its workers, as the
    sweep's flags do, is made from the same method); its resource tracker started (``_tracker``)."""
    if start_method != "fork":
        _tracker()
    return _CONTEXTS[start_method]()


def _tracker() -> None:
    """Start this process's multiprocessing resource tracker, if it does not run, with SIGHUP blocked: it ignores
    SIGINT and SIGTERM itself, and a SIGHUP to the process group would end it under the pool (a new one then
    prints a traceback for every semaphore the pool frees). Starting it unblocks SIGINT and SIGTERM in this
    thread: ``ending`` starts it before it blocks them."""
    from multiprocessing import resource_tracker

    hold = hasattr(signal, "pthread_sigmask") and hasattr(signal, "SIGHUP")
    if hold:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        resource_tracker.ensure_running()
    finally:
        if hold and signal.SIGHUP not in before:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP})


def _workers_parent(start_method: str, preload: str) -> int:
    """The process the workers of ``start_method`` are children of; a fork server is started here
    (importing ``preload`` once for every worker it forks) when none runs."""
    if start_method != "forkserver":
        return os.getpid()
    from multiprocessing import forkserver

    forkserver.set_forkserver_preload([preload])  # only read when the server starts
    forkserver.ensure_running()
    return int(getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None) or 0)


@contextmanager
def ending(start_method: str, workers: int, initializer: Callable[..., Any],
           initargs: tuple[Any, ...]) -> Iterator[Any]:
    """A pool of ``workers`` processes that ``end`` ends, however the block is left. SIGINT, SIGTERM and SIGHUP
    (``HELD``) are blocked in this thread while the workers (and a fork server, which passes the mask on to the
    workers it forks) start, so that none of them sees a Ctrl-C or a SIGTERM to the process group before it
    handles them (and this process gets it, once unblocked; a fork server keeps them blocked and ends when this
    process does). This process becomes a child subreaper first (harness/testees/reaper.py): what the
    workers' testees leave is re-parented to it. The resource tracker of a ``spawn`` or ``forkserver`` pool is
    started before (``_tracker``): starting it unblocks SIGINT in this thread, and the pool's own start would
    then not be covered."""
    reaper.become()
    block = hasattr(signal, "pthread_sigmask")
    if block and start_method != "fork":
        _tracker()
    if block:
        signal.pthread_sigmask(signal.SIG_BLOCK, set(HELD))
    try:
        parent = _workers_parent(start_method, initializer.__module__)
        environ = None if start_method == "fork" else dict(os.environ)
        pool = context(start_method).Pool(workers, initializer=_start,
                                          initargs=(parent, environ, initializer, initargs))
    finally:
        if block:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, set(HELD))
    try:
        yield pool
    finally:
        end(pool)
