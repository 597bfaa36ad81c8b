"""Differential checks: every implementation returns the same result or the same error code for every
op, on domain-specific generated inputs: Hypothesis properties (ci profile) and the fuzzer's batched
engine with a fixed seed; divergences listed in expected/<impl>.json are allowed, and every listed one
must still happen."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from harness.classes.examine import examine
from harness.classes.expected import covered, load, recheck_detailed
from harness.classes.key import ClassKey
from harness.classes.record import ClassRecord
from harness.classes.report import document, write
from harness.cli.reports.divergences import details_of
from harness.differential.explain import unicode_versions_of
from harness.differential.strategies import args_for, comparable_ops
from harness.fuzzing.fuzz import fuzz
from harness.model import envelope
from suites.conftest import FINDINGS

SEEN: list[ClassRecord] = []
PROBLEMS: list[str] = []
PASSES: list[dict[str, str]] = []


def _key(divergence: ClassRecord) -> ClassKey:
    return divergence.key


@pytest.fixture(scope="module")
def versions(impl_set: dict[str, Any], request: pytest.FixtureRequest) -> Any:
    """The implementations' Unicode versions; at the end, the report to --parity-report (nox -s parity:
    reports/parity-report.json; without the option, none: a test run writes nothing under reports/)."""
    found = unicode_versions_of(impl_set)
    yield found
    out = request.config.getoption("--parity-report")
    if out and len(impl_set) > 1:
        write(Path(out), document("ci", found, SEEN, 0, 0.0, PROBLEMS, unexpected_passes=PASSES,
                               described=envelope.descriptions(impl_set)))


@pytest.mark.parametrize("op_name", comparable_ops())
def test_implementations_agree(op_name: str, impl_set: dict[str, Any], versions: dict[str, dict[str, str]]) -> None:
    if len(impl_set) < 2:
        pytest.skip("one implementation: nothing to compare (ask for more with --impl)")
    expected = load(list(impl_set))

    @given(args=args_for(op_name))
    def agree(args: dict[str, Any]) -> None:
        found = examine(impl_set, op_name, args, versions)
        if found is None:
            return
        divergence = covered(expected, found)
        if not divergence.new:
            if not any(_key(seen) == _key(divergence) for seen in SEEN):
                SEEN.append(divergence)
            return
        # Hypothesis replays the shrunk example last: keep the latest one of each kind.
        SEEN[:] = [seen for seen in SEEN if _key(seen) != _key(divergence)] + [divergence]
        raise AssertionError("unexpected divergence:\n" + details_of(1, divergence))

    agree()


BATCHED_EXAMPLES = 20_000  # per op; the fast engine's batches (harness/fuzzing/generate.py), a fixed seed


@pytest.mark.parametrize("op_name", comparable_ops())
def test_implementations_agree_on_batches(op_name: str, impl_set: dict[str, Any],
                                          versions: dict[str, dict[str, str]]) -> None:
    """The fuzzer's engine with a fixed seed: the same inputs on every run, sent in batches."""
    if len(impl_set) < 2:
        pytest.skip("one implementation: nothing to compare (ask for more with --impl)")
    result = fuzz(impl_set, load(list(impl_set)), seconds=float("inf"), seed=2024, ops=[op_name], workers=1,
                  max_examples=BATCHED_EXAMPLES, stream=io.StringIO())
    FINDINGS.merge(result.findings.to_json())  # failed per implementation by suites/parity/test_testee_health.py
    for divergence in result.divergences:
        if not any(_key(seen) == _key(divergence) for seen in SEEN):
            SEEN.append(divergence)
    assert not result.new, "unexpected divergence(s):\n" + "\n\n".join(
        details_of(i, d) for i, d in enumerate(result.new, 1))


def test_expected_divergences_still_happen(impl_set: dict[str, Any], versions: dict[str, dict[str, str]]) -> None:
    checked = recheck_detailed(load(list(impl_set)), impl_set, versions)
    PROBLEMS.extend(message for message, _ in checked)
    PASSES.extend(passed for _, passed in checked if passed)
    assert not PROBLEMS, "\n".join(PROBLEMS)
