"""How a step's value follows from the value of the step it is computed from, as a trace must show it (a family
file's step ``"follows": {"step": ID, "as": RELATION}``; harness/testees/traces.py checks every trace with it).
Every step past an op's first says which step it takes its value from (``independent`` where it reads an argument
of its own), or its role's relation to the step declared before it applies (``ROLE_RELATIONS``); so no step can
be shown one value and handed another (issue 53: a lowercase shown, not done, undone by the NFC after it).

Each relation holds up to the character set the step's role reads: an implementation whose set differs (a
White_Space character it lacks, a near miss it counts) still follows, and the character rules name that
difference where two traces part. A value that follows from nothing the step could have done is an account of
something the testee did not do (a fused collapse whose trace shows separate steps), a ``trace_mismatch``.
"""

from __future__ import annotations

import functools
import math
import struct
from collections.abc import Callable, Sequence
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


# -- Unicode steps: each relation holds up to the Unicode version (a code point whose data differs between two
# versions the harness has tables of, or that the newest leaves unassigned, is not judged) and up to the rule the
# step applies (a lowercase that keeps a letter, or maps it as simple lowercasing or case folding would, follows:
# the character rules name that where two traces part; a lowercase step's value made of nothing its input could
# map to does not).

@functools.lru_cache(maxsize=8)
def _tables(prop: str) -> tuple[Any, frozenset[int]]:
    """(the newest table, the code points whose ``prop`` data differs between the tables' versions), read once."""
    from harness.model import unicode_tables

    newest = unicode_tables.table(max(unicode_tables.available(), key=unicode_tables.version_key))
    return newest, frozenset(unicode_tables.sensitive_anywhere((prop,)))


def _stable(text: str, prop: str) -> bool:
    """Whether every code point of ``text`` reads the same ``prop`` data in every Unicode version there is a table
    of, and is assigned in the newest (so that any implementation's version maps it alike)."""
    newest, sensitive = _tables(prop)
    return all(ord(ch) not in sensitive and newest.is_assigned(ord(ch)) for ch in text)


def nfc(before: Any, after: Any) -> bool:
    """The text in NFC (norm.nfc, norm.nfc_again, nfc.nfc): the NFC of the value before, or a text canonically
    equivalent to it (an NFC that composes or orders otherwise: the normalization rule names that), or anything
    where a code point's normalization data differs between Unicode versions. A lowercase step's value undone
    (``ǆ`` back to ``ǅ``: not canonically equivalent) does not follow."""
    import unicodedata2

    if not isinstance(before, str) or not isinstance(after, str):
        return False
    if after == unicodedata2.normalize("NFC", before):
        return True
    return unicodedata2.normalize("NFD", before) == unicodedata2.normalize("NFD", after) or \
        not _stable(before + after, "normalization")


@functools.lru_cache(maxsize=4096)
def _lowercases(ch: str) -> frozenset[str]:
    """What a lowercase step may make of one character: itself (a rule that leaves it), its full lowercase, its
    simple one (the first code point of the full mapping), its case folding, both sigmas for a capital sigma,
    and its lowercase in every Unicode version there is a table of."""
    from harness.model import unicode_tables

    lowered = ch.lower()
    out = {ch, lowered, lowered[:1], ch.casefold()}
    if ch == "\u03a3":
        out |= {"\u03c3", "\u03c2"}
    if not _stable(ch, "case_mapping"):
        out |= {"".join(map(chr, unicode_tables.table(version).lower.get(ord(ch), (ord(ch),))))
                for version in unicode_tables.available()}
    return frozenset(out)


def lowercase(before: Any, after: Any) -> bool:
    """Each character kept or mapped to a lowercase of it (norm.lowercase): ``_lowercases`` per character, in
    order, nothing added or dropped; a code point the newest Unicode table leaves unassigned is not judged."""
    if not isinstance(before, str) or not isinstance(after, str):
        return False
    if after == before.lower():
        return True
    from harness.model import unicode_tables

    newest = unicode_tables.table(max(unicode_tables.available(), key=unicode_tables.version_key))
    if not all(newest.is_assigned(ord(ch)) for ch in before):
        return True
    reached = {0}  # how much of `after` the characters so far may have made
    for ch in before:
        options = _lowercases(ch)
        reached = {at + len(option) for at in reached for option in options if after.startswith(option, at)}
        if not reached:
            return False
    return len(after) in reached


# -- Other steps.

def same(before: Any, after: Any) -> bool:
    """The value passed on unchanged (a shape check: gate.embedding of gate.embedding_json)."""
    return _equal(before, after)


