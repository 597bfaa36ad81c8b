"""One verdict for a run (issue 32): ``report show`` (text and the Markdown of a CI job summary) and the page
read every report of a run, the parity session's own result too (its per-implementation counts,
``parity-ran.json``, and its pytest JUnit file, as the run's command line names them), and are red when any
part is; a verdict names what it rests on ("all agree on 1 input"); a budget of nothing is a usage error that
writes nothing. Every report here is written into tmp_path."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.classes import report as divergence_report
from harness.cli import main as cli
from harness.fixtures.runner import results_document
from harness.model import envelope
from harness.model.schemas import problems
from harness.model.status import AGREE, FOUND, USAGE

IMPLS = ("reference", "pyo3")
NAMES = {"--junitxml": "parity-junit.xml", "--ran-report": "parity-ran.json",
         "--parity-report": "parity-report.json", "--fixture-results": "fixture-results.json"}


def _junit(tests: list[tuple[str, str]], timestamp: str) -> str:
    """A JUnit file as pytest writes it: (name, outcome) per test, outcome passed, failed, error or skipped."""
    cases = []
    for name, outcome in tests:
        inner = {"failed": '<failure message="assert 1 == 2">trace</failure>',
                 "error": '<error message="fixture broke">trace</error>',
                 "skipped": '<skipped type="pytest.skip" message="no">skip</skipped>'}.get(outcome, "")
        cases.append(f'<testcase classname="suites.parity.test_fixtures" name="{name}" time="0.1">{inner}</testcase>')
    count = {outcome: sum(o == outcome for _, o in tests) for outcome in ("failed", "error", "skipped")}
    return ('<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
            f'<testsuite name="pytest" errors="{count["error"]}" failures="{count["failed"]}" '
            f'skipped="{count["skipped"]}" tests="{len(tests)}" time="1.0" timestamp="{timestamp}" hostname="h">'
            '<properties><property name="session" value="parity" />'
            f'<property name="commit" value="{envelope.project()["commit"] or "unknown"}" /></properties>'
            + "".join(cases) + "</testsuite></testsuites>")


def parity_run(folder: Path, junit_fails: bool = False, ran_fails: bool = False) -> dict[str, Path]:
    """The four reports of one `nox -s parity` run in ``folder``, one envelope (the pytest command line naming
    each), as suites/conftest.py, suites/parity/test_fixtures.py, suites/parity/test_differential.py and pytest
    write them."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {option: folder / name for option, name in NAMES.items()}
    run = envelope.build(dict.fromkeys(IMPLS))
    run["session"] = "parity"
    run["command"] = ("/x/bin/python -m pytest suites/parity/test_fixtures.py suites/parity/test_differential.py "
                      + " ".join(f"--impl={name}" for name in IMPLS) + " "
                      + " ".join(f"{option}={path}" for option, path in paths.items()))
    rows = {impl: [{"implementation": impl, "fixture": "normalize-v1", "case": f"c{n}", "op": "normalize_fact_text",
                    "steps": ["norm.edges"], "state": "pass", "why": None} for n in range(3)] for impl in IMPLS}
    results = results_document(rows, dict.fromkeys(IMPLS))
    parity = divergence_report.document("ci", {name: {"nfc": "15.1.0"} for name in IMPLS}, [], 0, 0.0, [])
    counts = {impl: {"passed": 40, "failed": 0, "skipped": 1} for impl in IMPLS}
    if ran_fails:
        counts["pyo3"] = {"passed": 38, "failed": 2, "skipped": 1}
    ran = {"schema": "parity-ran-v1", "run": run, "counts": counts}
    for document in (results, parity):
        document["run"] = run
    for document in (results, parity, ran):
        assert problems(document) == [], problems(document)
    paths["--fixture-results"].write_text(json.dumps(results), encoding="utf-8")
    paths["--parity-report"].write_text(json.dumps(parity), encoding="utf-8")
    paths["--ran-report"].write_text(json.dumps(ran), encoding="utf-8")
    tests = [(f"test_case[{impl}-c{n}]", "passed") for impl in IMPLS for n in range(40)]
    if junit_fails:
        tests += [("test_case[pyo3-planted]", "failed"), ("test_health[pyo3]", "error")]
    tests.append(("test_case[skipped]", "skipped"))
    paths["--junitxml"].write_text(_junit(tests, run["started"].replace("Z", "+00:00")), encoding="utf-8")
    return {name: paths[option] for option, name in NAMES.items()}


