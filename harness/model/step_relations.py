"""How a step's value follows from the value of the step it is computed from, as a trace must show it (a family
file's step ``"follows": {"step": ID, "as": RELATION}``; harness/testees/traces.py checks every trace with it).

Each relation holds up to the character set the step's role reads: an implementation whose set differs (a
White_Space character it lacks, a near miss it counts) still follows, and the character rules name that
difference where two traces part. A value that follows from nothing the step could have done is an account of
something the testee did not do (a fused collapse whose trace shows separate steps), a ``trace_mismatch``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.model.contract_sets import white_space_like


def _runs(text: str) -> str:
    """Every maximal run of space-like characters as one U+0020."""
    out: list[str] = []
    for ch in text:
        if not white_space_like(ch):
            out.append(ch)
        elif not out or out[-1] != " ":
            out.append(" ")
    return "".join(out)


def _stripped(after: str, before: str, may_go: Callable[[str], bool]) -> bool:
    """Whether ``after`` is ``before`` with some characters that ``may_go`` taken from its two ends."""
    head = next((i for i, ch in enumerate(before) if not may_go(ch)), len(before))
    tail = next((i for i, ch in enumerate(reversed(before)) if not may_go(ch)), len(before))
    return any(before.startswith(after, i) and 0 <= len(before) - i - len(after) <= tail
               for i in range(min(head, len(before) - len(after)) + 1))


def _pieces(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(piece, str) for piece in value)


def trim(before: Any, after: Any) -> bool:
    """Each piece with space-like characters taken from its ends (ctx.trim of ctx.split)."""
    return _pieces(before) and _pieces(after) and len(before) == len(after) and \
        all(_stripped(a, b, white_space_like) for b, a in zip(before, after, strict=True))


def join(before: Any, after: Any) -> bool:
    """The pieces joined with one space, pieces that are empty or only space-like dropped, no other
    (ctx.join of ctx.trim)."""
    if not _pieces(before) or not isinstance(after, str):
        return False
    states = {(0, False)}  # (how much of `after` the pieces so far make, whether one was kept)
    for piece in before:
        grown = {state for state in states if all(white_space_like(ch) for ch in piece)}  # dropped
        for at, kept in states:
            joined = (" " if kept else "") + piece
            if after.startswith(joined, at):
                grown.add((at + len(joined), True))
        states = grown
    return any(at == len(after) for at, _ in states)


def white_space_runs(before: Any, after: Any) -> bool:
    """Runs of space-like characters made one space, nothing else changed (norm.white_space)."""
    return isinstance(before, str) and isinstance(after, str) and _runs(before) == _runs(after)


def edges(before: Any, after: Any) -> bool:
    """Space-like characters and punctuation taken from both ends, nothing else changed (norm.edges)."""
    return isinstance(before, str) and isinstance(after, str) and \
        _stripped(after, before, lambda ch: white_space_like(ch) or not ch.isalnum())


def quote_dash(before: Any, after: Any) -> bool:
    """Characters mapped one to one, each either kept or made an ASCII quote or dash (norm.quote_dash)."""
    return isinstance(before, str) and isinstance(after, str) and len(before) == len(after) and \
        all(b == a or a in "'\"-" for b, a in zip(before, after, strict=True))


# The relations a family file's "follows" may name (schemas/family-v1.schema.json's enum is this table's keys).
RELATIONS: dict[str, Callable[[Any, Any], bool]] = {
    "trim": trim, "join": join, "white_space_runs": white_space_runs, "edges": edges, "quote_dash": quote_dash,
}
