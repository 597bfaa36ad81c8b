"""Every step's value checked against the value of the step it takes it from (issue 53 item 4): a trace that lies
between two steps is a ``trace_mismatch``, and the divergence it would have misnamed gets its true cause.

The plant is issue 53's: a core that skips lowercasing a text with no character ``is_uppercase()`` (titlecase
letters, General_Category Lt: U+01C5, U+1F88, stay as they are) while its trace shows ``norm.lowercase``'s right
value. Before every pair of consecutive steps had a relation, its trace passed every check, and the traces parted
at ``norm.nfc_again``: ``rule_difference``. Planted here in-process, in the reference (``_liar``), beside the same
bug with an honest trace (``_skipper``: its lowercase step shows what it did)."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import reference
import reference.normalize as normalize
from harness.checks import step_inputs
from harness.checks.tracecheck import check
from harness.checks.traces import check_examples
from harness.model import step_relations
from harness.model.registry import OPS, Step
from harness.model.step_relations import RELATIONS, declared_source, undeclared
from harness.testees.findings import Findings
from harness.testees.inprocess import InProcess
from harness.testees.traces import problems, sources
from reference.steps import note
from reference.tracing import TRACED, trace

ROOT = Path(__file__).resolve().parents[2]
TITLECASE = ["\u01c5", "\u1f88", "\u01c5ungla", "a \u1ffc b"]


def _normalize(text: str, lie: bool) -> str:
    """normalize_valid with issue 53's bug: no lowercasing where no character is_uppercase(); ``lie``: the trace
    shows the lowercase it did not do."""
    text = normalize.nfc(text)
    note("norm.nfc", text)
    text = text.translate(normalize.QUOTE_DASH_MAP)
    note("norm.quote_dash", text)
    lowered = text.lower() if any(ch.isupper() for ch in text) else text
    note("norm.lowercase", text.lower() if lie else lowered)
    text = normalize.nfc(lowered)
    note("norm.nfc_again", text)
    text = normalize.collapse_white_space(text)
    note("norm.white_space", text)
    text = normalize.strip_edges(text)
    note("norm.edges", text)
    return text


def _planted(name: str, lie: bool) -> InProcess:
    @contextlib.contextmanager
    def plant() -> Iterator[None]:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(normalize, "normalize_valid", lambda text: _normalize(text, lie))
            yield

    def resolve(op: Any) -> Any:
        def call(**kwargs: Any) -> Any:
            with plant():
                return op.reference(**kwargs)
        return call

    def tracer(op: str, args: dict[str, Any]) -> Any:
        with plant():
            return trace(op, args)

    return InProcess(name, resolve, {"traces": list(TRACED)}, tracer)


def _answer(testee: InProcess, text: str) -> tuple[Any, Any]:
    own = testee.call("normalize_fact_text", {"text": text})
    return own, testee.call("trace", {"op": "normalize_fact_text", "args": {"text": text}})


@pytest.mark.parametrize("text", TITLECASE)
def test_a_trace_that_lies_between_two_steps_is_a_trace_mismatch(text: str) -> None:
    liar, skipper = _planted("liar", lie=True), _planted("skipper", lie=False)
    own, traced = _answer(liar, text)
    assert own["ok"] != reference.normalize_fact_text(text), "the plant acts on this text"
    found = problems("normalize_fact_text", traced, own)
    assert found and found[0].startswith("step norm.nfc_again holds") and "norm.lowercase" in found[0], found
    # The same bug with an honest trace follows its steps (a titlecase letter kept is a lowercase rule of its
    # own: the character rules name it where the traces part), and so does the reference.
    assert problems("normalize_fact_text", *reversed(_answer(skipper, text))) == []
    assert problems("normalize_fact_text", {"ok": trace("normalize_fact_text", {"text": text})}, None) == []


def test_the_lying_trace_gets_case_mapping_never_rule_difference_at_a_later_step() -> None:
    from harness.classes.examine import examine_all
    from harness.differential.explain import unicode_versions_of
    from harness.testees.impls import get_impl

    for name, lie in (("liar", True), ("skipper", False)):
        impls = {"reference": get_impl("reference"), name: _planted(name, lie)}
        versions = unicode_versions_of(impls)
        for text in TITLECASE:
            found = examine_all(impls, "normalize_fact_text", {"text": text}, versions)
            assert [(d.divergent, d.cause) for d in found] == [((name,), "case_mapping")], (name, text, found)
            assert all(d.step in (None, "norm.lowercase") for d in found), (name, text, found)


def test_check_examples_and_tracecheck_see_the_liar_on_inputs_that_change_every_step() -> None:
    liar = _planted("liar", lie=True)
    examples = [("normalize_fact_text", args) for args in step_inputs.examples("normalize_fact_text", 200)]
    findings = Findings()
    checked = check_examples(liar, examples, findings)
    assert sum(bool(c.problems) for c in checked) > 20
    assert [item["kind"] for item in findings.to_json()] == ["trace_mismatch"]
    honest = check_examples(reference_testee(), examples)
    assert not [c.problems for c in honest if c.problems]
    # tracecheck: its first inputs change every step; the fuzzer's alone (step_examples=0) rarely hold a
    # titlecase letter, and 300 of them show the liar nothing.
    tallies = check({"liar": liar}, ["normalize_fact_text"], 300, seed=1, stream=io.StringIO(), step_examples=150)
    assert tallies["liar"]["normalize_fact_text"].problems > 10
    fuzz_only = check({"liar": liar}, ["normalize_fact_text"], 300, seed=1, stream=io.StringIO(), step_examples=0)
    assert fuzz_only["liar"]["normalize_fact_text"].problems < tallies["liar"]["normalize_fact_text"].problems


def reference_testee() -> Any:
    from harness.testees.impls import get_impl

    return get_impl("reference")


def test_the_step_inputs_change_every_step_of_normalize_and_every_check_passes_the_reference() -> None:
    for op in ("normalize_fact_text", "decide_write", "build_dedup_context", "unicode_nfc"):
        declared = sources(OPS[op])
        changed: set[str] = set()
        for args in step_inputs.examples(op, 150):
            document = trace(op, args)
            assert problems(op, {"ok": document}, None) == [], (op, args)
            steps = json.loads(document)["steps"]
            changed |= {entry["step"] for before, entry in zip(steps, steps[1:], strict=False)
                        if declared.get(entry["step"], ("",))[0] == before["step"]
                        and before["value"] != entry["value"]}
        if op == "normalize_fact_text":
            assert changed == {step.id for step in OPS[op].steps[1:]}, changed
        if op == "build_dedup_context":
            assert {"ctx.trim", "ctx.join", "ctx.pin_note"} <= changed, changed
    assert "\u01c5" in step_inputs.titlecase_letters() and "W\u030a" in step_inputs.lowercase_not_nfc()


def _family_steps(path: Path) -> dict[str, list[dict[str, Any]]]:
    return {op["name"]: op["steps"] for op in json.loads(path.read_text(encoding="utf-8"))["ops"]}


@pytest.mark.parametrize("path", [ROOT / "families" / "memgate.json",
                                  ROOT / "docs" / "examples" / "tokens" / "families" / "tokens.json"])
def test_every_pair_of_consecutive_steps_of_every_family_is_declared(path: Path) -> None:
    for op, steps in _family_steps(path).items():
        assert undeclared(steps) == [], (path.name, op)
        for index in range(1, len(steps)):
            assert declared_source(index, steps)[1] in RELATIONS, (op, steps[index]["id"])
    for op in OPS.values():
        assert undeclared(op.steps) == [], op.name


def test_a_family_missing_a_relation_is_checked_by_its_role_or_named_as_unsaid() -> None:
    steps = [{"id": "x.text", "title": "t", "role": "host", "param": "text"},
             {"id": "x.nfc", "title": "NFC", "role": "nfc"},  # no follows: its role's relation to x.text
             {"id": "x.rule", "title": "something"},  # no follows, a role with no relation: unsaid
             {"id": "x.lower", "title": "lowercase", "follows": {"step": "x.nfc", "as": "lowercase"}}]
    assert declared_source(1, steps) == ("x.text", "nfc")
    assert undeclared(steps) == ["x.rule"]
    # A family-v1 file's roles name causes only (the tags example's white_space step makes runs a '-').
    assert declared_source(1, steps, by_role=False) is None and undeclared(steps, by_role=False) == ["x.nfc", "x.rule"]
    # The memgate family (family-v2) with norm.nfc_again's relation taken out is still checked (its role's), and
    # the liar is still caught; tracecheck names a step that says nothing.
    op = OPS["normalize_fact_text"]
    stripped = tuple(Step(s.id, s.title, s.code, s.role, s.param, s.composes, None, s.unicode) for s in op.steps)
    assert sources(type(op)(**{**op.__dict__, "steps": stripped}))["norm.nfc_again"] == ("norm.lowercase", "nfc")
    liar = _planted("liar", lie=True)
    own, traced = _answer(liar, "\u01c5")
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(OPS, "normalize_fact_text", type(op)(**{**op.__dict__, "steps": stripped}))
        assert any("norm.nfc_again" in problem for problem in problems("normalize_fact_text", traced, own))
        unsaid = tuple(Step(s.id, s.title, s.code, "rule" if s.id == "norm.nfc_again" else s.role, s.param,
                            s.composes, None, s.unicode) for s in op.steps)
        patch.setitem(OPS, "normalize_fact_text", type(op)(**{**op.__dict__, "steps": unsaid}))
        stream = io.StringIO()
        check({"liar": liar}, ["normalize_fact_text"], 5, seed=1, stream=stream)
        assert "norm.nfc_again say(s) nothing of the step before" in stream.getvalue(), stream.getvalue()


def test_the_relations_hold_up_to_the_rule_and_the_unicode_version() -> None:
    nfc, lowercase = RELATIONS["nfc"], RELATIONS["lowercase"]
    assert nfc("e\u0301", "\u00e9") and nfc("\u00e9", "e\u0301")  # canonically equivalent: an NFC of its own
    assert not nfc("\u01c6", "\u01c5") and not nfc("\u1f80", "\u1f88")  # a lowercase undone
    assert lowercase("\u01c5a", "\u01c6a") and lowercase("\u01c5a", "\u01c5a")  # mapped, or kept (another rule)
    assert lowercase("\u0130", "i\u0307") and lowercase("\u0130", "i") and lowercase("\u039f\u03a3", "\u03bf\u03c3")
    assert not lowercase("\u01c5", "dz") and not lowercase("ab", "a") and not lowercase("A", "b")
    # A code point whose case data differs between two Unicode versions there are tables of: its lowercase in any.
    from harness.model import unicode_tables

    skewed = sorted(unicode_tables.sensitive_anywhere(("case_mapping",)) & {
        cp for version in unicode_tables.available() for cp in unicode_tables.table(version).lower})
    assert skewed and lowercase(chr(skewed[0]), chr(skewed[0]))
    assert RELATIONS["binary32"]([0.1], [float.fromhex("0x1.99999a0000000p-4")]) and \
        not RELATIONS["binary32"]([0.1], [0.2]) and RELATIONS["binary32"](None, None)
    assert RELATIONS["runs"]("ab, cd", ["ab", "cd"]) and not RELATIONS["runs"]("ab, cd", ["cd", "ab"])
    assert RELATIONS["kept_items"](["a", "b", "c"], ["a", "c"]) and not RELATIONS["kept_items"](["a"], ["b"])
    assert step_relations.independent(1, 2)


def test_the_dedup_inputs_hold_ids_equal_but_for_case_form_or_width_and_odd_keys() -> None:
    outcomes = [json.loads(trace("build_dedup_context", args))["outcome"]
                for args in step_inputs.examples("build_dedup_context", 300)]
    refused = [o for o in outcomes if o.get("error") == "invalid_json"]
    assert refused and len(refused) < len(outcomes) // 3  # a key's escaped lone surrogate, now and then
    lines = [line for o in outcomes if "result" in o for line in o["result"].splitlines()]
    for twins in (("[ID: a]", "[ID: A]"), ("[ID: \u00e9]", "[ID: e\u0301]"), ("[ID: a]", "[ID: \uff41]")):
        assert all(any(line.startswith(twin) for line in lines) for twin in twins), twins


@pytest.mark.parametrize("value", [[10**400], [float("nan")], 10**400, [[[[[[1]]]]]], {"$float": "Infinity"}])
def test_a_value_no_relation_can_read_is_a_mismatch_not_a_traceback(value: object) -> None:
    """A testee's trace is untrusted: a number no float holds at gate.binary32 is a step that does not follow
    (a trace_mismatch finding), never an exception out of tracecheck."""
    from harness.model.registry import OPS
    from harness.testees import traces

    found = traces.unfollowed(OPS["decide_write"], [{"step": "gate.embedding", "value": [1.0]},
                                                    {"step": "gate.binary32", "value": value}])
    assert len(found) == 1 and "gate.binary32" in found[0], found
