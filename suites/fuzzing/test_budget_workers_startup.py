"""The sweep's start-up allowance for its workers is made from the start-up deadlines its testees' clients will
enforce: the declared ones unless PARITY_STARTUP_TIMEOUT overrides every one (harness/testees/impls.py), as fuzz's
is made from its opened testees' ``startup_timeout`` (issue 54; docs/fuzzing.md, "How the budget is counted").
A sweep whose workers' testees take longer than twice the declared deadline, but within an overriding one, runs.

The testee is suites/fakes/slow_testee.py: the reference served faithfully, its start answered late on purpose."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.fuzzing import pools, sweep
from suites.fake_impl import ROOT
from suites.fuzzing.test_budget_after_start import declare

DECLARED = 1.0  # the declaration's start-up deadline: an allowance of 2 * 1 + GRACE = 12 s
OVERRIDE = 30.0  # PARITY_STARTUP_TIMEOUT: an allowance of 70 s
START = 2 * DECLARED + pools.GRACE + 2  # each worker's testee answers its start this late (14 s)


@pytest.fixture(autouse=True)
def _no_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PARITY_STARTUP_TIMEOUT", raising=False)
    monkeypatch.delenv("PARITY_REQUEST_TIMEOUT", raising=False)


def test_the_allowance_follows_the_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in declare(tmp_path, startup=DECLARED).items():
        monkeypatch.setenv(key, value)
    assert sweep._allowance(("slow",)) == pytest.approx(2 * DECLARED + pools.GRACE)
    monkeypatch.setenv("PARITY_STARTUP_TIMEOUT", str(OVERRIDE))
    assert sweep._allowance(("slow",)) == pytest.approx(2 * OVERRIDE + pools.GRACE)
    # An in-process implementation has no start-up deadline of its own, overridden or not.
    assert sweep._allowance(("reference",)) == pytest.approx(pools.GRACE)


def test_a_sweep_waits_for_workers_within_the_overriding_deadline(tmp_path: Path) -> None:
    # This process's slow testee comes up at once (SLOW_FROM=1); each worker's answers its start after 14 s: past
    # the declared deadline's allowance (12 s), within the override's (its client waits 30 s, the workers 70 s).
    env = declare(tmp_path, startup=DECLARED, SLOW_FROM=1, SLOW_START=START)
    environ = dict(os.environ, HYPOTHESIS_PROFILE="ci", PARITY_STARTUP_TIMEOUT=str(OVERRIDE), **env)
    for name in ("PARITY_REQUEST_TIMEOUT", "PARITY_REQUIRE_ALL"):
        environ.pop(name, None)
    proc = subprocess.run([sys.executable, "-m", "harness", "sweep", "--impls", "slow", "--templates", "alone",
                           "--range", "U+0041..U+2041", "--workers", "2", "--checkpoint", str(tmp_path / "cp.jsonl"),
                           "--report", str(tmp_path / "sweep.json")], cwd=ROOT, env=environ, capture_output=True,
                          text=True, timeout=300, check=False)
    out = proc.stdout + proc.stderr
    assert "start-up allowance" not in out, out
    assert proc.returncode in (0, 1) and "Traceback" not in out, out
    report = json.loads((tmp_path / "sweep.json").read_text(encoding="utf-8"))
    assert report["sweep"]["startupSeconds"] >= START - 0.5, report["sweep"]
    assert "every implementation up in every worker after" in proc.stderr, out
    # Two workers started their own (slow) testees: this was the pool's wait, not the one-process path.
    assert len((tmp_path / "starts").read_text(encoding="ascii").split()) >= 3
