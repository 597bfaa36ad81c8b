"""The run ledger (harness/model/ledger.py): the verdict on a run's work is a pure function of its counts, each rule
seen failing; it travels through every report's envelope and back, and a report is ok only when its ledger is."""

from __future__ import annotations

import pytest

from harness.classes.report import document, validate
from harness.model import envelope, schemas
from harness.model.ledger import Ledger, Tally


def done() -> Ledger:
    ledger = Ledger("fuzz", planned=None, inputs=1000, compared=1000, disagreeing=10, classified=9, not_reproduced=1,
                    allowance=1000)
    ledger.impls = {"a": Tally(sent=1000, answered=1000), "b": Tally(sent=1000, answered=990, cut=10)}
    return ledger


def test_a_run_that_did_its_work_is_ok() -> None:
    assert done().problems() == [] and done().ok


@pytest.mark.parametrize(("plant", "says"), [
    (lambda l: setattr(l, "interrupted", True), "interrupted"),
    (lambda l: setattr(l, "planned", 2000), "1,000 of 2,000 planned inputs run"),
    (lambda l: setattr(l, "stopped", "fewer than two implementations were left"), "stopped before its plan"),
    (lambda l: setattr(l, "compared", 0), "nothing was compared"),
    (lambda l: setattr(l.impls["b"], "faulted", 3), "b: 3 of 1,000 requests not answered (3 faulted twice)"),
    (lambda l: setattr(l.impls["a"], "out", 992), "a: 992 of 1,000 requests not answered (992 after it was taken out)"),
    (lambda l: setattr(l, "allowance", 9), "b: 10 of 1,000 requests cut by the budget"),
    (lambda l: setattr(l, "classified", 5), "4 of 10 disagreeing inputs not classified"),
])
def test_each_way_the_work_was_not_done_is_named_and_not_ok(plant, says) -> None:  # type: ignore[no-untyped-def]
    ledger = done()
    plant(ledger)
    assert not ledger.ok
    assert any(says in problem for problem in ledger.problems()), ledger.problems()
    assert "NOT DONE" in ledger.lines()[-1]


def test_responses_are_counted_by_what_became_of_them() -> None:
    ledger = Ledger("check")
    ledger.count_responses("t", [{"ok": "a"}, {"error": {"code": "empty_text", "message": ""}},
                                 {"error": {"code": "crash", "message": ""}}, {"error": {"code": "cut", "message": ""}},
                                 {"error": {"code": "protocol_fault", "message": ""}},
                                 {"error": {"code": "unavailable", "message": ""}}, None])
    assert ledger.impls["t"] == Tally(sent=7, answered=3, cut=2, faulted=1, out=1)


def test_parts_add_up_and_round_trip_through_json() -> None:
    whole = done()
    whole.add(done())
    assert whole.inputs == 2000 and whole.impls["b"].cut == 20 and whole.allowance == 2000 and whole.ok
    assert Ledger.from_json(whole.to_json()) == whole
    with pytest.raises(ValueError, match="inputs"):
        Ledger.from_json({**whole.to_json(), "inputs": -1})


def test_a_report_is_ok_only_when_its_ledger_is_and_carries_it_in_its_envelope() -> None:
    good = document("fuzz", {"a": {}, "b": {}}, [], 1000, 1.0, [], ledger=done())
    assert good["ok"] and validate(good) == [] and envelope.ledger_of(good) == done()
    unfinished = done()
    unfinished.classified = 0
    bad = document("fuzz", {"a": {}, "b": {}}, [], 1000, 1.0, [], ledger=unfinished)
    assert not bad["ok"] and validate(bad) == []
    assert bad["run"]["ledger"]["problems"] == unfinished.problems()
    broken = {**bad, "run": {**bad["run"], "ledger": {**bad["run"]["ledger"], "compared": "all"}}}
    assert schemas.problems(broken)  # the envelope's schema holds the ledger's shape
