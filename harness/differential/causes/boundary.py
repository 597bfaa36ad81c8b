"""Causes at the host boundary: what a binding handed the core, and the checks of host values."""

from __future__ import annotations

import json

from harness.differential.causes.facts import Facts
from harness.differential.rule import Rule, Verdict
from harness.model.registry import OPS, is_boundary_host_value
from harness.model.traces import ARGS, differing_args


def _args_coercion(facts: Facts) -> Verdict | None:
    if facts.role != ARGS:
        return None
    a, b = facts.values()
    names = differing_args(a, b)
    shown = "; ".join(f"{n}: {json.dumps((a or {}).get(n))[:60]} / {json.dumps((b or {}).get(n))[:60]}" for n in names)
    return Verdict("boundary_coercion", "+".join(names) or None,
                   f"the core received other arguments than the oracle's ({shown})")


def _host_check(facts: Facts) -> Verdict | None:
    """One side refused a host value at its check, the other took it; the value is one a binding can
    coerce (the wrong host type, a lone surrogate, a fraction, a negative or huge number)."""
    side = facts.one_erred_here()
    if facts.role != "host" or side is None or facts.param is None or facts.param not in facts.args:
        return None
    param = OPS[facts.op].param(facts.param)
    if not is_boundary_host_value(param.kind, facts.args[facts.param]):
        return None
    took = "the oracle" if side == "b" else "the other implementation"
    return Verdict("boundary_coercion", facts.param,
                   f"{facts.param}={facts.args[facts.param]!r:.80} is refused at {facts.step} by one side and "
                   f"coerced by {took}")


RULES = [
    Rule("args-coercion", ("boundary_coercion",), _args_coercion,
         "the traces part at args: a binding handed the core another value"),
    Rule("host-check-coercion", ("boundary_coercion",), _host_check,
         "one side refuses a boundary host value at its check, the other takes it"),
]
