"""Causes in the character steps: NFC, the quote map, lowercase, White_Space, the edges, line breaks, the trim.

A Unicode version skew is named only when the two sides read the data of the Unicode property the step
declares (family-v2 ``"unicode"``, ``step_property``; for a family-v1 step, what its role reads) from different
Unicode versions and every span where their values differ, grown over the context the step reads (a combining
sequence for NFC, the case-ignorable run up to the nearest letter for lowercase), holds a code point whose
data differs
between those versions (data/unicode-tables/). A bug next to a skew keeps its own span without one, so it is
never taken for the skew.

A character rule fires only where the two sides' values are outputs of one input (``one_input``): their
letters and digits agree (decomposed, lowercased, ASCII only: no character step adds or drops one) and every
differing span no skew explains holds a character the step acts on in some reading of it (``REACH``). Where a
side read another input (a loop in another order: the candidates normalized last first), the step did not
treat characters differently, the rule that chose the input did, and the rules after these name it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from difflib import SequenceMatcher
from functools import lru_cache

from harness.differential.causes.facts import (
    DIVERGENT_ONLY,
    ORACLE_ONLY,
    Facts,
    Span,
    acting_side,
    context_of,
    differing_chars,
    spans,
    strings,
)
from harness.differential.rule import Rule, Verdict
from harness.model import unicode_tables
from harness.model.contract_sets import LINE_BREAKS, NEAR_WHITE_SPACE, QUOTE_DASH, WHITE_SPACE, white_space_like
from harness.model.registry import step_titles

# A role -> the Unicode data it reads, for a step that declares no property of its own (a family-v1 file).
UNICODE_STEP = {"nfc": "normalization", "lowercase": "case_mapping"}
SIGMAS = frozenset("\u03a3\u03c3\u03c2")


def step_property(step: str, role: str | None = None) -> str | None:
    """The Unicode property a step reads (``unicode_tables.PROPERTIES``): the one it declares (``Step.unicode``,
    family-v2), else the one its role reads (``UNICODE_STEP``: NFC, lowercase); None for a step that reads none."""
    declared = step_titles().get(step)
    named = getattr(declared, "unicode", None)
    if named:
        return str(named)
    return UNICODE_STEP.get(role if role is not None else getattr(declared, "role", ""))


def _compared(facts: Facts) -> tuple[object, object]:
    """The two values as the skew check compares them: as they are, or, where one holds more strings than the
    other (a split or a filter moved text between items: a letter new in one version joins two tokens), each
    side's strings joined by a line feed, so a span is where the texts differ, not an item against the next."""
    a, b = facts.values()
    if len(strings(a)) != len(strings(b)):
        return "\n".join(strings(a)), "\n".join(strings(b))
    return a, b


def _unknown(ch: str) -> bool:
    """Unassigned in this Python's Unicode data: a newer version may give it any property."""
    return unicodedata.category(ch) == "Cn"


@lru_cache(maxsize=4096)
def _nfc_reach(ch: str) -> bool:
    return _unknown(ch) or unicodedata.combining(ch) != 0 or unicodedata.normalize("NFD", ch) != ch or \
        not unicodedata.is_normalized("NFC", ch) or any(
            unicode_tables.in_context(ord(ch), "normalization", [v]) for v in unicode_tables.available()
            if unicode_tables.has(v, "normalization"))


def _case_reach(ch: str) -> bool:
    """Cased or changed by a case mapping, or a mark a mapping can yield (U+0130's lowercase ends in U+0307)."""
    return _unknown(ch) or ch.lower() != ch or ch.upper() != ch or ch.casefold() != ch or \
        unicodedata.combining(ch) != 0 or ch in SIGMAS


def _space_or_break(ch: str) -> bool:
    return white_space_like(ch) or ch in LINE_BREAKS


# A role -> whether the step can act on a character, in any reading of the contract or of Unicode.
REACH: dict[str, Callable[[str], bool]] = {
    "nfc": _nfc_reach,
    "quote_dash": lambda ch: ch in QUOTE_DASH or ch in "'\"-",
    "lowercase": _case_reach,
    "white_space": white_space_like,
    "edges": lambda ch: not ch.isalnum(),
    "line_breaks": _space_or_break,
    "trim": white_space_like,
}


