"""The slow set's table (suites/slow_set.py) names tests that exist: every row a test function, every kept id one of
its parameters; and the markers it gives split the tests in two without losing one (`nox -s tests` runs
`-m "not slow"`, `nox -s tests-slow` runs `-m slow`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from suites import slow_set

ROOT = Path(__file__).resolve().parents[2]


def _collected(*args: str) -> list[str]:
    files = sorted({row.split("::")[0] for row in slow_set.SLOW})
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", *args, *files], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode in (0, 5), done.stdout[-2000:] + done.stderr[-2000:]  # 5: nothing selected
    return [line for line in done.stdout.splitlines() if "::" in line]


@pytest.fixture(scope="module")
def every_test() -> list[str]:
    return _collected()


def test_every_row_is_a_test_and_every_kept_id_one_of_its_parameters(every_test: list[str]) -> None:
    by_function: dict[str, set[str]] = {}
    for nodeid in every_test:
        name, _, params = nodeid.partition("[")
        by_function.setdefault(name, set()).add(params.removesuffix("]"))
    for row, kept in slow_set.SLOW.items():
        assert row in by_function, f"suites/slow_set.py names {row}, which is not a test (renamed or removed?)"
        unknown = kept - by_function[row]
        assert not unknown, f"{row}: kept ids {sorted(unknown)} are none of its parameters {sorted(by_function[row])}"
        assert kept != by_function[row], f"{row}: every parameter is kept, so the row sends nothing to the slow set"


def test_the_two_sets_split_the_tests_without_losing_one(every_test: list[str]) -> None:
    quick, slow = _collected("-m", "not slow"), _collected("-m", "slow")
    assert sorted(quick + slow) == sorted(every_test)
    assert not set(quick) & set(slow)
    for row, kept in slow_set.SLOW.items():
        assert {nodeid for nodeid in quick if nodeid.partition("[")[0] == row} == (
            {f"{row}[{one}]" for one in kept} if kept and "[" in next(n for n in every_test if n.startswith(row))
            else set()), row


def test_is_slow_reads_the_table() -> None:
    row = next(name for name, kept in slow_set.SLOW.items() if kept)
    kept = sorted(slow_set.SLOW[row])[0]
    assert not slow_set.is_slow(f"{row}[{kept}]")
    assert slow_set.is_slow(f"{row}[no such parameter]")
    assert not slow_set.is_slow("suites/nowhere.py::test_x")
