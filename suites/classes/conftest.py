"""Fixtures of the class tests that plant bugs in the reference and compare it with the Rust core in process."""

from __future__ import annotations

from typing import Any

import pytest

from harness.testees.impls import ImplementationUnavailable, get_impl


@pytest.fixture
def core() -> Any:
    """The PyO3 core, started; the test is skipped where it is not built."""
    try:
        return get_impl("pyo3")
    except ImplementationUnavailable as exc:
        pytest.skip(str(exc))
