"""The bench measures side by side and reports ratios (speed is measured here, never asserted)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.checks import bench
from harness.model import envelope
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
    # the loads at start and end are kept, and the README's table of this tiny run has a figure a row, attributed
    assert all(isinstance(report["load"][when], float) for when in ("start", "end"))
    rows = attributed_rows(bench.markdown(report))
    assert len(rows) == len(bench.figures(report)) and any("examples/s" in row[1] for row in rows)


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


def attributed_rows(text: str) -> list[list[str]]:
    """The rows of the README's bench table, each checked: the columns bench.MARKDOWN_COLUMNS, every cell
    filled, the command in backquotes, a UTC date and time, the loads at start and end, the cores."""
    lines = text.splitlines()
    assert lines[0] == "| " + " | ".join(bench.MARKDOWN_COLUMNS) + " |" and set(lines[1]) <= set("|-")
    rows = []
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        assert len(cells) == len(bench.MARKDOWN_COLUMNS), line
        figure, value, command, date, loads, cores = cells
        assert figure and re.search(r"\d", value), line
        assert re.fullmatch(r"`[^`]+`", command), line
        assert bench.DATE.match(date) and bench.LOADS.match(loads) and cores.isdigit(), line
        rows.append(cells)
    return rows


def synthetic(**changes: Any) -> dict[str, Any]:
    """A bench report as `nox -s bench` writes one, its numbers made up (the full bench is never run here)."""
    row = {"bare": 400_000.0, "bareHow": "Python loop calling the function", "harness": 100_000.0, "overhead": 4.0}
    together = {"implementations": ["reference", "pyo3"], "harness": 30_000.0, "bareSum": 90_000.0, "overhead": 3.0,
                "goal": 2.0}
    fuzzing = {"examplesPerSecond": 21_000.0, "examples": 210_000, "seconds": 10.0, "workers": 2, "goal": 20_000}
    report = {
        "schema": "bench-report-v1", "benchmark": "bench-v3", "python": "3.11.2", "machine": "x86_64", "cores": 2,
        "run": {**envelope.build({}), "command": "venv/bin/python -m harness bench", "session": "bench",
                "started": "2026-12-07T05:40:12Z", "ended": "2026-12-07T05:42:40Z"},
        "implementations": ["reference", "pyo3", "pyodide"], "goalSet": ["reference", "pyo3"], "unavailable": {},
        "startupSeconds": {"reference": 0.01, "pyo3": 0.02, "pyodide": 2.3},
        "sets": [{"inputs": "fixture inputs", "count": 900, "left out": 3,
                  "rows": [{**row, "implementation": name, "speedGoals": name != "pyodide"}
                           for name in ("reference", "pyo3", "pyodide")],
                  "together": together, "togetherAll": {**together, "goal": None}}],
        "fuzzer": fuzzing, "fuzzerAll": {**fuzzing, "goal": None},
        "fuzzerBusy": {**fuzzing, "goal": None, "burners": 2}, "startupTogetherSeconds": 2.5,
        "load": {"start": 1.74, "end": 2.05}}
    report.update(changes)
    return report


def test_the_readme_table_gives_every_figure_its_command_date_and_load() -> None:
    report = synthetic()
    assert problems(report) == [], problems(report)
    rows = attributed_rows(bench.markdown(report))
    assert [(figure, value) for figure, value, *_ in rows] == bench.figures(report)
    assert {tuple(row[2:]) for row in rows} == {("`nox -s bench`", "2026-12-07 05:40", "1.74 → 2.05", "2")}
    values = " ".join(row[1] for row in rows)
    for figure in ("2.30 s", "400,000 calls/s", "100,000 calls/s", "30,000 inputs/s", "21,000 examples/s"):
        assert figure in values
    # outside nox the command is the one that ran, its interpreter's path left out
    run = {**report["run"], "session": None, "command": "venv/bin/python3 -m harness bench --seconds 1"}
    assert {row[2] for row in attributed_rows(bench.markdown({**report, "run": run}))} == {
        "`python -m harness bench --seconds 1`"}


@pytest.mark.parametrize("missing", ["load", "cores", "run"])
def test_a_report_whose_figures_cannot_be_attributed_is_refused(missing: str) -> None:
    report = synthetic()
    report[missing] = None if missing == "cores" else {"start": 1.0} if missing == "load" else {}
    with pytest.raises(bench.BadBench, match="cannot be attributed") as caught:
        bench.markdown(report, "reports/bench.json")
    assert "reports/bench.json" in str(caught.value) and caught.value.status == 2


def test_the_table_is_written_from_a_report_made_before(tmp_path: Path) -> None:
    """`python -m harness.checks.bench --markdown FILE REPORT` (what `nox -s bench -- --markdown FILE` runs after
    the bench): the same table printed and written; a report without its loads: status 2, no traceback."""
    made = tmp_path / "bench.json"
    made.write_text(json.dumps(synthetic()), encoding="utf-8")
    out = tmp_path / "table.md"
    run = subprocess.run([sys.executable, "-m", "harness.checks.bench", "--markdown", str(out), str(made)],
                         capture_output=True, text=True, check=False, timeout=120)
    assert run.returncode == 0, run.stderr
    assert out.read_text(encoding="utf-8") == bench.markdown(synthetic()) + "\n"
    assert bench.markdown(synthetic()) in run.stdout
    old = synthetic()
    del old["load"]
    made.write_text(json.dumps(old), encoding="utf-8")
    refused = subprocess.run([sys.executable, "-m", "harness.checks.bench", str(made)], capture_output=True,
                             text=True, check=False, timeout=120)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert str(made) in refused.stderr and "no load.start, load.end" in refused.stderr
    made.write_text("[1]", encoding="utf-8")
    other = subprocess.run([sys.executable, "-m", "harness.checks.bench", str(made)], capture_output=True,
                           text=True, check=False, timeout=120)
    assert other.returncode == 2 and "Traceback" not in other.stderr and str(made) in other.stderr
    made.write_text(json.dumps(synthetic()), encoding="utf-8")
    nowhere = tmp_path / "missing" / "table.md"
    unwritable = subprocess.run([sys.executable, "-m", "harness.checks.bench", "--markdown", str(nowhere), str(made)],
                                capture_output=True, text=True, check=False, timeout=120)
    assert unwritable.returncode == 2 and "Traceback" not in unwritable.stderr
    assert f"--markdown {nowhere}: cannot write it" in unwritable.stderr


def test_the_bench_command_refuses_a_markdown_file_it_could_not_write_before_measuring(tmp_path: Path) -> None:
    """`python -m harness bench --markdown FILE`: a FILE whose folder is not there is status 2 at once, naming it,
    before minutes of measuring (a bench that measured first would fail after them)."""
    nowhere = tmp_path / "missing" / "table.md"
    run = subprocess.run([sys.executable, "-m", "harness", "bench", "--seconds", "0.01", "--out",
                          str(tmp_path / "bench.json"), "--markdown", str(nowhere)],
                         capture_output=True, text=True, check=False, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert f"--markdown {nowhere}: its folder" in run.stderr
    assert not (tmp_path / "bench.json").exists()
