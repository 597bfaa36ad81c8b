"""Host values by type, not by equality (issue 53 item 3): harness/checks/host_order.py against a command testee
that memoizes its answers by argument equality (suites/fakes/fake_testee.py, FAKE_BUG=memoize), warmed or not, in
one batch and call by call; a faithful one passes; every value of each group comes first once."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.checks import host_order
from harness.model.hostvalues import EQUAL_BY_VALUE, orders, shown, type_twins
from harness.model.registry import OPS, plain_args
from harness.testees.impls import get_impl
from suites.fake_impl import declare


def _opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bug: str) -> dict:
    declare(tmp_path, name="double", bug=bug)
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    return {"reference": get_impl("reference"), "double": get_impl("double")}


def _checked(opened: dict, ops: list[str]) -> host_order.Report:
    try:
        return host_order.check(opened, ops)
    finally:
        for testee in opened.values():
            testee.close()


def test_every_value_of_a_group_comes_first_and_after_every_other() -> None:
    for group in EQUAL_BY_VALUE:
        found = orders(group)
        assert {shown(order[0]) for order in found} == set(map(shown, group))
        written = [[shown(value) for value in order] for order in found]
        for a in map(shown, group):  # each value is sent after each other one in some order
            for b in map(shown, group):
                if a != b:
                    assert any(a in order and b in order[order.index(a) + 1:] for order in written), (a, b)


def test_a_faithful_testee_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = _checked(_opened(tmp_path, monkeypatch, ""), list(OPS))
    assert report.ok, report.problems[:3]
    assert report.compared > 500 and not report.unchecked


def test_a_testee_that_memoizes_by_equality_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = _checked(_opened(tmp_path, monkeypatch, "memoize"), ["decide_write"])
    assert not report.ok
    assert all(line.startswith("double: decide_write(") for line in report.problems)
    # force=1 after force=True: the cached valid answer, where the contract says invalid_force
    assert any("(force=1)" in line and "after force=True" in line and "invalid_force" in line
               for line in report.problems), report.problems[:5]
    assert any("in one batch" in line for line in report.problems)
    assert any("call by call" in line for line in report.problems)


def test_a_memo_warmed_before_the_check_is_still_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = _opened(tmp_path, monkeypatch, "memoize")
    base = plain_args(OPS["decide_write"])
    assert base is not None
    assert "ok" in opened["double"].call("decide_write", {**base, "force": True})  # the cache holds True's answer
    report = _checked(opened, ["decide_write"])
    assert any("(force=1)" in line for line in report.problems), report.problems[:5]


def test_type_twins_are_the_equal_values_of_other_types() -> None:
    assert type_twins(True) == [1, 1.0] and type_twins(1.0) == [True, 1]
    assert list(map(shown, type_twins(0.0))) == ["False", "0", "-0.0"]
    assert list(map(shown, type_twins(-0.0))) == ["False", "0", "0.0"]
    assert type_twins(2) == [] and type_twins("1") == [] and type_twins(None) == []


def test_an_op_whose_parameter_has_no_plain_value_is_not_checked_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    op = OPS["normalize_fact_text"]
    odd = op.params[0].__class__(op.params[0].name, op.params[0].js_name, op.params[0].error_code, "no-such-kind")
    monkeypatch.setitem(OPS, "normalize_fact_text", op.__class__(**{**op.__dict__, "params": (odd,)}))
    report = _checked(_opened(tmp_path, monkeypatch, ""), ["normalize_fact_text"])
    assert report.compared == 0 and report.unchecked and "no plain value" in report.unchecked[0]
