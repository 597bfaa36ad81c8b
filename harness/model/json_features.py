"""What a JSON text does that contract v1's strict JSON rules care about, found by the harness itself
(the standard library's lenient parser and a token scan, never an implementation's parser).

``features(text)`` names each rule the text touches: ``bom``, ``nan_literal`` (NaN/Infinity),
``duplicate_key`` (after unescaping), ``lone_surrogate`` (escaped or raw), ``number_overflow`` (a
number whose binary64 value is infinite), ``depth`` (more than 100 levels), ``whitespace`` (between
tokens, anything but the four RFC 8259 characters), ``control_character`` (raw U+0000..U+001F inside
a string), ``syntax`` (anything else the standard library refuses). An empty set: strict JSON.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 100
_JSON_WHITE = " \t\n\r"
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _scan(text: str) -> tuple[set[str], list[str], list[int]]:
    """Features found outside strings (depth, whitespace, raw control characters), the number tokens,
    and the offsets of the structural characters [ ] { } , : outside strings."""
    found: set[str] = set()
    numbers: list[str] = []
    structural: list[int] = []
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                elif ord(text[i]) < 0x20:
                    found.add("control_character")
                i += 1
        elif ch in "[{":
            structural.append(i)
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            structural.append(i)
            depth -= 1
        elif ch in ",:":
            structural.append(i)
        elif ch in "-0123456789":
            match = _NUMBER.match(text, i)
            if match:
                numbers.append(match.group())
                i = match.end() - 1
        elif not ch.isalnum() and ch not in ",:" and ch not in _JSON_WHITE and not (ch == "\ufeff" and i == 0):
            # Whitespace to someone (Unicode, str.isspace, JavaScript's \s, a BOM), but not to JSON.
            near_miss = ch.isspace() or ord(ch) < 0x20 or ch in "\u0085\u00a0\u2028\u2029\ufeff"
            found.add("whitespace" if near_miss else "syntax")
        elif ch.isspace() and ch not in _JSON_WHITE:
            found.add("whitespace")
        i += 1
    if deepest > MAX_DEPTH:
        found.add("depth")
    return found, numbers, structural


def token_gaps(text: str) -> list[int]:
    """Every offset of `text` outside strings where JSON allows whitespace: before the first token,
    after the last, and on both sides of each of [ ] { } , :."""
    return sorted({0, len(text)} | {at for i in _scan(text)[2] for at in (i, i + 1)})


def _strings(value: Any) -> list[str]:
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            out.extend(item)
            stack.extend(item.values())
    return out


def features(text: str) -> set[str]:
    found, numbers, _ = _scan(text)
    if text.startswith("\ufeff"):
        found.add("bom")
    if re.search(r"(?<![\"\w])(NaN|-?Infinity)(?![\"\w])", text):
        found.add("nan_literal")
    if any(math.isinf(float(token)) for token in numbers):
        found.add("number_overflow")
    if _ESCAPED_SURROGATE.search(text) or any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        # An escaped pair is fine; only a surrogate left lone after decoding counts.
        try:
            decoded = json.loads(text.lstrip("\ufeff"))
        except (ValueError, RecursionError):
            decoded = None
        raw = any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)
        if raw or any(0xD800 <= ord(ch) <= 0xDFFF for s in _strings(decoded) for ch in s):
            found.add("lone_surrogate")
    duplicates: list[bool] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in items]
        if len(set(keys)) < len(keys):
            duplicates.append(True)
        return dict(items)

    try:
        json.loads(text, object_pairs_hook=pairs)
    except RecursionError:
        found.add("depth")
    except ValueError:
        if not found:
            found.add("syntax")
    if duplicates:
        found.add("duplicate_key")
    return found



def bracket_depth(text: str) -> int:
    """The deepest nesting of [ { against ] } counted everywhere, inside strings too: what a depth scan sees
    that does not skip strings, or skips them wrongly (ending one at an escaped quote). Whether the depth rule
    is what a refusal of such a text is about is a counterfactual's question (the brackets in its strings
    made letters: ``explain``'s json depth check), never the text's alone: a text refused for a large integer
    may hold a string of brackets too."""
    depth = deepest = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def string_brackets_made_letters(text: str) -> str:
    """``text`` with every bracket inside a string token (escapes read as JSON reads them) made the letter x,
    every other character as it was: the counterfactual of ``bracket_depth``."""
    out: list[str] = []
    i, n, inside = 0, len(text), False
    while i < n:
        ch = text[i]
        if inside and ch == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        if ch == '"':
            inside = not inside
        elif inside and ch in "[]{}":
            ch = "x"
        out.append(ch)
        i += 1
    return "".join(out)
