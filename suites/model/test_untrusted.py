"""The one reader of untrusted JSON (harness/model/untrusted.py), and every reader of a file that goes through
it: what it refuses is named, of its kind, and never a traceback; a file it refuses is status 2 naming the
file, in every command that reads one (reports, baselines, the page's reports and lists, nox's plan of the
declarations, the parity counts, reports_check)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main as cli
from harness.model import untrusted
from harness.model.status import USAGE

DEEP = "[" * 100_000  # deeper than Python's parser can go: a RecursionError unless caught
DEEPISH = "[" * 150 + "]" * 150  # parses, but deeper than MAX_DEPTH

REFUSED = [
    (DEEP, "too_deep"),
    (DEEPISH, "too_deep"),
    ('{"a": NaN}', "constant"),
    ('{"a": Infinity}', "constant"),
    ('{"a": -Infinity}', "constant"),
    ("{not json", "not_json"),
    ('{"a": 1', "not_json"),
    ("\ufeff{}", "bom"),
    ("[1, 2]", "not_object"),
    ('"text"', "not_object"),
]


@pytest.mark.parametrize(("text", "kind"), REFUSED, ids=[k + str(i) for i, (_, k) in enumerate(REFUSED)])
def test_what_the_reader_refuses_is_named_by_its_kind(text: str, kind: str) -> None:
    with pytest.raises(untrusted.Refused) as refused:
        untrusted.loads(text, want=dict)
    assert refused.value.kind == kind, str(refused.value)
    assert refused.value.kind in untrusted.KINDS


def test_bytes_are_utf8_only_and_a_bom_is_named() -> None:
    with pytest.raises(untrusted.Refused) as refused:
        untrusted.loads(b'{"a": "\xff"}')
    assert refused.value.kind == "not_utf8" and "byte" in str(refused.value)
    with pytest.raises(untrusted.Refused) as refused:
        untrusted.loads(b"\xef\xbb\xbf{}")
    assert refused.value.kind == "bom"
    with pytest.raises(untrusted.Refused) as refused:  # json.loads would take UTF-16 as it guesses it
        untrusted.loads('{"a": 1}'.encode("utf-16"))
    assert refused.value.kind in ("not_utf8", "bom")


def test_limits_and_duplicate_keys() -> None:
    with pytest.raises(untrusted.Refused) as refused:
        untrusted.loads('{"a": "' + "x" * 100 + '"}', max_bytes=50)
    assert refused.value.kind == "too_big"
    with pytest.raises(untrusted.Refused) as refused:
        untrusted.loads('{"a": 1, "a": 2}', unique_keys=True)
    assert refused.value.kind == "duplicate_key"
    assert untrusted.loads('{"a": 1, "a": 2}') == {"a": 2}  # only where the caller asks
    nested = "[" * 100 + "]" * 100
    assert untrusted.loads(nested) is not None  # MAX_DEPTH itself is fine
    assert untrusted.loads(DEEPISH, max_depth=None) is not None  # the depth left to the caller's shape checks
    with pytest.raises(untrusted.Refused):
        untrusted.loads(DEEP, max_depth=None)  # but never a RecursionError


def test_brief_never_raises() -> None:
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert "too deep" in untrusted.brief(deep)
    assert untrusted.brief(float("nan")) in ("NaN", "(a number too deep or too odd to show)")
    assert untrusted.brief({"a": 1}) == '{"a": 1}'


def test_read_document_names_the_file_and_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "thing.json"
    path.write_text(DEEP, encoding="utf-8")
    with pytest.raises(untrusted.BadDocument) as bad:
        untrusted.read_document(path, "report")
    assert str(path) in str(bad.value) and "not a report" in str(bad.value)
    with pytest.raises(untrusted.BadDocument) as bad:
        untrusted.read_document(tmp_path / "absent.json", "report")
    assert "cannot read the report" in str(bad.value)
    assert isinstance(bad.value, ValueError)  # callers that catch ValueError see it


def test_read_lines_keeps_each_lines_verdict(tmp_path: Path) -> None:
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b'{"a": 1}\n' + DEEP.encode() + b'\n[1,2]\n\n{"b": NaN}\n{"c": 2}')
    lines = untrusted.read_lines(path, "checkpoint")
    assert [number for number, _, _ in lines] == [1, 2, 3, 5, 6]
    kinds = [value.kind if isinstance(value, untrusted.Refused) else "ok" for _, _, value in lines]
    assert kinds == ["ok", "too_deep", "not_object", "constant", "ok"]


# -- every reader of a file, given a file the reader refuses -------------------------------------------------

BAD_FILES = {"deep": DEEP, "nan": '{"schema": "divergence-report-v2", "ok": NaN}', "bom": "\ufeff{}",
             "array": "[1, 2]", "cut": '{"schema": "divergence-report-v2", "ok": tr'}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
@pytest.mark.parametrize("argv", [("report", "show", "{bad}"), ("report", "diff", "{bad}", "{bad}"),
                                  ("report", "html", "{bad}", "--out", "{out}"),
                                  ("report", "html", "--baseline", "{bad}", "--out", "{out}"),
                                  ("check", "--impl", "reference", "--results", "{results}", "--baseline", "{bad}")],
                         ids=lambda argv: "-".join(argv[:2]))
def test_a_report_the_reader_refuses_is_status_2_naming_the_file(
        kind: str, argv: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / f"{kind}.json"
    bad.write_text(BAD_FILES[kind], encoding="utf-8")
    out = tmp_path / "page"
    filled = [part.format(bad=bad, out=out, results=tmp_path / "r.json") for part in argv]
    assert cli.main(filled) == USAGE
    err = capsys.readouterr().err
    assert str(bad) in err and "Traceback" not in err, err
    assert not (tmp_path / "r.json").exists() and not out.exists()  # nothing was run, nothing written


def test_the_page_skips_a_deep_file_among_the_reports(tmp_path: Path) -> None:
    from harness.cli import page

    (tmp_path / "deep.json").write_text(DEEP, encoding="utf-8")
    (tmp_path / "nan.json").write_text('{"schema": NaN}', encoding="utf-8")
    assert page.latest_reports(tmp_path) == []


def test_the_plan_of_nox_breaks_a_deep_declaration_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """nox plans through the harness's own reader of declarations: a deep one and one with a key twice are
    each broken alone, named with their file; the others are planned."""
    import sys

    from harness.tools import parity_plan

    (tmp_path / "deep.json").write_text(DEEP, encoding="utf-8")
    (tmp_path / "twice.json").write_text('{"start": {}, "start": {}, "build": [], "hint": ""}', encoding="utf-8")
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    found, broken = parity_plan.read_declarations(sys.executable)
    assert "reference" in found and not {"deep", "twice"} & set(found)
    assert sorted(broken) == ["deep", "twice"]
    assert "nesting deeper" in broken["deep"] and str(tmp_path) in broken["deep"]
    assert "twice" in broken["twice"]


def test_parity_counts_that_are_not_a_document_are_a_problem(tmp_path: Path) -> None:
    from harness.tools import parity_plan

    ran = tmp_path / "ran.json"
    for text in (DEEP, '{"counts": NaN}', '{"counts": [1]}'):
        ran.write_text(text, encoding="utf-8")
        problems = parity_plan.check_ran(ran, ["reference"])
        assert len(problems) == 1 and "no per-implementation counts" in problems[0], problems


def test_reports_check_names_a_deep_report(tmp_path: Path) -> None:
    from harness.tools import reports_check

    path = tmp_path / "deep.json"
    path.write_text(DEEP, encoding="utf-8")
    problems = reports_check.check_file(path, tmp_path)
    assert len(problems) == 1 and str(path) in problems[0], problems


# -- texts inside a testee's answers, and requests to the protocol's server side ---------------------------

def test_a_deep_json_output_is_a_content_difference_not_a_crash() -> None:
    from harness.model.compare import mismatch, parse_result

    assert parse_result("decide_write", DEEP) == (False, DEEP)
    assert "not valid JSON" in (mismatch("decide_write", {"result": {"action": "skip"}}, {"ok": DEEP}) or "")


def test_a_deep_or_nan_trace_is_a_trace_error() -> None:
    from harness.model import traces

    for text in (DEEP, '{"schema": "trace-v1", "steps": [], "outcome": {"ok": NaN}}'):
        with pytest.raises(traces.TraceError):
            traces.parse(text)


def test_a_deep_unicode_versions_answer_is_no_versions() -> None:
    from harness.differential.explain import unicode_versions_of

    class Liar:
        def call(self, op: str, args: dict) -> dict:
            return {"ok": DEEP}

    assert unicode_versions_of({"liar": Liar()}) == {"liar": {}}  # type: ignore[dict-item]


def test_harness_run_answers_a_deep_or_nan_request_bad_request_and_goes_on() -> None:
    import subprocess
    import sys

    lines = ['{"id": 1, "op": "normalize_fact_text", "args": {"text": ' + DEEP + "}}",
             '{"id": 2, "op": "normalize_fact_text", "args": {"text": NaN}}',
             '{"id": 3, "op": "normalize_fact_text", "args": {"text": "Hello"}}']
    done = subprocess.run([sys.executable, "-m", "harness", "run", "--impl", "reference"],
                          input="\n".join(lines) + "\n", cwd=Path(__file__).resolve().parents[2],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a.get("error", {}).get("code") for a in answers[:2]] == ["bad_request", "bad_request"]
    assert answers[2] == {"id": 3, "ok": "hello"}


# -- what the harness writes, its readers take ---------------------------------------------------------------

def _nested(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_clip_keeps_a_value_one_level_past_the_contract_and_cuts_below() -> None:
    shown = _nested(untrusted.VALUE_DEPTH)
    assert untrusted.clip(shown) == shown  # a 101-level value (a plant that accepts it) is shown whole
    clipped = untrusted.clip(_nested(900))
    assert not untrusted.too_deep(clipped, untrusted.VALUE_DEPTH)
    assert untrusted.too_deep(clipped, untrusted.VALUE_DEPTH - 1)  # cut at the limit, not above it
    assert "cut" in json.dumps(clipped)
    assert untrusted.clip({"a": "text", "b": 1.5}) == {"a": "text", "b": 1.5}


def test_a_report_with_a_testee_value_at_the_depth_kept_reads_back(tmp_path: Path) -> None:
    """The CI failure of stop 39: a plant accepting 101 levels left a trace value of 101 levels inside a
    report's own structure (105 in all), and every reader refused the report the harness had written."""
    from harness.classes import report, rundiff
    from harness.model import files

    document = {"schema": "divergence-report-v2", "divergences": [
        {"traceAtStep": {"reference": {"step": "x", "value": untrusted.clip(_nested(5000))}}}]}
    path = tmp_path / "r.json"
    files.write_document(path, document, replaces=report.READABLE, what="divergence report")
    assert untrusted.read_document(path, "report")["divergences"]
    with pytest.raises(ValueError) as bad:  # schema problems, not JSON ones: the document itself was read
        rundiff.read(path)
    assert "cannot read it as JSON" not in str(bad.value)
    unclipped = {"schema": "divergence-report-v2", "value": _nested(untrusted.DOCUMENT_DEPTH + 1)}
    with pytest.raises(RuntimeError, match="untrusted.clip"):  # the writer's own guard: nothing unreadable
        files.write_document(tmp_path / "deep.json", unclipped, replaces=report.READABLE, what="report")
    assert not (tmp_path / "deep.json").exists()


