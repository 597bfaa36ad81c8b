"""The bench measures side by side and reports ratios (speed is measured here, never asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.checks import bench
from suites.test_plugins import declare


def test_bench_reports_bare_and_harness_costs_side_by_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    declare(tmp_path)  # a command testee without a bare_bench command
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    monkeypatch.setattr(bench, "input_sets", lambda: {"few": [("normalize_fact_text", {"text": "A b"}),
                                                               ("normalize_fact_text", {"text": "x\ud800\udc00"})]})
    report = bench.bench(min_seconds=0.05, names=["reference", "fake"], fuzz_seconds=1.0)
    (found,) = report["sets"]
    rows = {row["implementation"]: row for row in found["rows"]}
    assert rows["reference"]["bare"] > 0 and rows["reference"]["overhead"] > 0
    assert rows["fake"]["bare"] is None and "no bare_bench" in rows["fake"]["bareHow"]
    assert found["together"]["harness"] > 0 and found["together"]["overhead"] is None
    assert report["fuzzer"]["examplesPerSecond"] > 0 and report["fuzzer"]["goal"] == bench.FUZZ_GOAL
    text = bench.table(report)
    assert "no bare cost for every one" in text and "fuzzer, normalize_fact_text" in text
