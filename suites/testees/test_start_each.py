"""Testees start at once (issue 35, build 6): ``impls.start_each`` starts every named implementation in its own
thread, so a run's first batch waits for the slowest start, not the sum of all; one that cannot start is
its error, in order, and the others still start."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from harness.testees import impls

SLOW = Path(__file__).resolve().parents[1] / "fakes" / "slow_testee.py"
START = 1.5  # seconds each slow testee takes to answer its start


def _declare(folder: Path, name: str, start: float, command: list[str] | None = None) -> None:
    state = folder / f"{name}-state"
    state.mkdir()
    declaration = {
        "schema": "implementation-v1", "name": name, "oracle": False, "contracts": ["v1"],
        "description": "the reference served late on purpose", "language": "Python (a slow test double)",
        "start": {"command": command or ["{python}", str(SLOW)],
                  "env": {"SLOW_START": str(start), "SLOW_STATE": str(state)}},
        "build": [], "expected": None, "deadlines": {"startup": 30, "request": 10}, "hint": "a test double",
    }
    (folder / f"{name}.json").write_text(json.dumps(declaration), encoding="utf-8")


def test_three_slow_starts_take_about_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("slow-a", "slow-b", "slow-c"):
        _declare(tmp_path, name, START)
    _declare(tmp_path, "missing", 0.0, ["/nonexistent/testee-binary"])
    monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
    began = time.monotonic()
    started = impls.start_each(["slow-a", "missing", "slow-b", "slow-c", "slow-a"])
    took = time.monotonic() - began
    try:
        assert list(started) == ["slow-a", "missing", "slow-b", "slow-c"]  # in order, each once
        assert isinstance(started["missing"], impls.ImplementationUnavailable)
        assert all(not isinstance(started[name], Exception) for name in ("slow-a", "slow-b", "slow-c"))
        assert all(started[name].call("normalize_fact_text", {"text": " A "}) == {"ok": "a"}
                   for name in ("slow-a", "slow-b", "slow-c"))
        # One after another they would take 3 x START at least; at once, about one start (a loaded machine
        # adds to each, so the bound is generous but still below the sum).
        assert took < 3 * START, took
    finally:
        for testee in started.values():
            if not isinstance(testee, Exception):
                testee.close()


def test_one_name_starts_without_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    started = impls.start_each(["reference"])
    assert list(started) == ["reference"] and not isinstance(started["reference"], Exception)
