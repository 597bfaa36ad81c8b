"""Host values by type, not by equality (issue 53 item 3): ``True == 1 == 1.0`` and ``False == 0 == 0.0 == -0.0``
in Python (and a JavaScript number has no integer type of its own), so a host that memoizes answers by argument
equality, or a binding that converts once and caches, answers ``force=1`` with what ``force=True`` got before it.
The contract tells them apart by type. This check sends every parameter of every op each value of those groups in
every rotation of the group and in reverse, the other arguments the same, once as one batch and once call by call,
and compares each answer with the oracle's answer for the same arguments: an answer that depends on what came before
it (or that differs from the oracle whatever the order) is named with the values sent before it.

Generic over the op registry: the other arguments are each parameter's default, else its kind's plain value
(``registry.plain_args``); an op with a parameter that has neither is not checked, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.differential.outcomes import outcome, same_outcome
from harness.model import registry
from harness.model.hostvalues import EQUAL_BY_VALUE, orders, shown
from harness.model.registry import plain_args
from harness.testees.errors import answered
from harness.testees.fanout import expressible, serving
from harness.testees.impls import oracle as oracle_name
from harness.testees.testee import Response, Testee


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)  # one line each: implementation, op, parameter, values
    compared: int = 0  # answers compared with the oracle's
    unchecked: list[str] = field(default_factory=list)  # ops not checked, and why

    @property
    def ok(self) -> bool:
        return not self.problems


def check(opened: dict[str, Testee], ops: list[str] | None = None) -> Report:
    """Every op of ``ops`` (default: every op) that at least two of ``opened`` serve, its oracle among them."""
    report = Report()
    for op_name in ops if ops is not None else list(registry.OPS):
        op = registry.OPS[op_name]
        impls = serving(opened, op_name)
        oracle = oracle_name(op_name)
        if oracle not in impls or len(impls) < 2:
            report.unchecked.append(f"{op_name}: served by {len(impls)} of these, the oracle {oracle} "
                                    f"{'among them' if oracle in impls else 'not among them'}")
            continue
        base = plain_args(op)
        if base is None:
            report.unchecked.append(f"{op_name}: a parameter has no default and no plain value for its kind")
            continue
        for param in op.params:
            for group in EQUAL_BY_VALUE:
                for order in orders(group):
                    calls = [(op_name, {**base, param.name: value}) for value in order]
                    truth = [impls[oracle].call(op_name, args) for _, args in calls]
                    for name, impl in impls.items():
                        if name != oracle:
                            _compare(report, name, impl, op_name, param.name, order, calls, truth)
    return report


def _compare(report: Report, name: str, impl: Testee, op_name: str, param: str, order: tuple[Any, ...],
             calls: list[tuple[str, dict[str, Any]]], truth: list[Response]) -> None:
    sendable = [i for i, (_, args) in enumerate(calls) if expressible(name, args)]
    if not sendable:
        return
    chosen = [calls[i] for i in sendable]
    batched = impl.call_batch(chosen)
    singles = [impl.call(op, args) for op, args in chosen]
    for how, answers in (("in one batch", batched), ("call by call", singles)):
        for position, (i, got) in enumerate(zip(sendable, answers, strict=True)):
            if not (answered(got) and answered(truth[i])):
                continue  # no answer: a finding of its own (crash, timeout), not this check's subject
            report.compared += 1
            if same_outcome(op_name, got, truth[i]):
                continue
            before = ", ".join(shown(order[j]) for j in sendable[:position]) or "nothing"
            report.problems.append(
                f"{name}: {op_name}({param}={shown(order[i])}) answered {outcome(op_name, got)} {how} after "
                f"{param}={before}, where the oracle answers {outcome(op_name, truth[i])} (the other arguments "
                "the defaults or plain values): an answer must depend on the value's type, not on what came before")
