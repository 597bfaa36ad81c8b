"""Refuse fixture inputs whose Unicode properties differ between the Unicode versions in play.

Versions in play: the interpreter's ``unicodedata`` (the reference's case mapping, Python 3.11: 14.0),
``unicodedata2`` (the reference's NFC, pinned to the Rust core's normalization tables: 18.0) and, in
between, Rust std's case tables (17.0) and Pyodide's CPython 3.14 (16.0, for both steps). Only the two
ends have data here (the versions in between are checked by running every fixture case on those
implementations in ``nox -s parity``), so a character passes when
it is assigned in the oldest version and its general category, canonical combining class,
decomposition mapping and NFC/NFD forms are the same at both ends. Case mappings are not exposed by
``unicodedata2``; a change of case mapping for an assigned character comes with a change of general
category (Lo -> Lu/Ll) in practice, which this check sees. See docs/contract.md, section 9.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

import unicodedata2

from harness.model.unicode_info import is_surrogate
from reference import strict_json
from reference.errors import ContractError

OLDEST = unicodedata.unidata_version
NEWEST = unicodedata2.unidata_version


def _props(db: Any, ch: str) -> tuple[Any, ...]:
    return (
        db.category(ch),
        db.combining(ch),
        db.decomposition(ch),
        db.normalize("NFC", ch),
        db.normalize("NFD", ch),
    )


def unstable_reason(ch: str) -> str | None:
    """Why ``ch`` may behave differently across the versions in play, or None when it is stable."""
    cp = ord(ch)
    if is_surrogate(cp):
        return None  # a lone surrogate is a boundary input, not a character: no Unicode data applies
    if unicodedata.category(ch) == "Cn":
        return f"U+{cp:04X} is unassigned in Unicode {OLDEST}"
    old, new = _props(unicodedata, ch), _props(unicodedata2, ch)
    if old != new:
        return f"U+{cp:04X} has properties {old!r} in Unicode {OLDEST} but {new!r} in {NEWEST}"
    return None


def _strings_in(value: Any) -> Iterable[str]:
    """Every string a host value carries: itself and, when it is JSON text, the strings inside."""
    if not isinstance(value, str):
        return
    yield value
    try:
        parsed = strict_json.loads(value, "arg")
    except ContractError:
        return
    stack = [parsed]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())


def check_args(case_id: str, args: dict[str, Any]) -> list[str]:
    """Problems found in one case's arguments (empty when every character is stable)."""
    problems = []
    seen: set[str] = set()
    for value in args.values():
        for text in _strings_in(value):
            for ch in text:
                if ch in seen:
                    continue
                seen.add(ch)
                reason = unstable_reason(ch)
                if reason:
                    problems.append(f"{case_id}: {reason}")
    return problems
