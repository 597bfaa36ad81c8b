"""SIGTERM and SIGHUP as SIGINT (issue 49, item 8; harness/model/status.py ``as_interrupt``, the workers of
harness/fuzzing/pools.py): a running ``fuzz --seconds 30`` sent either, to its process alone or to its whole
process group, exits 4 with its partial report written and marked interrupted, quietly, and 1 s later nothing it
started runs: no worker, no testee, and neither of the sleepers its testee started in sessions of their own
(suites/fakes/setsid_testee.py, adopted by the harness: harness/testees/reaper.py).

Each case starts ``python -m harness`` in a session of its own, as suites/fuzzing/test_interruption.py does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.classes.report import validate
from harness.fuzzing import pools
from suites.fake_impl import ROOT
from suites.fuzzing.test_interruption import QUIET, _descendants, _left_after, _running, _wait_for
from suites.testees.test_reaper import declare_setsid, left_after, marked

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; process groups")

FUZZ = ["fuzz", "--impls", "fake", "--seconds", "30", "--workers", "2"]
ENDED_WITHIN = 15.0  # seconds for the workers to end their testees' sleepers once the harness is killed


@pytest.mark.parametrize("name,whom", [("SIGTERM", "group"), ("SIGTERM", "process"), ("SIGHUP", "group")],
                         ids=["SIGTERM-group", "SIGTERM-process", "SIGHUP-group"])
def test_a_signal_ends_fuzz_as_ctrl_c_with_nothing_left(tmp_path: Path, name: str, whom: str) -> None:
    marker = declare_setsid(tmp_path / "impls")
    report, output = tmp_path / "report.json", tmp_path / "output.txt"
    env = dict(os.environ, PARITY_IMPLEMENTATIONS=str(tmp_path / "impls"), HYPOTHESIS_PROFILE="ci")
    with output.open("wb") as handle:
        proc = subprocess.Popen([sys.executable, "-m", "harness", *FUZZ, "--report", str(report)], cwd=ROOT,
                                env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
    below: set[int] = set()
    try:
        _wait_for(output, "examples (", proc)
        time.sleep(1.5)
        below = _descendants(proc.pid)
        assert len(below) >= 4, below  # two workers and their testees
        assert len(marked(marker)) >= 2  # the sleepers of the workers' testees
        sent = time.monotonic()
        (os.killpg if whom == "group" else os.kill)(proc.pid, getattr(signal, name))
        status = proc.wait(timeout=60)
        took = time.monotonic() - sent
        left = _left_after(below, 1.0)
        sleepers = left_after(marker, 1.0)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in below | _descendants(proc.pid):
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
    said = output.read_text(errors="replace")
    assert status == 4, said[-3000:]
    assert took < 15, took
    for word in QUIET:
        assert word not in said, said[-4000:]
    partial = json.loads(report.read_text())
    assert validate(partial) == [] and partial["examples"] > 0
    assert partial["fuzz"]["interrupted"] is True
    assert any(line.startswith(f"interrupted ({name}) after ") for line in partial["cut"]), partial["cut"]
    assert not left, f"still running 1 s after the run ended: {left}"
    assert not sleepers, f"the testee's setsid sleepers still running 1 s after the run ended: {sleepers}"


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _keeper(sleeper: int) -> int:
    """The harness process a sleeper is below: its parent, or its parent's parent when that is its testee."""
    parent = _parent(sleeper)
    try:
        testee = b"fake_testee" in Path(f"/proc/{parent}/cmdline").read_bytes()
    except OSError:
        testee = False
    return _parent(parent) if testee else parent


def test_the_workers_end_what_their_testees_left_when_the_harness_is_killed(tmp_path: Path) -> None:
    """SIGKILL to the harness alone: nobody above the workers ends anything, so each worker (a subreaper of its
    own) ends its testees' setsid sleepers as it quits (harness/fuzzing/pools.py ``_quit``): within 15 s, a bound a busy
    runner keeps (the CI's slow set, two sessions per core, once took over 5 s; the sleepers sleep 300 s). (The
    sleepers of the testee the killed process ran itself are beyond anyone's reach: SIGKILL cannot be handled.)"""
    marker = declare_setsid(tmp_path / "impls")
    output = tmp_path / "output.txt"
    env = dict(os.environ, PARITY_IMPLEMENTATIONS=str(tmp_path / "impls"), HYPOTHESIS_PROFILE="ci")
    with output.open("wb") as handle:
        proc = subprocess.Popen([sys.executable, "-m", "harness", *FUZZ, "--report", str(tmp_path / "report.json")],
                                cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
    below: set[int] = set()
    try:
        _wait_for(output, "examples (", proc)
        time.sleep(1.5)
        below = _descendants(proc.pid)
        everyone = set(marked(marker))
        sleepers = {pid for pid in everyone if _keeper(pid) != proc.pid}  # the workers' testees'
        assert len(sleepers) >= 2, sleepers
        below -= everyone - sleepers
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        left = _left_after(below | sleepers, ENDED_WITHIN)
        shown = [(p, _parent(p), Path(f"/proc/{p}/cmdline").read_bytes()[:90]) for p in left]
    finally:
        for pid in below | _descendants(proc.pid):
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
        left_after(marker, 0)
    assert not left, f"still running {ENDED_WITHIN:.0f} s after the harness was killed: {shown}"


def _nothing() -> None:
    """A pool initializer with nothing to open."""


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_a_sigterm_or_sighup_to_the_workers_leaves_the_pool_to_its_parent() -> None:
    """A SIGTERM or SIGHUP to the process group reaches the workers too: they let it pass, and the pool's end
    (its terminate: SIGUSR1) ends them at once. A worker that ended on it while waiting for a task held the task
    queue's lock for ever, and the pool's end took 20 s (both graces of ``pools.end``)."""
    with pools.ending(pools.start_method(), 2, _nothing, ()) as pool:
        workers = [process.pid for process in pool._pool]
        pool.map_async(_sleep, [60])
        time.sleep(1.5)  # one worker sleeps, the other waits for a task, holding the task queue's lock
        for pid in workers:
            os.kill(pid, signal.SIGTERM)
            os.kill(pid, signal.SIGHUP)
        time.sleep(0.5)
        assert all(_running(pid) for pid in workers), "a worker ended on SIGTERM or SIGHUP"
        ending = time.monotonic()
    took = time.monotonic() - ending
    assert took < 5, f"the pool took {took:.1f} s to end"
    assert not _left_after(set(workers), 2.0)