def _show(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    status = cli.main(["report", "show", str(path), *extra])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def _page(folder: Path, out: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          *named: Path) -> tuple[int, str]:
    """report html of the reports named, or (none named) of every report in folder/reports, as nox -s report."""
    monkeypatch.chdir(folder)
    status = cli.main(["report", "html", *map(str, named), "-o", str(out)])
    capsys.readouterr()
    page = out / "index.html"
    return status, page.read_text(encoding="ascii") if page.exists() else ""


def _headline(html: str) -> tuple[str, str]:
    found = re.search(r"<p id='verdict' data-state='(\w+)'><span class=\"badge (\w+)\">([^<]*)</span>", html)
    assert found, html[:2000]
    return found.group(2), found.group(3)


# -- a failing parity run is red everywhere; a green one stays green ---------------------------------------------

@pytest.mark.parametrize("red", ["junit", "ran", "both"])
def test_a_failing_parity_run_makes_report_show_the_summary_and_the_page_red(
        red: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The parity run's pytest failed (its JUnit file has a failure and an error, or its per-implementation
    counts have failures): every report of it, shown alone as the CI job summary shows them, is red, and so is
    the page of the folder; each names what failed."""
    paths = parity_run(tmp_path / "reports", junit_fails=red in ("junit", "both"), ran_fails=red in ("ran", "both"))
    said = ("1 test failed (suites.parity.test_fixtures::test_case[pyo3-planted])" if red != "ran"
            else "2 parity tests failed on pyo3")
    for name in ("fixture-results.json", "parity-report.json", "parity-ran.json"):
        status, out = _show(paths[name], capsys)
        assert status == FOUND, out
        assert "verdict: something new" in out and said in out, out
        status, markdown = _show(paths[name], capsys, "--format", "markdown")
        assert status == FOUND and markdown.startswith("**verdict: something new**"), markdown[:500]
        assert said in markdown
    if red != "ran":
        status, out = _show(paths["parity-junit.xml"], capsys)
        assert status == FOUND and "1 test errored (suites.parity.test_fixtures::test_health[pyo3])" in out, out
        assert "assert 1 == 2" in out  # the failing test's message
    status, html = _page(tmp_path, tmp_path / "site", monkeypatch, capsys)
    assert status == FOUND
    assert _headline(html) == ("fail", "something new")
    assert said in html
    # The page of the divergence report alone reads the rest of its run too.
    status, html = _page(tmp_path, tmp_path / "alone", monkeypatch, capsys, paths["parity-report.json"])
    assert status == FOUND and _headline(html) == ("fail", "something new") and said in html


def test_a_green_parity_run_stays_green_and_names_what_it_rests_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    paths = parity_run(tmp_path / "reports")
    for name in ("fixture-results.json", "parity-report.json"):
        status, out = _show(paths[name], capsys)
        assert status == AGREE, out
        assert "verdict: all agree on 6 fixture cases and 80 tests (from 4 reports)" in out, out
        status, markdown = _show(paths[name], capsys, "--format", "markdown")
        assert status == AGREE and markdown.startswith("**verdict: all agree on 6 fixture cases and 80 tests**")
    status, html = _page(tmp_path, tmp_path / "site", monkeypatch, capsys)
    assert status == AGREE
    assert _headline(html) == ("pass", "all agree on 6 fixture cases and 80 tests")
    assert "40/40 parity tests pass" in html and "No test failed or errored" in html
    # The parity report counts no examples itself: its badge says so, never a bare "no divergence".
    assert ">no divergence<" not in html and "a parity report counts no examples" in html


# -- the run's reports: missing, of another run, malformed -------------------------------------------------------

def test_a_report_the_run_always_writes_that_is_not_there_is_red(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    paths = parity_run(tmp_path / "reports")
    paths["parity-junit.xml"].unlink()
    status, out = _show(paths["parity-report.json"], capsys)
    assert status == FOUND and "JUnit file its run wrote" in out and "is not there" in out, out


def test_a_junit_file_of_another_run_is_not_taken_for_this_ones(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A JUnit file of a later run where this run wrote its own: red, naming it (never its tests counted)."""
    paths = parity_run(tmp_path / "reports")
    junit = paths["parity-junit.xml"]
    junit.write_text(re.sub(r'timestamp="[^"]*"', 'timestamp="2100-01-01T00:00:00+00:00"',
                            junit.read_text(encoding="utf-8")), encoding="utf-8")
    status, out = _show(paths["fixture-results.json"], capsys)
    assert status == FOUND and "was written by another run" in out, out


MALFORMED = {
    "cut": '<?xml version="1.0"?><testsuites><testsuite tests="1"><testcase name="a">',
    "entities": '<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaaaaaaaa">]><testsuites>&a;</testsuites>',
    "not-junit": "<html><body>a page</body></html>",
    "count": '<testsuites><testsuite failures="many" tests="1"><testcase name="a"/></testsuite></testsuites>',
    "not-utf8": b'<?xml version="1.0" encoding="utf-8"?><testsuites name="\xff\xfe"></testsuites>',
}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_a_malformed_junit_file_is_status_2_naming_it(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Given, named by the run's command line, or found in the reports folder: status 2, the file named, no
    traceback, no page written."""
    paths = parity_run(tmp_path / "reports")
    junit = paths["parity-junit.xml"]
    content = MALFORMED[kind]
    junit.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    for argv in (["report", "show", str(junit)], ["report", "show", str(paths["parity-report.json"])],
                 ["report", "show", str(paths["fixture-results.json"]), "--format", "markdown"]):
        assert cli.main(argv) == USAGE
        err = capsys.readouterr().err
        assert str(junit) in err and "JUnit XML file" in err and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1, err
    status, html = _page(tmp_path, tmp_path / "site", monkeypatch, capsys)
    assert status == USAGE and html == "" and not (tmp_path / "site").exists()


# -- a verdict names its evidence ----------------------------------------------------------------------------

def _divergence(folder: Path, name: str, profile: str, examples: int) -> Path:
    document = divergence_report.document(profile, {impl: {"nfc": "15.1.0"} for impl in IMPLS}, [], examples,
                                          1.0, [])
    assert problems(document) == []
    path = folder / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_one_input_diff_is_all_agree_on_1_input_never_a_bare_all_agree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    diff = _divergence(tmp_path, "diff.json", "diff", 1)
    status, out = _show(diff, capsys)
    assert status == AGREE and "verdict: all agree on 1 input" in out, out
    status, html = _page(tmp_path, tmp_path / "site", monkeypatch, capsys, diff)
    assert status == AGREE and _headline(html) == ("pass", "all agree on 1 input")
    assert html.count(">no divergence on 1 input<") == len(IMPLS) and ">no divergence<" not in html
    fuzz = _divergence(tmp_path, "fuzz.json", "fuzz", 12_000)
    status, html = _page(tmp_path, tmp_path / "both", monkeypatch, capsys, diff, fuzz)
    assert status == AGREE and _headline(html) == ("pass", "all agree in 12,000 examples and 1 input")
    assert ">no divergence in 12,000 examples and 1 input<" in html
    sweep = _divergence(tmp_path, "sweep.json", "sweep", 4_352)
    status, out = _show(sweep, capsys)
    assert status == AGREE and "all agree in 4,352 swept inputs" in out


def test_a_report_that_checked_nothing_is_not_all_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A fuzz report of no example (what `fuzz --seconds 0` used to leave) and a parity report shown without its
    run's tests: "nothing checked", status 1, never green."""
    empty = _divergence(tmp_path, "fuzz.json", "fuzz", 0)
    status, out = _show(empty, capsys)
    assert status == FOUND and "verdict: nothing checked" in out and "nothing checked (fuzz run: nothing)" in out
    status, html = _page(tmp_path, tmp_path / "site", monkeypatch, capsys, empty)
    assert status == FOUND and _headline(html) == ("fail", "nothing checked")
    alone = _divergence(tmp_path, "parity.json", "ci", 0)
    status, out = _show(alone, capsys)
    assert status == FOUND and "a parity report counts no examples" in out, out


# -- a budget of nothing is a usage error that writes nothing ------------------------------------------------------

BUDGETS = [
    ("fuzz", "--seconds", "0"), ("fuzz", "--seconds", "-1"), ("fuzz", "--minutes", "0"), ("fuzz", "--minutes", "-0.5"),
    ("fuzz", "--seconds", "nan"), ("bench", "--seconds", "0"), ("bench", "--seconds", "-2"),
    ("fuzz", "--stop-after-new", "-1"), ("fuzz", "--workers", "0"), ("sweep", "--workers", "0"),
]


@pytest.mark.parametrize(("command", "option", "value"), BUDGETS, ids=lambda part: str(part))
def test_a_budget_of_nothing_is_status_2_and_writes_nothing(command: str, option: str, value: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    kept = _divergence(tmp_path, "kept.json", "fuzz", 5)
    before = kept.read_bytes()
    where = {"fuzz": "--report", "bench": "--out", "sweep": "--report"}[command]
    argv = [command, option, value, where, str(kept)]
    if command == "sweep":
        argv += ["--checkpoint", str(tmp_path / "checkpoint.jsonl")]
    assert cli.main(argv) == USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and option in err and "Traceback" not in err, err
    assert kept.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.json"]



def test_a_report_a_command_wrote_inside_a_pytest_session_seeks_no_run_reports(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A check called by a test has the session's command line (its --junitxml among it): the report is not
    named by it, so it is not a parity run's report, and no JUnit file is sought for it."""
    paths = parity_run(tmp_path / "reports")
    results = json.loads(paths["fixture-results.json"].read_text(encoding="utf-8"))
    results["run"]["command"] = f"python -m pytest suites/x.py --junitxml={tmp_path / 'nowhere' / 'junit.xml'}"
    check = tmp_path / "check-reference.json"
    check.write_text(json.dumps(results), encoding="utf-8")
    status, out = _show(check, capsys)
    assert status == AGREE and "verdict: all agree on 6 fixture cases (from 1 report)" in out, out


def test_the_parity_runs_tests_are_no_baseline_and_no_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """report diff and --baseline compare divergence reports or fixture results: a JUnit file or parity-ran
    counts given there are a usage error naming it, before anything is written."""
    paths = parity_run(tmp_path / "reports")
    for other in (paths["parity-junit.xml"], paths["parity-ran.json"]):
        assert cli.main(["report", "diff", str(other), str(other)]) == USAGE
        assert "cannot compare" in capsys.readouterr().err
        assert cli.main(["report", "html", str(paths["fixture-results.json"]), "--baseline", str(other),
                         "-o", str(tmp_path / "site")]) == USAGE
        assert str(other) in capsys.readouterr().err and not (tmp_path / "site").exists()
        assert cli.main(["fuzz", "--seconds", "5", "--baseline", str(other), "--report", str(tmp_path / "f.json")]) \
            == USAGE
        assert str(other) in capsys.readouterr().err and not (tmp_path / "f.json").exists()


# -- the parity runs of every Python of the matrix: one verdict ------------------------------------------------

@pytest.mark.parametrize("red", ["3.11", "3.12", "none"])
def test_the_page_reads_every_pythons_parity_run(red: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`nox -s parity` runs on 3.11 (reports/), 3.12 and 3.13 (reports/python-3.X/): the page of the folder
    is red when any Python's run failed, green only when all of them passed."""
    parity_run(tmp_path / "reports", junit_fails=red == "3.11")
    for python in ("3.12", "3.13"):
        parity_run(tmp_path / "reports" / f"python-{python}", junit_fails=red == python)
    status, html = _page(tmp_path, tmp_path / "site", monkeypatch, capsys)
    if red == "none":
        assert status == AGREE and _headline(html) == ("pass", "all agree on 6 fixture cases and 240 tests")
    else:
        assert status == FOUND and _headline(html) == ("fail", "something new")
        assert "1 test failed (suites.parity.test_fixtures::test_case[pyo3-planted])" in html
    assert html.count("parity-junit.xml") >= 3  # every run's JUnit file is among the page's sources
