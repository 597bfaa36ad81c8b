"""The last parity suite: each implementation behaved as a program. A finding about a testee in this session
(a protocol fault, a crash or hang a fresh process then answered, an answer that did not come again:
harness/testees/findings.py) fails that implementation's test here, by name; and every implementation
passes the protocol selftest (python -m harness selftest), command testees and in-process ones alike."""

from __future__ import annotations

import contextlib
import io

from harness.checks.selftest import selftest
from harness.testees.findings import render
from suites.conftest import findings_of


def test_no_finding_about_the_testee(impl_name: str, impl) -> None:  # type: ignore[no-untyped-def]
    found = findings_of(impl_name)
    assert not found, f"{impl_name}: {len(found)} finding(s) about the testee:\n{render(found)}"


def test_protocol_selftest(impl_name: str) -> None:
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        report = selftest(impl_name)
    assert report.failures == 0, f"selftest {impl_name}:\n{shown.getvalue()}"
