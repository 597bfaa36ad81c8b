"""Host values in JSON: how fixtures and protocol messages carry arguments that JSON cannot hold.

A host value is what a caller passes to a binding function, wrong types included (a JavaScript caller
can pass ``text=[]`` or ``force={}``). Plain JSON covers strings, numbers (``30`` is an integer and
``30.0`` a float, and the difference is kept), booleans, null and arrays (of host values). Three tagged
forms cover the rest, each a one-key object (a plain JSON object is never a host value, so they are
unambiguous):

* ``{"$float": "NaN" | "Infinity" | "-Infinity"}``: a non-finite float;
* ``{"$utf16": [55296, 97]}``: a string given as UTF-16 code units, used when it holds a lone
  surrogate. Fixture files stay readable by strict parsers (serde_json) that refuse lone-surrogate
  escapes;
* ``{"$codepoints": [55296, 56320]}``: a string given as code points, used when a high lone surrogate
  is directly followed by a low one. In UTF-16 those two halves would read as one valid pair (a
  different string), so ``$utf16`` cannot carry them; a UTF-16 host cannot hold such a string at all
  (its testee answers ``bad_request``, and the harness does not send it there: Implementation.can_express);
* ``{"$object": {"key": <host value>, ...}}``: an object (a Python dict, a JavaScript object).

This module is the codec's Python side; wasm_host/testee.js and rust_core/fixture-tests decode the
same forms (their tests send every form through).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from harness.model.unicode_info import has_surrogate

_FLOAT_NAMES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _utf16_units(text: str) -> list[int]:
    units: list[int] = []
    for ch in text:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            units += [0xD800 | (cp >> 10), 0xDC00 | (cp & 0x3FF)]
        else:
            units.append(cp)
    return units


def _from_utf16(units: list[int]) -> str:
    # surrogatepass keeps lone surrogates as Python code points; valid pairs are combined.
    return b"".join(unit.to_bytes(2, "little") for unit in units).decode("utf-16-le", "surrogatepass")


def encode(value: Any) -> Any:
    """A Python host value -> its JSON form."""
    if type(value) is str and not has_surrogate(value):  # the common value, first
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    if isinstance(value, str) and has_surrogate(value):
        if utf16_merges(value):
            return {"$codepoints": [ord(ch) for ch in value]}
        return {"$utf16": _utf16_units(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {"$object": {key: encode(item) for key, item in value.items()}}
    raise TypeError(f"cannot encode host value of type {type(value).__name__}")


def decode(value: Any) -> Any:
    """The JSON form of a host value -> the Python value."""
    if isinstance(value, dict):
        if len(value) == 1 and "$float" in value and value["$float"] in _FLOAT_NAMES:
            return _FLOAT_NAMES[value["$float"]]
        if len(value) == 1 and "$utf16" in value and isinstance(value["$utf16"], list):
            units = value["$utf16"]
            if all(isinstance(u, int) and not isinstance(u, bool) and 0 <= u <= 0xFFFF for u in units):
                return _from_utf16(units)
        if len(value) == 1 and "$codepoints" in value and isinstance(value["$codepoints"], list):
            points = value["$codepoints"]
            if all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 0x10FFFF for p in points):
                return "".join(map(chr, points))
        if len(value) == 1 and "$object" in value and isinstance(value["$object"], dict):
            return {key: decode(item) for key, item in value["$object"].items()}
        raise ValueError(f"not a host value: {value!r} (objects must be {{'$float': ...}}, {{'$utf16': [...]}}, "
                         "{'$codepoints': [...]} or {'$object': {...}})")
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


def utf16_merges(value: Any) -> bool:
    """Whether a host value holds a string where a high surrogate is directly followed by a low one.

    In Python these are two lone surrogates (not text); in a UTF-16 host (JavaScript) the same code
    units are one valid pair, i.e. a different value. Such an input cannot be expressed there.
    """
    if isinstance(value, str):
        return any(0xD800 <= ord(a) <= 0xDBFF and 0xDC00 <= ord(b) <= 0xDFFF for a, b in itertools.pairwise(value)) \
            if has_surrogate(value) else False
    if isinstance(value, (list, tuple)):
        return any(utf16_merges(item) for item in value)
    if isinstance(value, dict):
        return any(utf16_merges(k) or utf16_merges(v) for k, v in value.items())
    return False


def encode_args(args: dict[str, Any]) -> dict[str, Any]:
    return {name: encode(value) for name, value in args.items()}


def decode_args(args: dict[str, Any]) -> dict[str, Any]:
    return {name: decode(value) for name, value in args.items()}


# ---- values equal to Python's == (hashing alike) but of different host types ---------------------------------------

EQUAL_BY_VALUE: tuple[tuple[Any, ...], ...] = ((True, 1, 1.0), (False, 0, 0.0, -0.0))


def shown(value: Any) -> str:
    """A host value as a caller would write it, telling -0.0 from 0.0."""
    return "-0.0" if isinstance(value, float) and value == 0 and math.copysign(1.0, value) < 0 else repr(value)


def orders(group: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Every rotation of ``group`` and of its reverse: each value comes first once, and after each other one."""
    turned = [group[i:] + group[:i] for i in range(len(group))]
    backwards = tuple(reversed(group))
    return turned + [backwards[i:] + backwards[:i] for i in range(len(backwards))]


def type_twins(value: Any) -> list[Any]:
    """The values equal to ``value`` under == but of another host type (or sign of zero): ``True`` -> ``[1, 1.0]``;
    none for a value outside EQUAL_BY_VALUE. A host that memoizes by == answers them all alike."""
    for group in EQUAL_BY_VALUE:
        if any(shown(value) == shown(member) and type(value) is type(member) for member in group):
            return [member for member in group if shown(member) != shown(value) or type(member) is not type(value)]
    return []