def _skeleton(value: object) -> str:
    """The value's ASCII letters and digits, decomposed and lowercased: what no character step changes."""
    return "".join(ch for s in strings(value) for ch in unicodedata.normalize("NFD", s).lower()
                   if ch.isascii() and ch.isalnum())


def one_input(facts: Facts) -> bool:
    """Whether both sides' values at this character step can be its outputs for one input."""
    reach = REACH.get(facts.role)
    if reach is None or not facts.both_values:
        return False
    a, b = facts.values()
    if _skeleton(a) != _skeleton(b):
        return False
    _, other, _ = _skew_explained(facts)
    if facts.role == "line_breaks":  # a split moves text between pieces: the joined pieces hold the break
        a, b = "\n".join(strings(a)), "\n".join(strings(b))
        other = spans(a, b)
    return all(any(reach(ch) for ch in x[i1:i2] + y[j1:j2]) for x, i1, i2, y, j1, j2 in other)


def _shown(chars: list[str]) -> str:
    return " ".join(f"U+{ord(ch):04X}" for ch in chars[:8]) + (" ..." if len(chars) > 8 else "")


def _skew_explained(facts: Facts) -> tuple[list[Span], list[Span], list[str]]:
    """(the differing spans a version skew explains, the others): a span is explained when the two sides read
    the step's data from different Unicode versions (both with tables) and the span, grown over the context
    the step reads, holds a code point whose data differs between them; and those code points. Steps that
    read no Unicode data explain none."""
    found = spans(*facts.values())
    data = step_property(facts.step, facts.role)
    va, vb = (facts.versions_a.get(data), facts.versions_b.get(data)) if data else (None, None)
    if data is None or va is None or vb is None or va == vb or \
            not (unicode_tables.has(va, data) and unicode_tables.has(vb, data)):
        return [], found, []
    found = spans(*_compared(facts))

    def inside(ch: str) -> bool:
        return unicode_tables.in_context(ord(ch), data, [va, vb])

    explained, other, skewed = [], [], []
    for span in found:
        x, i1, i2, y, j1, j2 = span
        context = context_of(x, i1, i2, inside) + context_of(y, j1, j2, inside)
        sigma = any(ch in SIGMAS for ch in context)
        mattering = [ch for ch in context if unicode_tables.matters(ord(ch), data, va, vb, sigma)]
        (explained if mattering else other).append(span)
        skewed += mattering
    return explained, other, list(dict.fromkeys(skewed))


def unexplained_chars(facts: Facts) -> list[str]:
    """The characters of the differing spans no version skew explains (all of them where none is in play): a
    bug beside a skew is named by its own characters."""
    _, other, _ = _skew_explained(facts)
    return list(dict.fromkeys(ch for x, i1, i2, y, j1, j2 in other for ch in x[i1:i2] + y[j1:j2]))


def _skew(facts: Facts) -> Verdict | None:
    data = step_property(facts.step, facts.role)
    if data is None or not facts.both_values:
        return None
    explained, other, skewed = _skew_explained(facts)
    if not explained or other or _skeleton(facts.values()[0]) != _skeleton(facts.values()[1]):
        return None
    va, vb = facts.versions_a.get(data), facts.versions_b.get(data)
    return Verdict("unicode_version_skew", data,
                   f"{facts.step} reads {data} data of Unicode {va} on one side and {vb} on the other, and the "
                   "characters it treats differently are ones whose data differs between them", tuple(skewed))


_SIDES = {ORACLE_ONLY: "on the oracle's side only (the other keeps them)",
          DIVERGENT_ONLY: "on the divergent side only (the oracle keeps them)"}


# The roles whose rule is a set of characters (in it or not, on each side): a class there has a direction. NFC and
# the case mappings map characters to others (and read Unicode data that skews): their classes have none.
SET_ROLES = frozenset({"white_space", "trim", "edges", "line_breaks", "quote_dash"})


