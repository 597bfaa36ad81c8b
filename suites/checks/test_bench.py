"""The bench measures side by side and reports ratios (speed is measured here, never asserted)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.checks import bench
from harness.model.schemas import problems
from suites.fake_impl import declare


def test_bench_reports_bare_and_harness_costs_side_by_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    declare(tmp_path)  # a command testee without a bare_bench command
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    monkeypatch.setattr(bench, "input_sets", lambda: {"few": [("normalize_fact_text", {"text": "A b"}),
                                                               ("normalize_fact_text", {"text": "x\ud800\udc00"})]})
    report = bench.bench(min_seconds=0.05, names=["reference", "fake"], fuzz_seconds=1.0)
    assert problems(report) == [], problems(report)  # bench-report-v1, with its run envelope
    assert report["run"]["implementations"]["reference"]["version"]
    (found,) = report["sets"]
    rows = {row["implementation"]: row for row in found["rows"]}
    assert rows["reference"]["bare"] > 0 and rows["reference"]["overhead"] > 0
    assert rows["fake"]["bare"] is None and "no bare_bench" in rows["fake"]["bareHow"]
    assert found["together"]["harness"] > 0 and found["together"]["overhead"] is None
    assert report["fuzzer"]["examplesPerSecond"] > 0 and report["fuzzer"]["goal"] == bench.FUZZ_GOAL
    text = bench.table(report)
    assert "no bare cost for every one" in text and "fuzzer, normalize_fact_text" in text


def test_goals_are_stated_without_an_implementation_that_opts_out(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """`"speed_goals": false` keeps an implementation out of the set the goals are stated for; it is
    still measured: its rows, its start-up, and everything together once more without a goal."""
    declare(tmp_path, name="slow", speed_goals=False)
    declare(tmp_path, name="fake")
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    monkeypatch.setattr(bench, "input_sets", lambda: {"few": [("normalize_fact_text", {"text": "A b"})]})
    report = bench.bench(min_seconds=0.05, names=["reference", "fake", "slow"], fuzz_seconds=1.0)
    assert report["goalSet"] == ["reference", "fake"]
    assert set(report["startupSeconds"]) == {"reference", "fake", "slow"}
    assert all(seconds >= 0 for seconds in report["startupSeconds"].values())
    (found,) = report["sets"]
    assert [row["speedGoals"] for row in found["rows"]] == [True, True, False]
    assert found["together"]["implementations"] == ["reference", "fake"] and found["together"]["goal"]
    assert found["togetherAll"]["implementations"] == ["reference", "fake", "slow"]
    assert found["togetherAll"]["goal"] is None
    assert report["fuzzer"]["goal"] == bench.FUZZ_GOAL and report["fuzzerAll"]["goal"] is None
    # The fuzzer once more on a busy machine (a spinning process per core), beside its idle figure, and every
    # implementation started at once as the fuzzer starts them.
    assert report["fuzzerBusy"]["goal"] is None and report["fuzzerBusy"]["burners"] == (os.cpu_count() or 1)
    assert report["fuzzerBusy"]["examples"] > 0 and report["startupTogetherSeconds"] >= 0
    text = bench.table(report)
    assert "together (reference + fake + slow)" in text and "start-up" in text and "(no goal)" in text
    assert "on a busy machine" in text and "the idle rate" in text and "at once" in text
    # Only implementations without goals: nothing is stated, and the table still prints.
    alone = bench.bench(min_seconds=0.05, names=["slow"], fuzz_seconds=1.0)
    assert alone["goalSet"] == [] and alone["sets"][0]["together"] is None
    assert "slow" in bench.table(alone)
