"""A testee whose answers depend on what it was asked before (issue 53: a host that memoizes by ``==``, so that
``force=1`` after ``force=True`` gets the cached valid answer) is a ``history_dependent`` finding, not a divergence
class: the reproduction gate (harness/differential/verdict.py) asks the first witness of each candidate class that
comes again alone of fresh instances, once per candidate class and implementation, and sets aside the witness, and
the candidate class's later inputs, where a fresh instance answers as the others do. A genuine difference, which a
fresh instance answers alike, is classified as before."""

from __future__ import annotations

import _thread
import io
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import reference
from harness.classes.expected import ExpectedSet, load
from harness.classes.sightings import NOT_CLASSIFIED, Sightings
from harness.differential import verdict as verdict_module
from harness.differential.outcomes import divergent
from harness.differential.verdict import Fresh, gate
from harness.fuzzing.fuzz import FuzzResult, fuzz
from harness.model.registry import get_op
from harness.testees.findings import Findings
from harness.testees.impls import get_impl
from harness.testees.inprocess import InProcess
from suites.fake_impl import declare
from suites.fakes.fake_testee import memoized

GATE = "decide_write"


def _fuzzed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bug: str, ops: list[str]) -> FuzzResult:
    declare(tmp_path, name="double", bug=bug)
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    opened = {"reference": get_impl("reference"), "double": get_impl("double")}
    try:
        return fuzz(opened, load(list(opened)), seconds=float("inf"), seed=3, ops=ops, workers=1,
                    max_examples=4000, stream=io.StringIO())
    finally:
        for testee in opened.values():
            testee.close()


def _kinds(result: FuzzResult) -> list[str]:
    return [item["kind"] for item in result.findings.to_json()]


