"""Counterfactual causes from the outcomes alone: a crash, rejections with different codes, an error
against a result, results that differ in a rule's fields, and ``other`` when nothing explains it."""

from __future__ import annotations

from harness.differential.counterfactual.characters import acted_on
from harness.differential.counterfactual.probe import Probe
from harness.differential.outcomes import FAILURES, Responses, divergent, oracle_of, outcome
from harness.differential.rule import Rule, Verdict
from harness.model.compare import same_json


def _differing_fields(op_name: str, responses: Responses) -> str | None:
    """For results that all parsed: which top-level fields differ ("action+reason", "match"), or
    "text" for a text result."""
    values = [outcome(op_name, r) for r in responses.values()]
    if any(found != "ok" for found, _ in values):
        return None
    parsed = [value for _, value in values]
    if all(isinstance(v, dict) for v in parsed):
        keys = sorted({k for v in parsed for k in v})
        return "+".join(k for k in keys if any(not same_json(v.get(k), parsed[0].get(k)) for v in parsed)) or None
    return "text"


def _crashed(probe: Probe) -> Verdict | None:
    failed = sorted(name for name, (found, code) in probe.codes.items() if found == "error" and code in FAILURES)
    if not failed:
        return None
    return Verdict("crash", probe.codes[failed[0]][1],
                   f"{', '.join(failed)} crashed, trapped or hung (a reported result, never a contract error)")


def _all_reject(probe: Probe) -> Verdict | None:
    if probe.kinds != {"error"}:
        return None
    shown = ", ".join(f"{name} {code}" for name, (_, code) in probe.codes.items())
    return Verdict("validation_order", None, f"every implementation rejects the input, with different codes ({shown})")


def _error_versus_result(probe: Probe) -> Verdict | None:
    if "ok" not in probe.kinds or not probe.kinds & {"error", "unparseable"}:
        return None
    return Verdict("error_versus_result", None, "one implementation raises where another returns")


def _list_detail(probe: Probe) -> str | None:
    """For list results of one divergent side against the oracle: which side's rule acted (``acted_on``: the
    oracle-only or divergent-only split of the character rules, a token one side keeps whole and the other
    splits or drops); None for other results and where no side is found. Two rules of one op that differ on
    lists (marks kept inside tokens by one side, letters split off by it) are so two classes, not one. The
    shape of the difference (``outcomes.value_shape``) is no detail: one rule shows as gains-item on one witness
    and changes-item on another ("_" taken for a letter: "a _" gains a token, "_a" changes one), one class."""
    names = divergent(probe.op_name, probe.responses)
    if len(names) != 1:
        return None
    (kind_a, a), (kind_b, b) = (outcome(probe.op_name, probe.responses[name])
                                for name in (oracle_of(probe.op_name, probe.responses), names[0]))
    if kind_a != "ok" or kind_b != "ok" or not isinstance(a, list) or not isinstance(b, list):
        return None
    side, _ = acted_on(probe.op_name, probe.args, probe.responses)
    return side


def _rule_difference(probe: Probe) -> Verdict | None:
    differing = _differing_fields(probe.op_name, probe.responses)
    if probe.kinds != {"ok"} or not differing:
        return None
    # The differing fields go into the explanation, not the class key: one rule bug shows in different fields
    # on different witnesses (a decision in one, only the matched candidate in another). A list's detail is the
    # side that acted (None where none is found), as a character rule's is.
    return Verdict("rule_difference", _list_detail(probe),
                   f"every implementation returns, with different {differing}: a rule of the contract applied "
                   "differently, not explained by a named character set or number")


def _other(probe: Probe) -> Verdict:
    return Verdict("other", None, "no single cause explains it")


RULES: list[Rule[Probe]] = [
    Rule("crashed", ("crash",), _crashed, "a side crashed, trapped or hung (harness codes crash and timeout)"),
    Rule("all-reject", ("validation_order",), _all_reject, "every side rejects the input, with different codes"),
    Rule("error-versus-result", ("error_versus_result",), _error_versus_result,
         "one side raises where another returns"),
    Rule("rule-difference", ("rule_difference",), _rule_difference,
         "every side returns, with different fields: a rule of the contract applied differently"),
    Rule("other", ("other",), _other, "nothing above explains it"),
]
