"""Counterfactual causes at the host boundary: a host value one side validates and another coerces."""

from __future__ import annotations

from harness.differential.counterfactual.probe import Probe
from harness.differential.rule import Rule, Verdict
from harness.model import hostvalues
from harness.model.registry import PLAIN_VALUES, is_boundary_host_value


def _host_value(probe: Probe) -> Verdict | None:
    """A boundary host value (negative, >= 2^32, fractional, NaN, boolean, a lone surrogate, a wrong type) some
    side refused with its parameter's code, and replacing that argument by a plain value removes the
    divergence: the whole argument is what this cause names, so any common outcome will do."""
    for param in probe.op.params:
        if param.name not in probe.args or not is_boundary_host_value(param.kind, probe.args[param.name]):
            continue
        involved = any(found == "error" and code in (param.error_code, "unexpected_exception")
                       for found, code in probe.codes.values())
        if involved and probe.explains({**probe.args, param.name: PLAIN_VALUES[param.kind]}, keep_outcome=False):
            return Verdict("boundary_coercion", param.name,
                           f"{param.name}={hostvalues.encode(probe.args[param.name])!r} is validated by some "
                           "implementations and coerced by others")
    return None


RULES: list[Rule[Probe]] = [
    Rule("boundary-host-value", ("boundary_coercion",), _host_value,
         "a boundary host value some side refuses, and a plain value in its place settles it"),
]
