"""Every planted bug in suites/mutants.py is caught by the fixture cases it names."""

from __future__ import annotations

import importlib.util

import pytest

from suites.mutants import REFERENCE_MUTATIONS, Mutation, run_mutation


@pytest.mark.parametrize("mutation", REFERENCE_MUTATIONS, ids=[m.name for m in REFERENCE_MUTATIONS])
def test_reference_mutation_caught(mutation: Mutation) -> None:
    missing = [name for name in mutation.needs if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (installed by the `tests` session's extras)")
    failing, output = run_mutation(mutation)
    assert failing, f"{mutation.name} was not caught by any fixture case:\n{output[-3000:]}"
    assert set(mutation.must_fail) <= set(failing), f"{mutation.name}: caught by {failing}, expected {mutation.must_fail}"
