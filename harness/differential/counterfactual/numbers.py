"""Counterfactual causes in numbers, for an op whose result decides about candidates (``Op.decision``): the
same candidate's similarity differing, the comparison at the threshold, a candidate flag's rule, the
magnitude of the vectors, binary32 rounding of the numbers in JSON texts."""

from __future__ import annotations

import math
from typing import Any

from harness.differential.counterfactual.probe import Probe
from harness.differential.counterfactual.rewrite import binary32_rewrite, rescale, unflagged
from harness.differential.outcomes import Responses, divergent
from harness.differential.rule import Rule, Verdict
from harness.model.compare import same_json


def _numbers(sims: list[Any]) -> list[float]:
    return [s for s in sims if isinstance(s, (int, float)) and not isinstance(s, bool)]


def _near(similarity: float, threshold: float) -> bool:
    """Within binary32 precision of the threshold (a relative 1e-6, about 8 binary32 ulps): where a sum
    in another precision or order can land on the other side."""
    return abs(similarity - threshold) <= 1e-6 * max(abs(similarity), abs(float(threshold)))


def _settled(probe: Probe, responses: Responses) -> bool:
    """Agreement, or the same decision on the same candidate with similarities differing in their bits."""
    if not divergent(probe.op_name, responses):
        return True
    sims = probe.similarities(responses)
    return bool(sims) and all(isinstance(x, float) for x in sims) and len(set(probe.match_ids(responses))) == 1 \
        and len(probe.verdicts(responses)) == 1


def _threshold_decides(probe: Probe, args: dict[str, Any], similarities: list[float], threshold: Any) -> bool:
    """A similarity within binary32 precision of the threshold, and a threshold a hair's breadth (1e-5)
    lower and one a hair's breadth higher each settle the divergence: the comparison at the threshold
    decides, not which candidates are compared."""
    assert probe.decision is not None
    return any(_near(x, threshold) for x in similarities) and all(
        _settled(probe, probe.observe({**args, probe.decision.threshold: float(threshold) * factor}))
        for factor in (1 - 1e-5, 1 + 1e-5))


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(float(value))


def _same_candidate(probe: Probe) -> Verdict | None:
    sims = probe.similarities(probe.responses)
    if not sims or len(_numbers(sims)) != len(sims) or len(set(probe.match_ids(probe.responses))) != 1 or \
            all(same_json(s, sims[0]) for s in sims):
        return None
    return Verdict("float_rounding", None,
                   f"similarities of the same candidate differ: {dict(zip(probe.responses, sims, strict=True))}")


def _decisions_differ(probe: Probe) -> bool:
    return bool(probe.similarities(probe.responses)) and len(probe.verdicts(probe.responses)) > 1


def _at_threshold(probe: Probe) -> Verdict | None:
    if not _decisions_differ(probe):
        return None
    threshold = probe.threshold()
    if not _finite_number(threshold) or \
            not _threshold_decides(probe, probe.args, _numbers(probe.similarities(probe.responses)), threshold):
        return None
    # A hair's breadth below or above the threshold, they agree (up to the last bits of the same similarity):
    # the comparison at the threshold decides, not which candidates are compared.
    return Verdict("float_rounding", None, "a similarity next to the threshold is compared differently")


def _flag(probe: Probe) -> Verdict | None:
    if not _decisions_differ(probe):
        return None
    assert probe.decision is not None
    flag = probe.decision.flag
    cleared = {p: unflagged(probe.args[p], flag) for p in probe.json_params}
    cleared = {p: text for p, text in cleared.items() if text != probe.args[p]}
    if not cleared or not probe.explains({**probe.args, **cleared}):
        return None
    return Verdict("rule_difference", None, f"candidates with {flag} true are treated differently (with every "
                                            f"{flag} flag false, the implementations agree)")


def _magnitude(probe: Probe) -> Verdict | None:
    """Scaled to a largest component of 1 (the same directions), the implementations agree, differ only in
    the last bits of one similarity, or meet the threshold's comparison: overflow or precision in the sums.
    The rescaled input must keep a decision one side made (rescaling that moves a similarity across the
    threshold removes the trigger instead of explaining it)."""
    if not probe.similarities(probe.responses):
        return None
    threshold = probe.threshold()
    rescaled = {p: rescale(probe.args[p]) for p in probe.json_params}
    rescaled = {p: text for p, text in rescaled.items() if text != probe.args[p]}
    if not rescaled:
        return None
    changed = {**probe.args, **rescaled}
    after = probe.observe(changed)
    after_sims = probe.similarities(after)
    precision_only = bool(after_sims) and all(isinstance(x, float) for x in after_sims) and \
        len(set(probe.match_ids(after))) == 1
    after_numbers = [x for x in after_sims if isinstance(x, float)]
    at_threshold = isinstance(threshold, float) and math.isfinite(threshold) and len(probe.verdicts(after)) > 1 \
        and _threshold_decides(probe, changed, after_numbers, threshold)
    kept = probe.verdicts(after) <= probe.verdicts(probe.responses)
    if not (kept and (not divergent(probe.op_name, after) or precision_only) or at_threshold):
        return None
    return Verdict("float_rounding", None, "the magnitude of the vectors decides (scaled to a largest component of "
                                           "1, same directions, the implementations agree, or differ only in the "
                                           "last bits of one similarity): overflow or precision in the sums")


def _binary32(probe: Probe) -> Verdict | None:
    rounded = {p: binary32_rewrite(probe.args[p]) for p in probe.json_params}
    rounded = {p: text for p, text in rounded.items() if text != probe.args[p]}
    if not rounded or not probe.explains({**probe.args, **rounded}):
        return None
    return Verdict("float_rounding", None, "numbers that binary32 cannot hold exactly are rounded differently (with "
                                           "them rounded to binary32 first, the implementations agree)")


RULES: list[Rule[Probe]] = [
    Rule("same-candidate-similarity", ("float_rounding",), _same_candidate,
         "every side matches the same candidate, with different similarities"),
    Rule("threshold-comparison", ("float_rounding",), _at_threshold,
         "the decisions differ, a similarity is next to the threshold, and a hair's breadth either way settles it"),
    Rule("flag-rule", ("rule_difference",), _flag,
         "the decisions differ, and with every candidate flag cleared the sides agree"),
    Rule("magnitude", ("float_rounding",), _magnitude,
         "with the vectors rescaled to a largest component of 1 the sides agree (or differ in the last bits)"),
    Rule("binary32-rewrite", ("float_rounding",), _binary32,
         "with every number of the JSON texts rounded to binary32 first the sides agree"),
]
