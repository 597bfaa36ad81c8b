"""Shared pytest wiring: which implementations the parity suites run on.

``--impl NAME`` (repeatable) or ``PARITY_IMPLS=reference,pyo3``; default ``reference``. An
implementation that was asked for and cannot be loaded fails the run: it is never silently skipped.
"""

from __future__ import annotations

import os

import pytest

from harness import impls


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--impl", action="append", default=None, help="implementation to test (repeatable)")


def requested_impls(config: pytest.Config) -> list[str]:
    names = config.getoption("--impl") or [n for n in os.environ.get("PARITY_IMPLS", "").split(",") if n]
    return names or ["reference"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "impl_name" in metafunc.fixturenames:
        metafunc.parametrize("impl_name", requested_impls(metafunc.config), scope="session")


_LOADED: dict[str, object] = {}


@pytest.fixture(scope="session")
def impl(impl_name: str):  # type: ignore[no-untyped-def]
    if impl_name not in _LOADED:
        try:
            _LOADED[impl_name] = impls.get_impl(impl_name)
        except impls.ImplementationUnavailable as exc:
            pytest.fail(f"implementation {impl_name!r} was requested but is unavailable: {exc}", pytrace=False)
    return _LOADED[impl_name]
