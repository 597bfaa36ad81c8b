"""Hostile testees (harness/tools/hostile_faults.py, harness/tools/hostile_testee.py): every fault is a finding
about that testee, with the kind of the table, and never a divergence; every request still gets the reference's
answer. Checked in the client, and in every command that talks to testees: check, fuzz, sweep, diff,
selftest (short budgets here; `python -m harness.tools.hostile` is the measured 15 s run)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import reference
from harness.testees import impls
from harness.testees.command import CUT, FAULTED
from harness.tools.hostile_faults import FAULTS, declare

ROOT = impls.ROOT
CLIENT = [f for f in FAULTS if f.family == "client"]
TEXTS = [f"Fact number {i}  \u201cquoted\u201d" for i in range(240)]


def run(folder: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, impls.EXTRA_ENV: str(folder)}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


@pytest.mark.parametrize("form", ["batches", "lines"])
@pytest.mark.parametrize("fault", CLIENT, ids=[f.name for f in CLIENT])
def test_the_client_names_each_fault_and_answers_every_request(hostile, fault, form) -> None:  # type: ignore[no-untyped-def]
    if form == "lines" and fault.name in ("drop_last", "reverse"):
        pytest.skip("a fault of batch lines")
    testee = hostile(fault.name)
    testee.batch_form = form == "batches"
    calls = [("normalize_fact_text", {"text": text}) for text in TEXTS]
    responses = testee.call_batch(calls)
    expected = [{"ok": reference.normalize_fact_text(text)} for text in TEXTS]
    assert responses == expected, [
        (i, r) for i, (r, e) in enumerate(zip(responses, expected, strict=True)) if r != e][:3]
    kinds = {f["kind"] for f in testee.findings.to_json()}
    assert fault.finding in kinds, testee.findings.to_json()
    finding = next(f for f in testee.findings.to_json() if f["kind"] == fault.finding)
    assert finding["impl"] == "hostile" and finding["count"] >= 1 and finding["message"]


def test_a_line_too_long_is_never_held_whole(hostile) -> None:  # type: ignore[no-untyped-def]
    testee = hostile("long_line", at=2)
    assert testee.max_line_bytes == 16 * 1024 * 1024
    response = testee.call_batch([("normalize_fact_text", {"text": "A"}), ("normalize_fact_text", {"text": "B"})])
    assert response == [{"ok": "a"}, {"ok": "b"}]
    finding = testee.findings.to_json()[0]
    assert finding["kind"] == "line_too_long" and finding["evidence"]["line"].startswith("yyyy")
    assert len(finding["evidence"]["line"]) < 300


def test_a_request_faulted_twice_is_never_compared(hostile) -> None:  # type: ignore[no-untyped-def]
    testee = hostile("not_json", at=1)  # every fresh process faults on its first request
    before = testee.findings.to_json()[0]["count"]  # the unicode_versions of the handshake check, twice
    response = testee.call("normalize_fact_text", {"text": "A"})
    assert response["error"]["code"] == FAULTED and "faulted twice" in response["error"]["message"]
    assert testee.findings.to_json()[0]["count"] == before + 2


def test_faults_in_a_row_take_a_testee_out(hostile) -> None:  # type: ignore[no-untyped-def]
    testee = hostile("not_json", at=1)
    testee.max_faults = 3 + testee.faults_in_a_row
    responses = testee.call_batch([("normalize_fact_text", {"text": t}) for t in ("A", "B", "C", "D")])
    assert testee.taken_out and "protocol faults in a row" in testee.taken_out
    assert {r["error"]["code"] for r in responses} <= {FAULTED, "unavailable"}
    assert responses[-1]["error"]["code"] == "unavailable"
    kinds = [f["kind"] for f in testee.findings.to_json()]
    assert kinds == ["not_json", "taken_out"]


def test_the_budget_ends_every_wait(hostile) -> None:  # type: ignore[no-untyped-def]
    testee = hostile("hang", at=4, request_deadline=30)  # 1: the handshake check's unicode_versions
    testee.batch_form = False
    testee.cutoff = time.monotonic() + 1.5
    started = time.monotonic()
    responses = testee.call_batch([("normalize_fact_text", {"text": t}) for t in "ABCDE"])
    assert time.monotonic() - started < 4
    assert responses[:2] == [{"ok": "a"}, {"ok": "b"}]
    assert {r["error"]["code"] for r in responses[2:]} == {CUT}


@pytest.mark.parametrize("fault", ["lie_contracts", "lie_unicode"])
def test_a_handshake_that_lies_is_a_finding(hostile, fault: str) -> None:  # type: ignore[no-untyped-def]
    testee = hostile(fault)
    assert [f["kind"] for f in testee.findings.to_json()] == ["handshake_lie"]


def test_a_start_past_its_deadline_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    declare(tmp_path, "slow_start", startup_deadline=1, extra_env={"HOSTILE_SLEEP": "30"})
    monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
    started = time.monotonic()
    with pytest.raises(impls.ImplementationUnavailable, match="no answer to the start handshake within 1 s"):
        impls.get_impl("hostile")
    assert time.monotonic() - started < 5


# --- the commands ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fault", CLIENT, ids=[f.name for f in CLIENT])
def test_check_names_the_finding_and_passes_every_case(tmp_path: Path, fault) -> None:  # type: ignore[no-untyped-def]
    declare(tmp_path, fault.name, request_deadline=2)
    result = run(tmp_path, "check", "--impl", "hostile", "--results", str(tmp_path / "results.json"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAIL " not in result.stdout, result.stdout[-2000:]
    assert f"FINDING hostile: {fault.finding} x" in result.stdout, result.stdout[-2000:]
    assert "finding(s) about the testee" in result.stdout


FUZZED = [f for f in FAULTS if f.family in ("client", "gate")]


@pytest.mark.parametrize("fault", FUZZED, ids=[f.name for f in FUZZED])
def test_fuzz_reports_the_finding_and_no_divergence(tmp_path: Path, fault) -> None:  # type: ignore[no-untyped-def]
    # A hang shows at the batch's deadline, then at the request's: give it the time to be seen.
    seconds, deadline = (8, 1) if fault.name == "hang" else (3, 2)
    declare(tmp_path / "decl", fault.name, request_deadline=deadline)
    report = tmp_path / "report.json"
    started = time.monotonic()
    result = run(tmp_path / "decl", "fuzz", "--impls", "reference,hostile", "--seconds", str(seconds),
                 "--workers", "1", "--seed", "7", "--report", str(report))
    elapsed = time.monotonic() - started
    data = json.loads(report.read_text())
    assert result.returncode == 1, result.stdout + result.stderr
    assert data["divergences"] == [], [(d["cause"], d["outputs"]) for d in data["divergences"]]
    assert fault.finding in {f["kind"] for f in data["findings"]}, data["findings"]
    assert elapsed <= seconds + deadline + 5 + 3, elapsed  # the budget, plus the interpreter's start here


def test_sweep_names_a_batch_fault(tmp_path: Path) -> None:
    declare(tmp_path / "decl", "drop_last", at=1, request_deadline=2)
    report = tmp_path / "sweep.json"
    result = run(tmp_path / "decl", "sweep", "--impls", "reference,hostile", "--templates", "nfc-alone",
                 "--range", "U+0000..U+0FFF", "--workers", "1", "--fresh", "--checkpoint",
                 str(tmp_path / "checkpoint.jsonl"), "--report", str(report))
    data = json.loads(report.read_text())
    assert result.returncode == 1, result.stdout + result.stderr
    assert data["divergences"] == [] and [f["kind"] for f in data["findings"]] == ["missing_answers"]
    assert "FINDING hostile: missing_answers" in result.stdout


def test_the_sweep_gate_names_a_batch_context_fault(tmp_path: Path) -> None:
    declare(tmp_path / "decl", "batch_state", request_deadline=2)
    report = tmp_path / "sweep.json"
    result = run(tmp_path / "decl", "sweep", "--impls", "reference,hostile", "--templates", "alone",
                 "--range", "U+0041..U+0200", "--workers", "1", "--fresh", "--checkpoint",
                 str(tmp_path / "checkpoint.jsonl"), "--report", str(report))
    data = json.loads(report.read_text())
    assert data["divergences"] == [], [(d["cause"], d["outputs"]) for d in data["divergences"]]
    assert [f["kind"] for f in data["findings"]] == ["batch_context"], result.stdout + result.stderr


def test_diff_shows_no_phantom(tmp_path: Path) -> None:
    declare(tmp_path, "not_json", at=1, request_deadline=2)
    result = run(tmp_path, "diff", "normalize_fact_text", "Abc", "--impls", "reference,hostile")
    assert "cause:" not in result.stdout
    # The fault is a finding about the testee, named as such (status 1), never "all agree" nor blamed on its host.
    assert result.returncode == 1, result.stdout + result.stderr
    assert "no answer from hostile" in result.stdout and "not_json" in result.stdout, result.stdout
    assert "cannot hold these arguments" not in result.stdout


def test_selftest_passes_a_faithful_one_and_fails_a_liar(tmp_path: Path) -> None:
    declare(tmp_path, "faithful")
    assert run(tmp_path, "selftest", "--impl", "hostile").returncode == 0
    declare(tmp_path, "lie_unicode")
    result = run(tmp_path, "selftest", "--impl", "hostile")
    assert result.returncode == 1 and "handshake_lie" in result.stdout, result.stdout


# --- the harness's own guards ---------------------------------------------------------------------

def test_the_report_schema_names_every_finding_kind() -> None:
    from harness.classes.report import SCHEMA
    from harness.model.paths import SCHEMAS
    from harness.testees.findings import KINDS

    schema = json.loads((SCHEMAS / f"{SCHEMA}.schema.json").read_text(encoding="utf-8"))
    item = schema["properties"]["findings"]["items"]["properties"]
    assert sorted(item["kind"]["enum"]) == sorted(KINDS)
    assert sorted(item["family"]["enum"]) == sorted({family for family, _ in KINDS.values()})


def test_a_report_refuses_a_divergence_whose_outputs_agree() -> None:
    from harness.classes.record import ClassRecord
    from harness.classes.report import document
    from harness.differential.explain import Found

    same = {"reference": {"ok": "a"}, "hostile": {"ok": "a"}}
    found = Found("normalization", "x", None)
    phantom = ClassRecord.of_sighting("normalize_fact_text", {"text": "A"}, same, ["hostile"], found)
    with pytest.raises(ValueError, match="whose recorded outputs agree"):
        document("fuzz", {}, [phantom], 1, 0.0, [])
    real = ClassRecord.of_sighting("normalize_fact_text", {"text": "A"}, {**same, "hostile": {"ok": "b"}},
                                   ["hostile"], found)
    assert document("fuzz", {}, [real], 1, 0.0, [])["divergences"][0]["divergent"] == ["hostile"]


@pytest.mark.parametrize("fault", CLIENT, ids=[f.name for f in CLIENT])
def test_sweep_names_each_fault_and_makes_no_class(tmp_path: Path, fault) -> None:  # type: ignore[no-untyped-def]
    declare(tmp_path / "decl", fault.name, request_deadline=2)
    report = tmp_path / "sweep.json"
    result = run(tmp_path / "decl", "sweep", "--impls", "reference,hostile", "--templates", "alone",
                 "--range", "U+0000..U+01FF", "--workers", "1", "--fresh", "--checkpoint",
                 str(tmp_path / "checkpoint.jsonl"), "--report", str(report))
    data = json.loads(report.read_text())
    assert result.returncode == 1, result.stdout + result.stderr
    assert data["divergences"] == [], [(d["cause"], d["outputs"]) for d in data["divergences"]]
    assert fault.finding in {f["kind"] for f in data["findings"]}, data["findings"]


@pytest.mark.parametrize("fault", CLIENT, ids=[f.name for f in CLIENT])
def test_the_parity_suites_fail_the_testees_health_and_nothing_else(tmp_path: Path, fault) -> None:  # type: ignore[no-untyped-def]
    declare(tmp_path, fault.name, request_deadline=2)
    env = {**os.environ, impls.EXTRA_ENV: str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "suites/parity/test_fixtures.py", "suites/parity/test_testee_health.py",
                             "--impl=hostile"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300, check=False)
    summary = result.stdout.split("short test summary")[-1]
    assert result.returncode == 1, result.stdout[-3000:]
    assert "FAILED suites/parity/test_testee_health.py::test_no_finding_about_the_testee[hostile]" in summary
    assert "test_fixtures.py" not in summary, summary
    assert fault.finding in result.stdout


def test_the_measured_run_times_and_weighs_the_harness(tmp_path: Path) -> None:
    """harness/tools/hostile.py's measurement on one fault with a short budget: the harness's own processes are
    weighed (the testee's are not), the report read, nothing missed."""
    from harness.tools.hostile import measure

    run = measure("long_line", 3, 1, tmp_path)
    assert run.problems == [], run
    assert 10 < run.peak_mib < 200 and run.findings.get("line_too_long", 0) >= 1


def test_run_serves_a_faulty_testee_and_names_the_fault_on_stderr(tmp_path: Path) -> None:
    declare(tmp_path, "not_json", at=3)
    lines = "".join(json.dumps({"id": i, "op": "normalize_fact_text", "args": {"text": f"A{i}"}}) + "\n"
                    for i in range(5))
    env = {**os.environ, impls.EXTRA_ENV: str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "harness", "run", "--impl", "hostile"], input=lines, cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=60, check=False)
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a.get("ok") for a in answers] == [f"a{i}" for i in range(5)], result.stdout + result.stderr
    assert "FINDING hostile: not_json x1" in result.stderr


def test_a_sweep_takes_a_faulty_testee_out_of_every_worker_and_stops(tmp_path: Path) -> None:
    declare(tmp_path / "decl", "not_json", at=1, request_deadline=2)  # every process faults on its first request
    report = tmp_path / "sweep.json"
    result = run(tmp_path / "decl", "sweep", "--impls", "reference,hostile", "--templates", "alone",
                 "--range", "U+0000..U+FFFF", "--workers", "2", "--fresh", "--checkpoint",
                 str(tmp_path / "checkpoint.jsonl"), "--report", str(report))
    data = json.loads(report.read_text())
    assert data["takenOut"] == ["hostile"] and data["divergences"] == [], result.stdout + result.stderr
    assert {"not_json", "taken_out"} <= {f["kind"] for f in data["findings"]}
    assert result.stderr.count("hostile taken out of the rest of the sweep") == 1
    assert "fewer than two implementations left: the sweep stops" in result.stderr
    assert data["sweep"]["values"] < 0x10000  # it stopped
