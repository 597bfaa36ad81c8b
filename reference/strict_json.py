"""Strict RFC 8259 JSON, as contract v1 defines it for every ``*_json`` argument.

Built on the standard library's C-accelerated decoder with every leniency closed:

* ``NaN``/``Infinity``/``-Infinity`` literals are rejected (``parse_constant``);
* duplicate keys, compared after unescaping, are rejected (``object_pairs_hook``);
* every number is read as the correctly rounded binary64 value of its decimal text (``float``);
  one that is infinite is rejected, underflow to zero is accepted; integers go through ``float``
  too, so a 5,000-digit integer is an infinite number, not CPython's digit-limit ``ValueError``;
* a lone surrogate anywhere (raw in the host string, or a ``\\uD800``-style escape that does not form a
  pair, in a key or a value) is rejected;
* more than :data:`MAX_DEPTH` levels of nested arrays/objects are rejected before parsing, so deep input
  can never reach a ``RecursionError``;
* a leading BOM is a syntax error (the decoder refuses it), as is any whitespace other than the four
  RFC 8259 characters (the decoder only skips those).

The result uses ``dict``, ``list``, ``str``, ``float`` (every number), ``bool`` and ``None``.
"""

from __future__ import annotations

import json
import json.scanner
import math
import re
from typing import Any

from .errors import ContractError
from .unicode_data import has_lone_surrogate

MAX_DEPTH = 100

if json.scanner.c_make_scanner is None:  # pragma: no cover - depends on the interpreter build
    # The pure-Python scanner matches numbers with a Unicode-aware \d; the C one is ASCII-only.
    raise ImportError("reference.strict_json needs CPython's C-accelerated json scanner")

_STRING_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class _Reject(Exception):
    """Raised inside decoder hooks; turned into ``invalid_json`` by :func:`loads`."""


def _reject_constant(name: str) -> Any:
    raise _Reject(f"{name} is not a JSON value")


def _number(text: str) -> float:
    value = float(text)  # correctly rounded decimal -> binary64
    if math.isinf(value):
        raise _Reject(f"number {text[:40]}{'...' if len(text) > 40 else ''} overflows binary64")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Reject(f"duplicate key {key!r}")
        result[key] = value
    return result


_DECODER = json.JSONDecoder(
    parse_float=_number,
    parse_int=_number,
    parse_constant=_reject_constant,
    object_pairs_hook=_object,
    strict=True,
)


def _max_depth(text: str) -> int:
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING_TOKEN.sub('""', text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _find_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if has_lone_surrogate(item):
                return True
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return False


def loads(text: object, name: str, step: str | None = None) -> Any:
    """Parse ``text`` (the argument called ``name``, validated by ``step``) or raise ``invalid_json``."""
    if not isinstance(text, str):
        raise ContractError("invalid_json", f"{name} must be a string holding JSON, got {type(text).__name__}", step)
    if has_lone_surrogate(text):
        raise ContractError("invalid_json", f"{name} contains a lone surrogate", step)
    # The nesting depth is at most the count of opening brackets (those in strings included): the exact
    # depth is only scanned where that count could exceed the limit.
    if text.count("[") + text.count("{") > MAX_DEPTH:
        if _max_depth(text) > MAX_DEPTH:
            raise ContractError("invalid_json", f"{name} nests arrays/objects deeper than {MAX_DEPTH} levels", step)
    try:
        value = _DECODER.decode(text)
    except _Reject as exc:
        raise ContractError("invalid_json", f"{name}: {exc}", step) from None
    except (ValueError, RecursionError) as exc:
        raise ContractError("invalid_json", f"{name}: {exc}", step) from None
    # A decoded string holds a surrogate only from the raw text (refused above) or from a \\u escape.
    if "\\u" in text and _find_lone_surrogate(value):
        raise ContractError("invalid_json", f"{name} has an escape that decodes to a lone surrogate", step)
    return value
