"""The cause of a divergence, read off the step traces (docs/traces.md): the first step where the traces of
the oracle and of an implementation that disagrees with it part, and what that step did differently.

The classifier is a table of rules (``ORDER``), one small module per family of causes (``boundary``,
``strict_json``, ``characters``, ``numbers``, ``length``, ``outcomes``); the first rule that fires names the cause. No
rule names an op: what a step is (``Step.role``, ``Step.param``), the parameter kinds with their plain and
boundary values are the op registry's. ``Stats`` counts which rules fire. ``CAUSES`` is derived from the
rules. The counterfactual classifier (harness/differential/counterfactual/) stays the fallback for
implementations that serve no trace.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from harness.differential.causes import boundary, characters, length, numbers, outcomes, strict_json
from harness.differential.causes.facts import OUTCOME, Facts, facts, input_chars
from harness.differential.rule import Rule, Verdict
from harness.model.registry import step_titles
from harness.model.traces import ARGS, first_difference

FAMILIES = (numbers, boundary, strict_json, characters, length, outcomes)
_BY_NAME: dict[str, Rule] = {rule.name: rule for family in FAMILIES for rule in family.RULES}

# The order the rules are tried in: the documented order (docs/fuzzing.md, "Causes from traces").
ORDER = (
    "args-numbers", "args-coercion", "host-check-coercion",
    "json-refused", "json-numbers",
    "unicode-skew", "nfc", "quote-dash", "lowercase", "white-space", "edges", "line-breaks", "trim",
    "binary32", "shape-numbers", "similarity-bits", "similarity-fails", "threshold-comparison",
    "check-disputed", "validation-order", "error-versus-result", "length-filter", "rule-difference",
)
RULES: tuple[Rule, ...] = tuple(_BY_NAME[name] for name in ORDER)
CHARACTER_RULES: tuple[Rule, ...] = tuple(rule for rule in RULES if rule in characters.RULES)  # a composite's
CAUSES: tuple[str, ...] = tuple(dict.fromkeys(cause for rule in RULES for cause in rule.causes))


@dataclass
class Stats:
    """How often each rule fired (a run's classifier statistics)."""

    fired: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class TraceCause:
    cause: str
    detail: str | None
    step: str  # the step the traces part at (or the one inside that check the cause is at: Verdict.at)
    rule: str  # the rule that named the cause
    why: str
    chars: tuple[str, ...] = ()  # the characters the step treated differently (Verdict.chars)


def _readings(found: Facts) -> list[tuple[Facts, tuple[Rule, ...]]]:
    """The ways to read the step the traces part at: as each role a composite step composes (``Step.composes``),
    with the character rules only, then as itself, with every rule."""
    declared = step_titles().get(found.step)
    composed = declared.composes if declared is not None and found.role not in (ARGS, OUTCOME) else ()
    return [*((replace(found, role=role), CHARACTER_RULES) for role in composed), (found, RULES)]


def decide(found: Facts, stats: Stats | None = None, confirm: Callable[[], bool] | None = None) -> TraceCause:
    """The first rule of ``ORDER`` that fires where the traces part. A rule whose trace evidence is one
    observation that other rules could also make (``length.CONFIRMED``: a filter one cap in two measures sorts)
    fires only when ``confirm`` (the counterfactual of its cause, re-running the implementations) says so; with
    no means to confirm, it does not fire."""
    for reading, rules in _readings(found):
        for rule in rules:
            verdict = rule.fires(reading)
            if verdict is None:
                continue
            if rule.name in length.CONFIRMED and (confirm is None or not confirm()):
                continue
            if stats is not None:
                stats.fired[rule.name] += 1
            # The characters the cause is about are the input's: a step's output (the ASCII quote a map gave,
            # the lowercase letter) is what it did with them.
            given = input_chars(found.args)
            chars = tuple(ch for ch in verdict.chars if ch in given) or verdict.chars
            return TraceCause(verdict.cause, verdict.detail, verdict.at or found.step, rule.name, verdict.why,
                              chars)
    raise AssertionError("rule-difference always fires")  # pragma: no cover


def cause_from_traces(op: str, oracle_trace: dict[str, Any], other_trace: dict[str, Any], args: dict[str, Any],
                      versions_a: dict[str, str], versions_b: dict[str, str],
                      stats: Stats | None = None, confirm: Callable[[], bool] | None = None) -> TraceCause | None:
    """The cause where two traces part (None when they agree); ``confirm`` as in ``decide``."""
    parting = first_difference(oracle_trace, other_trace)
    if parting is None:
        return None
    return decide(facts(op, parting, oracle_trace, other_trace, args, versions_a, versions_b), stats, confirm)


__all__ = ["CAUSES", "ORDER", "RULES", "Stats", "TraceCause", "Verdict", "cause_from_traces", "decide"]