def _about(facts: Facts, chars: list[str]) -> tuple[str | None, list[str]]:
    """(the side the step acted on, the characters it is about): where one side acted (``acting_side``, read against
    the step's input: the latest string the op held before the step most like the two values), the characters the
    other side kept, not what the acting side wrote in their place; else every differing one. The side is the
    class's detail (at a step whose rule is a set: ``SET_ROLES``), so that a character in a rule's set on one side
    only is one class per direction."""
    if facts.role not in SET_ROLES:
        return None, chars
    a, b = facts.values()
    if facts.role == "line_breaks":  # a split moves text between pieces: the joined pieces hold the break
        a, b = "\n".join(strings(a)), "\n".join(strings(b))
    # The step's input: of the strings the op held before the step (every entry before it: a per-item step's item
    # or a normalization's text inside a gate came further back than the entry before it), the latest one most
    # like the two values; else all of them, or the call's arguments, where a tie says neither.
    held = strings(facts.before or [])[-400:]
    values = "\n".join(strings(a)), "\n".join(strings(b))

    def likeness(text: str) -> float:
        return max(SequenceMatcher(None, text[:400], value[:400], autojunk=False).quick_ratio() for value in values)

    nearest = max(reversed(held), key=likeness, default=None)  # of equally like ones, the latest
    for inputs, ties in (([nearest] if nearest is not None else [], True), (held, False), (facts.args, False)):
        if strings(inputs):
            where, kept = acting_side(inputs, a, b, ties)
            if where is not None:
                break
    else:
        where, kept = None, []
    return where, ([ch for ch in chars if ch in kept] or kept or chars) if where else chars


def _differently(where: str | None, chars: list[str]) -> str:
    return f"{_shown(chars)} " + (_SIDES[where] if where else "differently")


def _character_rule(role: str, cause: str, what: str) -> Rule:
    def fires(facts: Facts) -> Verdict | None:
        if facts.role != role or not one_input(facts):
            return None
        where, chars = _about(facts, unexplained_chars(facts))
        return Verdict(cause, where, f"{facts.step} ({what}) acts on {_differently(where, chars)}", tuple(chars))
    return Rule(role.replace("_", "-"), (cause,), fires, f"the traces part at a {role} step")


def _lowercase(facts: Facts) -> Verdict | None:
    if facts.role != "lowercase" or not one_input(facts):
        return None
    where, chars = _about(facts, unexplained_chars(facts))
    if any(ch in SIGMAS for ch in chars):
        return Verdict("final_sigma", where, f"{facts.step} lowercases a capital sigma: {_differently(where, chars)}",
                       tuple(chars))
    return Verdict("case_mapping", where, f"{facts.step} lowercases {_differently(where, chars)}", tuple(chars))


def _outermost(x: str, i1: int, i2: int, y: str, j1: int, j2: int) -> str:
    """The character of a differing span nearest the edge it was stripped from: stripping goes from the
    outside in, so that one is what one side stripped and the other kept (the rest follows from it)."""
    span = x[i1:i2] or y[j1:j2]
    at_start = (i1 == 0 and i2 > 0) or (j1 == 0 and j2 > 0)
    return span[0] if at_start else span[-1]


def _edges(facts: Facts) -> Verdict | None:
    if facts.role != "edges" or not one_input(facts):
        return None
    where, chars = _about(facts, differing_chars(*facts.values()))
    decisive = [_outermost(*span) for span in spans(*facts.values()) if span[1] < span[2] or span[4] < span[5]]
    if any(ch in WHITE_SPACE or ch in NEAR_WHITE_SPACE or ch.isspace() for ch in decisive):
        return Verdict("whitespace_definition", where,
                       f"{facts.step} strips {_differently(where, chars)}: what counts as White_Space", tuple(chars))
    return Verdict("edge_punctuation", where, f"{facts.step} strips {_differently(where, chars)}", tuple(chars))


RULES = [
    Rule("unicode-skew", ("unicode_version_skew",), _skew,
         "a step reading Unicode data parts (one declaring a property, an NFC or a lowercase step), and every "
         "differing span holds a character whose data of that property differs between the two sides' versions"),
    _character_rule("nfc", "normalization", "NFC"),
    _character_rule("quote_dash", "quote_dash_map", "the quote and dash map"),
    Rule("lowercase", ("final_sigma", "case_mapping"), _lowercase,
         "a lowercase step parts: final_sigma when a sigma is among the characters, else case_mapping"),
    _character_rule("white_space", "whitespace_definition", "runs of White_Space"),
    Rule("edges", ("whitespace_definition", "edge_punctuation"), _edges,
         "an edge-stripping step parts: whitespace_definition when a space-like character is among them"),
    _character_rule("line_breaks", "line_breaks", "the split on line breaks"),
    _character_rule("trim", "whitespace_definition", "the trim of White_Space"),
]
