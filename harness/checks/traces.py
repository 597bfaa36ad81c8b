"""Traces checked on many examples at once (harness/testees/traces.py holds the checks of one trace)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.model import hostvalues
from harness.model.traces import TRACE_OP, TraceError, parse
from harness.testees.findings import Findings
from harness.testees.testee import Testee
from harness.testees.traces import problems, traced_ops

__all__ = ["Checked", "check_examples", "traced_ops", "untraced"]


@dataclass(frozen=True)
class Checked:
    """One example traced on one testee: its trace (None when it is not one) and what is wrong with it."""

    op: str
    args: dict[str, Any]
    trace: dict[str, Any] | None
    problems: tuple[str, ...]


def untraced(testee: Testee) -> dict[str, str]:
    """The ops whose trace claim ``testee`` showed false in this run (op -> what came back: the command client
    made it a ``handshake_lie`` and asks for no trace of them again, harness/testees/command.py); {} for a
    testee that showed none, or keeps none (an in-process one)."""
    found = getattr(testee, "untraced", None)
    return found if isinstance(found, dict) else {}


def check_examples(testee: Testee, examples: list[tuple[str, dict[str, Any]]],
                   findings: Findings | None = None) -> list[Checked]:
    """Trace each example (op, args) on ``testee`` and call the op itself, in one batch; check each trace.
    Each trace with a problem is a ``trace_mismatch`` finding about the testee in ``findings`` (when given),
    except a trace its testee's claim was shown false for (``untraced``): that is its ``handshake_lie``."""
    calls = [call for op, args in examples for call in ((op, args), (TRACE_OP, {"op": op, "args": args}))]
    answers = testee.call_batch(calls)
    out = []
    for index, (op, args) in enumerate(examples):
        op_response, trace_response = answers[2 * index], answers[2 * index + 1]
        found = problems(op, trace_response, op_response)
        document = None
        if "ok" in trace_response:
            try:
                document = parse(trace_response["ok"])
            except TraceError:
                document = None
        withdrawn = untraced(testee).get(op) if "ok" not in trace_response else None
        if withdrawn is not None:
            found = [f"claims traces of {op} but did not serve one ({withdrawn}): a handshake_lie, a black box for it"]
        out.append(Checked(op, args, document, tuple(found)))
        if found and findings is not None and withdrawn is None:
            findings.add(testee.name, "trace_mismatch", f"{op}: {found[0]}", request=json.dumps(
                {"op": op, "args": hostvalues.encode_args(args)}, ensure_ascii=True)[:400])
    return out
