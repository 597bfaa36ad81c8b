"""Caps on what a testee sends (issue 49, item 5; harness/model/caps.py): an answer's value, an error message and
each string of a self-description over its cap is kept as its first characters, its length and its digest, is a
finding (oversized_answer, oversized_description), and is still compared exactly; the harness's memory stays
bounded whatever a testee sends, and its reports small."""

from __future__ import annotations

import json
import math
import os
import pickle
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.differential.outcomes import agreeing, same_outcome
from harness.model import caps
from harness.model.compare import mismatch, same_json
from harness.testees import command, impls
from harness.tools.hostile_faults import declare

ROOT = impls.ROOT
BOUND_MIB = 512  # the harness's peak memory, whatever a testee sends (ru_maxrss of the command's processes)
MEASURE = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(done.returncode)")


def measured(folder: Path, *args: str, timeout: float = 180) -> tuple[subprocess.CompletedProcess[str], int]:
    """A harness command run with ``folder``'s declarations, and its peak resident memory in MiB (the largest of
    its processes, the command's, its workers' and its testees')."""
    env = {**os.environ, impls.EXTRA_ENV: str(folder)}
    result = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "harness", *args], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=timeout, check=False)
    peak = int(result.stderr.strip().splitlines()[-1]) // 1024
    return result, peak


# --- comparisons stay exact --------------------------------------------------------------------------------------

def capped(text: str, op: str, force: bool) -> str:
    return caps.oversized(text, json_result=op in ("decide_write", "unicode_versions")) if force else text


numbers = st.one_of(st.integers(-3, 3), st.sampled_from([1.0, -0.0, 0.0, 2.5, 1e300, 10 ** 400, math.nan]))
values = st.recursive(st.one_of(st.none(), st.booleans(), numbers, st.sampled_from(["", "a", "b", "\ud800"])),
                      lambda inner: st.one_of(st.lists(inner, max_size=3),
                                              st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)),
                      max_leaves=8)


def texts_of(value: object, flavour: int) -> str:
    """A JSON text of ``value``: several spellings of one value (key order, spacing, 1 as 1.0, NaN)."""
    if flavour == 3:
        return "not json {" + json.dumps(value)
    text = json.dumps(value, sort_keys=flavour == 1, indent=None if flavour != 2 else 1)
    return text.replace("1e+300", "1.0e300") if flavour == 2 else text


