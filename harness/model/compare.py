"""Comparing an implementation's response with a fixture expectation or with another response."""

from __future__ import annotations

import json
import math
import struct
from typing import Any

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


def parse_result(op_name: str, value: Any) -> tuple[bool, Any]:
    """(parsed ok, value) for comparison: JSON-kind results are parsed, text results kept."""
    if get_op(op_name).result_kind != "json":
        return True, value
    if not isinstance(value, str):
        return False, value
    try:
        return True, json.loads(value, parse_constant=lambda name: math.nan)
    except (ValueError, RecursionError):  # a testee's text nested past the parser's limit: not JSON to it
        return False, value


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
    if same_json(value, expect["result"]):
        return None
    return f"expected {expect['result']!r}, got {value!r}"


def describe(response: dict[str, Any]) -> str:
    if "error" in response:
        error = response["error"]
        return f"error {error['code']} ({error.get('message', '')[:200]})"
    return f"result {response['ok']!r}"[:400]
