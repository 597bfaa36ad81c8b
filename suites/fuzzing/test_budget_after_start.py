"""A fuzz budget counts from the moment every implementation is up (issue 54, item 2; docs/fuzzing.md, "How the
budget is counted"): the start-up before it, in this process and in every worker, is measured and reported apart;
an implementation that never comes up in a worker (no answer to its start, or an exit at it) ends the run with
status UNAVAILABLE and a clear message, not a traceback, and its report is not green.

The testee is suites/fakes/slow_testee.py: the reference served faithfully, its start answered late on purpose."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.classes.expected import ExpectedSet
from harness.fuzzing.fuzz import fuzz
from harness.model.status import UNAVAILABLE
from harness.testees import impls
from suites.fake_impl import ROOT

SLOW = ROOT / "suites" / "fakes" / "slow_testee.py"
OP = "normalize_fact_text"
START = 3.0  # seconds each slow process takes to answer its start
BUDGET = 2.0


def declare(folder: Path, startup: float = 20.0, **env: object) -> dict[str, str]:
    """The slow testee declared in ``folder`` (its start-up deadline ``startup``); ``env``: its SLOW_ settings.
    The environment a run needs to find it."""
    declaration = {
        "schema": "implementation-v1", "name": "slow", "oracle": False, "contracts": ["v1"],
        "description": "the reference served late on purpose", "language": "Python (a slow test double)",
        "start": {"command": ["{python}", str(SLOW)],
                  "env": {"SLOW_STATE": str(folder), **{key: str(value) for key, value in env.items()}}},
        "build": [], "expected": None, "deadlines": {"startup": startup, "request": 10},
        "hint": "a test double of suites/",
    }
    (folder / "slow.json").write_text(json.dumps(declaration, indent=2), encoding="utf-8")
    return {impls.EXTRA_ENV: str(folder)}


class Timed(io.StringIO):
    """A stream that remembers when each line was written."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        self.times.append((time.monotonic(), text))
        return super().write(text)