def respelled(value: object) -> object:
    """The same value to same_json, spelled otherwise: its small integers as floats, its objects' keys reversed."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value) if abs(value) < 2 ** 53 else value
    if isinstance(value, list):
        return [respelled(item) for item in value]
    if isinstance(value, dict):
        return {key: respelled(value[key]) for key in reversed(list(value))}
    return value


def pairs() -> st.SearchStrategy[tuple[object, object]]:
    """Two values: unrelated, equal, or equal and spelled otherwise (1 and 1.0)."""
    return values.flatmap(lambda a: st.tuples(st.just(a), st.one_of(values, st.just(a), st.just(respelled(a)))))


@settings(max_examples=300, deadline=None)
@given(pair=pairs(), fa=st.integers(0, 3), fb=st.integers(0, 3), ca=st.booleans(), cb=st.booleans())
def test_a_json_answer_compares_the_same_capped_or_not(pair, fa, fb, ca, cb) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    ta, tb = texts_of(a, fa), texts_of(b, fb)
    plain = same_outcome("decide_write", {"ok": ta}, {"ok": tb})
    assert same_outcome("decide_write", {"ok": capped(ta, "decide_write", ca)},
                        {"ok": capped(tb, "decide_write", cb)}) == plain
    assert agreeing("decide_write", {"x": {"ok": capped(ta, "decide_write", ca)},
                                     "y": {"ok": capped(tb, "decide_write", cb)}}) == plain
    if fa != 3:  # against a fixture's expectation (a parsed value)
        want = mismatch("decide_write", {"result": a}, {"ok": tb}) is None
        assert (mismatch("decide_write", {"result": a}, {"ok": capped(tb, "decide_write", cb)}) is None) == want


@settings(max_examples=300, deadline=None)
@given(a=st.text(max_size=6), b=st.text(max_size=6), ca=st.booleans(), cb=st.booleans())
def test_a_text_answer_compares_the_same_capped_or_not(a, b, ca, cb) -> None:  # type: ignore[no-untyped-def]
    op = "normalize_fact_text"
    plain = same_outcome(op, {"ok": a}, {"ok": b})
    assert plain == (a == b)
    assert same_outcome(op, {"ok": capped(a, op, ca)}, {"ok": capped(b, op, cb)}) == plain
    assert agreeing(op, {"x": {"ok": capped(a, op, ca)}, "y": {"ok": capped(b, op, cb)}}) == plain
    assert (mismatch(op, {"result": a}, {"ok": capped(b, op, cb)}) is None) == plain


@settings(max_examples=300, deadline=None)
@given(pair=pairs())
def test_the_canonical_digest_is_same_json(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    assert (caps.canonical_digest(a) == caps.canonical_digest(b)) == same_json(a, b)


def test_twelve_mib_answers_agree_when_equal_and_differ_when_not() -> None:
    right = "memory " * (12 << 17)  # 12 * 7 * 128 Ki characters
    kept = caps.oversized(right)
    assert len(kept) < 600 and str(kept).startswith("memory memory") and f"{len(right):,} characters" in kept
    op = "normalize_fact_text"
    assert same_outcome(op, {"ok": kept}, {"ok": caps.oversized(right)})
    assert same_outcome(op, {"ok": kept}, {"ok": right})
    assert not same_outcome(op, {"ok": kept}, {"ok": caps.oversized(right[:-1] + "!")})
    assert not same_outcome(op, {"ok": kept}, {"ok": right[:-1] + "!"})
    twin = pickle.loads(pickle.dumps(kept))  # fuzz workers ship answers to the parent
    assert isinstance(twin, caps.Oversized) and twin == kept
    assert json.loads(json.dumps({"ok": kept})) == {"ok": str(kept)}  # a string in every report
    spaced = json.dumps({"b": list(range(20_000)), "a": 1.0})
    assert same_outcome("decide_write", {"ok": caps.oversized(spaced, True)},
                        {"ok": json.dumps({"a": 1, "b": list(range(20_000))}, indent=2)})


def test_a_description_keeps_its_strings_capped() -> None:
    described, found = caps.cap_description({"protocol": 2, "name": "n" * 5000, "unicode": {"k" * 2000: "15.0.0"},
                                             "contracts": ["v1"]})
    assert [where for where, _ in found] == ["/name", "/unicode/(a key)"] and found[0][1] == 5000
    assert len(json.dumps(described)) < 2000 and described["contracts"] == ["v1"]


# --- the client ---------------------------------------------------------------------------------------------------

def test_the_client_caps_a_huge_answer_and_names_it(hostile) -> None:  # type: ignore[no-untyped-def]
    testee = hostile("huge_answer", at=3, extra_env={"HOSTILE_HUGE_MIB": "2"})
    texts = [f"Fact {i}" for i in range(6)]
    for form in (True, False):  # batch lines (the fast path), then one request per line
        testee.batch_form = form
        responses = testee.call_batch([("normalize_fact_text", {"text": t}) for t in texts])
        huge = [r["ok"] for r in responses if isinstance(r["ok"], caps.Oversized)]
        assert len(huge) == 1 and huge[0].length == len("fact 2") + (2 << 20), responses
        assert all(len(r["ok"]) < 1000 for r in responses)
    (finding,) = [f for f in testee.findings.to_json() if f["kind"] == "oversized_answer"]
    assert f"{len('fact 2') + (2 << 20):,} characters" in finding["message"] and "65,536" in finding["message"]
    assert finding["count"] == 2 and finding["family"] == "protocol"


def test_the_client_caps_a_huge_self_description(hostile) -> None:  # type: ignore[no-untyped-def]
    testee = hostile("huge_description")
    assert len(json.dumps(testee.description)) < 4000
    assert f"{4 << 20:,} characters" in testee.description["name"]
    (finding,) = [f for f in testee.findings.to_json() if f["kind"] == "oversized_description"]
    assert "3 string(s)" in finding["message"] and "/name" in finding["message"]
    assert testee.call("normalize_fact_text", {"text": "A"}) == {"ok": "a"}  # the run goes on


def test_lines_read_ahead_are_bounded_in_bytes(tmp_path: Path) -> None:
    """A testee that writes many long lines nobody asked for: at most _QUEUED_BYTES of them (or one line) held."""
    script = tmp_path / "flood.py"
    script.write_text("import sys, time\nline = b'x' * (1 << 20) + b'\\n'\n"
                      "for _ in range(24):\n    sys.stdout.buffer.write(line)\nsys.stdout.buffer.flush()\n"
                      "time.sleep(30)\n", encoding="ascii")
    proc = command.TesteeProcess([sys.executable, str(script)], None, None)
    try:
        time.sleep(1.5)
        assert proc.lines.qsize() <= command._QUEUED_BYTES // (1 << 20) + 1, proc.lines.qsize()
        got = [proc.next_line(time.monotonic() + 5) for _ in range(24)]  # then every line comes, in its turn
        assert all(line == b"x" * (1 << 20) for line in got)
    finally:
        proc.kill()


SWAMP = textwrap.dedent("""
    import json, sys
    big = eval(sys.argv[1])
    for raw in sys.stdin:
        request = json.loads(raw)
        if request.get("op") == "start":
            answer = {"id": request["id"], "ok": {"protocol": 2, "name": "swamp", "version": "1", "language": "Python",
                                                  "unicode": {}, "contracts": ["v1"]}}
        elif "batch" in request:
            answer = {"id": request["id"], "error": {"code": "bad_request", "message": "no batches"}}
        elif big.startswith("!!"):  # "!!TEXT": an error whose message is TEXT
            answer = {"id": request["id"], "error": {"code": "invalid_type", "message": big}}
        else:
            answer = {"id": request["id"], "ok": big}
        # "@@TEXT": the ok is TEXT itself, raw JSON in the line
        raw = big.startswith("@@") and type(request["id"]) is int and "ok" in answer
        sys.stdout.write(('{"id": %d, "ok": %s}' % (request["id"], big[2:]) if raw else json.dumps(answer)) + "\\n")
        sys.stdout.flush()
