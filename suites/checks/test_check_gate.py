"""check's reproduction gate (issue 31, part 5: `check` like `fuzz`): a failing case is asked again alone on a
fresh process of the testee; an answer that does not come again is a finding about the testee, not a failing
case, and the results file keeps the run's findings (report show, the page)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.checks import fixture_gate
from harness.cli import main as cli
from harness.cli import page
from harness.model.schemas import problems
from harness.testees import impls
from harness.tools import hostile_faults as hostile
from suites.fake_impl import declare as declare_fake

ROOT = impls.ROOT


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, impls.EXTRA_ENV: str(folder)}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def check(folder: Path, impl: str, results: Path) -> subprocess.CompletedProcess[str]:
    done = run(folder, "check", "--impl", impl, "--results", str(results))
    assert "Traceback" not in done.stdout + done.stderr, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def random_check(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    folder = tmp_path_factory.mktemp("random")
    hostile.declare(folder / "decl", "random", request_deadline=10)
    results = folder / "check-hostile.json"
    return check(folder / "decl", "hostile", results), results


def test_an_answer_that_does_not_come_again_is_a_finding_not_a_failing_case(random_check) -> None:  # type: ignore[no-untyped-def]
    done, results = random_check
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    document = json.loads(results.read_text(encoding="utf-8"))
    assert problems(document) == []
    assert document["ok"] is False
    rows = [row for row in document["results"] if row["implementation"] == "hostile"]
    assert [row["case"] for row in rows if row["state"] == "fail"] == []
    not_judged = [row for row in rows if row["state"] == "skip" and row["why"].startswith("not judged")]
    assert len(not_judged) >= 100 and all(row["op"] == "normalize_fact_text" for row in not_judged)
    assert "nondeterministic" in not_judged[0]["why"]
    assert document["counts"]["hostile"]["fail"] == 0
    [finding] = document["findings"]
    assert (finding["impl"], finding["kind"], finding["count"]) == ("hostile", "nondeterministic", len(not_judged))
    assert {"request", "inBatch", "alone", "case"} <= set(finding["evidence"]), finding
    assert finding["evidence"]["inBatch"] != finding["evidence"]["alone"]  # both answers, and they differ
    assert "FINDING hostile: nondeterministic x" in done.stdout
    assert "FAIL" not in done.stdout and "failing cases" not in done.stdout
    assert f"{len(not_judged)} failing case(s) not judged" in done.stdout


def test_report_show_prints_the_findings_of_a_results_file(random_check, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, results = random_check
    shown = run(tmp_path, "report", "show", str(results))
    assert shown.returncode == 1, shown.stdout + shown.stderr
    assert "FINDING hostile: nondeterministic x" in shown.stdout and "Traceback" not in shown.stderr
    markdown = run(tmp_path, "report", "show", str(results), "--format", "markdown")
    assert markdown.returncode == 1 and "FINDING hostile: nondeterministic x" in markdown.stdout


def test_the_page_shows_the_findings_of_a_results_file(random_check, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, results = random_check
    sources = page.read([results])
    target = page.write(tmp_path / "site", sources, [])
    section = page.findings_section(sources)
    assert "findings-table" in section and "<code>nondeterministic</code>" in section, section[:2000]
    html = target.read_text(encoding="utf-8")
    assert section in html
    assert "finding(s)" in html  # the summary's badge


def test_the_page_says_something_new_for_the_findings_of_a_results_file(random_check) -> None:  # type: ignore[no-untyped-def]
    _, results = random_check
    assert page.something_new(page.read([results]), [])


def test_a_bug_that_comes_again_keeps_its_failing_cases(tmp_path: Path) -> None:
    declare_fake(tmp_path / "decl", bug="capitalize")
    results = tmp_path / "check-fake.json"
    done = check(tmp_path / "decl", "fake", results)
    assert done.returncode == 1, done.stdout[-3000:]
    document = json.loads(results.read_text(encoding="utf-8"))
    assert problems(document) == [] and document["ok"] is False and document["findings"] == []
    failing = [row["case"] for row in document["results"] if row["state"] == "fail"]
    assert failing and all(case.startswith("norm-") for case in failing), failing
    assert not [row for row in document["results"] if (row["why"] or "").startswith("not judged")]
    assert "not judged" not in done.stdout and "FINDING" not in done.stdout


def test_a_faithful_testee_passes_with_no_finding(tmp_path: Path) -> None:
    declare_fake(tmp_path / "decl")
    results = tmp_path / "check-fake.json"
    done = check(tmp_path / "decl", "fake", results)
    assert done.returncode == 0, done.stdout[-3000:]
    document = json.loads(results.read_text(encoding="utf-8"))
    assert problems(document) == [] and document["ok"] is True and document["findings"] == []
    assert document["counts"]["fake"]["fail"] == 0
    shown = run(tmp_path, "report", "show", str(results))
    assert shown.returncode == 0 and "FINDING" not in shown.stdout


def test_failing_cases_beyond_the_cap_stay_failures_and_a_line_says_so(  # type: ignore[no-untyped-def]
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    hostile.declare(tmp_path / "decl", "random", request_deadline=10)
    monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path / "decl"))
    monkeypatch.setattr(fixture_gate, "REASK_CAP", 3)
    results = tmp_path / "check-hostile.json"
    status = cli.main(["check", "--impl", "hostile", "--results", str(results)])
    out = capsys.readouterr().out
    assert status == 1
    document = json.loads(results.read_text(encoding="utf-8"))
    states = [row["state"] for row in document["results"] if row["op"] == "normalize_fact_text"]
    assert states.count("skip") == 3 and states.count("fail") > 3, states
    beyond = states.count("fail")
    assert f"hostile: {beyond} failing case(s) beyond the first 3 not asked again" in out, out[-2000:]
    assert document["findings"][0]["kind"] == "nondeterministic" and document["findings"][0]["count"] == 3


@pytest.mark.parametrize("there", ["text", "other schema"])
def test_results_never_replace_a_file_that_is_not_fixture_results(tmp_path: Path, there: str) -> None:
    declare_fake(tmp_path / "decl")
    results = tmp_path / "results.json"
    before = "not a report\n" if there == "text" else json.dumps({"schema": "bench-report-v1"}) + "\n"
    results.write_text(before, encoding="utf-8")
    done = run(tmp_path / "decl", "check", "--impl", "fake", "--results", str(results))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "fixture-results" in done.stderr and "Traceback" not in done.stderr
    assert results.read_text(encoding="utf-8") == before
    assert "fixture cases pass" not in done.stdout
    declare_fake(tmp_path / "decl", name="gone", start={"command": [str(tmp_path / "no-such-testee")], "env": {}})
    gone = run(tmp_path / "decl", "check", "--impl", "gone", "--results", str(results))
    assert gone.returncode == 2, gone.stdout + gone.stderr  # refused before the run (starting it would be 3)
    assert results.read_text(encoding="utf-8") == before
    again = tmp_path / "again.json"
    assert check(tmp_path / "decl", "fake", again).returncode == 0
    assert check(tmp_path / "decl", "fake", again).returncode == 0  # a fixture-results document: replaced
