"""Differential properties (ci profile): every implementation returns the same result or the same
error code for every op, on domain-specific generated inputs; divergences listed in
expected/<impl>.json are allowed, and every listed one must still happen."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

from harness.differential import examine, unicode_versions_of
from harness.expected import load, recheck
from harness.report import render_divergence
from harness.strategies import args_for, comparable_ops


@pytest.fixture(scope="module")
def versions(impl_set: dict[str, Any]) -> dict[str, dict[str, str]]:
    return unicode_versions_of(impl_set)


@pytest.mark.parametrize("op_name", comparable_ops())
def test_implementations_agree(op_name: str, impl_set: dict[str, Any], versions: dict[str, dict[str, str]]) -> None:
    if len(impl_set) < 2:
        pytest.skip("one implementation: nothing to compare (ask for more with --impl)")
    expected = load(list(impl_set))

    @given(args=args_for(op_name))
    def agree(args: dict[str, Any]) -> None:
        divergence = examine(impl_set, op_name, args, versions)
        if divergence is None:
            return
        if expected.covers(divergence.divergent, op_name, divergence.cause, divergence.detail):
            return
        raise AssertionError("unexpected divergence:\n" + render_divergence(1, divergence))

    agree()


def test_expected_divergences_still_happen(impl_set: dict[str, Any], versions: dict[str, dict[str, str]]) -> None:
    problems = recheck(load(list(impl_set)), impl_set, versions)
    assert not problems, "\n".join(problems)