def _equal(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _binary32_neighbour(before: Any, after: Any) -> bool:
    try:
        return _neighbour(before, after)
    except (OverflowError, ValueError):  # a number no float holds (10**400 in a testee's trace): not a neighbour
        return False


def _neighbour(before: Any, after: Any) -> bool:
    if isinstance(before, bool) or isinstance(after, bool) or not isinstance(before, (int, float)) or \
            not isinstance(after, (int, float)) or not math.isfinite(after):
        return False
    try:
        narrow = struct.unpack("<f", struct.pack("<f", after))[0]
    except OverflowError:
        return False
    if narrow != after:
        return False  # not a binary32 value
    if abs(before) > 3.4028235677973366e38:  # past f32::MAX and half an ulp: infinite in binary32, refused
        return False
    ulp = max(2.0 ** (math.frexp(before)[1] - 24), 2.0 ** -149)  # binary32's spacing at `before`
    return abs(after - before) <= 2 * ulp


def binary32(before: Any, after: Any) -> bool:
    """Each number of the list made a binary32 value next to it, null kept (gate.binary32: a rounding, either way: the
    float_rounding rule names the direction where two traces part), the same length, nothing else changed."""
    if before is None:
        return after is None  # no embedding: nothing to round
    return isinstance(before, list) and isinstance(after, list) and len(before) == len(after) and \
        all(_binary32_neighbour(b, a) for b, a in zip(before, after, strict=True))


def empty(before: Any, after: Any) -> bool:
    """Whether the text before is empty (gate.empty_text of gate.normalize)."""
    return isinstance(before, str) and after is (before == "")


def contains(before: Any, after: Any) -> bool:
    """The text before held in this one (ctx.line holds its item's collapsed text, ctx.output its last line)."""
    return isinstance(before, str) and isinstance(after, str) and before in after


def extends(before: Any, after: Any) -> bool:
    """The text before, with something or nothing after it (ctx.pin_note of ctx.output)."""
    return isinstance(before, str) and isinstance(after, str) and after.startswith(before)


def holds(before: Any, after: Any) -> bool:
    """The value before is one of this list's items (ctx.skip_empty names the item whose collapsed text it was)."""
    return isinstance(after, list) and any(_equal(before, item) for item in after)


def runs(before: Any, after: Any) -> bool:
    """A list of non-empty pieces of the text before, in order, none overlapping (tok.split of tok.text)."""
    if not isinstance(before, str) or not _pieces(after):
        return False
    at = 0
    for piece in after:
        found = before.find(piece, at) if piece else -1
        if found < 0:
            return False
        at = found + len(piece)
    return True


def kept_items(before: Any, after: Any) -> bool:
    """Some of the list's items, in their order, none changed (tok.length of tok.split: a filter)."""
    if not isinstance(before, list) or not isinstance(after, list):
        return False
    items = iter(before)
    return all(any(_equal(item, wanted) for item in items) for wanted in after)


def independent(before: Any, after: Any) -> bool:
    """The step does not take the value of the step before it (it checks an argument of its own, a field of a
    candidate, or values of several steps): said in the family file so that no pair of steps is left unsaid;
    nothing to check."""
    return True


def judged(relation: str, before: Any, after: Any) -> bool:
    """Whether ``after`` follows from ``before`` under ``relation`` (RELATIONS); a value a relation cannot read (a
    testee's trace is untrusted: huge numbers, deep nesting) does not follow, never an exception."""
    try:
        return RELATIONS[relation](before, after)
    except (OverflowError, ValueError, TypeError, RecursionError):
        return False


# The relations a family file's "follows" may name (schemas/family-v2.schema.json's enum is this table's keys).
RELATIONS: dict[str, Callable[[Any, Any], bool]] = {
    "trim": trim, "join": join, "white_space_runs": white_space_runs, "edges": edges, "quote_dash": quote_dash,
    "nfc": nfc, "lowercase": lowercase, "same": same, "binary32": binary32, "empty": empty, "contains": contains,
    "extends": extends, "holds": holds, "runs": runs, "kept_items": kept_items, "independent": independent,
}

# A step that names no relation is checked against the step declared before it with its role's relation, where
# its role has one (``relation_of``); a step whose role has none must name one (``undeclared``).
ROLE_RELATIONS: dict[str, str] = {"nfc": "nfc", "lowercase": "lowercase", "quote_dash": "quote_dash",
                                  "white_space": "white_space_runs", "edges": "edges", "trim": "trim"}


def declared_source(index: int, steps: Sequence[Any], by_role: bool = True) -> tuple[str, str] | None:
    """The step ``steps[index]`` takes its value from and the relation between them: its ``follows`` where it
    names one, else (``by_role``: a family-v2 file's step) the step declared before it with its role's relation
    (``ROLE_RELATIONS``), else None (its pair is unsaid). ``steps``: a family file's step objects, or the
    registry's ``Step`` (``follows``, ``role``). A family-v1 file's roles name causes only (the tags example's
    white_space step makes runs a ``-``): no relation is read from them."""
    step = steps[index]
    follows = step.get("follows") if isinstance(step, dict) else step.follows
    if follows:
        return (follows["step"], follows["as"]) if isinstance(follows, dict) else (follows[0], follows[1])
    role = step.get("role", "rule") if isinstance(step, dict) else step.role
    if by_role and index > 0 and role in ROLE_RELATIONS:
        before = steps[index - 1]
        return (before["id"] if isinstance(before, dict) else before.id), ROLE_RELATIONS[role]
    return None


def undeclared(steps: Sequence[Any], by_role: bool = True) -> list[str]:
    """The steps past the first that say nothing of the step before them: no ``follows`` and (``by_role``) a
    role with no relation of its own. Every pair of consecutive steps of a family-v2 file is checked or declared
    independent: families.read refuses a family-v2 file with such a step (status 2); tracecheck names them for a
    family-v1 file, whose roles say nothing (harness/checks/tracecheck.py, ``unsaid_steps``)."""
    return [step["id"] if isinstance(step, dict) else step.id
            for index, step in enumerate(steps) if index > 0 and declared_source(index, steps, by_role) is None]
