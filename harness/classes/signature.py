"""What a disagreement looks like before anything is classified: its ``signature``, pure and cheap (no call to any
implementation, no classifier), so that a fuzz run can tell an input whose difference looks like none it has
classified from one more of the same (harness/classes/sightings.py classifies the first of each signature;
harness/fuzzing/fuzz.py keeps examples per signature in each batch).

For each implementation that disagrees with the oracle: the difference's shape (``outcome_shape``: a list that
gains, loses or changes items, a text made longer or shorter, an error against a result...) and the kinds of the
characters the two sides part on. Those are, for a list result, the items one side has and the other lacks (as
the comparison counts them) and, where such an item is a piece of a text argument, the input's characters on
either side of it (a token ended, or joined, by the character next to it: a mark kept inside it, a letter the
other side does not know); for a text result, what lies between the two texts' common start and common end, and
a character on either side of it. A character's kind is coarse, so that one difference on random inputs keeps one
signature: one of four (``BUCKETS``, by the major class of its General_Category in the newest Unicode data the
harness has): ``word`` (a letter or number, L and N), ``mark`` (M: it joins what it follows), ``other``
(punctuation, symbols, separators, controls, unassigned, a lone surrogate: what ends a word), or ``new`` for a
character assigned after the oldest Unicode version the harness has tables for (which a version skew reads
differently). An implementation's part of a signature is its shape and a set of those four kinds (16 sets at
most): a run where every input disagrees the same way meets few of them.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import unicodedata2

from harness.differential.outcomes import divergent, oracle_of, outcome, outcome_shape, value_shape
from harness.model import unicode_info
from harness.model.compare import canonical_digest

Signature = tuple[tuple[str, str, tuple[str, ...]], ...]
NEW = "new"  # a character assigned after the oldest Unicode version the harness has data for
# General_Category's major classes, in three: what makes words (letters, numbers), marks (which join what they
# follow), and the rest (punctuation, symbols, separators, controls, unassigned: what ends a word)
PARTED_LIMIT = 256  # characters looked at (a long difference's kinds are known long before its end)
BUCKETS = {"L": "word", "N": "word", "M": "mark", "P": "other", "S": "other", "Z": "other", "C": "other"}


@lru_cache(maxsize=4096)
def kind_of(ch: str) -> str:
    """A character's coarse kind: NEW, or its General_Category's major class's bucket (``BUCKETS``: word, mark or
    other; other for a lone surrogate)."""
    cp = ord(ch)
    if unicode_info.is_surrogate(cp):
        return "other"
    assigned = unicode_info.age(cp)
    if assigned is not None and assigned != _base():
        return NEW
    return BUCKETS[unicodedata2.category(ch)[0]]


@lru_cache(maxsize=1)
def _base() -> str:
    return unicode_info.age(ord("A")) or unicodedata.unidata_version


def _texts(value: Any) -> Iterator[str]:
    """Every string in a parsed value (a host string, or the strings inside a JSON text argument)."""
    if isinstance(value, str):
        yield value
        if value.lstrip()[:1] not in ("[", "{", '"'):
            return
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            return
        if not isinstance(parsed, str):
            yield from _texts(parsed)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)


def _parted_items(a: list[Any], b: list[Any]) -> tuple[list[Any], list[Any]]:
    """The items of ``a`` that ``b`` lacks, and those of ``b`` that ``a`` lacks (as multisets of JSON values, as
    ``outcomes.value_shape`` counts them)."""
    def counted(items: list[Any]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        for item in items:  # two strings are one JSON value where they are one string
            out.setdefault(item if isinstance(item, str) else canonical_digest(item), []).append(item)
        return out

    left, right = counted(a), counted(b)
    lost = [item for key, items in left.items() for item in items[len(right.get(key, ())):]]
    gained = [item for key, items in right.items() for item in items[len(left.get(key, ())):]]
    return lost, gained


def _list_shape(a: list[Any], b: list[Any], lost: list[Any], gained: list[Any]) -> str:
    """``outcomes.value_shape`` of two lists, from their parted items (the same rules, counted once)."""
    if not lost and not gained:  # the same items (in another order, or equal): as value_shape says
        return value_shape(a, b)
    if len(a) == len(b):
        return "changes-item"
    if len(b) > len(a):
        return "gains-changed" if lost else "gains-item"
    return "loses-changed" if gained else "loses-item"


def _beside(piece: str, inputs: list[str]) -> str:
    """The characters next to ``piece``'s first occurrence in the first input text that holds it."""
    for text in inputs:
        at = text.find(piece)
        if at >= 0:
            return text[max(0, at - 1):at] + text[at + len(piece):at + len(piece) + 1]
    return ""


def _parted_text(a: str, b: str) -> str:
    """What two texts part on: the parts between their common start and common end, and a character of each
    side of that."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    lo = max(0, start - 1)
    return a[lo:len(a) - end + (1 if end else 0)] + b[lo:len(b) - end + (1 if end else 0)]


def _difference(args: dict[str, Any], a: Any, b: Any) -> tuple[str, str]:
    """(the shape, the characters, possibly repeated, that two parsed results part on: the module's docstring)."""
    if isinstance(a, list) and isinstance(b, list):
        lost, gained = _parted_items(a, b)
        inputs = [text for value in args.values() for text in _texts(value)]
        parted = "".join(piece + _beside(piece, inputs) for item in lost + gained for piece in _texts(item))
        return _list_shape(a, b, lost, gained), parted
    if isinstance(a, str) and isinstance(b, str):
        return value_shape(a, b), _parted_text(a, b)
    return value_shape(a, b), ""


def signature(op: str, args: dict[str, Any], responses: dict[str, dict[str, Any]],
              names: list[str] | tuple[str, ...] | None = None) -> Signature:
    """The signature of one disagreement (the module's docstring): per implementation that disagrees with the
    oracle (``names``, when the caller knows them), in that order, (name, shape, the sorted kinds of the
    characters they part on)."""
    oracle = oracle_of(op, responses)
    names = divergent(op, responses) if names is None else names
    kind_a, a = outcome(op, responses[oracle])
    out = []
    for name in names:
        kind_b, b = outcome(op, responses[name])
        if kind_a == kind_b == "ok":
            shape, parted = _difference(args, a, b)
            kinds = {kind_of(ch) for ch in parted[:PARTED_LIMIT]}
        else:
            shape, kinds = outcome_shape(op, responses[oracle], responses[name]), set()
        out.append((name, shape, tuple(sorted(kinds))))
    return tuple(out)
