"""What the rules of a cause read: where two traces part, and what each did there.

Two traces (the oracle's and one implementation's, harness/model/traces.py) part at one entry. ``Facts``
holds that entry of each (None for a trace that ended there, with its outcome), the step's role in the
registry (``Step.role``, ``Step.param``, ``Step.code``), both outcomes, the arguments, both sides' Unicode
versions; ``spans`` and ``differing_chars`` say where the two values differ, ``context_of`` grows a span over
the context a step reads around it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from harness.model.registry import step_titles
from harness.model.traces import ARGS, Parting

OUTCOME = "outcome"


@dataclass(frozen=True)
class Facts:
    op: str
    step: str  # the step they part at (Parting.step)
    role: str  # "args", "outcome" or the step's Step.role
    param: str | None  # the parameter the step checks (a "host" or "json" step)
    code: str | None  # the error code the step can raise
    a: dict[str, Any] | None  # the oracle's entry there (None: its trace ended there)
    b: dict[str, Any] | None  # the other implementation's entry there
    outcome_a: dict[str, Any]
    outcome_b: dict[str, Any]
    args: dict[str, Any]  # the call's arguments (decoded host values)
    versions_a: dict[str, str] = field(default_factory=dict)
    versions_b: dict[str, str] = field(default_factory=dict)
    # The values of the entries before the parting one, the same on both sides: what the op had made of its input
    # so far, the step's input among them (a per-item step's is further back than the entry before it).
    before: Any = None
    # Whether both entries stand at the parting index. Where the two traces ran steps in another order, an entry
    # of the parting step found further on is that step on another input (a side that normalized the candidates
    # first holds a candidate's NFC where the other holds the text's): its value is not comparable.
    aligned: bool = True

    def erred_here(self, side: str) -> bool:
        """Whether that side's trace ended at this entry with an error this step raises."""
        entry, outcome = (self.a, self.outcome_a) if side == "a" else (self.b, self.outcome_b)
        if entry is not None or "error" not in outcome:
            return False
        return outcome.get("step") == self.step or (outcome.get("step") is None and outcome["error"] == self.code)

    def one_erred_here(self) -> str | None:
        """"a" or "b" when exactly that side raised at this step and the other went on with a value."""
        for side, other in (("a", self.b), ("b", self.a)):
            if self.erred_here(side) and other is not None and other.get("step") == self.step:
                return side
        return None

    @property
    def both_values(self) -> bool:
        return self.aligned and self.a is not None and self.b is not None and \
            self.a.get("step") == self.b.get("step") == self.step

    def values(self) -> tuple[Any, Any]:
        return (self.a or {}).get("value"), (self.b or {}).get("value")


def facts(op: str, parting: Parting, trace_a: dict[str, Any], trace_b: dict[str, Any], args: dict[str, Any],
          versions_a: dict[str, str], versions_b: dict[str, str]) -> Facts:
    index = parting.index

    def entry(steps: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The side's entry there; for a side that went on past a check the other failed, that check's."""
        if index >= len(steps):
            return None
        return next((e for e in steps[index:] if e.get("step") == parting.step), steps[index])

    entry_a, entry_b = entry(trace_a["steps"]), entry(trace_b["steps"])
    declared = step_titles().get(parting.step)
    role = ARGS if parting.step == ARGS else OUTCOME if parting.step == OUTCOME else \
        (declared.role if declared is not None else "rule")
    before = [entry.get("value") for entry in trace_a["steps"][:index]]
    aligned = all(index < len(steps) and steps[index].get("step") == parting.step
                  for steps in (trace_a["steps"], trace_b["steps"]))
    return Facts(op, parting.step, role, declared.param if declared else None, declared.code if declared else None,
                 entry_a, entry_b, trace_a["outcome"], trace_b["outcome"], args, versions_a, versions_b, before,
                 aligned)


def strings(value: Any) -> list[str]:
    """Every string in a trace value, in order (object members by key); floats and code points aside."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    if isinstance(value, dict) and not ({"$f64", "$codepoints", "$int", "$type"} & set(value)):
        return [s for key in sorted(value) for s in strings(value[key])]
    return []


def context_of(text: str, start: int, end: int, inside: Any) -> str:
    """The span grown over neighbours for which ``inside(ch)`` holds, plus the first one beyond on each side
    (the starter before a combining sequence, the letter before a final sigma)."""
    while start > 0 and inside(text[start - 1]):
        start -= 1
    start = max(0, start - 1)
    while end < len(text) and inside(text[end]):
        end += 1
    return text[start:min(len(text), end + 1)]


Span = tuple[str, int, int, str, int, int]  # (a's string, i1, i2, b's string, j1, j2): x[i1:i2] vs y[j1:j2]


def spans(a: Any, b: Any) -> list[Span]:
    """Like ``regions``, with positions: (a's string, i1, i2, b's string, j1, j2) per differing span."""
    left, right = strings(a), strings(b)
    out = []
    for index in range(max(len(left), len(right))):
        x = left[index] if index < len(left) else ""
        y = right[index] if index < len(right) else ""
        if x == y:
            continue
        if len(x) == len(y):
            # Position by position (lowercase and the maps keep most lengths): an alignment could pair a
            # character with a later equal one and put the spans beside the characters that caused them.
            start = None
            for k in range(len(x) + 1):
                differs = k < len(x) and x[k] != y[k]
                if differs and start is None:
                    start = k
                elif not differs and start is not None:
                    out.append((x, start, k, y, start, k))
                    start = None
            continue
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, x, y, autojunk=False).get_opcodes():
            if tag != "equal":
                out.append((x, i1, i2, y, j1, j2))
    return out


