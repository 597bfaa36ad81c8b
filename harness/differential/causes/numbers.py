"""Causes in numbers: an argument's value, binary32 rounding, the similarity sums, the threshold comparison."""

from __future__ import annotations

from typing import Any

from harness.differential.causes.facts import Facts, only_numbers_differ
from harness.differential.rule import Rule, Verdict
from harness.model.registry import OPS, step_titles
from harness.model.traces import ARGS, differing_args


def _is_number(value: Any) -> bool:
    if isinstance(value, dict) and set(value) == {"$f64"}:
        return value["$f64"].lstrip("-") not in ("inf", "nan")
    return isinstance(value, int) and not isinstance(value, bool)


def _finite_float(value: Any) -> bool:
    """A finite float as a trace writes it (``{"$f64": hex}``), not an integer."""
    return _is_number(value) and isinstance(value, dict)


def _args_numbers(facts: Facts) -> Verdict | None:
    """Every argument the sides received differently is a finite float on both: a rounding at the boundary. A
    fraction made an integer (a cap of 2.5 handed over as 2), or an integer made another, is a coercion
    (args-coercion), as the same bug in a reference's own check is (host-check-coercion)."""
    a, b = facts.values()
    if facts.role != ARGS or not isinstance(a, dict) or not isinstance(b, dict) or set(a) != set(b):
        return None
    names = differing_args(a, b)
    if not names or not all(_finite_float(a[n]) and _finite_float(b[n]) for n in names):
        return None
    return Verdict("float_rounding", "+".join(names),
                   f"the core received {', '.join(names)} as another number than the oracle's")


def _binary32(facts: Facts) -> Verdict | None:
    """The embedding rounded to binary32 differently: other values, or an infinite binary32 one side refuses."""
    if facts.role != "binary32" or not (facts.both_values or facts.one_erred_here()):
        return None
    if facts.both_values:
        return Verdict("float_rounding", None, f"{facts.step}: the embedding rounded to binary32 differently")
    return Verdict("float_rounding", None, f"{facts.step}: a number that rounds to an infinite binary32 is refused "
                                           "on one side only")


def _shape_numbers(facts: Facts) -> Verdict | None:
    """A shape check that records a parsed value (an embedding) with other numbers on each side: they were
    rounded differently before it (binary32 skipped or done otherwise)."""
    if facts.role != "shape" or not facts.both_values or not only_numbers_differ(*facts.values()):
        return None
    # The check applies the op's rounding step (a candidate's embedding: gate.binary32): the cause is there.
    rounding = next((step.id for step in OPS[facts.op].steps if step.role == "binary32"), None)
    return Verdict("float_rounding", None, f"{facts.step} holds other numbers on each side: rounded differently"
                   + (f" ({rounding})" if rounding else ""), at=rounding)


def _is_float(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"$f64"}


def _similarity(facts: Facts) -> Verdict | None:
    """The same candidate compared, and its similarity differs: both floats (an overflow to infinity or NaN
    included), or a finite one against none at all (a norm that underflowed to 0 on one side). A
    similarity against NaN where the other side has none is a rule (the zero-norm guard), not a rounding."""
    a, b = facts.values()
    if facts.role != "similarity" or not facts.both_values or not isinstance(a, dict) or not isinstance(b, dict):
        return None
    x, y = a.get("similarity"), b.get("similarity")
    if (a.get("index"), a.get("id")) != (b.get("index"), b.get("id")):  # a candidate: its index and id
        return None
    if not ((_is_float(x) and _is_float(y)) or (x is None and _is_number(y)) or (y is None and _is_number(x))):
        return None
    return Verdict("float_rounding", None, f"the similarity of candidate {a.get('id')!r} differs in its bits "
                                           f"({(x or {}).get('$f64')} / {(y or {}).get('$f64')})")


def _sums_fail(facts: Facts) -> Verdict | None:
    """The similarity step, which cannot fail, ends one side's trace with an error a number step raises (a sum
    rounded to binary32 that overflows) while the other side computes it: the sums, not a check."""
    if facts.role != "similarity":
        return None
    for entry, outcome, other in ((facts.a, facts.outcome_a, facts.b), (facts.b, facts.outcome_b, facts.a)):
        raised = step_titles().get(str(outcome.get("step")))
        if entry is None and "error" in outcome and other is not None and other.get("step") == facts.step and \
                raised is not None and raised.role in ("binary32", "similarity"):
            return Verdict("float_rounding", None, f"{facts.step} fails on one side only, with {outcome['error']} "
                                                   f"at {outcome['step']}: a sum out of range where the other's "
                                                   "is not")
    return None


def _near(facts: Facts) -> Verdict | None:
    """The same best candidate at the same similarity, matched on one side only: the threshold comparison."""
    a, b = facts.values()
    if facts.role != "near" or not facts.both_values or not isinstance(a, dict) or not isinstance(b, dict):
        return None
    if (a.get("index"), a.get("id")) != (b.get("index"), b.get("id")) or \
            a.get("similarity") != b.get("similarity") or a.get("match") == b.get("match"):
        return None
    return Verdict("float_rounding", None, f"similarity {a.get('similarity', {}).get('$f64')} is compared with the "
                                           "threshold differently")


RULES = [
    Rule("args-numbers", ("float_rounding",), _args_numbers,
         "the traces part at args, every differing argument a finite float on both sides"),
    Rule("binary32", ("float_rounding",), _binary32, "the binary32 rounding of an embedding parts"),
    Rule("shape-numbers", ("float_rounding",), _shape_numbers,
         "a shape check that records a parsed value parts in its numbers only"),
    Rule("similarity-bits", ("float_rounding",), _similarity,
         "the same candidate's similarity differs: both floats, or a finite one against none"),
    Rule("similarity-fails", ("float_rounding",), _sums_fail,
         "the similarity fails on one side only, with an error a number step raises"),
    Rule("threshold-comparison", ("float_rounding",), _near,
         "the same best candidate at the same similarity is a near match on one side only"),
]
