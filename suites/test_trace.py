"""The reference's step traces (reference/trace.py, schemas/trace-v1.schema.json): from the op's own code
path, in the specification's step order, ending in the op's own outcome; a planted bug shows at its step."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

import reference.normalize
from harness.fixtures.load import all_cases
from harness.model.paths import SCHEMAS
from harness.model.registry import get_op
from reference import steps
from reference.trace import TRACED, encode, trace

SCHEMA = jsonschema.Draft202012Validator(json.loads((SCHEMAS / "trace-v1.schema.json").read_text()))
CASES = [case for case in all_cases() if case.op in TRACED]


def _outcome(op: str, args: dict[str, Any]) -> dict[str, Any]:
    """The op's own outcome, called as it ships (no recording)."""
    try:
        return {"result": encode(getattr(reference, op)(**args))}
    except reference.ContractError as exc:
        return {"error": exc.code, "step": exc.step}


def test_every_fixture_case_traces_to_its_own_outcome_in_step_order() -> None:
    assert len(CASES) > 100
    for case in CASES:
        document = json.loads(trace(case.op, case.args))
        SCHEMA.validate(document)
        assert document["outcome"] == _outcome(case.op, case.args), case.full_id
        order = [step.id for step in get_op(case.op).steps]
        seen = [entry["step"] for entry in document["steps"][1:]]
        assert seen == [step for step in order if step in seen], case.full_id
        if "result" in document["outcome"]:
            assert seen == order, case.full_id  # a result: every step ran, each once, in order
            assert document["steps"][-1]["value"] == document["outcome"]["result"]


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
    with pytest.raises(ValueError, match="the reference traces normalize_fact_text, unicode_nfc"):
        trace("build_dedup_context", {})
