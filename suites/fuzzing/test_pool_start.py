"""How the worker pools of the fuzzer and the sweep start (issue 32, part 2): never by ``fork``
(harness/fuzzing/pools.py, ``start_method``; docs/fuzzing.md, "Worker start").

A fork from a multi-threaded process can leave a lock held for ever in the child, and Python 3.12 warns
("This process is multi-threaded, use of fork() may lead to deadlocks in the child"). The fuzzer's parent
is multi-threaded as soon as a command testee is open (its client's reader and watch threads), and every
pool forks the workers that replace ended ones from its own handler thread.

The warning is looked for in what a run prints with ``-W always::DeprecationWarning``: with
``-W error::DeprecationWarning`` Python 3.12 and 3.13 drop this warning instead of raising it (measured:
a forking pool runs on, silent), so an error filter would pass a run that forks. A control run that forks
on purpose shows the warning is seen where it is printed."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.fuzzing import pools
from suites.fake_impl import ROOT, declare

FORK_WARNING = "use of fork() may lead to deadlocks"
PROBE = "PARITY_POOL_START_PROBE"
METHODS = [method for method in ("forkserver", "spawn") if method in multiprocessing.get_all_start_methods()]
new_python = pytest.mark.skipif(sys.version_info < (3, 12), reason="Python 3.12 is the first to warn")
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver and /proc: Linux")


def _nothing() -> None:
    """A pool initializer that has nothing to open."""


def _worker() -> tuple[str | None, bool, int]:
    """In a worker: the probe variable, whether SIGINT is ignored, the worker's parent."""
    return os.environ.get(PROBE), signal.getsignal(signal.SIGINT) is signal.SIG_IGN, os.getppid()


def test_a_multi_threaded_parent_does_not_fork() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="alive-at-pool-start", daemon=True)
    thread.start()
    try:
        assert threading.active_count() > 1
        method = pools.start_method()
    finally:
        stop.set()
        thread.join()
    assert method != "fork"
    assert method in multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux"):
        assert method == "forkserver"


def _fuzz_with_a_thread(folder: Path, forced: str | None) -> str:
    """``python -m harness fuzz`` with two workers, the fake command testee and one more thread alive in
    the parent, every DeprecationWarning printed; ``forced``: the start method the pools are made to use.
    What the run printed."""
    declare(folder / "impls")
    report = folder / "report.json"
    arguments = ["fuzz", "--impls", "fake", "--seconds", "3", "--workers", "2", "--report", str(report)]
    code = "\n".join([
        "import runpy, sys, threading",
        "threading.Thread(target=threading.Event().wait, name='alive', daemon=True).start()",
        *([f"from harness.fuzzing import pools; pools.start_method = lambda: {forced!r}"] if forced else []),
        f"sys.argv = ['harness', *{arguments!r}]",
        "runpy.run_module('harness', run_name='__main__')",
    ])
    env = dict(os.environ, PARITY_IMPLEMENTATIONS=str(folder / "impls"), HYPOTHESIS_PROFILE="ci")
    env.pop("PYTHONWARNINGS", None)
    proc = subprocess.run([sys.executable, "-W", "always::DeprecationWarning", "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    said = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), said[-3000:]
    assert json.loads(report.read_text())["examples"] > 0, said[-3000:]
    assert "on 2 worker(s)" in said, said[-3000:]
    return said


@new_python
def test_a_fuzz_run_with_a_thread_alive_prints_no_fork_warning(tmp_path: Path) -> None:
    said = _fuzz_with_a_thread(tmp_path, None)
    assert FORK_WARNING not in said, said[-3000:]


@new_python
@linux
def test_the_fork_warning_is_seen_when_the_pool_forks(tmp_path: Path) -> None:
    """The control: the same run with the pools made to fork prints the warning where it is looked for."""
    said = _fuzz_with_a_thread(tmp_path, "fork")
    assert FORK_WARNING in said, said[-3000:]


@pytest.mark.parametrize("method", METHODS)
def test_workers_have_the_environment_of_their_pools_start(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork server lives as long as the process that started it and keeps the environment it started
    with; each pool's workers have the environment of that pool's start (a test's, changed since), ignore
    SIGINT, and take the process that started them for their parent: none ends as if orphaned."""
    for value in ("first", "second"):
        monkeypatch.setenv(PROBE, value)
        with pools.ending(method, 2, _nothing, ()) as pool:
            answers = [pool.apply_async(_worker) for _ in range(4)]
            got = [answer.get(timeout=120) for answer in answers]
            assert {(seen, ignored) for seen, ignored, _ in got} == {(value, True)}, got
            workers = {child.pid for child in multiprocessing.active_children()}
            time.sleep(4 * pools.WATCH_EVERY)  # a worker that took its parent for gone has ended by now
            assert {child.pid for child in multiprocessing.active_children()} == workers, "a worker ended"
            assert len(workers) == 2 and pool.apply_async(_worker).get(timeout=120)[0] == value
            if method == "spawn":
                assert {parent for _, _, parent in got} == {os.getpid()}


@linux
def test_the_fork_server_starts_with_sigint_blocked(tmp_path: Path) -> None:
    """A Ctrl-C while a worker starts reaches no worker that does not ignore it yet: the fork server (and
    so each worker it forks, until its initializer ignores SIGINT) starts with SIGINT blocked, also when it
    is the pool's first start of the process (the resource tracker, started first, unblocks it again)."""
    code = "\n".join([
        "import os, time",
        "from harness.fuzzing import pools",
        "with pools.ending('forkserver', 1, time.sleep, (0,)) as pool:",
        "    server = pool.apply_async(os.getppid).get(timeout=120)",
        "    print(next(line for line in open(f'/proc/{server}/status') if line.startswith('SigBlk:')))",
    ])
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    blocked = int(proc.stdout.split()[-1], 16)
    assert blocked & (1 << (signal.SIGINT - 1)), proc.stdout
