"""Asking a testee for a trace, and the checks every trace must pass, whoever made it
(schemas/trace-v1.schema.json, docs/traces.md).

A trace is the testee's own account of one call. It must

1. be a ``trace-v1`` document (the schema), of the op that was asked for, starting with step ``args``;
2. name only steps of that op (its own, the JSON rules when it takes JSON, and the steps of the op it goes
   through: decide_write normalizes with normalize_fact_text), with the argument checks in the
   specification's order (a check that runs once per candidate or item repeats; its first run counts);
3. end in exactly the op's own output: the result the op returned (a JSON result: the same JSON value), or the error
   code it raised;
4. show each step's value following from the value of the step it takes it from (``Step.follows``, else its
   role's relation to the step declared before it; harness/model/step_relations.py), up to the rule the step
   applies and the Unicode version: a join that is not a join of the trace's own trimmed pieces, an NFC that
   undoes the lowercase the trace showed (issue 53), is an account of something the testee did not do.

A trace that fails one is a finding about that implementation (``trace_mismatch``), never a divergence:
it says nothing about the op, only that the testee's account of it is not to be trusted.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema

from harness.model.compare import same_result
from harness.model.paths import SCHEMAS
from harness.model.registry import FAMILIES, OPS, Op
from harness.model.step_relations import declared_source, judged
from harness.model.traces import ARGS, TRACE_OP, TraceError, host_value, parse
from harness.testees.errors import HARNESS_CODES
from harness.testees.testee import Response, Testee


@cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((SCHEMAS / "trace-v1.schema.json").read_text(encoding="utf-8")))


def traced_ops(testee: Testee) -> tuple[str, ...]:
    """The ops a testee says it traces (its start answer's ``traces``); () for a black box."""
    listed = testee.description.get("traces") if isinstance(testee.description, dict) else None
    return tuple(op for op in listed if op in OPS) if isinstance(listed, list) else ()


def request_trace(testee: Testee, op: str, args: dict[str, Any]) -> Response:
    return testee.call(TRACE_OP, {"op": op, "args": args})


def allowed_steps(op: Op) -> set[str]:
    """Every step id a trace of ``op`` may name past ``args``."""
    allowed = set(op.step_ids())
    if op.via is not None:
        allowed |= set(OPS[op.via].step_ids())
    return allowed


def problems(op_name: str, trace_response: Response, op_response: Response | None,
             validate: bool = True) -> list[str]:
    """What is wrong with one trace (empty: nothing). ``op_response``: the op's own answer to the same
    arguments (None: not compared); ``validate``: against the schema too (the costly part)."""
    if "ok" not in trace_response:
        error = trace_response.get("error", {})
        return [f"the trace request was answered {error.get('code')}: {str(error.get('message', ''))[:200]}"]
    try:
        document = parse(trace_response["ok"])
    except TraceError as exc:
        return [str(exc)]
    found = [f"not a trace-v1 document: {error.message[:200]} (at {'/'.join(map(str, error.absolute_path))})"
             for error in list(_validator().iter_errors(document))[:3]] if validate else []
    if found:
        return found
    op = OPS[op_name]
    if document["op"] != op_name:
        found.append(f"a trace of {document['op']!r} where {op_name!r} was asked for")
    steps = [entry["step"] for entry in document["steps"]]
    if steps[0] != ARGS or ARGS in steps[1:]:
        found.append("step args must come first, once")
    unknown = sorted(set(steps[1:]) - allowed_steps(op))
    if unknown:
        found.append(f"steps that are not {op_name}'s: {', '.join(unknown)}")
    order = [step.id for step in op.steps]
    checks = [step.id for step in op.steps if step.code is not None]
    first_runs = list(dict.fromkeys(step for step in steps if step in checks))
    if first_runs != sorted(first_runs, key=order.index):
        found.append(f"argument checks out of the specification's order: {', '.join(first_runs)}")
    found += unfollowed(op, document["steps"])
    if op_response is not None:
        found += _ends_in(op_name, document["outcome"], op_response)
    return found


def sources(op: Op) -> dict[str, tuple[str, str]]:
    """Each step of ``op`` (and of the op it goes through) -> the step it takes its value from and the relation
    between them (``step_relations.declared_source``: its ``follows``, else, in a family-v2 file, its role's
    relation to the step declared before it); a step declared independent of the one before it is left out
    (nothing to check)."""
    found: dict[str, tuple[str, str]] = {}
    for owner in (op, OPS.get(op.via or "")):
        if owner is None:
            continue
        for index, step in enumerate(owner.steps):
            source = declared_source(index, owner.steps, by_role(owner))
            if source is not None and source[1] != "independent":
                found.setdefault(step.id, source)
    return found


def by_role(op: Op) -> bool:
    """Whether ``op``'s steps take their role's relation where they name none: a family-v2 file's (a family-v1
    file's roles name causes only)."""
    return next((family.schema for family in FAMILIES if family.name == op.family), "family-v2") != "family-v1"


def unfollowed(op: Op, steps: list[dict[str, Any]]) -> list[str]:
    """The first entry of a trace whose value does not follow from the value its step takes (``sources``: the
    nearest entry before it of the step it follows, with no entry of its own step between them: the value
    that run of the step received), as one problem; [] when every one does. A step whose source step the trace
    does not show (decide_write's norm.nfc: its text comes from gate.text) is not checked."""
    declared = sources(op)
    last: dict[str, int] = {}  # step id -> index of its latest entry so far
    for index, entry in enumerate(steps):
        name = entry.get("step")
        source = declared.get(name) if isinstance(name, str) else None
        if source is not None and source[0] in last and last[source[0]] > last.get(name, -1):
            before = steps[last[source[0]]]
            if not judged(source[1], host_value(before.get("value")), host_value(entry.get("value"))):
                shown, was = (json.dumps(e.get("value"), ensure_ascii=False)[:120] for e in (entry, before))
                return [f"step {name} holds {shown}, which does not follow from the {source[0]} value it takes "
                        f"({was}) as the specification's {source[1]} does: the step did not receive what the "
                        f"trace shows the step before it made"]
        if isinstance(name, str):
            last[name] = index
    return []


def _ends_in(op_name: str, outcome: dict[str, Any], op_response: Response) -> list[str]:
    """The trace's outcome against the op's own answer: a result as every result is compared
    (``compare.same_result``: a JSON-result op's texts by their JSON values, so a trace written by another encoder
    than the op's answer ends in it all the same)."""
    if "ok" in op_response:
        if "result" not in outcome or not same_result(op_name, host_value(outcome["result"]), op_response["ok"]):
            shown = outcome.get("result", outcome.get("error"))
            return [f"the trace ends in {json.dumps(shown, ensure_ascii=False)[:200]}; the op returned "
                    f"{json.dumps(op_response['ok'], ensure_ascii=False)[:200]}"]
        return []
    code = op_response.get("error", {}).get("code")
    if code in HARNESS_CODES:
        return []  # the op was not answered (a crash, a cut): nothing to end in
    if outcome.get("error") != code:
        shown = outcome.get("error", outcome.get("result"))
        return [f"the trace ends in {json.dumps(shown, ensure_ascii=False)[:200]}; the op raised {code}"]
    return []
