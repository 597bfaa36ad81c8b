"""Hostile testees (suites/hostile.py, suites/fakes/hostile_testee.py): every fault is a finding about that
testee, with the kind of the table, and never a divergence; every request still gets the reference's
answer. Checked in the client, and in every command that talks to testees: check, fuzz, sweep, diff,
selftest (short budgets here; `python -m tools.hostile` is the measured 15 s run)."""

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
from suites.hostile import FAULTS, declare

ROOT = impls.ROOT
CLIENT = [f for f in FAULTS if f.family == "client"]
TEXTS = [f"Fact number {i}  \u201cquoted\u201d" for i in range(240)]


def run(folder: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, impls.EXTRA_ENV: str(folder)}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture()
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    opened = []

    def make(fault: str, **kwargs):  # type: ignore[no-untyped-def]
        declare(tmp_path, fault, request_deadline=kwargs.pop("request_deadline", 2), **kwargs)
        monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
        testee = impls.get_impl("hostile")
        opened.append(testee)
        return testee

    yield make
    for testee in opened:
        testee.close()


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
    assert responses == expected, [(i, r) for i, (r, e) in enumerate(zip(responses, expected)) if r != e][:3]
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
    result = run(tmp_path, "check", "--impl", "hostile")
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
    assert "no answer" in result.stdout or "agree" in result.stdout, result.stdout + result.stderr
    assert "cause:" not in result.stdout


def test_selftest_passes_a_faithful_one_and_fails_a_liar(tmp_path: Path) -> None:
    declare(tmp_path, "faithful")
    assert run(tmp_path, "selftest", "--impl", "hostile").returncode == 0
    declare(tmp_path, "lie_unicode")
    result = run(tmp_path, "selftest", "--impl", "hostile")
    assert result.returncode == 1 and "handshake_lie" in result.stdout, result.stdout
