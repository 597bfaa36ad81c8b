"""Every fixture case on every requested implementation, through the one call path (``impl.call``) every
suite uses; cases of a contract version the implementation does not serve are skipped and counted."""

from __future__ import annotations

import pytest

from harness.testees import impls
from harness.model.compare import mismatch
from harness.fixtures.load import all_cases, fixture_paths

CASES = list(all_cases())


def test_fixture_files_present() -> None:
    names = {path.stem for path in fixture_paths()}
    assert {"write-gate-v1", "dedup-context-v1"} <= names


@pytest.mark.parametrize("case", CASES, ids=[case.full_id for case in CASES])
def test_case(impl_name, impl, case) -> None:  # type: ignore[no-untyped-def]
    declared = impls.declaration(impl_name)
    if case.contract not in declared.contracts:  # skipped and counted (pytest -ra), never passed
        pytest.skip(f"{impl_name} does not serve contract {case.contract} (it serves {', '.join(declared.contracts)})")
    if not declared.can_express(case.args):  # e.g. two lone surrogates a UTF-16 host would read as one pair
        pytest.skip(f"{impl_name}'s host ({declared.host_strings} strings) cannot hold this case's arguments")
    response = impl.call(case.op, case.args)
    problem = mismatch(case.op, case.expect, response)
    assert problem is None, f"[{impl.name}] {case.full_id}: {problem}\n  ({case.comment})"
