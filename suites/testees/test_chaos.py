"""harness/tools/chaos.py, small: requests streamed through ``harness run`` while its testee is killed from outside,
some kills at start-up; every request answered once, with the reference's answer or ``crash``, none
``unavailable``, no process left. The full run (300,000 requests, 15 kills, the WASM testee) is a measure,
not a test: ``python -m harness.tools.chaos``."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.tools import chaos
from suites.fake_impl import declare


def test_kills_from_outside_cost_no_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    declare(tmp_path)
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    result = chaos.chaos("fake", 3000, 4, seed=3)
    assert result["breaches"] == [], result
    assert len(result["kills"]) == 4 and any(kill["how"] == "starting" for kill in result["kills"]), result["kills"]
    assert result["tally"].get("good", 0) + result["tally"].get("error crash", 0) == 3000
    assert "Traceback" not in result["stderrTail"]


def test_the_chaos_verdict_can_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A testee that answers otherwise than the reference breaks it (the check is not vacuous)."""
    declare(tmp_path, bug="capitalize")
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    result = chaos.chaos("fake", 300, 0, seed=3)
    assert result["tally"].get("wrong answer", 0) > 0 and result["breaches"], result
