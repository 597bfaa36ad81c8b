"""Step traces on every implementation that serves them (issue 19; harness/checks/traces.py): on every
fixture case the trace is a trace-v1 document of the op, in the specification's step order, ending in the
op's own output, and equal entry for entry to the oracle's (the host view of ``args`` aside, ARGS_RULES).
An implementation without traces (a black box) is skipped here, never failed."""

from __future__ import annotations

from typing import Any

import pytest

from harness.checks.traces import check_examples, traced_ops
from harness.fixtures.load import all_cases
from harness.model.traces import first_difference
from harness.testees import impls
from suites.conftest import FINDINGS

CASES = list(all_cases())


def _examples(impl_name: str, traced: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
    declared = impls.declaration(impl_name)
    return [(case.op, case.args) for case in CASES
            if case.op in traced and declared.can_express(case.args)
            and declared.serves(case.contract) and declared.serves_op(case.op)]


def test_every_fixture_case_traces_as_the_oracle_does(impl_name: str, impl: Any, impl_set: dict[str, Any]) -> None:
    traced = traced_ops(impl)
    if not traced:
        pytest.skip(f"{impl_name} serves no traces (a black box)")
    examples = _examples(impl_name, traced)
    pinned = {case.op for case in CASES if case.op in traced and impls.declaration(impl_name).serves_op(case.op)}
    if not pinned:
        pytest.skip(f"no fixture pins an op {impl_name} traces ({', '.join(traced)}): nothing to trace here")
    assert examples and {op for op, _ in examples} == pinned, "every traced op it serves has fixture cases to trace"
    checked = check_examples(impl, examples, FINDINGS)
    bad = [f"{c.op} {c.args}: {c.problems[0]}" for c in checked if c.problems]
    assert not bad, f"{len(bad)} trace(s) with problems, e.g.\n" + "\n".join(bad[:5])
    oracle_name = impls.oracle(examples[0][0])  # the oracle of the family its fixture cases belong to
    if impl_name == oracle_name:
        return
    oracle = check_examples(impl_set[oracle_name], examples)
    parted = [(c.op, c.args, first_difference(o.trace, c.trace)) for o, c in zip(oracle, checked, strict=True)
              if o.trace is not None and c.trace is not None and first_difference(o.trace, c.trace) is not None]
    assert not parted, f"{len(parted)} trace(s) part from {oracle_name}'s, e.g.\n" + \
        "\n".join(f"{op} {args}: at {where}" for op, args, where in parted[:5])
