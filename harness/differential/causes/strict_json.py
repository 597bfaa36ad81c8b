"""Causes in the strict-JSON parse of a `*_json` argument."""

from __future__ import annotations

from harness.differential.causes.facts import Facts, only_numbers_differ
from harness.differential.rule import Rule, Verdict
from harness.model.json_features import features as json_features


def _refused(facts: Facts) -> Verdict | None:
    side = facts.one_erred_here()
    if facts.role != "json" or side is None:
        return None
    text = facts.args.get(facts.param or "")
    found = "+".join(sorted(json_features(text))) if isinstance(text, str) else ""
    who = "the oracle" if side == "a" else "the other implementation"
    return Verdict("json_strictness", found or None,
                   f"{who} refuses {facts.param} as invalid JSON at {facts.step}, the other parses it"
                   + (f" ({found})" if found else ""))


def _numbers(facts: Facts) -> Verdict | None:
    if facts.role != "json" or not facts.both_values or not only_numbers_differ(*facts.values()):
        return None
    return Verdict("float_rounding", None, f"{facts.param} parses to other binary64 numbers ({facts.step})")


RULES = [
    Rule("json-refused", ("json_strictness",), _refused, "one side refuses a JSON text the other parses"),
    Rule("json-numbers", ("float_rounding",), _numbers, "both parse a JSON text, to other numbers only"),
]
