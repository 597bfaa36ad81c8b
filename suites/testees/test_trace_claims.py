"""Trace claims kept honest (issue 31, part 9): a testee that lists an op in its start answer's ``traces`` and then
refuses a trace of it (or answers it malformed) gets one ``handshake_lie`` finding per op it lied about, is not asked
for traces of that op again (a black box for it: counterfactual causes) and costs no fresh process for it; trace
faults count towards taking a testee out. The hostile double is harness/tools/hostile_testee.py's refuse_trace;
process starts are counted by the double itself (HOSTILE_STARTS), never by the wall clock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import reference
from harness.checks.tracecheck import check
from harness.model.registry import OPS
from harness.model.traces import TRACE_OP
from harness.testees import impls
from harness.tools.hostile_faults import declare

ROOT = impls.ROOT
# tracecheck's default ops: every op the registry compares (the testee serves them all)
TRACED = tuple(op.name for op in OPS.values() if op.differential)


def run(folder: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, impls.EXTRA_ENV: str(folder)}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


def liar(folder: Path, answer: str = "refuse", refuse: str = "", quote_bug: bool = False,
         fault: str = "refuse_trace") -> Path:
    """Declare the hostile testee (refuse_trace) in ``folder``; the file its process starts are counted in."""
    starts = folder / "starts"
    env = {"HOSTILE_TRACE_ANSWER": answer, "HOSTILE_STARTS": str(starts)}
    if refuse:
        env["HOSTILE_REFUSE"] = refuse
    if quote_bug:
        env["HOSTILE_QUOTE_BUG"] = "1"
    declare(folder, fault, request_deadline=2, extra_env=env)
    return starts


def started(starts: Path) -> int:
    return len(starts.read_text(encoding="ascii").split()) if starts.exists() else 0


def lies(findings: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    return [f for f in findings if f["kind"] == "handshake_lie"]


@pytest.fixture()
def opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    got = []

    def make(**kwargs):  # type: ignore[no-untyped-def]
        starts = liar(tmp_path, **kwargs)
        monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
        testee = impls.get_impl("hostile")
        got.append(testee)
        return testee, starts

    yield make
    for testee in got:
        testee.close()


# --- the client -----------------------------------------------------------------------------------

@pytest.mark.parametrize("answer", ["refuse", "malformed"])
def test_a_refused_claim_is_one_lie_and_no_fresh_process(opened, answer: str) -> None:  # type: ignore[no-untyped-def]
    testee, starts = opened(answer=answer)
    texts = [f"Fact {i} \u2019" for i in range(60)]
    calls = [call for t in texts for call in (("normalize_fact_text", {"text": t}),
                                              (TRACE_OP, {"op": "normalize_fact_text", "args": {"text": t}}))]
    for form in (True, False):  # batch lines, then one request per line
        testee.batch_form = form
        answers = testee.call_batch(calls)
        assert answers[0::2] == [{"ok": reference.normalize_fact_text(t)} for t in texts]
        assert {a["error"]["code"] for a in answers[1::2]} == {"unavailable"}
    found = testee.findings.to_json()
    assert [f["kind"] for f in found] == ["handshake_lie"], found
    assert found[0]["count"] == 1 and "normalize_fact_text" in found[0]["message"]
    assert ("bad_request" if answer == "refuse" else "malformed_answer") in found[0]["message"]
    assert set(testee.untraced) == {"normalize_fact_text"}
    assert testee.restarts == 0 and started(starts) == 1
    sent = testee._next_id
    assert testee.call(TRACE_OP, {"op": "normalize_fact_text", "args": {"text": "A"}})["error"]["code"] == "unavailable"
    assert testee._next_id == sent  # not asked again


def test_an_honest_claim_of_the_same_testee_is_unaffected(opened) -> None:  # type: ignore[no-untyped-def]
    testee, starts = opened(refuse="decide_write")
    tallies = check({"hostile": testee}, list(TRACED), examples=100, seed=3, stream=open(os.devnull, "w"))
    assert tallies["hostile"]["normalize_fact_text"].checked == 100
    assert tallies["hostile"]["normalize_fact_text"].problems == 0
    assert tallies["hostile"]["build_dedup_context"].checked == 100
    dw = tallies["hostile"]["decide_write"]
    assert dw.withdrawn is not None and dw.problems == 0 and dw.checked == 0
    found = testee.findings.to_json()
    assert [(f["kind"], f["count"]) for f in found] == [("handshake_lie", 1)], found
    assert "decide_write" in found[0]["message"]
    assert started(starts) == 1


def test_trace_faults_count_towards_taking_a_testee_out(opened) -> None:  # type: ignore[no-untyped-def]
    testee, starts = opened(answer="exit")  # every trace request of a claimed op: the process exits
    testee.max_faults = 3
    texts = [f"Fact {i}" for i in range(30)]
    calls = [call for t in texts for call in (("normalize_fact_text", {"text": t}),
                                              (TRACE_OP, {"op": "normalize_fact_text", "args": {"text": t}}))]
    testee.call_batch(calls)
    assert testee.taken_out and "trace faults in a row" in testee.taken_out
    assert "taken_out" in {f["kind"] for f in testee.findings.to_json()}
    assert started(starts) <= 1 + 2 * 3 + 1  # each trace crash retried once on a fresh process, then out


# --- the commands ---------------------------------------------------------------------------------

def test_tracecheck_gives_one_lie_per_op_and_starts_one_process(tmp_path: Path) -> None:
    starts = liar(tmp_path / "decl")
    out = tmp_path / "tracecheck.json"
    result = run(tmp_path / "decl", "tracecheck", "--examples", "100", "--impls", "hostile", "--json", str(out))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    data = json.loads(out.read_text())
    found = lies(data["findings"])
    assert len(found) == 1 and found[0]["count"] == len(TRACED), data["findings"]
    assert {f["kind"] for f in data["findings"]} == {"handshake_lie"}, data["findings"]  # no refused_op, no mismatch
    assert "normalize_fact_text" in found[0]["message"] and "bad_request" in found[0]["message"]
    for op in TRACED:
        assert data["tallies"]["hostile"][op]["withdrawn"], data["tallies"]["hostile"][op]
        assert data["tallies"]["hostile"][op]["problems"] == 0
    assert started(starts) == 1  # was two fresh processes per refused trace: 600 for 100 examples of 3 ops


def test_tracecheck_on_an_honest_claim_is_unchanged(tmp_path: Path) -> None:
    starts = liar(tmp_path / "decl", fault="quote_bug")
    out = tmp_path / "tracecheck.json"
    result = run(tmp_path / "decl", "tracecheck", "--examples", "50", "--impls", "hostile", "--json", str(out))
    data = json.loads(out.read_text())
    assert lies(data["findings"]) == [], data["findings"]
    for op in TRACED:
        assert data["tallies"]["hostile"][op]["checked"] == 50 and "withdrawn" not in data["tallies"]["hostile"][op]
    from harness.model.schemas import problems

    assert problems(data) == []  # schemas/tracecheck-v1.schema.json
    assert started(starts) == 1, result.stderr


def test_diff_keeps_a_cause_from_counterfactuals(tmp_path: Path) -> None:
    starts = liar(tmp_path / "decl", quote_bug=True)
    result = run(tmp_path / "decl", "diff", "normalize_fact_text", "It\u2019s fine", "--impls", "reference,hostile",
                 "--json")
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert [d["cause"] for d in report["divergences"]] == ["quote_dash_map"], report["divergences"]
    found = lies(report["findings"])
    assert len(found) == 1 and found[0]["count"] == 1 and "normalize_fact_text" in found[0]["message"]
    assert "refused_op" not in {f["kind"] for f in report["findings"]}
    assert started(starts) == 1


def test_diff_on_an_honest_claim_reads_the_cause_off_the_traces(tmp_path: Path) -> None:
    liar(tmp_path / "decl", fault="quote_bug")
    result = run(tmp_path / "decl", "diff", "normalize_fact_text", "It\u2019s fine", "--impls", "reference,hostile",
                 "--json")
    report = json.loads(result.stdout)
    assert lies(report["findings"]) == []
    assert [(d["cause"], d["step"]) for d in report["divergences"]] == [("quote_dash_map", "norm.quote_dash")]


def test_fuzz_gives_one_lie_and_every_divergence_a_cause(tmp_path: Path) -> None:
    starts = liar(tmp_path / "decl", quote_bug=True)
    report = tmp_path / "fuzz.json"
    result = run(tmp_path / "decl", "fuzz", "--impls", "reference,hostile", "--ops", "normalize_fact_text",
                 "--seconds", "3", "--workers", "1", "--seed", "7", "--report", str(report))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    data = json.loads(report.read_text())
    assert data["divergences"], result.stdout
    assert all(d["cause"] == "quote_dash_map" for d in data["divergences"]), [d["cause"] for d in data["divergences"]]
    found = lies(data["findings"])
    assert len(found) == 1 and found[0]["count"] == 1 and "normalize_fact_text" in found[0]["message"]
    assert {f["kind"] for f in data["findings"]} == {"handshake_lie"}, data["findings"]
    assert started(starts) <= 2  # the worker's, and the run's own for its descriptions


def test_trace_shows_a_testee_whose_claim_fell_as_a_black_box(tmp_path: Path) -> None:
    """``python -m harness trace``: the lie is a finding, the op's own answer is shown as a black box's, and
    the reference's trace is still shown; no trace problem is made of the refusal."""
    liar(tmp_path / "decl")
    result = run(tmp_path / "decl", "trace", "normalize_fact_text", "Hello", "--impls", "reference,hostile", "--json")
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    shown = json.loads(result.stdout)
    assert shown["black_boxes"].get("hostile") == {"ok": "hello"}, shown["black_boxes"]
    assert "hostile" not in shown["traces"] and "reference" in shown["traces"]
    assert all(p.startswith("finding handshake_lie") for p in shown["problems"].get("hostile", [])), shown["problems"]
    assert shown["problems"].get("hostile"), shown["problems"]


@pytest.mark.parametrize(("result", "answer", "agrees"), [
    ({"$codepoints": [97, 0xDFFF]}, "a\udfff", True),  # a surrogate the op passed through, written as code points
    ({"$codepoints": [97, 0xDFFE]}, "a\udfff", False),
    ({"$codepoints": [0x110000]}, "a", False),  # stands for no string
    ("a\udfff", "a\udfff", True),
])
def test_a_trace_ends_in_the_ops_own_result_as_written(result, answer: str, agrees: bool) -> None:  # type: ignore[no-untyped-def]
    from harness.checks.tracecheck import Tally, render
    from harness.testees.traces import problems

    trace = json.dumps({"schema": "trace-v1", "op": "normalize_fact_text",
                        "steps": [{"step": "args", "value": {"text": "x"}}], "outcome": {"result": result}})
    found = problems("normalize_fact_text", {"ok": trace}, {"ok": answer}, validate=False)
    assert (found == []) is agrees, found
    shown = render({"x": {"normalize_fact_text": Tally(checked=1, problems=len(found), first=found)}})
    shown.encode("utf-8")  # printable: a problem quoting a lone surrogate is escaped, never a UnicodeEncodeError
