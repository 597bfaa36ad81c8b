"""Step traces on inputs that change every step (issue 53 item 4; harness/checks/step_inputs.py): on every
implementation that serves them, each step's value follows from the value of the step it takes it from
(``unfollowed``: a lowercase step whose value the NFC after it undoes is an account of something the testee did not
do). The fixture cases (test_step_traces.py) mostly leave a step's value as it was; these change each one:
titlecase letters, capitals whose lowercase is not NFC, quotes and dashes, runs of White_Space, line breaks.
Traces are not compared with the oracle's here (test_step_traces.py does that on the fixture cases): only that
each is a true account of its own call. An implementation without traces (a black box) is skipped, never failed."""

from __future__ import annotations

from typing import Any

import pytest

from harness.checks import step_inputs
from harness.checks.traces import check_examples, traced_ops
from harness.testees import impls
from suites.conftest import FINDINGS

PER_OP = 300


def test_every_step_follows_on_inputs_that_change_every_step(impl_name: str, impl: Any) -> None:
    traced = traced_ops(impl)
    if not traced:
        pytest.skip(f"{impl_name} serves no traces (a black box)")
    declared = impls.declaration(impl_name)
    examples = [(op, args) for op in traced if declared.serves_op(op)
                for args in step_inputs.examples(op, PER_OP) if declared.can_express(args)]
    if not examples:
        pytest.skip(f"{impl_name} traces no op the step inputs vary ({', '.join(traced)})")
    checked = check_examples(impl, examples, FINDINGS)
    bad = [f"{c.op} {c.args}: {c.problems[0]}" for c in checked if c.problems]
    assert not bad, f"{len(bad)} of {len(checked)} trace(s) with problems, e.g.\n" + "\n".join(bad[:5])
