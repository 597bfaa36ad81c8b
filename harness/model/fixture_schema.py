"""A fixture file's schema with its per-op rules, derived from the op registry.

schemas/fixture-v1.schema.json says what every fixture file holds, whatever its ops; what each op's cases hold
(the op's name, its argument names, the required ones, its result's shape, the error codes it can give) comes
from the op registry, that is from the family files, so an op family added later needs no schema edit.
``derive`` adds those rules to the file's schema; the fixture lint and the generator (before it writes)
validate with the result.
"""

from __future__ import annotations

import copy
from typing import Any

from harness.model.registry import LATER_CODES, OPS, Op

# A text op's result; a json op's result is what its family's result_schema says (anything when none).
_TEXT_RESULT: dict[str, Any] = {"type": "string"}


def _codes(op: Op) -> set[str]:
    """Every error code a case of ``op`` can expect: its parameters', what is read from them, its steps'."""
    codes = {code for param in op.params for code in (param.error_code, *LATER_CODES.get(param.error_code, ()))}
    return codes | {step.code for step in op.steps if step.code}


def _rule(op: Op) -> dict[str, Any]:
    result = _TEXT_RESULT if op.result_kind == "text" else (op.result_schema or True)
    return {"if": {"properties": {"op": {"const": op.name}}},
            "then": {"properties": {
                "args": {"required": [p.name for p in op.params if p.required],
                         "propertyNames": {"enum": [p.name for p in op.params]}},
                "expect": {"properties": {"result": result, "error": {"enum": sorted(_codes(op))}}}}}}


def fixture_ops() -> list[Op]:
    """The ops a fixture pins (those with a fixture family), in registry order."""
    return [op for op in OPS.values() if op.fixture is not None]


def derive(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (a fixture-v1 schema document) with the op registry's per-op rules in its test definition:
    the op among the ops a fixture pins, and each op's arguments, result and error codes."""
    out = copy.deepcopy(schema)
    test = out.get("$defs", {}).get("test")
    if not isinstance(test, dict) or not isinstance(test.get("properties"), dict):
        return out  # not the fixture schema's shape: validated as it is (its own errors name the problem)
    ops = fixture_ops()
    test["properties"]["op"] = {"enum": [op.name for op in ops]}
    test["allOf"] = [*test.get("allOf", []), *(_rule(op) for op in ops)]
    return out
