"""Host values by type, not by equality (issue 53 item 3), on the implementations of this run: every op's every
parameter gets True, 1 and 1.0 (False, 0, 0.0 and -0.0) in every rotation and reverse, the other arguments the
same, in one batch and call by call; each answer must be the oracle's for the same arguments, whatever came before
it (harness/checks/host_order.py: a host that memoizes by == or a binding that caches a conversion fails here)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.checks import host_order


def test_answers_depend_on_the_type_not_on_what_came_before(impl_set: dict[str, Any]) -> None:
    if len(impl_set) < 2:
        pytest.skip("one implementation: nothing to compare (ask for more with --impl)")
    report = host_order.check(impl_set)
    assert report.compared > 0, report.unchecked
    assert report.ok, f"{len(report.problems)} answer(s) that depend on what came before:\n" + "\n".join(
        report.problems[:20])