def test_every_file_reader_looks_at_the_size_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One bounded read (``untrusted.read_bounded``) behind documents, reports and JUnit files: a file over
    its limit is refused naming the file and the limit, as JSON or as JUnit XML."""
    from harness.classes import rundiff

    big = tmp_path / "big.json"
    big.write_text('{"schema": "x", "pad": "' + "a" * 200 + '"}', encoding="utf-8")
    monkeypatch.setitem(untrusted.LIMITS, "report", 100)
    with pytest.raises(untrusted.BadDocument, match=r"big\.json: not a report: .* more than the limit of 100"):
        rundiff.read(big)
    with pytest.raises(untrusted.BadDocument, match="more than the limit of 100"):
        untrusted.read_document(big, "report", max_bytes=100)
    junit = tmp_path / "j.xml"
    junit.write_text("<testsuites>" + " " * 200 + "</testsuites>", encoding="utf-8")
    monkeypatch.setitem(untrusted.LIMITS, "report", 1000)
    monkeypatch.setitem(untrusted.LIMITS, "JUnit XML file", 100)
    with pytest.raises(untrusted.BadDocument, match="JUnit XML file: .*more than the limit of 100"):
        rundiff.read(junit)  # told by its name
    with pytest.raises(untrusted.BadDocument, match="JUnit XML file: .*more than the limit of 100"):
        rundiff.read(junit.rename(tmp_path / "j.json"))  # told by its first byte
