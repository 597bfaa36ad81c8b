"""Deadlines as declared (issue 32, part 3): every client waits the declared start-up deadline for ``start`` (a
restart's too) and the request deadline for a request. A testee slowed to just under its deadlines
(suites/fakes/slow_testee.py, about 70% of each) passes the selftest and the command client's start and
requests; slowed past one (130%), it is named as the harness names it: ``startup_deadline``, ``timeout`` /
``flaky_timeout``. The declared deadlines are small (start-up 3 s, request 1.5 s), so the tests stay short."""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest

from harness.checks.selftest import Report, selftest
from harness.testees import impls
from harness.testees.findings import Findings

SLOW = Path(__file__).resolve().parents[1] / "fakes" / "slow_testee.py"
STARTUP, REQUEST = 3.0, 1.5  # the declared deadlines
UNDER, OVER = 0.7, 1.3  # a delay, as a share of its deadline


@pytest.fixture(autouse=True)
def _declared_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The declaration's deadlines, not an override of the machine's."""
    monkeypatch.delenv("PARITY_STARTUP_TIMEOUT", raising=False)
    monkeypatch.delenv("PARITY_REQUEST_TIMEOUT", raising=False)


def declare(folder: Path, monkeypatch: pytest.MonkeyPatch, start: float = 0.0, request: float = 0.0, at: int = 1,
            processes: int | None = None) -> str:
    """Declare the slow testee in ``folder`` (PARITY_IMPLEMENTATIONS): its start answered ``start`` seconds
    after its exec, its ``at``-th line after the start ``request`` seconds late; only the first ``processes``
    processes slow (None: every one)."""
    env = {"SLOW_START": str(start), "SLOW_REQUEST": str(request), "SLOW_AT": str(at), "SLOW_STATE": str(folder)}
    if processes is not None:
        env["SLOW_PROCESSES"] = str(processes)
    declaration = {
        "schema": "implementation-v1", "name": "slow", "oracle": False, "contracts": ["v1"],
        "description": "the reference served late on purpose", "language": "Python (a slow test double)",
        "start": {"command": ["{python}", str(SLOW)], "env": env}, "build": [], "expected": None,
        "deadlines": {"startup": STARTUP, "request": REQUEST}, "hint": "a test double of suites/",
    }
    (folder / "slow.json").write_text(json.dumps(declaration, indent=2), encoding="utf-8")
    monkeypatch.setenv(impls.EXTRA_ENV, str(folder))
    return "slow"


def run_selftest(name: str) -> tuple[Report, float]:
    started = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()):
        report = selftest(name)
    return report, time.monotonic() - started


def failed(report: Report) -> list[str]:
    return [line for line in report.lines if line.startswith("FAIL")]


# --- the selftest ---------------------------------------------------------------------------------

def test_selftest_passes_a_testee_just_under_both_deadlines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first process (the selftest's own client) is the slow one: its start at 2.1 s (under 3 s, over the
    # request deadline, 1.5 s), its first request at 1.05 s.
    name = declare(tmp_path, monkeypatch, start=UNDER * STARTUP, request=UNDER * REQUEST, processes=1)
    report, elapsed = run_selftest(name)
    assert not failed(report), "\n".join(report.lines)
    start = next(line for line in report.lines if line.startswith("ok   start answered in "))
    assert UNDER * STARTUP - 0.1 <= float(start.split()[4]) < STARTUP, start
    assert elapsed >= UNDER * (STARTUP + REQUEST) - 0.1, elapsed  # both delays were waited


def test_selftest_names_a_start_past_the_startup_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = declare(tmp_path, monkeypatch, start=OVER * STARTUP, processes=1)
    report, elapsed = run_selftest(name)
    late = [line for line in failed(report) if "start answered within the start-up deadline" in line]
    assert late and "startup_deadline" in late[0] and f"no answer within {STARTUP:g} s" in late[0], report.lines
    assert elapsed < OVER * STARTUP + 2, elapsed  # the deadline, then the crash check on prompt processes


def test_selftest_names_a_request_past_the_request_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = declare(tmp_path, monkeypatch, request=OVER * REQUEST, processes=1)
    report, _ = run_selftest(name)
    late = [line for line in failed(report) if "the testee kept answering" in line]
    assert late and "(timeout)" in late[0] and f"no answer within {REQUEST:g} s" in late[0], report.lines


# --- the command client (check, diff, fuzz and the suites open testees with it) -----------------------

@pytest.fixture()
def kinds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kind of every finding added, whatever the testee (one that never started included)."""
    seen: list[str] = []
    add = Findings.add

    def spy(self: Findings, impl: str, kind: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(kind)
        return add(self, impl, kind, *args, **kwargs)

    monkeypatch.setattr(Findings, "add", spy)
    return seen


def test_the_client_waits_the_startup_deadline_then_the_request_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kinds: list[str]) -> None:
    # The first line after the start is the client's handshake check (unicode_versions), 1.05 s late.
    name = declare(tmp_path, monkeypatch, start=UNDER * STARTUP, request=UNDER * REQUEST)
    started = time.monotonic()
    testee = impls.get_impl(name)
    try:
        assert time.monotonic() - started >= UNDER * (STARTUP + REQUEST) - 0.1  # both delays were waited
        assert testee.call("normalize_fact_text", {"text": "Hello"}) == {"ok": "hello"}
        assert kinds == [] and testee.restarts == 0
    finally:
        testee.close()


def test_the_client_names_a_start_past_the_startup_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kinds: list[str]) -> None:
    name = declare(tmp_path, monkeypatch, start=OVER * STARTUP)
    started = time.monotonic()
    with pytest.raises(impls.ImplementationUnavailable, match=f"no answer to the start handshake within {STARTUP:g} s"):
        impls.get_impl(name)
    assert STARTUP - 0.1 <= time.monotonic() - started < OVER * STARTUP  # the start-up deadline, not the request's
    assert kinds == ["startup_deadline"]


def test_the_client_names_a_request_past_the_request_deadline_and_restarts_within_the_startup_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kinds: list[str]) -> None:
    # Every process starts at 2.1 s; the second line of each (the first is the handshake check's) is 1.95 s late.
    # The fresh process after the hang starts in 2.1 s too (within 3 s), and answers the request at once (its first).
    name = declare(tmp_path, monkeypatch, start=UNDER * STARTUP, request=OVER * REQUEST, at=2)
    testee = impls.get_impl(name)
    try:
        started = time.monotonic()
        assert testee.call("normalize_fact_text", {"text": "Hello"}) == {"ok": "hello"}
        assert REQUEST + UNDER * STARTUP - 0.1 <= time.monotonic() - started < OVER * REQUEST + STARTUP
        assert kinds == ["flaky_timeout"] and testee.restarts == 1
        assert "no answer within 1.5 s" in testee.findings.to_json()[0]["message"]
    finally:
        testee.close()