@pytest.fixture(autouse=True)
def _declared_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The declaration's deadlines, not an override of the machine's."""
    monkeypatch.delenv("PARITY_STARTUP_TIMEOUT", raising=False)
    monkeypatch.delenv("PARITY_REQUEST_TIMEOUT", raising=False)


def test_the_budget_is_spent_fuzzing_after_every_worker_is_up(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # Every slow process (this one's and each of the two workers') answers its start 3 s after its exec: 6 s or
    # more of start-up, then a 2 s budget, all of it fuzzing.
    for key, value in declare(tmp_path, SLOW_START=START).items():
        monkeypatch.setenv(key, value)
    began = time.monotonic()
    opened = impls.start_each(["reference", "slow"])
    assert not any(isinstance(testee, Exception) for testee in opened.values()), opened
    stream = Timed()
    try:
        result = fuzz(opened, ExpectedSet([], []), BUDGET, seed=5, ops=[OP], stream=stream, workers=2,
                      started=began)
    finally:
        for testee in opened.values():
            testee.close()  # type: ignore[union-attr]
    ended = time.monotonic()
    up = [at for at, text in stream.times if "every implementation up after" in text]
    assert up, stream.getvalue()
    assert up[0] - began >= 2 * START - 0.2, stream.getvalue()  # the clock waited for this process's and the workers'
    # What came after start-up: the budget, fuzzing (batches came back), and not much more.
    assert ended - up[0] >= BUDGET - 0.1, stream.getvalue()
    assert result.startup == pytest.approx(up[0] - began, abs=0.5)
    assert result.startup >= 2 * START - 0.2
    assert BUDGET - 0.1 <= result.seconds <= ended - up[0] + 0.1
    assert result.examples >= 1000 and result.ledger.compared >= 1000
    assert result.unavailable is None and result.ledger.ok, result.ledger.problems()
    assert any(line.startswith("  start-up: ") for line in result.ledger.lines())
    assert "(start-up " in stream.getvalue()  # the progress line says it apart


def run(folder: Path, env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    environ = dict(os.environ, HYPOTHESIS_PROFILE="ci", **env)
    for name in ("PARITY_STARTUP_TIMEOUT", "PARITY_REQUEST_TIMEOUT", "PARITY_REQUIRE_ALL"):
        environ.pop(name, None)
    return subprocess.run([sys.executable, "-m", "harness", "fuzz", "--impls", "slow", "--ops", OP, "--seed", "3",
                           "--workers", "2", "--report", str(folder / "report.json"), *arguments], cwd=ROOT,
                          env=environ, capture_output=True, text=True, timeout=300, check=False)


def test_the_command_reports_start_up_apart_and_fuzzes_its_seconds(tmp_path: Path) -> None:
    proc = run(tmp_path, declare(tmp_path, SLOW_START=START), "--seconds", str(BUDGET))
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out
    verdict = re.search(r"^([\d,]+) examples in (\d+)s \(after ([\d.]+)s of start-up\)", proc.stdout, re.M)
    assert verdict, out
    assert int(verdict[1].replace(",", "")) >= 1000
    assert int(verdict[2]) >= BUDGET - 0.5
    assert float(verdict[3]) >= 2 * START - 0.2
    assert "start-up: " in proc.stdout and "Traceback" not in out


@pytest.mark.parametrize(("env", "said"), [
    ({"SLOW_START": 1000}, "no answer to the start handshake within 2 s"),
    ({"SLOW_EXIT": 7}, "exited during start-up (status 7)"),
], ids=["never-answers", "exits-at-start"])
def test_an_implementation_that_never_comes_up_in_a_worker_is_a_verdict(tmp_path: Path, env: dict[str, object],
                                                                       said: str) -> None:
    # This process's slow testee comes up (SLOW_FROM=1), the workers' do not.
    proc = run(tmp_path, declare(tmp_path, startup=2.0, SLOW_FROM=1, **env), "--seconds", "2")
    out = proc.stdout + proc.stderr
    assert proc.returncode == UNAVAILABLE, out
    assert "Traceback" not in out, out
    error = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert error and "slow did not come up in a worker" in error[0] and said in error[0], out
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["ok"] is False
    assert any("never came up" in problem for problem in report["run"]["ledger"]["problems"]), report["run"]


def sweep(folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    environ = dict(os.environ, HYPOTHESIS_PROFILE="ci", **env)
    for name in ("PARITY_STARTUP_TIMEOUT", "PARITY_REQUEST_TIMEOUT", "PARITY_REQUIRE_ALL"):
        environ.pop(name, None)
    return subprocess.run([sys.executable, "-m", "harness", "sweep", "--impls", "slow", "--templates", "alone",
                           "--range", "U+0041..U+2041", "--workers", "2", "--checkpoint", str(folder / "cp.jsonl"),
                           "--report", str(folder / "sweep.json")], cwd=ROOT, env=environ, capture_output=True,
                          text=True, timeout=300, check=False)


def test_the_sweep_reports_its_workers_start_up_apart(tmp_path: Path) -> None:
    proc = sweep(tmp_path, declare(tmp_path, SLOW_START=START, SLOW_FROM=1))  # the workers' testees are slow
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out
    report = json.loads((tmp_path / "sweep.json").read_text(encoding="utf-8"))
    assert report["sweep"]["startupSeconds"] >= START - 0.2, report["sweep"]
    assert "every implementation up in every worker after" in proc.stderr and "start-up: " in proc.stdout, out


def test_a_sweep_whose_workers_never_come_up_is_a_verdict(tmp_path: Path) -> None:
    proc = sweep(tmp_path, declare(tmp_path, startup=2.0, SLOW_FROM=1, SLOW_START=1000))
    out = proc.stdout + proc.stderr
    assert proc.returncode == UNAVAILABLE, out
    assert "Traceback" not in out, out
    error = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert error and "did not come up in a worker" in error[0] and "within 2 s" in error[0], out
    report = json.loads((tmp_path / "sweep.json").read_text(encoding="utf-8"))
    assert report["ok"] is False
    # nothing came up: its ledger keeps no start-up (not "0.0s until every implementation was up")
    assert "startup" not in report["run"]["ledger"] and "until every implementation was up" not in out, out


def test_a_testee_restarted_in_a_worker_is_said(tmp_path: Path) -> None:
    # crashy's every process exits at its 900th request (about one in a batch of 1,000): the workers restart it.
    from harness.tools.hostile_faults import declare as hostile

    hostile(tmp_path / "decl", "exit", at=900, name="crashy", request_deadline=5, startup_deadline=20)
    environ = dict(os.environ, HYPOTHESIS_PROFILE="ci", **{impls.EXTRA_ENV: str(tmp_path / "decl")})
    proc = subprocess.run([sys.executable, "-m", "harness", "fuzz", "--impls", "reference,crashy", "--ops", OP,
                           "--seconds", "6", "--workers", "2", "--report", str(tmp_path / "report.json")], cwd=ROOT,
                          env=environ, capture_output=True, text=True, timeout=300, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out  # its crashes are findings
    said = re.findall(r"\[fuzz\] crashy: (\d+) testee process\(es\) restarted in a worker", proc.stderr)
    assert said and sum(map(int, said)) >= 1, out
    assert re.search(r"testee processes restarted: crashy \d+", proc.stdout), out
    assert "restarted while it ran: crashy" in proc.stdout, out


def test_a_sweep_in_one_process_whose_implementation_never_comes_up_again_is_a_verdict(tmp_path: Path) -> None:
    # The sweep opens its testees again for its chunks (its command's own are for the report): the second never
    # answers its start.
    env = declare(tmp_path, startup=2.0, SLOW_FROM=1, SLOW_START=1000)
    environ = dict(os.environ, HYPOTHESIS_PROFILE="ci", **env)
    for name in ("PARITY_STARTUP_TIMEOUT", "PARITY_REQUEST_TIMEOUT", "PARITY_REQUIRE_ALL"):
        environ.pop(name, None)
    proc = subprocess.run([sys.executable, "-m", "harness", "sweep", "--impls", "slow", "--templates", "alone",
                           "--range", "U+0041..U+0141", "--workers", "1", "--checkpoint", str(tmp_path / "cp.jsonl"),
                           "--report", str(tmp_path / "sweep.json")], cwd=ROOT, env=environ, capture_output=True,
                          text=True, timeout=300, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == UNAVAILABLE and "Traceback" not in out, out
    assert "no answer to the start handshake within 2 s" in proc.stderr, out
