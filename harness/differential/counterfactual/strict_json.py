"""Counterfactual causes in JSON arguments: some sides refuse a JSON text as invalid_json, the others take it."""

from __future__ import annotations

from harness.differential.counterfactual.probe import Probe
from harness.differential.counterfactual.rewrite import strict_rewrite
from harness.differential.rule import Rule, Verdict
from harness.model.json_features import features as json_features


def strictness(probe: Probe, params: list[str]) -> Verdict:
    """json_strictness for these JSON arguments; the detail names the strictness rules their texts touch
    (harness/model/json_features.py)."""
    detail = "+".join(sorted(set().union(*(json_features(probe.args[p]) for p in params))))
    return Verdict("json_strictness", detail, f"{', '.join(sorted(probe.refused))} refuse(s) {', '.join(params)} as "
                                              f"invalid_json, the others take it ({detail})")


def _refused(probe: Probe) -> Verdict | None:
    """The JSON text one side refuses and whose strict rewriting settles it; or, when a side returned,
    every text that touches a strictness rule."""
    if not probe.json_params or not probe.refused or probe.refused == set(probe.codes):
        return None
    flagged = [p for p in probe.json_params if json_features(probe.args[p])]
    culprits = [p for p in flagged if probe.explains({**probe.args, p: strict_rewrite(probe.args[p])},
                                                     keep_outcome=False)]
    if culprits or (flagged and "ok" in probe.kinds):
        return strictness(probe, culprits or flagged)
    return None


RULES: list[Rule[Probe]] = [
    Rule("json-refused", ("json_strictness",), _refused,
         "some sides refuse a JSON text as invalid_json, the others take it, and its strict rewriting settles it "
         "(or a side returned)"),
]