def test_a_host_that_memoizes_by_equality_is_a_finding_and_no_class(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    result = _fuzzed(tmp_path, monkeypatch, "memoize", [GATE])
    assert result.divergences == [], [d.key for d in result.divergences]
    found = [item for item in result.findings.to_json() if item["kind"] == "history_dependent"]
    assert [item["impl"] for item in found] == ["double"], result.findings.to_json()
    evidence = found[0]["evidence"]
    # the warm answer is the cached valid one; a fresh process refuses the argument, as the oracle does
    assert '"ok"' in evidence["warm"] and "invalid_" in evidence["fresh"], evidence
    assert evidence["oracle"].startswith("reference: ") and "invalid_" in evidence["oracle"], evidence
    assert evidence["disagreement"] == "gone on the fresh answers"
    # every input set aside is counted: in the finding, and in the ledger as not reproduced, never classified
    ledger = result.ledger
    assert ledger.classified == 0 and ledger.not_reproduced == found[0]["count"] >= result.not_reproduced >= 3
    assert ledger.disagreeing >= ledger.not_reproduced
    assert _kinds(result) == ["history_dependent"]  # nothing else: the fresh starts left no other finding


def test_a_faithful_testee_gets_no_such_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _fuzzed(tmp_path, monkeypatch, "", [GATE])
    assert result.divergences == [] and _kinds(result) == [] and result.ledger.disagreeing == 0


def test_a_genuine_difference_is_still_classified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh process answers a real bug as the warm one does: a class, no history finding."""
    result = _fuzzed(tmp_path, monkeypatch, "capitalize", ["normalize_fact_text"])
    assert result.new and all(d.key.op == "normalize_fact_text" for d in result.new), result.new
    assert "history_dependent" not in _kinds(result), result.findings.to_json()
    assert result.ledger.classified == result.ledger.disagreeing > 0


# ---- the gate itself, on in-process doubles ---------------------------------------------------------------

def _memoizing() -> InProcess:
    """An in-process double whose every instance memoizes by ==: its cache is made when its functions are."""
    return InProcess("double", lambda op: memoized(getattr(reference, op.name)))


def _force(value: Any, text: str = "The user likes tea") -> dict[str, Any]:
    return {**dict(get_op(GATE).plain), "text": text, "force": value}


def test_the_gate_asks_each_candidate_class_of_fresh_instances_once() -> None:
    impls: dict[str, Any] = {"reference": get_impl("reference"), "double": _memoizing()}
    findings, fresh = Findings(), Fresh()
    try:
        for text in ("one", "two", "three"):
            impls["double"].call(GATE, _force(True, text))  # the warm double caches the valid answer
            args = _force(1, text)
            seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
            assert "error" in seen["reference"] and "ok" in seen["double"], seen
            assert not gate(impls, GATE, args, seen, findings, fresh=fresh).reproduced
        # one fresh instance per implementation asked (the oracle, the one that disagrees), for the first input only
        assert fresh.starts == 2 and list(fresh.decided.values()) == [("double",)], fresh.decided
        [item] = findings.to_json()
        assert (item["impl"], item["kind"], item["count"]) == ("double", "history_dependent", 3)
        assert "one" in item["evidence"]["request"] and "invalid_force" in item["evidence"]["fresh"]
        # another candidate class (a boolean threshold after 1.0): asked of the same fresh instances, none started
        impls["double"].call(GATE, {**_force(False), "threshold": 1.0})
        args = {**_force(False), "threshold": True}
        seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
        assert not gate(impls, GATE, args, seen, findings, fresh=fresh).reproduced
        assert fresh.starts == 2 and len(fresh.decided) == 2 and findings.to_json()[0]["count"] == 4
        # a batch's members of that candidate class the run did not keep: counted in the finding when set aside
        names, kinds = ["double"], [["double", "ok"], ["reference", "error:invalid_force"]]
        assert fresh.set_aside(GATE, names, kinds, 5, findings) and findings.to_json()[0]["count"] == 9
        assert not fresh.set_aside(GATE, names, [["double", "ok"], ["reference", "error:empty_text"]], 5, findings)
        assert findings.to_json()[0]["count"] == 9
    finally:
        fresh.close()
    assert fresh.instances == {}


def test_the_gate_keeps_a_difference_a_fresh_instance_gives_too() -> None:
    """A double that takes 1 for True whatever it was asked before: the fresh instance agrees with the warm one."""

    def resolve(op: Any) -> Any:
        function = getattr(reference, op.name)
        return (lambda **args: function(**{**args, "force": args["force"] == 1})) if op.name == GATE else function

    impls: dict[str, Any] = {"reference": get_impl("reference"), "double": InProcess("double", resolve)}
    findings, fresh = Findings(), Fresh()
    args = _force(1)
    seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
    verdict = gate(impls, GATE, args, seen, findings, fresh=fresh)
    assert verdict.reproduced and verdict.responses == seen and not findings
    assert fresh.starts == 2 and list(fresh.decided.values()) == [()]
    gate(impls, GATE, _force(1, "again"), seen, findings, fresh=fresh)
    assert fresh.starts == 2  # the candidate class was decided: no fresh start again


def test_an_undeclared_double_that_is_no_known_testee_is_not_asked() -> None:
    """A testee the harness cannot start anew (neither in process nor a command) is classified as before."""

    class Opaque:
        name, description = "double", {}

        def __init__(self) -> None:
            self.inner = _memoizing()

        def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
            return self.inner.call(op, args)

        def call_batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
            return self.inner.call_batch(calls)

        def close(self) -> None:
            pass

    impls: dict[str, Any] = {"reference": get_impl("reference"), "double": Opaque()}
    impls["double"].call(GATE, _force(True))
    args = _force(1)
    seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
    fresh = Fresh()
    verdict = gate(impls, GATE, args, seen, Findings(), fresh=fresh)
    assert verdict.reproduced and fresh.starts == 1  # the oracle was started anew; the opaque double cannot be


def test_fresh_answers_that_still_disagree_are_what_is_classified() -> None:
    """A double that memoizes and, fresh, refuses force=1 with another code than the oracle's: the history finding,
    and the fresh answers (a difference of codes) go on to be classified, not the warm cached one."""

    def resolve(op: Any) -> Any:
        function = getattr(reference, op.name)
        if op.name != GATE:
            return function

        def wrong_code(**args: Any) -> Any:
            if type(args["force"]) is int:
                raise ValueError("invalid_mode: planted")
            return function(**args)

        return memoized(wrong_code)

    impls: dict[str, Any] = {"reference": get_impl("reference"), "double": InProcess("double", resolve)}
    findings, fresh = Findings(), Fresh()
    try:
        impls["double"].call(GATE, _force(True))
        args = _force(1)
        seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
        assert "ok" in seen["double"], seen
        verdict = gate(impls, GATE, args, seen, findings, fresh=fresh)
        assert verdict.reproduced and verdict.responses["double"]["error"]["code"] == "invalid_mode"
        [item] = findings.to_json()
        assert item["kind"] == "history_dependent" and item["evidence"]["disagreement"].startswith("still there")
        # the implementation found history-dependent is kept (later inputs judged on its fresh answers), but the
        # candidate class's batch members are not set aside: its disagreement was still there
        assert list(fresh.decided.values()) == [("double",)] and not fresh.gone
        assert not fresh.set_aside(GATE, ["double"], [["double", "ok"], ["reference", "error:invalid_force"]], 3,
                                   findings)
    finally:
        fresh.close()


def _string_force_bug(op: Any) -> Any:
    """A memoizing double with a real bug besides: a string force taken as True, fresh or warm."""
    function = getattr(reference, op.name)
    if op.name != GATE:
        return function

    def buggy(**args: Any) -> Any:
        return function(**({**args, "force": True} if isinstance(args["force"], str) else args))

    return memoized(buggy)


def test_a_real_bug_of_a_class_whose_first_witness_was_history_is_classified() -> None:
    """The first witness of (decide_write, double, ok against invalid_force) is the memo's; a later input of the same
    candidate class is a real bug (a string force taken as True, which a fresh instance does too): asked once of the
    fresh instance already running, it is classified, not set aside with the first."""
    impls: dict[str, Any] = {"reference": get_impl("reference"), "double": InProcess("double", _string_force_bug)}
    findings, fresh = Findings(), Fresh()
    try:
        impls["double"].call(GATE, _force(True))
        args = _force(1)
        seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
        assert not gate(impls, GATE, args, seen, findings, fresh=fresh).reproduced  # the memo's: set aside
        args = _force("yes", "another text")
        seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
        assert "error" in seen["reference"] and "ok" in seen["double"], seen
        verdict = gate(impls, GATE, args, seen, findings, fresh=fresh)
        assert verdict.reproduced and divergent(GATE, verdict.responses) == ["double"], verdict
        assert fresh.starts == 2
        [item] = findings.to_json()
        assert (item["kind"], item["count"]) == ("history_dependent", 1)  # the real bug is no history finding
        # a later memo input of that class is still set aside (its fresh answer ends the disagreement)
        impls["double"].call(GATE, _force(True, "third"))
        args = _force(1, "third")
        seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
        assert not gate(impls, GATE, args, seen, findings, fresh=fresh).reproduced
        assert findings.to_json()[0]["count"] == 2 and fresh.starts == 2
    finally:
        fresh.close()


def test_later_inputs_are_judged_on_the_fresh_answers_of_the_memoizing_one() -> None:
    """A memoizes (warm: 1 answered as True was), B takes 1 for True (a real bug). The first witness's fresh answers
    still disagree (B): B's difference is classified, A's warm answer not. A later such input must be too: judged
    on A's fresh answer, not its warm one, so that A is never blamed for B's bug."""

    def b_resolve(op: Any) -> Any:
        function = getattr(reference, op.name)
        return (lambda **args: function(**{**args, "force": args["force"] == 1})) if op.name == GATE else function

    impls: dict[str, Any] = {"reference": get_impl("reference"),
                             "A": InProcess("A", lambda op: memoized(getattr(reference, op.name))),
                             "B": InProcess("B", b_resolve)}
    findings, fresh = Findings(), Fresh()
    try:
        for text in ("one", "two", "three"):
            impls["A"].call(GATE, _force(True, text))
            args = _force(1, text)
            seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
            assert divergent(GATE, seen) == ["A", "B"], seen
            verdict = gate(impls, GATE, args, seen, findings, fresh=fresh)
            assert verdict.reproduced and divergent(GATE, verdict.responses) == ["B"], (text, verdict)
        assert fresh.starts == 3 and list(fresh.decided.values()) == [("A",)]
        assert [(f["impl"], f["kind"], f["count"]) for f in findings.to_json()] == [("A", "history_dependent", 3)]
    finally:
        fresh.close()


def test_no_fresh_start_that_cannot_end_before_the_hard_deadline(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A command testee (start-up deadline 30 s) with 1 s left before the hard deadline: no fresh start is tried,
    the input is not decided (cut), and no restart_failed finding; with time enough it is asked."""
    declare(tmp_path, name="double", bug="memoize")
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    impls: dict[str, Any] = {"reference": get_impl("reference"), "double": get_impl("double")}
    findings, fresh = Findings(), Fresh()
    try:
        assert impls["double"].startup_timeout > 1
        impls["double"].call(GATE, _force(True))
        args = _force(1)
        seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
        verdict = gate(impls, GATE, args, seen, findings, fresh=fresh, hard=time.monotonic() + 1)
        assert verdict.cut and not verdict.reproduced and fresh.starts == 0 and not findings and not fresh.decided
        verdict = gate(impls, GATE, args, seen, findings, fresh=fresh, hard=time.monotonic() + 60)
        assert not verdict.cut and not verdict.reproduced and fresh.starts == 2
        assert _kinds_of(findings) == ["history_dependent"]
    finally:
        fresh.close()
        for testee in impls.values():
            testee.close()


def test_a_fresh_start_is_judged_by_how_long_the_testees_starts_take_not_only_by_its_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The double declares a 30 s start-up but starts in well under a second: with 8 s left before the hard
    deadline its fresh instance is started and asked (three times its last start and a second fit), not cut (a
    declared deadline alone would leave every class of a run's last 30 s unclassified)."""
    declare(tmp_path, name="double", bug="memoize")
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    impls: dict[str, Any] = {"reference": get_impl("reference"), "double": get_impl("double")}
    findings, fresh = Findings(), Fresh()
    try:
        assert impls["double"].startup_timeout >= 20 and impls["double"].start_seconds < 2
        impls["double"].call(GATE, _force(True))
        args = _force(1)
        seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
        verdict = gate(impls, GATE, args, seen, findings, fresh=fresh, hard=time.monotonic() + 8)
        assert not verdict.cut and fresh.starts == 2 and _kinds_of(findings) == ["history_dependent"]
    finally:
        fresh.close()
        for testee in impls.values():
            testee.close()


def test_a_fresh_start_cut_by_the_cutoff_is_no_restart_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's cutoff came while a fresh instance started (it cannot come up): the healthy testee gets no
    restart_failed finding."""
    declare(tmp_path, name="double", bug="memoize")
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    impls: dict[str, Any] = {"reference": get_impl("reference"), "double": get_impl("double")}
    findings, fresh = Findings(), Fresh()
    try:
        impls["double"].call(GATE, _force(True))
        args = _force(1)
        seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
        started = verdict_module.fresh_instance

        def at_the_cutoff(impl: Any) -> Any:  # the cutoff comes as the fresh process starts: it is not waited for
            impl.cutoff = time.monotonic() - 1
            return started(impl)

        monkeypatch.setattr(verdict_module, "fresh_instance", at_the_cutoff)
        gate(impls, GATE, args, seen, findings, fresh=fresh)
        assert fresh.instances["double"] is None and fresh.starts == 1  # the oracle's started; the double's was cut
        assert "restart_failed" not in _kinds_of(findings), findings.to_json()
    finally:
        fresh.close()
        for testee in impls.values():
            testee.close()


def test_the_hard_deadline_passed_in_the_gate_leaves_the_input_not_classified() -> None:
    """The fresh start took the run past its hard deadline: the input is NOT_CLASSIFIED, no class is filed (the
    testees' answers stop at it; a class filed on them once recorded outputs that agree: exit 5)."""

    def slow(op: Any) -> Any:
        time.sleep(0.4)  # resolving anew (the fresh instance's start) takes the run past its hard deadline
        return getattr(reference, op.name)

    impls: dict[str, Any] = {"reference": get_impl("reference"),
                             "double": InProcess("double", lambda op: memoized(slow(op)))}
    impls["double"].call(GATE, _force(True, "x"))
    args = _force("yes")
    seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
    impls["double"] = InProcess("double", lambda op: _string_force_bug(slow(op) and op))
    seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
    assert divergent(GATE, seen) == ["double"], seen
    findings = Findings()
    sightings = Sightings(list(impls), {}, ExpectedSet([], []), findings, time.monotonic(), time.monotonic() + 0.2)
    try:
        fate = sightings.consider(impls, GATE, args, seen, {})
        assert fate == NOT_CLASSIFIED and sightings.not_classified == 1 and not sightings.divergences
    finally:
        Fresh.of(findings).close()


def test_a_fresh_start_stopped_by_ctrl_c_is_still_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while a fresh instance starts: the instance, once up, is kept where Fresh.close ends it."""
    closed: list[str] = []

    class Started:
        def close(self) -> None:
            closed.append("closed")

    pressed = threading.Lock()

    def slow_start(impl: Any) -> Any:
        # Ctrl-C while the starts are under way: pressed once, by the first, before it ends (a timer racing the
        # starts lost on a loaded machine: the gate went on to ask the instances). Where it lands in the driver
        # (waiting on a start, or still sending the second) is not fixed: either way both instances end.
        time.sleep(0.05)
        if pressed.acquire(blocking=False):
            _thread.interrupt_main()
        time.sleep(0.3)
        return Started()

    monkeypatch.setattr(verdict_module, "fresh_instance", slow_start)
    impls: dict[str, Any] = {"reference": get_impl("reference"), "double": InProcess("double", _string_force_bug)}
    args = _force("yes")
    seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
    fresh = Fresh()
    with pytest.raises(KeyboardInterrupt):
        gate(impls, GATE, args, seen, Findings(), fresh=fresh)
        time.sleep(5)  # (the interrupt lands here if the gate was done first: the test then fails on closed)
    fresh.close()
    waited = time.monotonic() + 10  # a start still under way ends its instance itself when it ends (Fresh.keep)
    while len(closed) < 2 and time.monotonic() < waited:
        time.sleep(0.05)
    assert closed == ["closed", "closed"], closed


def _kinds_of(findings: Findings) -> list[str]:
    return [item["kind"] for item in findings.to_json()]


def test_a_class_whose_shrink_lost_its_answers_is_filed_on_the_classified_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The testee stops answering (its cutoff) between the gate and the shrink: the class is filed on the answers
    the input was classified on, never on the oracle's alone (a record whose outputs agree: report.document's
    ValueError, exit 5)."""
    from harness.classes import sightings as sightings_module
    from harness.differential.outcomes import agreeing

    class Cutting:
        """The string-force double, answering ``cut`` once ``cut`` is set (and no kind the gate starts anew)."""
        name, description = "double", {}

        def __init__(self) -> None:
            self.inner, self.cut = InProcess("double", _string_force_bug), False

        def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
            return {"error": {"code": "cut", "message": "cut"}} if self.cut else self.inner.call(op, args)

        def call_batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
            return [self.call(op, args) for op, args in calls]

        def close(self) -> None:
            pass

    impls: dict[str, Any] = {"reference": get_impl("reference"), "double": Cutting()}
    gated = sightings_module.gate

    def gate_then_cut(*args: Any, **kwargs: Any) -> Any:
        verdict = gated(*args, **kwargs)
        impls["double"].cut = True
        return verdict

    monkeypatch.setattr(sightings_module, "gate", gate_then_cut)
    args = _force("yes")
    seen = {name: impl.call(GATE, args) for name, impl in impls.items()}
    assert divergent(GATE, seen) == ["double"], seen
    findings = Findings()
    sightings = Sightings(list(impls), {}, ExpectedSet([], []), findings, time.monotonic(), float("inf"))
    try:
        sightings.consider(impls, GATE, args, seen, {})
        [record] = sightings.divergences
        assert not agreeing(GATE, record.witness.answers), record.witness.answers
    finally:
        Fresh.of(findings).close()


def test_an_instance_started_after_the_fresh_was_closed_is_ended_at_once() -> None:
    """A start that ends after the run was stopped and its Fresh closed (Ctrl-C landing while the driver still sent
    the starts): nothing would end that instance later, so ``keep`` ends it at once."""
    closed: list[str] = []

    class Started:
        def close(self) -> None:
            closed.append("closed")

    fresh = Fresh()
    assert fresh.keep("early", Started()) and closed == []
    fresh.close()
    assert closed == ["closed"]
    assert not fresh.keep("late", Started())
    assert closed == ["closed", "closed"] and "late" not in fresh.instances
