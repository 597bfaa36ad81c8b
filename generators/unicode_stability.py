"""Refuse fixture inputs whose Unicode data differs between the Unicode versions in play.

Versions in play: every version there is a table for (data/unicode-tables/, harness/tools/make_unicode_tables.py):
the reference's case mapping on each Python it supports (CPython 3.11: 14.0, 3.12: 15.0, 3.13: 15.1),
``unicodedata2``'s (the reference's NFC, pinned to the Rust core's normalization tables: 18.0), Rust std's
case tables (17.0) and Pyodide's CPython 3.14 (16.0, both steps). A character passes when it is assigned in
the oldest of them and what the contract's Unicode steps read of it (its NFC data, its lowercase mapping,
Cased and Case_Ignorable: harness/model/unicode_tables.py) is the same in every one. The answer is the
tables', never the running interpreter's, so the generator writes the same fixtures on every Python. See
docs/contract.md, section 9.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.model import unicode_tables
from harness.model.unicode_info import is_surrogate
from reference import strict_json
from reference.errors import ContractError


def versions_in_play() -> list[str]:
    """Every Unicode version there is a table for, oldest first."""
    return sorted(unicode_tables.available(), key=unicode_tables.version_key)


def unstable_reason(ch: str) -> str | None:
    """Why ``ch`` may behave differently across the versions in play, or None when it is stable."""
    cp = ord(ch)
    if is_surrogate(cp):
        return None  # a lone surrogate is a boundary input, not a character: no Unicode data applies
    oldest = unicode_tables.oldest()
    if not unicode_tables.table(oldest).is_assigned(cp):
        return f"U+{cp:04X} is unassigned in Unicode {oldest}"
    if cp in unicode_tables.sensitive_anywhere():
        versions = versions_in_play()
        steps = [step for step in unicode_tables.STEPS
                 if any(unicode_tables.differs(cp, step, a, b) for a in versions for b in versions
                        if unicode_tables.has(a, step) and unicode_tables.has(b, step))]
        return f"U+{cp:04X}: its {' and '.join(steps)} data differs between Unicode versions in play " \
               f"({', '.join(versions)})"
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
