"""A worker that dies mid-run is replaced by its pool, and the replacement starts its own testees; when one of them
does not come up (harness/fuzzing/pools.py: the replacement says so in ``Starts`` and answers its next task with it)
the run stops: not green, the implementation named and why, no traceback, exit 3 (UNAVAILABLE; docs/fuzzing.md,
"How the budget is counted": "an implementation that does not come up in a worker ... ends the run").

The testee is suites/fakes/slow_testee.py, faithful: its 2nd process (the first worker's) kills its worker at its
3rd line after the start (SLOW_KILL_PARENT), and every process after the 3rd (the replacement's) exits at its
start with status 7 (SLOW_FROM, SLOW_EXIT). The 1st is the command's own, the 3rd the other worker's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness.fuzzing.fuzz import BATCH
from harness.model.status import FOUND, UNAVAILABLE
from suites.fake_impl import ROOT
from suites.fuzzing.test_budget_after_start import declare

SAID = "slow: the testee exited during start-up (status 7)"


def run(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = declare(folder, startup=5.0, SLOW_FROM=3, SLOW_EXIT=7, SLOW_KILL_PARENT="2:3")
    environ = dict(os.environ, HYPOTHESIS_PROFILE="ci", **env)
    for name in ("PARITY_STARTUP_TIMEOUT", "PARITY_REQUEST_TIMEOUT", "PARITY_REQUIRE_ALL"):
        environ.pop(name, None)
    return subprocess.run([sys.executable, "-m", "harness", *arguments], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=240, check=False)


def replaced(folder: Path) -> None:
    """The double did what the test is about: a 4th process started (the replacement's testee)."""
    assert len((folder / "starts").read_text(encoding="ascii").split()) >= 4


def test_a_sweep_whose_replacement_worker_cannot_start_its_testee_stops(tmp_path: Path) -> None:
    proc = run(tmp_path, "sweep", "--impls", "slow", "--templates", "alone", "--range", "U+0041..U+8041",
               "--workers", "2", "--checkpoint", str(tmp_path / "cp.jsonl"), "--report", str(tmp_path / "sweep.json"))
    out = proc.stdout + proc.stderr
    replaced(tmp_path)
    assert proc.returncode == UNAVAILABLE, out
    assert "Traceback" not in out, out
    error = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert error and "did not come up in a worker" in error[0] and SAID in error[0], out
    report = json.loads((tmp_path / "sweep.json").read_text(encoding="utf-8"))
    assert report["ok"] is False
    ledger = report["run"]["ledger"]
    assert "did not come up again" in ledger["stopped"] and SAID in ledger["stopped"], ledger
    assert any("planned inputs run" in problem for problem in ledger["problems"]), ledger


def test_a_fuzz_run_whose_replacement_worker_cannot_start_its_testee_stops(tmp_path: Path) -> None:
    proc = run(tmp_path, "fuzz", "--impls", "slow", "--ops", "normalize_fact_text", "--seed", "3", "--workers", "2",
               "--seconds", "6", "--report", str(tmp_path / "report.json"))
    out = proc.stdout + proc.stderr
    replaced(tmp_path)
    assert "Traceback" not in out, out
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["ok"] is False, out
    assert proc.returncode == UNAVAILABLE, out
    error = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert error and "slow did not come up in a worker" in error[0] and SAID in error[0], out


def test_a_sweep_whose_worker_dies_mid_chunk_sends_the_chunk_again_and_ends_done(tmp_path: Path) -> None:
    """The replacement comes up this time (no SLOW_EXIT): the chunk the dead worker took is lost to the pool (a pool
    never sends a task again), and the driver sends it again once it sees the worker gone. The sweep ends, every
    planned input run and compared, status 0 — not a hang on the lost chunk (it was, with imap_unordered)."""
    env = declare(tmp_path, startup=5.0, SLOW_KILL_PARENT="2:3")
    environ = dict(os.environ, HYPOTHESIS_PROFILE="ci", **env)
    for name in ("PARITY_STARTUP_TIMEOUT", "PARITY_REQUEST_TIMEOUT", "PARITY_REQUIRE_ALL"):
        environ.pop(name, None)
    proc = subprocess.run([sys.executable, "-m", "harness", "sweep", "--impls", "slow", "--templates", "alone",
                           "--range", "U+0041..U+8041", "--workers", "2", "--checkpoint", str(tmp_path / "cp.jsonl"),
                           "--report", str(tmp_path / "sweep.json")],
                          cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120, check=False)
    out = proc.stdout + proc.stderr
    assert len((tmp_path / "starts").read_text(encoding="ascii").split()) >= 4, out  # a worker was replaced
    assert proc.returncode == 0 and "Traceback" not in out, out
    ledger = json.loads((tmp_path / "sweep.json").read_text(encoding="utf-8"))["run"]["ledger"]
    assert ledger["ok"] and ledger["planned"] == ledger["inputs"] == 0x8001, ledger
    assert "worker(s) started again" in proc.stderr, out


def test_a_fuzz_run_whose_worker_dies_mid_batch_sends_the_batch_again_and_goes_on(tmp_path: Path) -> None:
    """The replacement comes up (no SLOW_EXIT): the batch the dead worker took is lost to the pool, and the driver
    sends the same task again once it sees the worker gone (harness/fuzzing/fuzz.py ``_batches``). The run goes on
    to its budget, many batches, status 0, the worker restart said — not stalled on the lost batch until the hard
    deadline and then called 'done and compared' after a few thousand examples (it was)."""
    env = declare(tmp_path, startup=5.0, SLOW_KILL_PARENT="2:3")
    environ = dict(os.environ, HYPOTHESIS_PROFILE="ci", **env)
    for name in ("PARITY_STARTUP_TIMEOUT", "PARITY_REQUEST_TIMEOUT", "PARITY_REQUIRE_ALL"):
        environ.pop(name, None)
    proc = subprocess.run([sys.executable, "-m", "harness", "fuzz", "--impls", "slow", "--ops", "normalize_fact_text",
                           "--seed", "3", "--workers", "2", "--seconds", "6",
                           "--report", str(tmp_path / "report.json")],
                          cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120, check=False)
    out = proc.stdout + proc.stderr
    replaced(tmp_path)
    assert "Traceback" not in out, out
    assert "worker(s) started again" in proc.stderr, out
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    ledger = report["run"]["ledger"]
    assert ledger["restarts"]["workers"] >= 1, ledger
    # Unhindered, this run does ~300,000-500,000 examples (60-80k/s idle); stalled on the lost batch it did ~3,000.
    assert ledger["inputs"] == ledger["compared"] > 20 * BATCH, ledger
    assert ledger["stopped"] is None and ledger["ok"] is True and report["ok"] is True, ledger
    assert proc.returncode == 0, out


def test_a_fuzz_batch_that_takes_down_every_worker_it_is_sent_to_stops_the_run_not_done(tmp_path: Path) -> None:
    """suites/fakes/worker_killer_testee.py kills every worker it runs in (each replacement too): a lost batch is sent
    again at most RESENDS times, then the run stops, its ledger's ``stopped`` naming the batch, the report not ok and
    the status not 0 — not resent for ever, nor green."""
    env = declare(tmp_path, startup=5.0)
    declaration = json.loads((tmp_path / "slow.json").read_text(encoding="utf-8"))
    declaration["start"]["command"][-1] = str(ROOT / "suites" / "fakes" / "worker_killer_testee.py")
    (tmp_path / "slow.json").write_text(json.dumps(declaration), encoding="utf-8")
    environ = dict(os.environ, HYPOTHESIS_PROFILE="ci", **env)
    for name in ("PARITY_STARTUP_TIMEOUT", "PARITY_REQUEST_TIMEOUT", "PARITY_REQUIRE_ALL"):
        environ.pop(name, None)
    proc = subprocess.run([sys.executable, "-m", "harness", "fuzz", "--impls", "slow", "--ops", "normalize_fact_text",
                           "--seed", "3", "--workers", "2", "--seconds", "30",
                           "--report", str(tmp_path / "report.json")],
                          cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120, check=False)
    out = proc.stdout + proc.stderr
    assert len((tmp_path / "starts").read_text(encoding="ascii").split()) >= 5, out  # workers replaced, and again
    assert "Traceback" not in out, out
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    ledger = report["run"]["ledger"]
    said = "a fuzz worker died on the batch of normalize_fact_text with seed"
    assert ledger["stopped"] and said in ledger["stopped"] and "3 times" in ledger["stopped"], ledger
    assert said in proc.stderr and "the run stops" in proc.stderr, out
    assert report["ok"] is False and ledger["ok"] is False, ledger
    assert proc.returncode == FOUND, out
