"""The reference's step traces (reference/tracing.py, schemas/trace-v1.schema.json): from the op's own code
path, in the specification's step order, ending in the op's own outcome; a planted bug shows at its step."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from typing import Any

import jsonschema
import pytest

import reference.dedup_context
import reference.normalize
import reference.strict_json
import reference.tracing
import reference.write_gate
from harness.fixtures.load import all_cases
from harness.model.paths import SCHEMAS
from harness.model.registry import get_op
from harness.testees.traces import problems
from reference import steps
from reference.tracing import TRACED, encode, trace

SCHEMA = jsonschema.Draft202012Validator(json.loads((SCHEMAS / "trace-v1.schema.json").read_text()))
CASES = [case for case in all_cases() if case.op in TRACED]


def _outcome(op: str, args: dict[str, Any]) -> dict[str, Any]:
    """The op's own outcome, called as it ships (no recording)."""
    try:
        return {"result": encode(getattr(reference, op)(**args))}
    except reference.ContractError as exc:
        return {"error": exc.code, "step": exc.step}


def test_every_fixture_case_traces_to_its_own_outcome_in_step_order() -> None:
    assert {case.op for case in CASES} == {op for op in TRACED if get_op(op).fixture is not None} and len(CASES) > 500
    seen: set[str] = set()  # step entries (after the first) already validated, by their exact JSON
    for case in CASES:
        document = json.loads(trace(case.op, case.args))
        SCHEMA.validate(_unseen_steps(document, seen))
        assert document["outcome"] == _outcome(case.op, case.args), case.full_id
        order = [step.id for step in get_op(case.op).steps]
        validating = {step.id for step in get_op(case.op).steps if step.code is not None}
        own = [entry["step"] for entry in document["steps"][1:] if entry["step"] in order]
        # The argument checks come in the spec's order (a check per candidate or item repeats).
        first = list(dict.fromkeys(step for step in own if step in validating))
        assert first == sorted(first, key=order.index), case.full_id
        assert all(entry["step"] in order or entry["step"].startswith("norm.")
                   for entry in document["steps"][1:]), case.full_id
        if "result" in document["outcome"] and case.op == "normalize_fact_text":
            assert own == order, case.full_id  # every step ran, each once, in order
            assert document["steps"][-1]["value"] == document["outcome"]["result"]
        if "result" in document["outcome"] and case.op == "decide_write":
            last = document["steps"][-1]
            assert last["step"] == "gate.decision" and last["value"] == encode(json.loads(case_result(case)))
        if "result" in document["outcome"] and case.op == "build_dedup_context":
            last = document["steps"][-1]
            assert last["step"] in ("ctx.output", "ctx.pin_note") and last["value"] == document["outcome"]["result"]


def _unseen_steps(document: dict[str, Any], seen: set[str]) -> dict[str, Any]:
    """The document with only the step entries after the first that no earlier document held: the schema checks
    each of those alone against `items` (no uniqueItems, contains or maxItems), so an entry seen once is valid
    everywhere and the verdict is the whole document's; the recursive `value` oneOf made this test 30 s."""
    first, *rest = document["steps"]
    keys = [json.dumps(entry, sort_keys=True) for entry in rest]
    fresh = [entry for key, entry in dict(zip(keys, rest, strict=True)).items() if key not in seen]
    seen.update(keys)
    return {**document, "steps": [first, *fresh]}


def case_result(case: Any) -> str:
    return getattr(reference, case.op)(**case.args)


def _first_difference(op: str, args: dict[str, Any], plant: Any, monkeypatch: pytest.MonkeyPatch) -> str | None:
    clean = json.loads(trace(op, args))["steps"]
    with monkeypatch.context() as patched:
        plant(patched)
        planted = json.loads(trace(op, args))["steps"]
    return next((b["step"] for a, b in zip(clean, planted, strict=True) if a != b), None)


