"""The last rules: what the two outcomes say when no step of a kind explains where the traces part."""

from __future__ import annotations

from harness.differential.causes.facts import Facts
from harness.differential.rule import Rule, Verdict


def _check_disputed(facts: Facts) -> Verdict | None:
    """One side refused a value at a check that the other side ran on the same value and passed (whatever
    each does later): they disagree about that check, not about an order."""
    side = facts.one_erred_here()
    if side is None:
        return None
    raised = facts.outcome_a if side == "a" else facts.outcome_b
    who = "the oracle" if side == "a" else "the other implementation"
    return Verdict("error_versus_result", None, f"{who} raises {raised['error']} at {facts.step}, where the other "
                                                "takes the value")


def _validation_order(facts: Facts) -> Verdict | None:
    """Both sides reject the input, with different codes, and neither refused what the other passed at the
    step they part at: each argument is wrong, and the sides check them in another order."""
    ea, eb = facts.outcome_a.get("error"), facts.outcome_b.get("error")
    if ea is None or eb is None or ea == eb:
        return None
    return Verdict("validation_order", None, f"both reject the input, with {ea} (at {facts.outcome_a.get('step')}) "
                                             f"and {eb} (at {facts.outcome_b.get('step')}); they part at {facts.step}")


def _error_versus_result(facts: Facts) -> Verdict | None:
    if ("error" in facts.outcome_a) == ("error" in facts.outcome_b):
        return None
    raised = facts.outcome_a if "error" in facts.outcome_a else facts.outcome_b
    who = "the oracle" if raised is facts.outcome_a else "the other implementation"
    return Verdict("error_versus_result", None, f"{who} raises {raised['error']} at {raised.get('step')}, the other "
                                                f"returns; they part at {facts.step}")


def _rule_difference(facts: Facts) -> Verdict | None:
    return Verdict("rule_difference", None, f"a rule of the contract applied differently at {facts.step}")


RULES = [
    Rule("check-disputed", ("error_versus_result",), _check_disputed,
         "one side refuses at a check a value the other side passes there"),
    Rule("validation-order", ("validation_order",), _validation_order,
         "both reject the input, with different codes"),
    Rule("error-versus-result", ("error_versus_result",), _error_versus_result,
         "one side raises, the other returns"),
    Rule("rule-difference", ("rule_difference",), _rule_difference, "anything else: a rule applied differently"),
]