""")
CLIENT = textwrap.dedent("""
    import resource, sys
    from harness.testees.command import CommandTestee
    testee = CommandTestee([sys.executable, sys.argv[1], sys.argv[2]], name="swamp", timeout=30)
    args = {"text": "a", "embedding_json": "[1]", "candidates_json": "[]"} if sys.argv[4] == "decide_write" else {}
    responses = testee.call_batch([(sys.argv[4], {"text": str(i), **args}) for i in range(int(sys.argv[3]))])
    assert all(len(r.get("ok", "")) < 1000 for r in responses), [len(r.get("ok", "")) for r in responses]
    assert all(len(r.get("error", {}).get("message", "")) < 1000 for r in responses)
    testee.close()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    print(sorted(f["kind"] for f in testee.findings.to_json()))
""")


DENSE = '"[" + "[]," * (5 << 20) + "[]]"'  # 15 MiB: Python's parser took 420 MiB for it


@pytest.mark.parametrize(("big", "op", "count", "kinds"), [
    ('"x" * (15 << 20)', "normalize_fact_text", 40, ["oversized_answer"]),  # 600 MiB in all
    (DENSE, "decide_write", 3, ["malformed_answer"]),  # a JSON result's text that dense
    ('"@@" + ' + DENSE, "decide_write", 3, ["malformed_answer"]),  # the line itself: {"id":N,"ok":[[],[],...]}
    ('"!!" + "e" * (1 << 20)', "normalize_fact_text", 40, ["oversized_answer"]),  # error messages of 1 MiB
], ids=["answers", "dense-text", "dense-line", "messages"])
def test_huge_answers_keep_the_client_small(tmp_path: Path, big: str, op: str, count: int,
                                            kinds: list[str]) -> None:
    """Answers of 15 MiB each (each under the line limit): none kept whole, none parsed past MAX_CONTAINERS, the
    client's peak memory under the bound."""
    (tmp_path / "swamp.py").write_text(SWAMP, encoding="ascii")
    result = subprocess.run([sys.executable, "-c", CLIENT, str(tmp_path / "swamp.py"), big, str(count), op],
                            cwd=ROOT, capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    peak, found = result.stdout.splitlines()[-2:]
    assert int(peak) < BOUND_MIB, result.stdout
    assert set(eval(found)) == set(kinds), found


# --- whole commands ------------------------------------------------------------------------------------------------

def test_fuzz_finds_the_content_bug_of_a_huge_answer_and_keeps_it_small(tmp_path: Path) -> None:
    declare(tmp_path / "decl", "huge_answer", request_deadline=5)
    report = tmp_path / "report.json"
    result, peak = measured(tmp_path / "decl", "fuzz", "--impls", "reference,hostile", "--seconds", "5",
                            "--stop-after-new", "0.5", "--workers", "1", "--seed", "7", "--report", str(report))
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    assert report.stat().st_size < 300_000
    (divergence,) = data["divergences"]
    shown = divergence["outputs"]["hostile"]["ok"]
    assert "[oversized: " in shown and "sha256 " in shown and len(shown) < 1000
    assert shown.startswith(divergence["outputs"]["reference"]["ok"])
    (finding,) = [f for f in data["findings"] if f["kind"] == "oversized_answer"]
    assert "65,536" in finding["message"]
    assert peak < BOUND_MIB, peak


def test_check_keeps_a_huge_answer_out_of_its_results(tmp_path: Path) -> None:
    declare(tmp_path, "huge_answer", request_deadline=5)
    results = tmp_path / "results.json"
    result, peak = measured(tmp_path, "check", "--impl", "hostile", "--results", str(results))
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert "FINDING hostile: oversized_answer" in result.stdout and "[oversized: " in result.stdout
    assert results.stat().st_size < 400_000
    assert peak < BOUND_MIB, peak


def test_a_huge_self_description_is_a_finding_and_the_report_stays_small(tmp_path: Path) -> None:
    declare(tmp_path / "decl", "huge_description", request_deadline=5)
    report = tmp_path / "report.json"
    result, peak = measured(tmp_path / "decl", "fuzz", "--impls", "reference,hostile", "--seconds", "2",
                            "--workers", "1", "--seed", "7", "--report", str(report))
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    assert report.stat().st_size < 100_000
    assert data["divergences"] == []
    assert "oversized_description" in {f["kind"] for f in data["findings"]}
    described = data["run"]["implementations"]["hostile"]
    assert f"{4 << 20:,} characters" in described["version"]
    from harness.model.schemas import problems

    assert problems(data) == []
    assert peak < BOUND_MIB, peak


@pytest.mark.parametrize("limit", [caps.ANSWER_CAP, caps.MESSAGE_CAP, caps.DESCRIPTION_CAP])
def test_a_value_at_its_cap_is_kept_whole(limit: int) -> None:
    assert caps.cap("a" * limit, limit) == "a" * limit
    assert isinstance(caps.cap("a" * (limit + 1), limit), caps.Oversized)


def test_a_dense_json_result_is_compared_by_its_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(caps, "MAX_CONTAINERS", 10)
    text = json.dumps([[]] * 20)
    kept = caps.oversized(text, json_result=True)
    assert kept.key[0] == "dense"  # never parsed
    assert same_outcome("decide_write", {"ok": kept}, {"ok": caps.oversized(text, json_result=True)})
    assert not same_outcome("decide_write", {"ok": kept}, {"ok": "[]"})
