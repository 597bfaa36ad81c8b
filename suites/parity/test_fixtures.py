"""Every fixture case on every requested implementation, through the one call path (``impl.call``) every
suite uses; cases of a contract version the implementation does not serve are skipped and counted; cases of an
op it does not serve are not collected for it (suites/conftest.py deselects them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.fixtures.load import all_cases, fixture_paths
from harness.fixtures.runner import CaseResult, results_document
from harness.model import envelope
from harness.model.compare import mismatch
from harness.model.files import atomic_write
from harness.testees import impls

CASES = list(all_cases())
_ANSWERS: dict[str, dict[str, dict]] = {}  # implementation -> case id -> response
_RESULTS: dict[str, list[dict]] = {}  # implementation -> its case results, for --fixture-results
_SEEN: dict[str, object] = {}  # the implementations the results are of


@pytest.fixture(scope="module", autouse=True)
def _write_results(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """At the end of the module, every implementation x case result to --fixture-results (nox -s parity:
    reports/fixture-results.json, fixture-results-v1), when it is given."""
    yield
    out = request.config.getoption("--fixture-results")
    if out and _RESULTS:
        document = results_document(_RESULTS, envelope.descriptions(_SEEN))
        atomic_write(Path(out), json.dumps(document, indent=2, ensure_ascii=True) + "\n")


def _record(impl_name: str, impl, case, state: str, why: str | None = None) -> None:  # type: ignore[no-untyped-def]
    _SEEN[impl_name] = impl
    _RESULTS.setdefault(impl_name, []).append(CaseResult(case, state, why).to_json(impl_name))


def _answer(impl_name: str, impl, case) -> dict:  # type: ignore[no-untyped-def]
    """The implementation's response to ``case``, from one batch of every case it can take."""
    if impl_name not in _ANSWERS:
        declared = impls.declaration(impl_name)
        runnable = [c for c in CASES if c.contract in declared.contracts and declared.can_express(c.args)
                    and declared.serves_op(c.op)]
        responses = impl.call_batch([(c.op, c.args) for c in runnable])
        _ANSWERS[impl_name] = {c.full_id: r for c, r in zip(runnable, responses, strict=True)}
    return _ANSWERS[impl_name][case.full_id]


def test_fixture_files_present() -> None:
    names = {path.stem for path in fixture_paths()}
    assert {"write-gate-v1", "dedup-context-v1"} <= names


@pytest.mark.parametrize("case", CASES, ids=[case.full_id for case in CASES])
def test_case(impl_name, impl, case) -> None:  # type: ignore[no-untyped-def]
    declared = impls.declaration(impl_name)
    if case.contract not in declared.contracts:  # skipped and counted (pytest -ra), never passed
        why = f"{impl_name} does not serve contract {case.contract} (it serves {', '.join(declared.contracts)})"
        _record(impl_name, impl, case, "skip", why)
        pytest.skip(why)
    if not declared.can_express(case.args):  # e.g. two lone surrogates a UTF-16 host would read as one pair
        why = f"{impl_name}'s host ({declared.host_strings} strings) cannot hold this case's arguments"
        _record(impl_name, impl, case, "skip", why)
        pytest.skip(why)
    response = _answer(impl_name, impl, case)
    problem = mismatch(case.op, case.expect, response)
    _record(impl_name, impl, case, "pass" if problem is None else "fail", problem)
    assert problem is None, (f"[{impl.name}] {case.full_id}: {problem}\n  ({case.comment}; pins "
                             f"{', '.join(case.steps)}: docs/contract.md)")
