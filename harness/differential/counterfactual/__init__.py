"""The counterfactual cause classifier: the fallback for implementations that serve no step trace (a black
box in another language), and run beside the traces' cause wherever both exist (their agreement is a number
in reports and in the plant run).

Each rule re-runs the implementations on a changed input (characters replaced by stand-ins of their role, an
argument made plain, a JSON text rewritten) and names its cause when the change removes exactly the
disagreement (probe.py). Like the trace classifier (harness/differential/causes/), it is a table of rules,
one small module per family (``outcomes``, ``arguments``, ``boundary``, ``strict_json``, ``length``,
``characters``, ``numbers``), tried in one documented order (``ORDER``; docs/fuzzing.md, "Causes from counterfactuals");
the first that fires names the cause. A rule may answer ``Again``: another input shows the divergence better,
and this driver classifies that one instead, to ``MAX_DEPTH``. ``Stats`` counts which rules fire. No rule
names an op: what an op takes and returns is the registry's (``Op.decision``, ``Op.char_rules``, ``Op.via``,
the parameters' kinds, codes and plain values).
"""

from __future__ import annotations

from typing import Any

from harness.differential.causes import Stats
from harness.differential.counterfactual import (
    arguments,
    boundary,
    characters,
    length,
    numbers,
    outcomes,
    strict_json,
)
from harness.differential.counterfactual.probe import Again, Probe
from harness.differential.outcomes import Responses
from harness.differential.rule import Rule, Verdict
from harness.testees.testee import Testee

FAMILIES = (outcomes, arguments, boundary, strict_json, length, characters, numbers)
_BY_NAME: dict[str, Rule[Probe]] = {rule.name: rule for family in FAMILIES for rule in family.RULES}

ORDER = (
    "crashed",
    "argument-disputed", "inside-json", "arguments-each-wrong",
    "boundary-host-value", "json-refused",
    "length-rule", "version-skew", "skew-peel", "character-rule",
    "same-candidate-similarity", "threshold-comparison", "flag-rule", "magnitude", "binary32-rewrite",
    "all-reject", "error-versus-result", "rule-difference", "other",
)
RULES: tuple[Rule[Probe], ...] = tuple(_BY_NAME[name] for name in ORDER)
CAUSES: tuple[str, ...] = tuple(dict.fromkeys(cause for rule in RULES for cause in rule.causes))
MAX_DEPTH = 3  # how many times a divergence may be classified again on another input


def classify(impls: dict[str, Testee], op_name: str, args: dict[str, Any], responses: Responses,
             versions: dict[str, dict[str, str]] | None = None,
             stats: Stats | None = None) -> tuple[str, str, str | None]:
    """(cause, one-line explanation, detail) for a divergence, by counterfactual re-runs on the same
    implementations. The detail narrows a cause: for unicode_version_skew, the steps whose data differs
    ("case_mapping", "normalization", both joined by "+"); for boundary_coercion, the parameter; for
    json_strictness, the strictness rules the texts touch."""
    depth = 0
    while True:
        probe = Probe(impls, op_name, args, responses, versions or {}, deeper=depth < MAX_DEPTH)
        for rule in RULES:
            found = rule.fires(probe)
            if found is None or (isinstance(found, Again) and not probe.deeper):
                continue
            if stats is not None:
                stats.fired[f"counterfactual:{rule.name}"] += 1
            if isinstance(found, Again):
                args, responses, depth = found.args, found.responses, depth + 1
                break
            assert isinstance(found, Verdict)
            return found.cause, found.why, found.detail
        else:  # pragma: no cover
            raise AssertionError("the rule 'other' always fires")


__all__ = ["CAUSES", "MAX_DEPTH", "ORDER", "RULES", "classify"]