@pytest.mark.parametrize("text, plant, step", [
    ("It\u2019s here", lambda m: m.setattr(reference.normalize, "QUOTE_DASH_MAP", {
        k: v for k, v in reference.normalize.QUOTE_DASH_MAP.items() if k != 0x2019}), "norm.quote_dash"),
    ("a\u00a0b", lambda m: m.setattr(reference.normalize, "collapse_white_space", lambda t: " ".join(t.split(" "))),
     "norm.white_space"),
    ("tea\u2026", lambda m: m.setattr(reference.normalize, "strip_edges", lambda t: t.strip(".")), "norm.edges"),
    ("Cafe\u0301", lambda m: m.setattr(reference.normalize, "nfc", lambda t: t), "norm.nfc"),
])
def test_a_planted_bug_shows_at_its_step(text: str, plant: Any, step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _first_difference("normalize_fact_text", {"text": text}, plant, monkeypatch) == step


GATE = {"text": "New", "embedding_json": "[0.1,1]", "candidates_json": '[{"id":"a","text":"A","embedding":[0.3,0.9]}]',
        "threshold": 0}


@pytest.mark.parametrize("plant, step", [
    (lambda m: m.setattr(reference.write_gate, "to_binary32", lambda x: x), "gate.binary32"),
    (lambda m: m.setattr(reference.write_gate, "plain_sum_of_products",
                         lambda a, b: math.fsum(x * y for x, y in zip(a, b, strict=True)) * (1 + 2**-40)),
     "gate.similarity"),
    (lambda m: m.setattr(reference.write_gate, "outcomes",
                         lambda mode, force: (("skip", "exact_duplicate"), ("store", "near_duplicate_kept"))),
     "gate.decision"),
    (lambda m: m.setattr(reference.write_gate, "require_mode", lambda mode: "mirror"), "gate.mode"),
])
def test_a_planted_gate_bug_shows_at_its_step(plant: Any, step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _first_difference("decide_write", GATE, plant, monkeypatch) == step


def test_recording_is_off_outside_a_trace_and_nests() -> None:
    assert steps._RECORD is None
    with steps.recording() as outer:
        steps.note("a.b", 1)
        with steps.recording() as inner:
            steps.note("c.d", 2)
        steps.note("e.f", 3)
    assert outer == [("a.b", 1), ("e.f", 3)] and inner == [("c.d", 2)] and steps._RECORD is None
    reference.normalize_fact_text("A")  # no recording: nothing kept anywhere
    assert steps._RECORD is None


def test_an_untraced_op_is_refused() -> None:
    from harness.model.registry import OPS

    # The reference traces every op of its family the differential suites compare, and no other.
    family = [op for op in OPS.values() if op.family == "memgate"]
    assert set(TRACED) == {op.name for op in family if op.differential}
    untraced = next(op.name for op in family if not op.differential)
    with pytest.raises(ValueError, match="the reference traces .*decide_write") as caught:
        trace(untraced, {})
    assert all(op in str(caught.value) for op in TRACED) and f"{untraced}'" in str(caught.value)


CTX = {"topical_json": '[{"id":"a","text":"x\\n y"},{"id":"[b]","text":"t"},{"id":"a","text":"again"}]',
       "pinned_json": '[{"id":"p","text":"pinned fact"}]', "recent_json": "null", "cap": 2}


@pytest.mark.parametrize("plant, step", [
    (lambda m: m.setattr(reference.dedup_context, "LINE_BREAK", re.compile("(?!)")), "ctx.split"),  # never matches
    (lambda m: m.setattr(reference.dedup_context, "WHITE_SPACE_CHARS", ""), "ctx.trim"),  # strips nothing
    (lambda m: m.setattr(reference.dedup_context, "PINNED_MARK", "[pinned] "), "ctx.line"),
    (lambda m: m.setattr(reference.dedup_context, "require_cap", lambda cap: 1), "ctx.cap"),
])
def test_a_planted_dedup_bug_shows_at_its_step(plant: Any, step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _first_difference("build_dedup_context", CTX, plant, monkeypatch) == step


# --- the harness's checks of traces (harness/checks/traces.py) ------------------------------------------

def _reference_answers(op: str, args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    try:
        own: dict[str, Any] = {"ok": getattr(reference, op)(**args)}
    except reference.ContractError as exc:
        own = {"error": {"code": exc.code, "message": str(exc)}}
    return {"ok": trace(op, args)}, own


def _tampered(change: Any) -> Any:
    def tamper(op: str, args: dict[str, Any]) -> dict[str, Any]:
        document = json.loads(trace(op, args))
        change(document)
        return {"ok": json.dumps(document)}
    return tamper


@pytest.mark.parametrize("change, problem", [
    (lambda d: d["outcome"].update(result="another"), "the trace ends in"),
    (lambda d: d.update(op="unicode_nfc"), "a trace of 'unicode_nfc'"),
    (lambda d: d["steps"].insert(1, {"step": "ctx.line", "value": "x"}), "steps that are not"),
    (lambda d: d["steps"].append(d["steps"][0]), "step args must come first, once"),
    (lambda d: d["steps"].reverse(), "not a trace-v1 document"),
    (lambda d: d["steps"].__setitem__(slice(1, 3), d["steps"][2:0:-1]), "out of the specification's order"),
    (lambda d: d["steps"][1].update(value={"$f64": "one"}), "not a trace-v1 document"),
    (lambda d: d.update(schema="trace-v0"), "not a trace-v1 document"),
])
def test_a_planted_trace_problem_is_named(change: Any, problem: str) -> None:
    op, args = "decide_write", {"text": "Tea", "embedding_json": "[1,0]", "candidates_json": "null"}
    good, own = _reference_answers(op, args)
    assert problems(op, good, own) == []
    found = problems(op, _tampered(change)(op, args), own)
    assert found and problem in found[0], found


def test_a_trace_that_ends_elsewhere_than_its_op_is_a_finding_about_the_testee() -> None:
    from harness.checks.traces import check_examples
    from harness.testees.findings import Findings
    from harness.testees.inprocess import InProcess

    def lying(op: str, args: dict[str, Any]) -> str:
        document = json.loads(trace(op, args))
        document["outcome"] = {"error": "invalid_text", "step": "norm.text"}
        return json.dumps(document)

    liar = InProcess("liar", lambda op: getattr(reference, op.name), {"traces": list(TRACED)}, tracer=lying)
    honest = InProcess("honest", lambda op: getattr(reference, op.name), {"traces": list(TRACED)},
                       tracer=reference.trace)
    findings = Findings()
    examples = [("normalize_fact_text", {"text": "Tea"}), ("build_dedup_context", {
        "topical_json": "null", "pinned_json": "null", "recent_json": "null"})]
    assert [c.problems for c in check_examples(honest, examples, findings)] == [(), ()]
    checked = check_examples(liar, examples, findings)
    assert all(c.problems and "the op returned" in c.problems[0] for c in checked)
    (found,) = findings.to_json()
    assert (found["impl"], found["kind"], found["count"]) == ("liar", "trace_mismatch", 2)


def test_selftest_fails_a_testee_whose_trace_lies_and_passes_a_black_box(tmp_path: Any,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.checks.selftest import selftest
    from harness.tools.hostile_faults import declare

    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    liar = declare(tmp_path, "lying_trace", name="liar")
    faithful = declare(tmp_path, "none", name="blackbox")
    lines = {name: selftest(name).lines for name in (liar, faithful)}
    failed = [line for line in lines[liar] if line.startswith("FAIL")]
    assert len(failed) == 1 and failed[0].startswith(
        "FAIL trace of write-gate-v1/norm-ascii-lowercase: a valid trace that ends in the op's own answer"), failed
    assert not [line for line in lines[faithful] if line.startswith("FAIL")]
    assert any("a black box" in line for line in lines[faithful])


# --- comparing traces (harness/model/traces.py) and the side-by-side command -------------------------------

@pytest.mark.parametrize("a, b, same", [
    (1, {"$f64": "0x1.0000000000000p+0"}, True),  # JavaScript has no integers
    (0, {"$f64": "-0x0.0p+0"}, True),
    (1, {"$f64": "0x1.8000000000000p+0"}, False),
    (True, 1, False),
    (True, {"$f64": "0x1.0000000000000p+0"}, False),
    ("1", 1, False),
    (2**53 + 1, {"$f64": float(2**53).hex()}, True),  # the integer as a binary64 host holds it
    ({"$int": str(10**400)}, {"$f64": "inf"}, True),
    ({"$int": str(10**400)}, {"$type": "int"}, True),  # beyond i128: PyO3 hands over only that
    ({"$int": str(2**100)}, {"$type": "int"}, False),  # within i128 the digits are handed over
    ({"$type": "NoneType"}, {"$type": "null"}, True),
    ({"$type": "list"}, "list", False),
    ({"$type": "int"}, {"$type": "NoneType"}, False),
    ({"$f64": "nan"}, {"$f64": "nan"}, True),
    ("A\u001cb", "A\u001cb", True),
    ("A\u001cb", "A b", False),
])
def test_args_rules(a: Any, b: Any, same: bool) -> None:
    from harness.model.traces import same_args

    assert same_args({"x": a}, {"x": b}) is same and same_args({"x": b}, {"x": a}) is same
    assert not same_args({"x": a}, {"x": a, "y": 1})


def test_past_args_only_equality_counts_and_the_parting_is_where_a_trace_skipped_a_step() -> None:
    from harness.model.traces import first_difference, parse

    base = parse(trace("decide_write", {"text": "T", "embedding_json": "[1,0]", "candidates_json": "null",
                                        "threshold": 1}))
    same_number = json.loads(json.dumps(base))
    same_number["steps"][0]["value"]["threshold"] = {"$f64": (1.0).hex()}
    assert first_difference(base, same_number) is None
    other = json.loads(json.dumps(base))
    index = next(i for i, e in enumerate(other["steps"]) if e["step"] == "gate.threshold")
    other["steps"][index]["value"] = 1  # an integer where the core's value is a float: not equal past args
    assert first_difference(base, other).step == "gate.threshold"
    skipped = json.loads(json.dumps(base))
    del skipped["steps"][index]
    parting = first_difference(base, skipped)
    assert (parting.step, parting.steps) == ("gate.threshold", ("gate.threshold", "gate.mode"))
    assert first_difference(base, {**base, "outcome": {"error": "invalid_mode", "step": "gate.mode"}}).step == \
        "outcome"


def test_the_trace_command_marks_the_first_differing_step(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli.main import main
    from harness.tools.hostile_faults import declare

    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    declare(tmp_path, "quote_bug", name="quotebug")
    declare(tmp_path, "none", name="blackbox")
    assert main(["trace", "normalize_fact_text", '"It\\u2019s here"', "--impls", "quotebug,blackbox"]) == 1
    out = capsys.readouterr().out
    marked = [line.lstrip() for line in out.splitlines() if line.lstrip().startswith(">>")]
    assert len(marked) == 1 and marked[0].split()[1] == "norm.quote_dash", out
    assert "first difference: entry 3 (norm.quote_dash): quotebug part from reference" in out
    assert "blackbox: a black box (no traces); the op answered" in out
    assert "quotebug: cause quote_dash_map (oracle-only), by rule quote-dash at norm.quote_dash" in out
    assert main(["trace", "normalize_fact_text", "It\\u2019s here", "--impls", "reference"]) == 0
    out = capsys.readouterr().out
    assert "every trace agrees with reference's, step for step" in out and ">>" not in out


# --- causes from traces (harness/differential/causes) -------------------------------------------------------

def test_the_documented_rule_list_is_the_classifiers_order() -> None:
    import re

    from harness.differential.causes import CAUSES, ORDER, RULES
    from harness.differential.explain import CAUSES as REPORTED
    from harness.model.paths import ROOT

    text = (ROOT / "docs" / "fuzzing.md").read_text(encoding="utf-8")
    block = text.split("<!-- rules:start -->")[1].split("<!-- rules:end -->")[0]
    documented = re.findall(r"\d+\. `([a-z0-9-]+)` \(`([a-z_]+)`", block)
    assert [name for name, _ in documented] == list(ORDER)
    by_name = {rule.name: rule for rule in RULES}
    assert all(cause in by_name[name].causes for name, cause in documented)
    assert set(CAUSES) <= set(REPORTED)  # every cause a rule names is one reports may carry
    schema = json.loads((SCHEMAS / "divergence-report-v2.schema.json").read_text())
    enum = schema["properties"]["divergences"]["items"]["properties"]["cause"]["enum"]
    assert set(CAUSES) <= set(enum)


def test_no_rule_of_either_classifier_names_an_op() -> None:
    """What an op takes and returns is the registry's: an op's name in a rule module's code (a string or a
    name, not a docstring or a comment, which may cite one) is op knowledge in the classifier."""
    import io
    import tokenize

    from harness.model.paths import ROOT
    from harness.model.registry import OPS

    modules = sorted((ROOT / "harness" / "differential" / "causes").glob("*.py")) + \
        sorted((ROOT / "harness" / "differential" / "counterfactual").glob("*.py"))
    assert len(modules) >= 12
    for module in modules:
        tokens = list(tokenize.generate_tokens(io.StringIO(module.read_text(encoding="utf-8")).readline))
        code = [t.string for t in tokens if t.type == tokenize.NAME or
                (t.type == tokenize.STRING and not t.string.startswith(('"' * 3, "'" * 3)))]
        named = sorted({op for op in OPS for word in code if op in word})
        assert not named, f"{module.name} names {named}"


def test_the_documented_counterfactual_rules_are_the_fallbacks_order() -> None:
    import re

    from harness.differential import counterfactual
    from harness.differential.explain import CAUSES
    from harness.model.paths import ROOT

    text = (ROOT / "docs" / "fuzzing.md").read_text(encoding="utf-8")
    block = text.split("<!-- counterfactual-rules:start -->")[1].split("<!-- counterfactual-rules:end -->")[0]
    documented = re.findall(r"^\d+\. `([a-z0-9-]+)`(?: \(([^)]*)\))?:", block, re.MULTILINE)
    assert [name for name, _ in documented] == list(counterfactual.ORDER)
    by_name = {rule.name: rule for rule in counterfactual.RULES}
    for name, causes in documented:  # each rule's causes, as the document lists them
        assert set(re.findall(r"`([a-z_]+)`", causes)) == set(by_name[name].causes), name
    schema = json.loads((SCHEMAS / "divergence-report-v2.schema.json").read_text())
    enum = schema["properties"]["divergences"]["items"]["properties"]["cause"]["enum"]
    assert set(CAUSES) == set(enum)  # every cause a rule of either classifier names, and no other


def _planted_cause(op: str, args: dict[str, Any], plant: Any, monkeypatch: pytest.MonkeyPatch,
                   versions: tuple[dict[str, str], dict[str, str]] | None = None) -> tuple[str, str, str]:
    from harness.differential.causes import cause_from_traces
    from harness.model.traces import parse

    clean = parse(trace(op, args))
    with monkeypatch.context() as patched:
        plant(patched)
        planted = parse(trace(op, args))
    mine = json.loads(reference.unicode_versions())
    found = cause_from_traces(op, clean, planted, args, *(versions or (mine, mine)))
    assert found is not None
    return found.cause, found.step, found.rule


def _strip_blank_collapse(value: str) -> str:
    """reference.dedup_context.collapse whose join drops the pieces blank to str.strip() (a planted bug)."""
    from reference.steps import note
    from reference.unicode_data import LINE_BREAK, WHITE_SPACE_CHARS

    pieces = LINE_BREAK.split(value)
    note("ctx.split", pieces)
    trimmed = [piece.strip(WHITE_SPACE_CHARS) for piece in pieces]
    note("ctx.trim", trimmed)
    joined = " ".join(piece for piece in trimmed if piece.strip())
    note("ctx.join", joined)
    return joined


def _binary32_sums(a: Any, b: Any) -> float:
    total = 0.0
    for x, y in zip(a, b, strict=True):
        total = reference.write_gate.to_binary32(total + x * y)
    return total


def _recent_first(topical_json: Any, pinned_json: Any, recent_json: Any, cap: Any = 30) -> str:
    """build_dedup_context with recent_json checked first (a planted validation order)."""
    reference.strict_json.loads(recent_json, "recent_json", "ctx.recent_json")
    return reference.dedup_context.build_dedup_context(topical_json, pinned_json, recent_json, cap)


_NO_U2019 = {k: v for k, v in reference.normalize.QUOTE_DASH_MAP.items() if k != 0x2019}
_CAP = {"pinned_json": "null", "recent_json": "null"}


@pytest.mark.parametrize("op, args, plant, want", [
    ("normalize_fact_text", {"text": "It\u2019s"},
     lambda m: m.setattr(reference.normalize, "QUOTE_DASH_MAP", _NO_U2019), ("quote_dash_map", "norm.quote_dash",
                                                                             "quote-dash")),
    ("normalize_fact_text", {"text": "a\u00a0b"}, lambda m: m.setattr(reference.normalize, "collapse_white_space",
                                                                       lambda t: t), ("whitespace_definition",
                                                                                      "norm.white_space",
                                                                                      "white-space")),
    ("normalize_fact_text", {"text": "\x1ca\x1c"}, lambda m: m.setattr(
        reference.normalize, "strip_edges", (lambda f: lambda t: f(t.strip()))(reference.normalize.strip_edges)),
     ("whitespace_definition", "norm.edges", "edges")),
    ("normalize_fact_text", {"text": "tea\u2026"}, lambda m: m.setattr(reference.normalize, "strip_edges",
                                                                        lambda t: t.strip(".")),
     ("edge_punctuation", "norm.edges", "edges")),
    ("normalize_fact_text", {"text": "Cafe\u0301"}, lambda m: m.setattr(reference.normalize, "nfc", lambda t: t),
     ("normalization", "norm.nfc", "nfc")),
    ("decide_write", {"text": "t", "embedding_json": "null", "candidates_json": "null", "threshold": True},
     lambda m: m.setattr(reference.write_gate, "require_threshold", float),
     ("boundary_coercion", "gate.threshold", "host-check-coercion")),
    ("decide_write", {"text": "t", "embedding_json": "null", "candidates_json": "null", "mode": "AUTO"},
     lambda m: m.setattr(reference.write_gate, "require_mode", str.lower),
     ("error_versus_result", "gate.mode", "check-disputed")),
    ("decide_write", {"text": "t", "embedding_json": "[1e30,1,-1e30,0.3]",
                      "candidates_json": '[{"id":"a","text":"x","embedding":[1e30,1,1e30,0.7]}]'},
     lambda m: m.setattr(reference.write_gate, "plain_sum_of_products",
                         lambda a, b: math.fsum(x * y for x, y in zip(a, b, strict=True))),
     ("float_rounding", "gate.similarity", "similarity-bits")),
    ("decide_write", {"text": "t", "embedding_json": "[0.1]", "candidates_json": "null"},
     lambda m: m.setattr(reference.write_gate, "to_binary32", lambda x: x),
     ("float_rounding", "gate.binary32", "binary32")),
    # Sums rounded to binary32 overflow inside the similarity, which cannot fail: the planted side ends there
    # with invalid_embedding from gate.binary32 (a plant run had called it error_versus_result).
    ("decide_write", {"text": "a", "embedding_json": "[3e38]",
                      "candidates_json": '[{"id":"0","text":"","embedding":[3e38]}]'},
     lambda m: m.setattr(reference.write_gate, "plain_sum_of_products", _binary32_sums),
     ("float_rounding", "gate.similarity", "similarity-fails")),
    # A candidate's embedding is rounded inside its shape check: they part there, in its numbers only, and the
    # cause is at the rounding step the check applies (a plant run had called it rule_difference, and then a
    # class of its own beside the new embedding's gate.binary32).
    ("decide_write", {"text": "t", "embedding_json": "null",
                      "candidates_json": '[{"id":"a","text":"x","embedding":[0.1]}]'},
     lambda m: m.setattr(reference.write_gate, "to_binary32", lambda x: x),
     ("float_rounding", "gate.binary32", "shape-numbers")),
    # The oracle refuses 6e38 inside its embedding check (gate.binary32, before it notes gate.embedding); the
    # planted side passes both: they part at the check, never at the step noted first (a CI plant run).
    ("decide_write", {"text": "a", "embedding_json": "[6e38]", "candidates_json": "null"},
     lambda m: m.setattr(reference.write_gate, "to_binary32", lambda x: x),
     ("float_rounding", "gate.binary32", "binary32")),
    # U+2026 kept on one side: the space after it is stripped on the other only because of it (a CI plant run).
    ("normalize_fact_text", {"text": "\u2026 a"}, lambda m: m.setattr(
        reference.normalize, "EDGE_CHARS", reference.normalize.EDGE_CHARS.replace("\u2026", "")),
     ("edge_punctuation", "norm.edges", "edges")),
    ("build_dedup_context", {"topical_json": '[{"id":"a","text":"b"}]', **_CAP, "cap": 30.5},
     lambda m: m.setattr(reference.dedup_context, "require_cap", int),
     ("boundary_coercion", "ctx.cap", "host-check-coercion")),
    ("build_dedup_context", {"topical_json": '[{"id":"a","text":"b\u2028c"}]', **_CAP},
     lambda m: m.setattr(reference.dedup_context, "LINE_BREAK",
                         re.compile(reference.dedup_context.LINE_BREAK.pattern.replace("\u2028", ""))),
     ("line_breaks", "ctx.split", "line-breaks")),
    ("build_dedup_context", {"topical_json": '[{"id":"a","text":" b\\u001c"}]', **_CAP},
     lambda m: m.setattr(reference.dedup_context, "WHITE_SPACE_CHARS", None),  # str.strip()'s own set
     ("whitespace_definition", "ctx.trim", "trim")),
    ("build_dedup_context", {"topical_json": '[{"id":"a","text":"b"}]', **_CAP},
     lambda m: m.setattr(reference.dedup_context, "PINNED_MARK", "[pinned] ") or m.setattr(
         reference.dedup_context, "HEADER", "Memories:"), ("rule_difference", "ctx.output", "rule-difference")),
    # A join that drops the pieces str.strip() finds blank (U+001C), not those the trim left empty: the traces part
    # at ctx.join, which composes the trim (issue 35: it was rule_difference there).
    ("build_dedup_context", {"topical_json": '[{"id":"a","text":"b\\n\\u001c\\nc"}]', **_CAP},
     lambda m: m.setattr(reference.dedup_context, "collapse", _strip_blank_collapse),
     ("whitespace_definition", "ctx.join", "trim")),
    ("build_dedup_context", {"topical_json": "[1]", "pinned_json": "", "recent_json": ""},
     lambda m: m.setitem(reference.tracing._FUNCTIONS, "build_dedup_context", _recent_first),
     ("validation_order", "ctx.topical_json", "validation-order")),
])
def test_a_planted_bug_is_named_by_the_rule_of_its_step(op: str, args: dict[str, Any], plant: Any,
                                                          want: tuple[str, str, str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert _planted_cause(op, args, plant, monkeypatch) == want


@pytest.mark.parametrize("texts", [("f", ""), ("F\u00e9", "f\u00e9."), ("a\u2019", "a'")])
def test_a_step_that_read_another_input_is_no_character_cause(texts: tuple[str, str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The candidates normalized in reverse order: norm.nfc parts first, on two inputs, so none of its
    characters is the cause; the rule that chose the input is (a CI plant run named normalization)."""
    decide = reference.write_gate.decide
    candidates = json.dumps([{"id": f"c{k}", "text": text} for k, text in enumerate(texts)])
    args = {"text": texts[0], "embedding_json": "null", "candidates_json": candidates}
    cause = _planted_cause("decide_write", args, lambda m: m.setattr(
        reference.write_gate, "decide", lambda text, embedding, found, *rest: decide(text, embedding,
                                                                                     found[::-1], *rest)),
        monkeypatch)
    assert cause == ("rule_difference", "norm.nfc", "rule-difference")


def _edited(op: str, args: dict[str, Any], step: str, value: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    from harness.model.traces import parse

    clean = parse(trace(op, args))
    other = json.loads(json.dumps(clean))
    next(entry for entry in other["steps"] if entry["step"] == step)["value"] = value
    return clean, other


def test_a_skew_is_named_only_where_the_data_differs_and_a_bug_beside_it_keeps_its_own_cause() -> None:
    from harness.differential.causes import cause_from_traces

    old, new = {"case_mapping": "14.0.0"}, {"case_mapping": "17.0.0"}
    args = {"text": "\u1c89 \u03bf\u03b4\u03bf\u03a3"}  # U+1C89 (new in 16.0) and a word ending in capital sigma
    # The newer data lowercases U+1C89; the word's final sigma is right on both sides.
    clean, skewed = _edited("normalize_fact_text", args, "norm.lowercase", "\u1c8a \u03bf\u03b4\u03bf\u03c2")
    found = cause_from_traces("normalize_fact_text", clean, skewed, args, old, new)
    assert (found.cause, found.detail, found.rule) == ("unicode_version_skew", "case_mapping", "unicode-skew")
    # The same skew, and beside it a final sigma lowercased as a medial one: not the skew.
    _, both = _edited("normalize_fact_text", args, "norm.lowercase", "\u1c8a \u03bf\u03b4\u03bf\u03c3")
    found = cause_from_traces("normalize_fact_text", clean, both, args, old, new)
    assert (found.cause, found.rule) == ("final_sigma", "lowercase")
    # A final-sigma bug where a mark whose Case_Ignorable differs stands before the letter the sigma follows:
    # outside the sigma's context, so not the skew (a CI plant run).
    args = {"text": "\u1ae9\u0391\u03a3"}
    clean_sigma, planted = _edited("normalize_fact_text", args, "norm.lowercase", "\u1ae9\u03b1\u03c3")
    assert clean_sigma["steps"][4]["value"] == "\u1ae9\u03b1\u03c2"
    found = cause_from_traces("normalize_fact_text", clean_sigma, planted, args, old, new)
    assert (found.cause, found.rule) == ("final_sigma", "lowercase")
    # U+A7D2 (new in 17.0) is cased there: both sigmas change beside it; aligned position by position, every
    # span holds it or its lowercase (a parity run, where an alignment had put one span beside it).
    args = {"text": "\u0391\u03a3\ua7d2\u03a3"}
    clean_thorn, newer = _edited("normalize_fact_text", args, "norm.lowercase", "\u03b1\u03c3\ua7d3\u03c2")
    found = cause_from_traces("normalize_fact_text", clean_thorn, newer, args, old, new)
    assert (found.cause, found.detail) == ("unicode_version_skew", "case_mapping")
    # A plain i for U+0130 beside a sigma the versions read differently: the skew explains the sigma's span,
    # not the U+0130 spans, which name the cause (a plant run).
    args = {"text": "\u0130\u0130\u03a3\ua7da"}
    clean_i, planted_i = _edited("normalize_fact_text", args, "norm.lowercase", "ii\u03c3\ua7db")
    found = cause_from_traces("normalize_fact_text", clean_i, planted_i, args, old, new)
    assert (found.cause, found.rule) == ("case_mapping", "lowercase"), clean_i["steps"][4]
    # The same versions on both sides: never a skew.
    found = cause_from_traces("normalize_fact_text", clean, skewed, args, new, new)
    assert found.cause == "case_mapping"
    # NFC: a mark new in 17.0 (U+05C8) blocks a composition with 16.0 data; the span holds no new character
    # itself, its combining sequence does.
    args = {"text": "a\u05c8\u0323"}
    clean, older = _edited("unicode_nfc", args, "nfc.nfc", "a\u05c8\u0323")
    assert clean["steps"][-1]["value"] != "a\u05c8\u0323"
    found = cause_from_traces("unicode_nfc", clean, older, args, {"normalization": "18.0.0"},
                              {"normalization": "16.0.0"})
    assert (found.cause, found.detail) == ("unicode_version_skew", "normalization")


def test_tracecheck_counts_every_trace_that_ends_elsewhere() -> None:
    import io

    from harness.checks.tracecheck import check, render
    from harness.testees.findings import Findings
    from harness.testees.inprocess import InProcess

    def lying(op: str, args: dict[str, Any]) -> str:
        document = json.loads(trace(op, args))
        if op == "build_dedup_context":
            document["outcome"] = {"result": "planted"}
        return json.dumps(document)

    def impl(name: str, tracer: Any) -> InProcess:
        return InProcess(name, lambda op: getattr(reference, op.name), {"traces": list(TRACED)}, tracer=tracer)

    findings = Findings()
    tallies = check({"honest": impl("honest", reference.trace), "liar": impl("liar", lying)},
                    ["normalize_fact_text", "build_dedup_context"], 60, seed=3, batch=25, validate_every=1,
                    findings=findings, stream=io.StringIO())
    assert {op: t.problems for op, t in tallies["honest"].items()} == {"normalize_fact_text": 0,
                                                                        "build_dedup_context": 0}
    liar = tallies["liar"]["build_dedup_context"]
    assert liar.checked == liar.problems == 60 and tallies["liar"]["normalize_fact_text"].problems == 0
    assert "TRACE PROBLEM" in render(tallies) and findings.to_json()[0]["kind"] == "trace_mismatch"


@pytest.mark.parametrize("theirs, cause", [
    ({"$f64": "nan"}, "float_rounding"),  # a sum overflowed on one side: inf/inf
    (None, "float_rounding"),  # a norm underflowed to 0 on one side: not compared
    ({"$f64": (0.5).hex()}, "float_rounding"),
])
def test_the_same_candidates_similarity_differing_is_a_rounding(theirs: Any, cause: str) -> None:
    from harness.differential.causes import cause_from_traces

    args = {"text": "a", "embedding_json": "[1,0]", "candidates_json": '[{"id":"c","text":"x","embedding":[1,0]}]'}
    clean, other = _edited("decide_write", args, "gate.similarity", {"index": 0, "id": "c", "similarity": theirs})
    found = cause_from_traces("decide_write", clean, other, args, {}, {})
    assert (found.cause, found.step) == (cause, "gate.similarity")


def test_nan_against_no_similarity_is_the_zero_norm_rule_not_a_rounding() -> None:
    from harness.differential.causes import cause_from_traces

    args = {"text": "a", "embedding_json": "[0,0]", "candidates_json": '[{"id":"c","text":"x","embedding":[1,0]}]'}
    nan = {"index": 0, "id": "c", "similarity": {"$f64": "nan"}}
    clean, other = _edited("decide_write", args, "gate.similarity", nan)
    assert next(e for e in clean["steps"] if e["step"] == "gate.similarity")["value"]["similarity"] is None
    assert cause_from_traces("decide_write", clean, other, args, {}, {}).cause == "rule_difference"


def _traced_plant(name: str, plant: Any) -> Any:
    """A testee that is the reference with ``plant`` applied (a monkeypatch), for its ops and its traces."""
    import contextlib

    from harness.testees.inprocess import InProcess

    @contextlib.contextmanager
    def planted() -> Any:
        with pytest.MonkeyPatch.context() as patch:
            plant(patch)
            yield

    def resolve(op: Any) -> Any:
        def call(**kwargs: Any) -> Any:
            with planted():
                return op.reference(**kwargs)
        return call

    def tracer(op: str, args: dict[str, Any]) -> Any:
        with planted():
            return trace(op, args)

    return InProcess(name, resolve, {"traces": list(TRACED)}, tracer)


def _two_bugs() -> dict[str, Any]:
    from harness.testees.impls import get_impl

    return {"reference": get_impl("reference"),
            "quotes": _traced_plant("quotes", lambda m: m.setattr(reference.normalize, "QUOTE_DASH_MAP", _NO_U2019)),
            "nfc": _traced_plant("nfc", lambda m: m.setattr(reference.normalize, "nfc", lambda t: t))}


def test_one_witness_of_two_bugs_is_two_shares_each_its_own_class() -> None:
    """Two implementations with two bugs, both shown by one input: one share each, with its own step and
    cause, never one class naming both (a skew riding along with a core bug is the same shape)."""
    from harness.classes.examine import examine_all
    from harness.classes.key import ClassKey
    from harness.classes.shrink import shrink
    from harness.differential.explain import unicode_versions_of

    impls = _two_bugs()
    versions = unicode_versions_of(impls)
    args = {"text": "It\u2019s cafe\u0301"}
    found = examine_all(impls, "normalize_fact_text", args, versions)
    assert [(d.divergent, d.cause, d.step) for d in found] == [
        (("quotes",), "quote_dash_map", "norm.quote_dash"), (("nfc",), "normalization", "norm.nfc")]
    # The quote map acts on the oracle's side only (the quotes implementation keeps U+2019): its detail says so.
    assert found[0].key == ClassKey.of("normalize_fact_text", ["quotes"], "quote_dash_map",
                                       "oracle-only", "norm.quote_dash")
    # One JSON parse, whichever argument shows it; at args one conversion, whichever arguments it changed.
    assert ClassKey.of("o", ["p"], "json_strictness", "bom", "ctx.topical_json") == \
        ClassKey.of("o", ["p"], "json_strictness", "bom", "ctx.recent_json")
    assert ClassKey.of("o", ["p"], "boundary_coercion", "text", "args") == \
        ClassKey.of("o", ["p"], "boundary_coercion", "text+threshold", "args")
    assert ClassKey.of("o", ["p"], "boundary_coercion", "cap", "ctx.cap") != \
        ClassKey.of("o", ["p"], "boundary_coercion", "force", "ctx.cap")
    # Shrinking one share keeps its bug and lets the other fall away.
    small, responses = shrink(impls, "normalize_fact_text", args, versions, ("quote_dash_map", "oracle-only"),
                              share=("quotes",))
    assert small["text"] == "\u2019", small
    assert responses["nfc"] == responses["reference"] != responses["quotes"]


def test_a_fuzz_run_reports_each_of_two_bugs_once_per_op() -> None:
    import io

    from harness.classes.expected import ExpectedSet
    from harness.fuzzing.fuzz import fuzz

    impls = _two_bugs()
    result = fuzz(impls, ExpectedSet([], []), seconds=30, seed=5, ops=["normalize_fact_text"], workers=1,
                  max_examples=4000, stream=io.StringIO())
    shown = sorted((d.op, tuple(d.divergent), d.cause, d.step) for d in result.divergences)
    assert shown == [("normalize_fact_text", ("nfc",), "normalization", "norm.nfc"),
                     ("normalize_fact_text", ("quotes",), "quote_dash_map", "norm.quote_dash")], shown


def test_an_expected_entry_covers_only_its_step_and_its_characters() -> None:
    """An entry explains a divergence entirely or not at all: its step, and every character the cause is
    about among those it lists; a plant next to the skew an entry lists is new (issue: one bug, one report)."""
    from harness.classes.examine import examine_all
    from harness.classes.expected import Entry, ExpectedSet, cover, recheck, skew_scope
    from harness.differential.explain import unicode_versions_of

    impls = {name: impl for name, impl in _two_bugs().items() if name != "nfc"}
    versions = unicode_versions_of(impls)
    args = {"text": "It\u2019s"}
    (divergence,) = examine_all(impls, "normalize_fact_text", args, versions)
    assert (divergence.step, divergence.characters) == ("norm.quote_dash", {0x2019})

    def entry(step: str | None, characters: set[int]) -> Entry:
        return Entry("quotes", "q", "normalize_fact_text", "quote_dash_map", hostvalues_args(args), "n", None, step,
                     frozenset(characters))

    assert cover(ExpectedSet([entry("norm.quote_dash", {0x2019})], []), divergence).entries == ("quotes/q",)
    assert cover(ExpectedSet([entry("norm.quote_dash", {0x2018})], []), divergence).status == "new"
    assert divergence.status == "new"
    assert cover(ExpectedSet([entry("norm.nfc", {0x2019})], []), divergence).status == "new"
    assert cover(ExpectedSet([entry(None, {0x2019})], []), divergence).status == "new"
    problems = recheck(ExpectedSet([entry("norm.nfc", {0x2019}), entry("norm.quote_dash", {0x2018})], []), impls,
                       versions)
    assert "now diverges at step norm.quote_dash, not norm.nfc" in problems[0]
    assert "about characters the entry does not list: U+2019" in problems[1]
    # A skew entry lists every code point whose case data differs between 14.0 and 17.0; a case-mapping bug
    # next to a skewed letter is about U+0130 too, which no skew explains: not covered.
    scope = skew_scope(["case_mapping"], {"case_mapping": "14.0.0"}, {"case_mapping": "17.0.0"})
    assert {0x1C89, 0x1C8A, 0xA7CE} <= scope and 0x0130 not in scope
    listed = ExpectedSet([Entry("pyo3", "s", "normalize_fact_text", "unicode_version_skew", {}, "n", "case_mapping",
                                "norm.lowercase", scope)], [])
    assert listed.covers(["pyo3"], "normalize_fact_text", "unicode_version_skew", "case_mapping",
                         step="norm.lowercase", points={0x1C89, 0x1C8A})
    assert not listed.covers(["pyo3"], "normalize_fact_text", "unicode_version_skew", "case_mapping",
                             step="norm.lowercase", points={0x1C89, 0x0130})
    # A skew in two steps (Pyodide: case data of 16.0, NFC of 16.0) whose traces part at the first, lowercase:
    # the case entry at that step, the normalization entry listed for the step that parts later (a plant run
    # had reported it new, asking both entries to be at norm.lowercase).
    scopes = {data: skew_scope([data], {data: mine}, {data: "16.0.0"})
              for data, mine in (("case_mapping", "14.0.0"), ("normalization", "18.0.0"))}
    two = [Entry("pyodide", data, "decide_write", "unicode_version_skew", {}, "n", data, at, scopes[data])
           for data, at in (("case_mapping", "norm.lowercase"), ("normalization", "norm.nfc"))]
    own = {"pyodide": "case_mapping+normalization"}
    shown = {"step": "norm.lowercase", "points": {0x10D56}}
    assert ExpectedSet(two, []).covers(["pyodide"], "decide_write", "unicode_version_skew", "case_mapping", own,
                                       **shown)
    assert not ExpectedSet(two[:1], []).covers(["pyodide"], "decide_write", "unicode_version_skew", "case_mapping",
                                               own, **shown)
    moved = [dataclasses.replace(two[0], step="norm.nfc"), two[1]]
    assert not ExpectedSet(moved, []).covers(["pyodide"], "decide_write", "unicode_version_skew", "case_mapping",
                                             own, **shown)


def hostvalues_args(args: dict[str, Any]) -> dict[str, Any]:
    from harness.model import hostvalues

    return hostvalues.encode_args(args)


def test_the_oracle_is_the_oracle_whatever_the_order_of_the_answers() -> None:
    """The sweep's reproduction gate hands the answers ordered by name; the traces are still compared with
    the oracle's (a sweep had named every class by counterfactuals: its first answer was pyo3's)."""
    from harness.differential.explain import name_shares, unicode_versions_of
    from harness.differential.outcomes import observe

    impls = _two_bugs()
    versions = unicode_versions_of(impls)
    args = {"text": "It\u2019s cafe\u0301"}
    answers = observe(impls, "normalize_fact_text", args)
    reordered = {name: answers[name] for name in sorted(answers)}  # nfc, quotes, reference
    assert next(iter(reordered)) != "reference"
    shares = name_shares(impls, "normalize_fact_text", args, reordered, versions, fallback=False)
    assert sorted((share.impls, share.found.step, share.found.rule) for share in shares) == [
        (("nfc",), "norm.nfc", "nfc"), (("quotes",), "norm.quote_dash", "quote-dash")]


def test_a_candidate_is_known_in_the_trace_by_its_index_and_id() -> None:
    """Ids need not be unique: two candidates with one id and one similarity are told apart by their index, so
    a tie that goes to the latest parts at gate.near, where the rule chose (a plant run had parted only at
    gate.decision, splitting the class)."""
    from harness.differential.causes import cause_from_traces
    from harness.model.traces import parse

    args = {"text": "a", "embedding_json": "[1]",
            "candidates_json": '[{"id":"a","text":"","embedding":[1]},{"id":"a","text":"b","embedding":[1]}]'}
    clean = parse(trace("decide_write", args))
    values = {entry["step"]: entry["value"] for entry in clean["steps"]}
    sims = [entry["value"] for entry in clean["steps"] if entry["step"] == "gate.similarity"]
    assert [(s["index"], s["id"]) for s in sims] == [(0, "a"), (1, "a")]
    assert (values["gate.near"]["index"], values["gate.near"]["match"]) == (0, True)
    latest = json.loads(json.dumps(clean))
    near = next(entry for entry in latest["steps"] if entry["step"] == "gate.near")
    near["value"]["index"] = 1
    mine = json.loads(reference.unicode_versions())
    found = cause_from_traces("decide_write", clean, latest, args, mine, mine)
    assert found is not None and (found.cause, found.step) == ("rule_difference", "gate.near")


def test_a_divergence_the_output_owes_to_a_skew_is_the_skew_even_where_the_traces_part_earlier() -> None:
    """The oracle's own bug in a value this input never uses (a candidate's embedding left unrounded, the text
    an exact duplicate) parts the traces first; an implementation with NFC of 16.0 diverges in its output
    only because it does not find the duplicate. Its share is that skew, at norm.nfc (a plant run reported it
    as a second float_rounding class)."""
    import reference.unicode_data
    from harness.differential.explain import name_shares
    from harness.differential.outcomes import observe

    nfc = reference.unicode_data.nfc

    def nfc_16(text: str) -> str:  # U+05C8 (new in 18.0) unassigned: class 0, it blocks the reordering
        return nfc(text.replace("\u05c8", "\ue000")).replace("\ue000", "\u05c8")

    def old_nfc(patch: pytest.MonkeyPatch) -> None:
        patch.setattr(reference.normalize, "nfc", nfc_16)

    oracle = _traced_plant("reference", lambda m: m.setattr(reference.write_gate, "to_binary32", lambda x: x))
    older = _traced_plant("older", old_nfc)
    impls = {"reference": oracle, "older": older}
    mine = json.loads(reference.unicode_versions())
    versions = {"reference": mine, "older": {**mine, "normalization": "16.0.0"}}
    args = {"text": "a\u05c8\u0323", "embedding_json": "null",
            "candidates_json": '[{"id":"a","text":"\\u1ea1\\u05c8","embedding":[0.6]}]'}
    answers = observe(impls, "decide_write", args)
    (share,) = name_shares(impls, "decide_write", args, answers, versions, fallback=False)
    assert (share.impls, share.found.cause, share.found.detail, share.found.step) == (
        ("older",), "unicode_version_skew", "normalization", "norm.nfc"), share


def test_a_trace_follows_its_own_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """A step whose family file says it follows another (Step.follows) must hold a value that step could have made
    of the value before it, in every trace, up to the character set it reads: a join that drops the pieces
    str.strip() finds blank follows (an honest difference: a divergence, named by the character rules), a fused
    collapse that splits on its own break set while its trace shows one piece does not (issue 35: a lie)."""
    from harness.model.registry import OPS
    from harness.testees.traces import problems, unfollowed

    args = {"topical_json": '[{"id":"a","text":"b\\n\\u001c\\nc"}]', **_CAP}
    assert problems("build_dedup_context", {"ok": trace("build_dedup_context", args)}, None) == []
    with monkeypatch.context() as patched:
        patched.setattr(reference.dedup_context, "collapse", _strip_blank_collapse)
        honest = trace("build_dedup_context", args)
    assert problems("build_dedup_context", {"ok": honest}, None) == []
    fused = json.loads(trace("build_dedup_context", {"topical_json": '[{"id":"a","text":"b\\u001ec"}]', **_CAP}))
    at = max(i for i, entry in enumerate(fused["steps"]) if entry["step"] == "ctx.join")
    assert fused["steps"][at - 1]["value"] == ["b\u001ec"]
    fused["steps"][at]["value"] = "b c"  # U+001E split on, though the trace's pieces say it was not
    found = problems("build_dedup_context", {"ok": json.dumps(fused)}, None)
    assert len(found) == 1 and found[0].startswith("step ctx.join holds") and "ctx.trim" in found[0], found
    steps = json.loads(trace("build_dedup_context", args))["steps"]
    at = next(i for i, entry in enumerate(steps) if entry["step"] == "ctx.trim")
    steps[at] = {"step": "ctx.trim", "value": ["a", "b", "\u001c", "c", "x"]}  # pieces the split never had
    assert unfollowed(OPS["build_dedup_context"], steps)
    gate = json.loads(trace("decide_write", {"text": "  Tea\u3000time ", "embedding_json": "null",
                                             "candidates_json": "null"}))["steps"]
    assert unfollowed(OPS["decide_write"], gate) == []  # its normalization's norm.* steps, through via
    at = next(i for i, entry in enumerate(gate) if entry["step"] == "norm.white_space")
    gate[at] = {"step": "norm.white_space", "value": "tea\u3000tme"}
    assert any("norm.white_space" in problem for problem in unfollowed(OPS["decide_write"], gate))


@pytest.mark.parametrize(("oracle_cap", "handed", "want"), [
    (2.5, 2, ("boundary_coercion", "cap")),  # a binding truncated a fraction: the same bug as in a reference's check
    (2.0**40, 4294967295, ("boundary_coercion", "cap")),  # saturated to the core's u32
])
def test_a_fraction_made_an_integer_at_a_binding_is_a_coercion(oracle_cap: float, handed: int,
                                                               want: tuple[str, str]) -> None:
    """Issue 35: a binding that truncates a fractional cap was float_rounding (args-numbers), while the same bug in
    the reference is boundary_coercion(cap) (host-check-coercion); a float rounded to another float stays
    float_rounding (the WASM binding's threshold through binary32)."""
    from harness.differential.causes import cause_from_traces
    from harness.model.traces import parse

    args = {"topical_json": '[{"id":"a","text":"b"}]', "pinned_json": "null", "recent_json": "null"}
    mine = json.loads(reference.unicode_versions())
    oracle = parse(trace("build_dedup_context", {**args, "cap": oracle_cap}))
    binding = parse(trace("build_dedup_context", {**args, "cap": handed}))
    found = cause_from_traces("build_dedup_context", oracle, binding, {**args, "cap": oracle_cap}, mine, mine)
    assert found is not None and (found.cause, found.detail) == want, found
    gate = {"text": "tea", "embedding_json": "[1,0]", "candidates_json": '[{"id":"a","text":"x","embedding":[1,0]}]'}
    rounded = cause_from_traces("decide_write", parse(trace("decide_write", {**gate, "threshold": 0.85})),
                                parse(trace("decide_write", {**gate, "threshold": 0.8500000238418579})),
                                {**gate, "threshold": 0.85}, mine, mine)
    assert rounded is not None and (rounded.cause, rounded.rule) == ("float_rounding", "args-numbers"), rounded
