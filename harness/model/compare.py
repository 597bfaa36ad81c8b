"""Comparing an implementation's response with a fixture expectation or with another response: a JSON result by the
JSON value its text holds (``same_result``, the one comparison of a result), never by its text."""

from __future__ import annotations

import json
import math
import struct
from typing import Any

from harness.model.caps import Oversized, canonical_digest, text_digest
from harness.model.registry import get_op


def same_json(a: Any, b: Any) -> bool:
    """Equality of parsed JSON values, numbers compared as binary64 bit patterns (-0.0 != 0.0, 1 == 1.0)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        try:
            return struct.pack("<d", float(a)) == struct.pack("<d", float(b))
        except OverflowError:
            return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def parse_result_text(value: str) -> tuple[bool, Any]:
    """(parsed, value) of a JSON result's text (NaN, Infinity and -Infinity parse as NaN)."""
    try:
        return True, json.loads(value, parse_constant=lambda name: math.nan)
    except (ValueError, RecursionError):  # a testee's text nested past the parser's limit: not JSON to it
        return False, value


def parse_result(op_name: str, value: Any) -> tuple[bool, Any]:
    """(parsed ok, value) for comparison: JSON-kind results are parsed, text results kept. An oversized answer
    (harness/model/caps.py) is kept as it is, parsed when its text parsed: it is compared by its digest."""
    if get_op(op_name).result_kind != "json":
        return True, value
    if isinstance(value, Oversized):
        return value.key[0] == "json", value
    if not isinstance(value, str):
        return False, value
    return parse_result_text(value)


def same_value(op_name: str, a: Any, b: Any, parsed: bool = True) -> bool:
    """Whether two results as ``parse_result`` gives them (``parsed``: both parsed) are equal; where one is
    oversized (harness/model/caps.py), both are compared by what their digests are of, so a cap never changes a
    verdict."""
    if isinstance(a, Oversized) or isinstance(b, Oversized):
        kind = "text" if get_op(op_name).result_kind != "json" else "json" if parsed else "unparseable"
        return _key(a, kind) == _key(b, kind)
    return same_json(a, b)


def same_result(op_name: str, a: Any, b: Any) -> bool:
    """Whether two results of ``op_name``, each as an implementation sent it, are the same: the one comparison of
    a result everywhere (the differential's outcomes, a trace's outcome against the oracle's and against its op's
    own answer, the trace command's table). A text result by its characters; a JSON result's texts by the JSON
    values they hold (``same_json``: however spaced or escaped, an object's members in any order, ``1`` and
    ``1.0`` one number), two that do not parse by their texts, and one that parses never the same as one that
    does not; an oversized answer by its digest (harness/model/caps.py: the same verdict as uncapped)."""
    parsed_a, value_a = parse_result(op_name, a)
    parsed_b, value_b = parse_result(op_name, b)
    return parsed_a == parsed_b and same_value(op_name, value_a, value_b, parsed=parsed_a)


def _key(value: Any, kind: str) -> tuple[str, str]:
    """What ``value`` (a result of that kind: text, json or unparseable) is compared by when it is oversized."""
    if isinstance(value, Oversized):
        return value.key
    if kind == "json":
        return kind, canonical_digest(value)
    return kind, text_digest(value) if isinstance(value, str) else canonical_digest(value)


def mismatch(op_name: str, expect: dict[str, Any], response: dict[str, Any]) -> str | None:
    """None when ``response`` satisfies ``expect`` ({"result": v} or {"error": code}); else why not."""
    if "error" in expect:
        if "error" in response and response["error"]["code"] == expect["error"]:
            return None
        return f"expected error {expect['error']}, got {describe(response)}"
    if "error" in response:
        return f"expected a result, got {describe(response)}"
    ok, value = parse_result(op_name, response["ok"])
    if not ok:
        return f"result is not valid JSON: {response['ok']!r}"
    if same_value(op_name, value, expect["result"]):
        return None
    return f"expected {expect['result']!r}, got {value!r}"


def describe(response: dict[str, Any]) -> str:
    if "error" in response:
        error = response["error"]
        return f"error {error['code']} ({error.get('message', '')[:200]})"
    return f"result {response['ok']!r}"[:400]
