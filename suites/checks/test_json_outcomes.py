"""A JSON result is compared as the JSON value its text holds everywhere, with the one comparison the differential
uses (``compare.same_result``) (issue 51, item 2): where two traces part (``traces.first_difference``: ``trace``,
the parity step-trace suite, the classifier), a trace's outcome against its op's own answer (``tracecheck``,
``selftest``), the ``trace`` table's ``=``. Node's ``["a","b"]`` and Python's ``["a", "b"]`` agree in ``trace``,
``tracecheck`` and ``diff`` alike, so do ``1`` and ``1.0`` and an object's members in another order; values that
really differ still part."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.cli.trace_view import side_by_side
from harness.model.caps import oversized, value_key
from harness.model.compare import same_result
from harness.model.traces import first_difference, same_outcome
from harness.testees.traces import problems
from suites.cli import outside_family

OP = "decide_write"  # a JSON-result op of the registry
COMPACT = '{"action":"insert","reason":"no_match","match":null,"note":"\u00e9"}'
SAME = [  # the same JSON value as COMPACT, written otherwise
    '{"action": "insert", "reason": "no_match", "match": null, "note": "\\u00e9"}',  # Python's json.dumps
    '{\n "note": "\u00e9",\n "match": null,\n "reason": "no_match",\n "action": "insert"\n}',  # indented, reordered
]
OTHER = ['{"action":"insert","reason":"no_match","match":null,"note":"e"}',
         '{"action":"insert","reason":"no_match","match":null}', '[1]', "not json"]


def _trace(result: str) -> dict[str, Any]:
    return {"schema": "trace-v1", "op": OP, "steps": [{"step": "args", "value": {"text": "x"}},
                                                     {"step": "gate.text", "value": "x"}],
            "outcome": {"result": result}}


@pytest.mark.parametrize("text", SAME)
def test_equal_json_agrees_in_every_comparison(text: str) -> None:
    assert same_result(OP, COMPACT, text)
    assert value_key(COMPACT, True) == value_key(text, True)  # what an oversized answer is compared by: the same
    assert same_result(OP, oversized(COMPACT, True), text) and same_result(OP, COMPACT, oversized(text, True))
    assert first_difference(_trace(COMPACT), _trace(text)) is None
    assert same_outcome(OP, {"result": COMPACT}, {"result": text})
    assert problems(OP, {"ok": json.dumps(_trace(text))}, {"ok": COMPACT}) == []  # ends in its op's answer
    table = side_by_side(OP, {"text": "x"}, {"ref": _trace(COMPACT), "twin": _trace(text)}, "ref", {}, {}, width=200)
    assert "every trace agrees with ref's" in table and ">>" not in table
    (row,) = [line.split() for line in table.splitlines() if line.split()[:1] == ["outcome"]]
    assert row[-1] == "=", table  # its cell says it shows what the oracle's does


def test_numbers_compare_as_numbers() -> None:
    assert same_result(OP, '{"n":1,"k":[2]}', '{"k":[2.0],"n":1.0}')
    assert first_difference(_trace('{"n":1}'), _trace('{"n": 1.0}')) is None
    assert first_difference(_trace('{"n":1}'), _trace('{"n": 1.5}')) is not None
    assert first_difference(_trace('{"n":0.0}'), _trace('{"n":-0.0}')) is not None  # binary64 bits, as diff


@pytest.mark.parametrize("text", OTHER)
def test_really_different_values_still_part(text: str) -> None:
    assert not same_result(OP, COMPACT, text)
    assert value_key(COMPACT, True) != value_key(text, True)
    assert not same_result(OP, oversized(COMPACT, True), text)
    parting = first_difference(_trace(COMPACT), _trace(text))
    assert parting is not None and parting.step == "outcome"
    assert problems(OP, {"ok": json.dumps(_trace(text))}, {"ok": COMPACT}) != []
    table = side_by_side(OP, {"text": "x"}, {"ref": _trace(COMPACT), "twin": _trace(text)}, "ref", {}, {}, width=200)
    assert "twin part from ref" in table


def test_a_text_result_is_still_compared_as_text() -> None:
    text_op = {**_trace('["a","b"]'), "op": "normalize_fact_text"}
    assert first_difference(text_op, {**text_op, "outcome": {"result": '["a", "b"]'}}) is not None
    assert not same_result("normalize_fact_text", '["a","b"]', '["a", "b"]')


SCRIPT = r"""
import contextlib, io, json, sys
from harness.cli.main import main

impls = sys.argv[1]

def run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    return [status, out.getvalue()]

seen = {}
for op, text in (("h1_words", "a b \u00e9"), ("h1_count", "a b"), ("h1_words", "a q"), ("h1_count", "a qq")):
    seen[f"{op} {text}"] = {"trace": run("trace", "--impls", impls, op, text),
                            "diff": run("diff", "--impls", impls, "--json", op, text)}
seen["tracecheck"] = run("tracecheck", "--impls", impls, "--ops", "h1_words,h1_count", "--examples", "300")
print(json.dumps(seen))
"""


def test_an_outside_familys_json_results_agree_in_trace_tracecheck_and_diff(tmp_path: Path) -> None:
    """The outside family's twin writes its JSON as JSON.stringify does and its traces' outcomes indented; the
    reference as json.dumps does: equal values agree in the three commands, a dropped word and a count one too
    many part in all three."""
    folder = outside_family.write(tmp_path / "fam")
    done = subprocess.run([sys.executable, "-c", SCRIPT, outside_family.IMPLS], cwd=tmp_path,
                          env=outside_family.environment(folder), capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    for key, step in (("h1_words a b \u00e9", None), ("h1_count a b", None), ("h1_words a q", "words.split"),
                      ("h1_count a qq", "outcome")):
        (trace_status, table), (diff_status, report) = seen[key]["trace"], seen[key]["diff"]
        classes = json.loads(report)["divergences"]
        if step is None:
            assert trace_status == 0 and "every trace agrees" in table, (key, table)
            assert diff_status == 0 and classes == [], (key, classes)
        else:
            assert trace_status == 1 and f"({step}): h1-twin part from h1-ref" in table, (key, table)
            assert diff_status == 1 and [c["step"] for c in classes] == [step], (key, classes)
    status, said = seen["tracecheck"]
    assert status == 0 and said.count("300 traced") == 4 and "PROBLEM" not in said, said
