"""Fixture versions version behaviour: a released fixture is data (bytes pinned, never regenerated), a
behaviour change goes into the next contract version, and a case of a contract version an
implementation does not serve is skipped and counted, never passed.

The proof uses a toy fixture family in a temporary folder and a toy behaviour change under contract v2
(normalize_fact_text upper-cases its result), so nothing of the project's own fixtures changes."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

import generators
import reference
from generators import framework
from generators.framework import Case, FixtureSpec
from harness.fixtures.lint import lint
from harness.fixtures.load import all_cases
from harness.fixtures.runner import run_cases
from harness.model import registry
from harness.model.paths import SCHEMAS
from harness.testees.impls import InProcess

CASES = [Case("toy-ascii", "normalize_fact_text", "plain text", (), {"text": "User likes Tea"}, ("norm.lowercase",)),
         Case("toy-edges", "normalize_fact_text", "edge punctuation", (), {"text": "  Hello, World!  "},
              ("norm.edges",))]


def toy_spec(version: int) -> FixtureSpec:
    return FixtureSpec(family="toy", version=version, generator_version="0.0.1", module=f"generators.toy_v{version}",
                       notes={},
                       cases=lambda: list(CASES), contract=f"v{version}")


def shouting(text: object) -> str:
    """The toy behaviour of contract v2."""
    return reference.normalize_fact_text(text).upper()


@pytest.fixture()
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for version in (1, 2):
        monkeypatch.setitem(generators.FIXTURES, f"toy-v{version}", toy_spec(version))
    shutil.copytree(SCHEMAS, tmp_path / "schemas")  # fixtures name their schema as ../schemas/...
    (tmp_path / "fixtures").mkdir()
    return tmp_path / "fixtures"


def expectations(path: Path) -> list[object]:
    return [case.expect for case in all_cases(path.parent) if case.fixture == path.stem]


def test_v2_changes_behaviour_and_released_v1_checks_unchanged(toy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    v1, v2 = toy / "toy-v1.json", toy / "toy-v2.json"
    framework.write(toy_spec(1), v1)
    framework.release(toy_spec(1), v1)
    released = v1.read_bytes()

    # Contract v2 changes normalize_fact_text; the reference serves both versions side by side.
    op = registry.OPS["normalize_fact_text"]
    monkeypatch.setitem(registry.OPS, "normalize_fact_text", dataclasses.replace(op, later=(("v2", shouting),)))
    assert framework.write(toy_spec(2), v2) == "written"
    assert expectations(v1) == [{"result": "user likes tea"}, {"result": "hello, world"}]
    assert expectations(v2) == [{"result": "USER LIKES TEA"}, {"result": "HELLO, WORLD"}]

    # v1 is never regenerated and still checks: its bytes as released, the lint clean, its cases pass
    # on the reference's v1 behaviour; v2's pass on its v2 behaviour.
    assert framework.write(toy_spec(1), v1).startswith("released")
    assert v1.read_bytes() == released
    assert lint(toy) == []
    for contract in ("v1", "v2"):
        impl = InProcess(f"reference-{contract}", lambda op, c=contract: op.reference_for(c))
        count, failures, skipped = run_cases(impl, all_cases(toy), contracts=(contract,))
        assert (count, failures, skipped) == (2, [], {"v2" if contract == "v1" else "v1": 2})

    # Even if v1's own behaviour changed now, released v1 is data: the lint does not regenerate it.
    monkeypatch.setitem(registry.OPS, "normalize_fact_text",
                        dataclasses.replace(op, reference=shouting, later=(("v2", shouting),)))
    assert lint(toy) == []
    assert v1.read_bytes() == released
    # ... and an implementation that serves v1 only now fails v1 (the released expectations hold).
    count, failures, _ = run_cases(InProcess("changed", lambda op: op.reference), all_cases(toy), contracts=("v1",))
    assert count == 2 and len(failures) == 2


def test_an_edited_released_fixture_fails_the_lint(toy: Path) -> None:
    v1 = toy / "toy-v1.json"
    framework.write(toy_spec(1), v1)
    framework.release(toy_spec(1), v1)
    v1.write_text(v1.read_text().replace("user likes tea", "user likes coffee"))
    assert any("its bytes changed" in problem for problem in lint(toy))


def test_status_and_pins_agree(toy: Path) -> None:
    v1 = toy / "toy-v1.json"
    framework.write(toy_spec(1), v1)
    v1.write_text(v1.read_text().replace('"status": "unreleased"', '"status": "released"'))
    assert any("but it is not pinned" in problem for problem in lint(toy, regenerate=False))


def test_cases_of_an_unserved_contract_are_skipped_and_counted(toy: Path) -> None:
    framework.write(toy_spec(2), toy / "toy-v2.json")
    count, failures, skipped = run_cases(InProcess("v1-only", lambda op: op.reference), all_cases(toy), ("v1",))
    assert (count, failures, skipped) == (0, [], {"v2": 2})
