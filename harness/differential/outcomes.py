"""What the implementations answered, and whether they agree: one call everywhere, the outcome compared,
the implementations that differ from the oracle."""

from __future__ import annotations

from typing import Any

from harness.model.compare import parse_result, same_value
from harness.testees.errors import answered
from harness.testees.fanout import expressible, serves
from harness.testees.impls import context
from harness.testees.impls import oracle as oracle_name
from harness.testees.testee import Testee

Responses = dict[str, dict[str, Any]]

# The harness's codes for a side that gave no contract answer: it crashed, trapped or hung.
FAILURES = frozenset({"crash", "timeout"})


def observe(impls: dict[str, Testee], op_name: str, args: dict[str, Any]) -> Responses:
    """Every implementation's response; one that does not serve the op or whose host cannot express ``args`` is
    left out, and so is one
    that gave no answer (harness/testees/errors.NO_ANSWER: a finding, or work cut by the budget)."""
    got = {name: impl.call(op_name, args) for name, impl in impls.items()
           if serves(name, op_name) and expressible(name, args)}
    return {name: response for name, response in got.items() if answered(response)}


def agreeing(op_name: str, responses: Responses) -> bool:
    """Whether every response has the same outcome (fast path: identical results)."""
    values = list(responses.values())
    if all("ok" in r for r in values) and all(r["ok"] == values[0]["ok"] for r in values[1:]) and \
            isinstance(values[0]["ok"], str):
        return True
    return not divergent(op_name, responses)


def outcome(op_name: str, response: dict[str, Any]) -> tuple[str, Any]:
    """What is compared: ("error", code) or ("ok", parsed value)."""
    if "error" in response:
        return "error", response["error"]["code"]
    ok, value = parse_result(op_name, response["ok"])
    return ("ok", value) if ok else ("unparseable", response["ok"])


def same_outcome(op_name: str, a: dict[str, Any], b: dict[str, Any]) -> bool:
    kind_a, value_a = outcome(op_name, a)
    kind_b, value_b = outcome(op_name, b)
    # an oversized answer (harness/model/caps.py) on either side: both compared by their digests, exactly
    return kind_a == kind_b and same_value(op_name, value_a, value_b, parsed=kind_a == "ok")


def oracle_of(op_name: str, responses: Responses) -> str:
    """The oracle of these responses: the op's oracle (``impls.oracle``) where it answered, else the first one
    (responses need not start with it: the sweep's gate orders them by name)."""
    chosen = oracle_name(op_name)
    return chosen if chosen in responses else next(iter(responses))


def divergent(op_name: str, responses: Responses) -> list[str]:
    """Implementations whose outcome differs from the oracle's (or from the first one's), but for those the run
    shows for context only (``--context``)."""
    names = list(responses)
    if not names:
        return []
    oracle = oracle_of(op_name, responses)
    shown = context()  # shown beside the witness, never judged (--context)
    return [n for n in names
            if n != oracle and n not in shown and not same_outcome(op_name, responses[oracle], responses[n])]


def kind(op_name: str, response: dict[str, Any]) -> tuple[str, Any]:
    """An outcome's kind: ("ok", None) or ("error", code)."""
    found, value = outcome(op_name, response)
    return (found, value) if found == "error" else (found, None)
