"""Counterfactual causes among rejections: every side rejects the input, with different codes.

Each argument an error code can come from is tried alone (every other one made plain, ``PLAIN_VALUES``). If
the sides disagree about one argument on its own, that input shows the disagreement better (``Again``), or it
is a JSON text some side calls invalid_json (strictness). If they agree about every one and two are each
wrong, the sides only report different ones first: validation order.
"""

from __future__ import annotations

from typing import Any

from harness.differential.counterfactual.probe import Again, Probe
from harness.differential.counterfactual.rewrite import each_alone, one_less, same_args
from harness.differential.counterfactual.strict_json import strictness
from harness.differential.outcomes import Responses, divergent
from harness.differential.rule import Rule, Verdict
from harness.model.json_features import features as json_features
from harness.model.registry import PLAIN_VALUES


def _rejected_differently(probe: Probe) -> bool:
    return probe.kinds == {"error"} and len({code for _, code in probe.codes.values()}) > 1


def _isolation(probe: Probe) -> tuple[list[str], list[tuple[str, dict[str, Any], Responses]]]:
    """(the arguments the sides agree are wrong alone, with their own codes; (argument, the input with it
    alone, the answers) for each they dispute alone)."""
    def compute() -> tuple[list[str], list[tuple[str, dict[str, Any], Responses]]]:
        op, args = probe.op, probe.args
        implicated = list(dict.fromkeys(p for _, code in probe.codes.values() for p in op.params_giving(code, args)))
        plain = {p: PLAIN_VALUES[op.param(p).kind] for p in args}
        wrong, disputed = [], []
        for param in implicated:
            isolated = {**args, **{q: plain[q] for q in args if q != param}}
            after = probe.observe(isolated)
            if not divergent(probe.op_name, after):
                agreed = {r["error"]["code"] for r in after.values() if "error" in r}
                if all("error" in r for r in after.values()) and agreed <= op.param(param).codes:
                    wrong.append(param)
            else:
                disputed.append((param, isolated, after))
        return wrong, disputed
    found: tuple[list[str], list[tuple[str, dict[str, Any], Responses]]] = probe.memo("isolation", compute)
    return found


def _disputed(probe: Probe) -> Verdict | Again | None:
    if not _rejected_differently(probe):
        return None
    _, disputed = _isolation(probe)
    if not disputed:
        return None
    param, isolated, after = disputed[0]
    codes_after = {r["error"]["code"] for r in after.values() if "error" in r}
    if param in probe.json_params and json_features(probe.args[param]) and "invalid_json" in codes_after and \
            (len(codes_after) > 1 or any("ok" in r for r in after.values())):
        return strictness(probe, [param])
    return None if same_args(isolated, probe.args) else Again(isolated, after)


def _inside_json(probe: Probe) -> Again | None:
    """Inside one JSON argument: a field or element less (or two) that turns the disagreement into a result
    against an error shows what the sides really disagree on (an empty id one side takes)."""
    if not probe.deeper or not _rejected_differently(probe):
        return None
    for param in probe.json_params:
        once = one_less(probe.args[param])
        alone = each_alone(probe.args[param])
        for smaller in once + alone + [fewer for text in once + alone for fewer in one_less(text, 10)]:
            nearby = {**probe.args, param: smaller}
            after = probe.observe(nearby)
            if divergent(probe.op_name, after) and any("ok" in r for r in after.values()):
                return Again(nearby, after)
    return None


def _each_wrong(probe: Probe) -> Verdict | None:
    if not _rejected_differently(probe):
        return None
    wrong, _ = _isolation(probe)
    if len(wrong) < 2:
        return None
    shown = ", ".join(f"{name} {code}" for name, (_, code) in probe.codes.items())
    return Verdict("validation_order", None, f"{' and '.join(wrong)} are each wrong; the implementations report "
                                             f"different ones first ({shown})")


RULES: list[Rule[Probe]] = [
    Rule("argument-disputed", ("json_strictness",), _disputed,
         "every side rejects, with different codes, and they disagree about one argument alone: that input "
         "again, or strictness when it is a JSON text some side refuses"),
    Rule("inside-json", (), _inside_json,
         "every side rejects, with different codes: an element or member less that turns it into a result "
         "against an error, that input again"),
    Rule("arguments-each-wrong", ("validation_order",), _each_wrong,
         "every side rejects, with different codes, and they agree that two arguments are each wrong alone"),
]
