"""Hostile doubles for every kind the hardened command client names (issue 31, part 12): ids of every JSON
type, an answer 100,000 levels deep, ok of another type, NaN, a key beside id and ok, a grandchild that holds
the pipes, control bytes in messages and stderr, a BOM before the start answer, a start killed from outside.
The "client" rows of harness/tools/hostile_faults.py are also held by suites/testees/test_hostile.py's
parametrized tests."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import reference
from harness.tools.hostile_faults import BY_NAME, FAULTS, declare
from harness.tools.processes import alive
from suites.testees.test_hostile import run

IDS = [f for f in FAULTS if f.family == "id"]
NEW = [BY_NAME[name] for name in ("deep_json", "wrong_id_float", "ok_wrong_type", "ok_nan", "extra_key",
                                  "grandchild", "control_bytes")]
RAW_CONTROL = ("\x1b", "\x07", "\x08", "\x9b")


def clean(result) -> None:  # type: ignore[no-untyped-def]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]


def no_grandchild_left(folder: Path) -> None:
    pids = [int(p) for p in (folder / "grandchildren").read_text().split()]
    assert pids
    deadline = time.monotonic() + 3
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in pids if alive(p)]
    for pid in left:
        os.kill(pid, 9)
    assert not left, f"processes the testee started are still running: {left}"


TEXTS = [f"Fact {i} \u201cq\u201d" for i in range(80)]


@pytest.mark.parametrize("form", ["batches", "lines"])
@pytest.mark.parametrize("fault", IDS, ids=[f.name for f in IDS])
def test_an_id_of_every_json_type_is_a_wrong_id(hostile, fault, form) -> None:  # type: ignore[no-untyped-def]
    testee = hostile(fault.name)
    testee.batch_form = form == "batches"
    responses = testee.call_batch([("normalize_fact_text", {"text": t}) for t in TEXTS])
    assert responses == [{"ok": reference.normalize_fact_text(t)} for t in TEXTS]
    assert [f["kind"] for f in testee.findings.to_json()] == ["wrong_id"]


@pytest.mark.parametrize("fault", IDS, ids=[f.name for f in IDS])
def test_check_names_an_id_of_another_type(tmp_path: Path, fault) -> None:  # type: ignore[no-untyped-def]
    declare(tmp_path, fault.name, request_deadline=2)
    result = run(tmp_path, "check", "--impl", "hostile", "--results", str(tmp_path / "results.json"))
    clean(result)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAIL " not in result.stdout and "FINDING hostile: wrong_id x" in result.stdout, result.stdout[-2000:]


@pytest.mark.parametrize("fault", [*NEW, *IDS], ids=[f.name for f in [*NEW, *IDS]])
def test_diff_names_the_finding_and_no_divergence(tmp_path: Path, fault) -> None:  # type: ignore[no-untyped-def]
    # at=2: the handshake's unicode_versions is a process's first request, the diff's request its second
    declare(tmp_path, fault.name, at=2, request_deadline=2)
    result = run(tmp_path, "diff", "normalize_fact_text", "Abc", "--impls", "reference,hostile")
    clean(result)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "cause:" not in result.stdout and fault.finding in result.stdout, result.stdout


@pytest.mark.parametrize("fault", NEW, ids=[f.name for f in NEW])
def test_selftest_fails_the_fault(tmp_path: Path, fault) -> None:  # type: ignore[no-untyped-def]
    declare(tmp_path, fault.name, at=1, request_deadline=2)
    result = run(tmp_path, "selftest", "--impl", "hostile")
    clean(result)
    assert result.returncode == 1 and "FAIL" in result.stdout, result.stdout + result.stderr


def test_an_answer_of_the_wrong_type_is_no_failing_case(tmp_path: Path) -> None:
    declare(tmp_path, "ok_wrong_type", request_deadline=2)
    result = run(tmp_path, "check", "--impl", "hostile", "--results", str(tmp_path / "results.json"))
    clean(result)
    assert result.returncode == 1 and "FAIL " not in result.stdout, result.stdout[-2000:]
    assert "FINDING hostile: malformed_answer x" in result.stdout and "divergence" not in result.stdout.lower()


def test_a_grandchild_holding_the_pipes_is_seen_at_once_and_killed(hostile, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    testee = hostile("grandchild", at=3, request_deadline=30)
    started = time.monotonic()
    responses = testee.call_batch([("normalize_fact_text", {"text": t}) for t in TEXTS[:10]])
    assert time.monotonic() - started < 5  # the exit seen, not the request deadline (30 s)
    assert responses == [{"ok": reference.normalize_fact_text(t)} for t in TEXTS[:10]]
    assert [f["kind"] for f in testee.findings.to_json()] == ["flaky_crash"]
    testee.close()
    no_grandchild_left(tmp_path)


@pytest.mark.parametrize("command", ["check", "fuzz"])
def test_no_grandchild_outlives_a_command(tmp_path: Path, command: str) -> None:
    declare(tmp_path, "grandchild", request_deadline=30)
    args = (["check", "--impl", "hostile", "--results", str(tmp_path / "r.json")] if command == "check" else
            ["fuzz", "--impls", "reference,hostile", "--seconds", "2", "--workers", "1", "--seed", "7",
             "--report", str(tmp_path / "report.json")])
    result = run(tmp_path, *args)
    clean(result)
    assert result.returncode == 1 and "flaky_crash" in result.stdout + result.stderr, result.stdout[-2000:]
    assert "flaky_timeout" not in result.stdout
    no_grandchild_left(tmp_path)


def test_control_bytes_reach_no_terminal(tmp_path: Path) -> None:
    declare(tmp_path, "control_bytes", request_deadline=2)
    result = run(tmp_path, "check", "--impl", "hostile", "--results", str(tmp_path / "results.json"))
    clean(result)
    assert result.returncode == 1, result.stdout + result.stderr
    for raw in RAW_CONTROL:
        assert raw not in result.stdout and raw not in result.stderr, repr(raw)
    assert "FINDING hostile: refused_op" in result.stdout
    finding = next(line for line in result.stdout.splitlines() if "FINDING hostile: refused_op" in line)
    assert "\\u001B[2J" in finding and "\\u0007" in finding and "\\u0008" in finding and "\\u009B" in finding
    assert "\\u001B" in result.stdout.split("FINDING hostile: refused_op", 1)[1].split("stderr", 1)[1]


def test_a_bom_before_the_start_answer_fails_the_start_at_once(tmp_path: Path) -> None:
    declare(tmp_path, "bom_start", request_deadline=2, startup_deadline=30)
    started = time.monotonic()
    result = run(tmp_path, "check", "--impl", "hostile", "--results", str(tmp_path / "results.json"))
    assert time.monotonic() - started < 10  # far less than the start-up deadline, 30 s
    clean(result)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "byte order mark" in result.stdout + result.stderr


def test_a_bom_before_the_start_answer_in_fuzz_keeps_the_others(tmp_path: Path) -> None:
    declare(tmp_path, "bom_start", request_deadline=2, startup_deadline=30)
    started = time.monotonic()
    result = run(tmp_path, "fuzz", "--impls", "reference,hostile", "--seconds", "2", "--workers", "1",
                 "--report", str(tmp_path / "report.json"))
    assert time.monotonic() - started < 10
    clean(result)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "byte order mark" in result.stdout + result.stderr


def test_selftest_names_a_bom_before_the_start_answer(tmp_path: Path) -> None:
    declare(tmp_path, "bom_start", request_deadline=2, startup_deadline=30)
    result = run(tmp_path, "selftest", "--impl", "hostile")
    clean(result)
    assert result.returncode in (1, 3) and "byte order mark" in result.stdout + result.stderr, result.stdout


@pytest.mark.parametrize("fault", ["killed_start", "killed_restart"])
def test_a_start_killed_from_outside_is_tried_again(hostile, tmp_path: Path, fault: str) -> None:  # type: ignore[no-untyped-def]
    testee = hostile(fault, at=3)
    responses = testee.call_batch([("normalize_fact_text", {"text": t}) for t in TEXTS[:10]])
    assert responses == [{"ok": reference.normalize_fact_text(t)} for t in TEXTS[:10]]
    kinds = [f["kind"] for f in testee.findings.to_json()]
    assert kinds == ([] if fault == "killed_start" else ["flaky_crash"])
    assert testee.start_retries == 1 and testee.taken_out is None
    assert (tmp_path / "killed").exists()


@pytest.mark.parametrize("fault", ["killed_start", "killed_restart"])
def test_check_and_fuzz_survive_a_start_killed_from_outside(tmp_path: Path, fault: str) -> None:
    declare(tmp_path / "decl", fault, request_deadline=2)
    check = run(tmp_path / "decl", "check", "--impl", "hostile", "--results", str(tmp_path / "r.json"))
    clean(check)
    assert check.returncode == (0 if fault == "killed_start" else 1), check.stdout[-2000:] + check.stderr
    assert "FAIL " not in check.stdout and "restart_failed" not in check.stdout and "taken_out" not in check.stdout
    (tmp_path / "decl" / "killed").unlink()
    (tmp_path / "decl" / "exited").unlink(missing_ok=True)
    fuzz = run(tmp_path / "decl", "fuzz", "--impls", "reference,hostile", "--seconds", "2", "--workers", "1",
               "--seed", "7", "--report", str(tmp_path / "report.json"))
    clean(fuzz)
    assert "restart_failed" not in fuzz.stdout and "taken_out" not in fuzz.stdout, fuzz.stdout[-2000:]
    assert fuzz.returncode == (0 if fault == "killed_start" else 1), fuzz.stdout[-2000:] + fuzz.stderr
    assert (tmp_path / "decl" / "killed").exists()


# What selftest's own reading of the lines (before the client's) says of each: named, in its first phase.
SELFTEST_SAYS = {
    "deep_json": "nesting deeper than the parser's limit",
    "ok_nan": "the token NaN",
    "wrong_id_float": "id 1.0, not 1",
    "wrong_id_true": "'id': True",  # the protocol schema refuses the id's type
    "wrong_id_array": "'id': [1]",
    "ok_wrong_type": "normalize_fact_text returns a string",
    "extra_key": "an extra key",
    "bom_start": "byte order mark",
}


@pytest.mark.parametrize("fault", sorted(SELFTEST_SAYS))
def test_selftest_names_what_is_wrong_with_the_line(tmp_path: Path, fault: str) -> None:
    declare(tmp_path, fault, at=2, request_deadline=2)
    result = run(tmp_path, "selftest", "--impl", "hostile")
    clean(result)
    assert result.returncode in (1, 3), result.stdout + result.stderr
    failed = [line for line in (result.stdout + result.stderr).splitlines() if line.startswith(("FAIL", "error"))]
    assert any(SELFTEST_SAYS[fault] in line for line in failed), failed


@pytest.mark.parametrize("command", ["diff", "fuzz", "report-show", "report-html", "markdown"])
def test_control_bytes_reach_no_terminal_in_any_command(tmp_path: Path, command: str) -> None:
    """The same testee through diff, fuzz, report show of fuzz's report (text and Markdown) and the page:
    no raw control character in what is printed or written; the escapes are there instead."""
    declare(tmp_path, "control_bytes", at=1, request_deadline=2)
    report = tmp_path / "fuzz.json"
    if command == "diff":
        result = run(tmp_path, "diff", "normalize_fact_text", "Abc", "--impls", "reference,hostile")
        shown = result.stdout + result.stderr
    else:
        result = run(tmp_path, "fuzz", "--seconds", "2", "--workers", "1", "--impls", "reference,hostile",
                     "--report", str(report))
        shown = result.stdout + result.stderr
        if command == "report-show":
            result = run(tmp_path, "report", "show", str(report))
            shown = result.stdout + result.stderr
        elif command == "markdown":
            result = run(tmp_path, "report", "show", str(report), "--format", "markdown")
            shown = result.stdout + result.stderr
        elif command == "report-html":
            result = run(tmp_path, "report", "html", str(report), "--out", str(tmp_path / "site"))
            shown = (tmp_path / "site" / "index.html").read_text(encoding="ascii")
    clean(result)
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr[-2000:]
    for raw in RAW_CONTROL:
        assert raw not in shown, (repr(raw), shown[-2000:])
    assert "\\u001B" in shown, shown[-2000:]
