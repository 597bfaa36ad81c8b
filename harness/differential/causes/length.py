"""A length rule where the traces part (``length_rule``): a step that filters a list of texts by their length, one
side measuring it in code points and the other in UTF-8 bytes or UTF-16 units.

It fires where both sides' values at the parting step are lists of texts, each an order-kept selection of one
list of texts the op held before the step (its input: the latest such list among the entries before it), and one
cap (an upper bound, or a lower one) with a measure of length per side sorts that input exactly into what each
side kept and what it dropped, the two sides' measures being different ones (code points, UTF-8 bytes, UTF-16
units). Every item one side kept and the other dropped then sits at the cap in one measure and past it in the
other: the boundary the two encodings put in different places. A filter that keeps or drops anything for
another reason (a stop word, a duplicate) is sorted by no such cap, and the rule does not fire; nor does a cap
the sides set differently in one measure (an off-by-one is the same measure on both sides: a rule of its own).

One trace is one observation, and where a single item differs any filter looks like that: a count cap set
differently (the oracle keeps ["a"] of ["a", "é"], the other both: a cap of 1 in UTF-8 bytes against one in code
points), a stop word one side drops ("été" of ["ab", "été"]). So the rule is ``CONFIRMED``: it names
``length_rule`` only where the counterfactual length rule (harness/differential/counterfactual/length.py:
stand-ins of the same category and length keep the difference, shorter ones settle it) confirms it on the same
implementations (harness/differential/explain.py passes the means); with none (traces compared alone, as
``harness trace`` does once its testees are closed) it does not fire, and the difference is the step's
``rule_difference``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.differential.causes.facts import Facts
from harness.differential.rule import Rule, Verdict

MEASURES: dict[str, Callable[[str], int]] = {
    "code points": len,
    "UTF-8 bytes": lambda text: len(text.encode("utf-8", "surrogatepass")),
    "UTF-16 units": lambda text: len(text.encode("utf-16-le", "surrogatepass")) // 2,
}


def _texts(value: Any) -> list[str] | None:
    return value if isinstance(value, list) and all(isinstance(item, str) for item in value) else None


def _selection(kept: list[str], items: list[str]) -> list[bool] | None:
    """Which of ``items`` ``kept`` keeps, where it is an order-kept selection of them (the first match each)."""
    chosen, at = [False] * len(items), 0
    for item in kept:
        while at < len(items) and items[at] != item:
            at += 1
        if at == len(items):
            return None
        chosen[at], at = True, at + 1
    return chosen


_BIG = 1 << 40  # no cap above it


def _caps(items: list[str], chosen: list[bool], measure: Callable[[str], int]) -> dict[str, tuple[int, int]]:
    """The caps that sort ``items`` by ``measure`` exactly as ``chosen``, as inclusive ranges per bound:
    "max" keeps those of at most the cap, "min" those of at least it (a bound that sorts none: absent)."""
    kept = [measure(item) for item, keep in zip(items, chosen, strict=True) if keep]
    dropped = [measure(item) for item, keep in zip(items, chosen, strict=True) if not keep]
    found = {"max": (max(kept, default=0), min(dropped, default=_BIG) - 1),
             "min": (max(dropped, default=-1) + 1, min(kept, default=_BIG))}
    return {bound: (low, high) for bound, (low, high) in found.items() if low <= high}


def _length_filter(facts: Facts) -> Verdict | None:
    if not facts.both_values:
        return None
    a, b = (_texts(value) for value in facts.values())
    if a is None or b is None or a == b:
        return None
    for held in reversed(facts.before if isinstance(facts.before, list) else []):
        items = _texts(held)
        if items is None:
            continue
        chosen_a, chosen_b = _selection(a, items), _selection(b, items)
        if chosen_a is None or chosen_b is None:
            continue
        for name_a, measure_a in MEASURES.items():
            caps_a = _caps(items, chosen_a, measure_a)
            for name_b, measure_b in MEASURES.items():
                caps_b = _caps(items, chosen_b, measure_b) if name_a != name_b else {}
                for bound in set(caps_a) & set(caps_b):
                    low, high = max(caps_a[bound][0], caps_b[bound][0]), min(caps_a[bound][1], caps_b[bound][1])
                    if low <= high:
                        cap = f"{low}" if low == high else f"{low}..{high}" if high < _BIG else f"{low} or more"
                        return Verdict("length_rule", None,
                                       f"{facts.step} keeps texts of {'at most' if bound == 'max' else 'at least'} "
                                       f"{cap} {name_a} on the oracle's side and of {cap} {name_b} on the other")
        return None  # the latest list both select from is the step's input: no cap sorts it
    return None


# The trace shows one selection per side; a count cap set differently (["a"] against ["a", "é"]) or a stop word
# one side drops ("été") is sorted by such a cap too whenever one item differs. The rule names its cause only
# where the counterfactual length rule, re-running the implementations, confirms it (causes.decide's confirm).
CONFIRMED = frozenset({"length-filter"})

RULES = [
    Rule("length-filter", ("length_rule",), _length_filter,
         "both sides keep a selection of one list of texts, each sorted by one cap in another measure of length"),
]
