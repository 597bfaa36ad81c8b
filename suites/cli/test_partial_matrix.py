"""A smaller Python matrix is never a plain green run (issue 49, item 12): a parity run whose parity-ran.json
records Pythons of the matrix that were asked for and not found (their sessions skipped: no interpreter) says
"partial matrix: 3.12, 3.13 not run" in report show, in its Markdown job summary and on the page, and ends with
status 3 (UNAVAILABLE: the implementations asked for on those Pythons never started), not 0, and not 1 (nothing
new was found). Every report here is written into tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.model.schemas import problems
from harness.model.status import AGREE, FOUND, UNAVAILABLE
from suites.cli.test_run_verdict import _headline, _page, _show, parity_run

MATRIX = {"3.11": {"state": "this run", "interpreter": "/usr/bin/python3.11"},
          "3.12": {"state": "not found", "interpreter": None},
          "3.13": {"state": "not found", "interpreter": None}}


def _with_matrix(paths: dict[str, Path], record: dict[str, dict[str, str | None]]) -> None:
    ran = paths["parity-ran.json"]
    document = json.loads(ran.read_text(encoding="utf-8"))
    document["matrix"] = record
    assert problems(document) == []
    ran.write_text(json.dumps(document), encoding="utf-8")


def test_a_partial_matrix_is_said_everywhere_and_is_not_green(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    paths = parity_run(tmp_path / "reports")
    _with_matrix(paths, MATRIX)
    for name in ("parity-ran.json", "fixture-results.json", "parity-report.json"):  # any report of the run
        status, out = _show(paths[name], capsys)
        assert status == UNAVAILABLE, out
        assert "verdict: partial matrix: 3.12, 3.13 not run; the rest agree on 6 fixture cases and 80 tests" in out
        assert "Python 3.13 of the parity matrix was asked for and not run" in out
        status, markdown = _show(paths[name], capsys, "--format", "markdown")
        assert status == UNAVAILABLE
        assert markdown.startswith("**verdict: partial matrix: 3.12, 3.13 not run; the rest agree"), markdown[:300]
    status, out = _show(paths["parity-ran.json"], capsys)
    table = out.split("Pythons of the matrix", 1)[1]  # the table of the Pythons, a row each, then the line
    assert [line.split()[:3] for line in table.splitlines() if line.split()[:1] in (["3.11"], ["3.12"], ["3.13"])] \
        == [["3.11", "this", "run"], ["3.12", "not", "found"], ["3.13", "not", "found"]], table
    assert "/usr/bin/python3.11" in table and "partial matrix: 3.12, 3.13 not run (asked for" in table
    status, html = _page(tmp_path, tmp_path / "site", monkeypatch, capsys)
    assert status == UNAVAILABLE
    kind, headline = _headline(html)
    assert kind == "skip" and headline.startswith("partial matrix: 3.12, 3.13 not run"), (kind, headline)
    assert "data-state='partial'" in html and 'data-not-run="3.12 3.13"' in html


def test_a_partial_matrix_with_a_failure_is_red_and_still_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = parity_run(tmp_path / "reports", ran_fails=True)
    _with_matrix(paths, MATRIX)
    status, out = _show(paths["parity-ran.json"], capsys)
    assert status == FOUND  # something new outranks a smaller matrix
    assert "verdict: something new; partial matrix: 3.12, 3.13 not run" in out, out


@pytest.mark.parametrize("states", [("this run", "own session", "own session"), ("this run", "not asked", "not asked")])
def test_a_whole_matrix_or_one_python_asked_for_stays_green(
        states: tuple[str, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Every Python asked for ran (or has its own session in the same nox run), or the run asked for one
    (`nox -s parity-3.11`, as each CI job does): all agree, status 0."""
    paths = parity_run(tmp_path / "reports")
    _with_matrix(paths, {version: {"state": state, "interpreter": f"/p/python{version}"}
                         for version, state in zip(("3.11", "3.12", "3.13"), states, strict=True)})
    status, out = _show(paths["parity-ran.json"], capsys)
    assert status == AGREE and "verdict: all agree on 6 fixture cases and 80 tests" in out, out
    assert "partial matrix" not in out
    status, html = _page(tmp_path, tmp_path / "site", monkeypatch, capsys)
    assert status == AGREE and _headline(html)[0] == "pass"