# Which side a character rule acts on where two values differ (a class's detail: a character in the rule's set
# on one side only is one class per direction, harness/classes/key.py).
ORACLE_ONLY = "oracle-only"
DIVERGENT_ONLY = "divergent-only"


def _single(found: list[Span]) -> list[Span]:
    """The spans, those of equal length one position each (two characters side by side, each changed on
    another side, are two differences)."""
    return [(x, i1 + k, i1 + k + 1, y, j1 + k, j1 + k + 1) if i2 - i1 == j2 - j1 else (x, i1, i2, y, j1, j2)
            for x, i1, i2, y, j1, j2 in found for k in range(i2 - i1 if i2 - i1 == j2 - j1 else 1)]


def acting_side(inputs: Any, a: Any, b: Any, ties: bool = True) -> tuple[str | None, list[str]]:
    """Which side's rule acted on the characters where ``a`` (the oracle's value) and ``b`` differ, and the
    characters the other side kept: ``ORACLE_ONLY`` when in every differing span ``b`` kept what the input held there
    (``inputs``: the strings the step received, and the call's) and ``a`` did not, ``DIVERGENT_ONLY`` the other way
    round, None when both sides changed it (a map or a mapping applied differently) or the spans say neither. A value
    that shows both directions is the first span's, a span that shows both (each side kept an input character the other
    changed) ``ORACLE_ONLY``'s: two differences at once, whose witness the shrinker keeps in that class, shedding the
    other's characters. A span is kept when, with a character of context on each side, it is a piece of an input string;
    where that tells neither (both sides changed the context), the span alone; then when it alone holds characters of
    the input the other span lacks. ``ties=False``: a span where each side kept its own says neither (a caller
    that can ask again with more of the input)."""
    held = strings(inputs)
    known = {ch for text in held for ch in text}
    folded = [text.casefold() for text in held]  # a later step may have lowercased the context (a black box)

    def piece(text: str, start: int, end: int, context: int) -> bool:
        found = text[max(0, start - context):end + context]
        return start < end and (any(found in s for s in held) or any(found.casefold() in s for s in folded))

    def own(mine: str, other: str) -> list[str]:
        return [ch for ch in dict.fromkeys(mine) if ch in known and ch not in other]

    # First the values as wholes: where only one side kept characters of the input the other lacks, that side kept
    # them and the other's rule acted, however an alignment of the two would pair their spans (difflib paired the
    # "-ab" of "\x1c-ab\x1cab" with that of "ab-ab", and the direction came out the wrong way round).
    if isinstance(a, str) and isinstance(b, str):
        mine, theirs = own(a, b), own(b, a)
        if bool(mine) != bool(theirs):
            return (ORACLE_ONLY, theirs) if theirs else (DIVERGENT_ONLY, mine)
    sides: set[str] = set()
    kept: list[str] = []
    for x, i1, i2, y, j1, j2 in _single(spans(a, b)):
        left, right = x[i1:i2], y[j1:j2]
        verdicts = [(piece(x, i1, i2, context), piece(y, j1, j2, context)) for context in (1, 0)]
        verdicts.append((bool(own(left, right)), bool(own(right, left))))
        decided = next(((l_kept, r_kept) for l_kept, r_kept in verdicts if l_kept != r_kept),
                       (False, True) if ties and all(verdicts[-1]) else None)  # each kept its own: the oracle's first
        if decided is None:
            return None, []
        side = ORACLE_ONLY if decided[1] else DIVERGENT_ONLY
        if sides and side not in sides:
            break  # both directions at once: the witness is the first one's (shrinking keeps that one alone)
        sides.add(side)
        kept += own(right, left) if decided[1] else own(left, right)
    return (sides.pop(), list(dict.fromkeys(kept))) if sides else (None, [])


def only_numbers_differ(a: Any, b: Any) -> bool:
    """Whether two trace values differ in their floats only (same shape, same everything else)."""
    if isinstance(a, dict) and isinstance(b, dict) and set(a) == {"$f64"} == set(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(x == y or only_numbers_differ(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(a[k] == b[k] or only_numbers_differ(a[k], b[k]) for k in a)
    return False


def input_chars(args: dict[str, Any]) -> frozenset[str]:
    """Every character of the call's string arguments, JSON texts read as their string values and keys."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.update(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)

    for value in args.values():
        if isinstance(value, str):
            found.update(value)
            try:
                walk(json.loads(value))
            except (ValueError, RecursionError):
                pass
    return frozenset(found)


def differing_chars(a: Any, b: Any) -> list[str]:
    """The characters of both values' differing spans, each once, in order."""
    found = [ch for x, i1, i2, y, j1, j2 in spans(a, b) for ch in x[i1:i2] + y[j1:j2]]
    return list(dict.fromkeys(found))
