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
    (lambda led: setattr(led, "interrupted", True), "interrupted"),
    (lambda led: setattr(led, "planned", 2000), "1,000 of 2,000 planned inputs run"),
    (lambda led: setattr(led, "stopped", "fewer than two implementations were left"), "stopped before its plan"),
    (lambda led: setattr(led, "compared", 0), "nothing was compared"),
    (lambda led: setattr(led.impls["b"], "faulted", 3), "b: 3 of 1,000 requests not answered (3 faulted twice)"),
    (lambda led: setattr(led.impls["a"], "out", 992),
     "a: 992 of 1,000 requests not answered (992 after it was taken out)"),
    (lambda led: setattr(led, "allowance", 9), "b: 10 of 1,000 requests cut by the budget"),
    (lambda led: setattr(led, "classified", 5), "4 of 10 disagreeing inputs not classified"),
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


def test_the_start_up_and_the_restarts_are_kept_in_the_report_and_read_back() -> None:
    """A fuzz run's start-up (not counted in its budget) and what it started again go into its report's ledger,
    valid against the envelope's schema, and come back from it; a ledger that keeps neither writes neither."""
    ledger = done()
    ledger.startup, ledger.restarts, ledger.worker_restarts = 19.94, {"pyodide": 2}, 1
    report = document("fuzz", {"a": {}, "b": {}}, [], 1000, 1.0, [], ledger=ledger)
    assert validate(report) == [] and report["run"]["ledger"]["startup"] == 19.94
    assert report["run"]["ledger"]["restarts"] == {"testees": {"pyodide": 2}, "workers": 1}
    assert envelope.ledger_of(report) == ledger
    assert "startup" not in done().to_json() and "restarts" not in done().to_json()
    for bad in ({"startup": -1}, {"startup": True}, {"restarts": {"testees": {"a": -2}, "workers": 0}}):
        with pytest.raises(ValueError, match="startup|restarts"):
            Ledger.from_json({**ledger.to_json(), **bad})


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


def test_a_planned_run_may_not_leave_a_cut_however_small() -> None:
    """The end of a time budget excuses the batches in flight only when the run's plan is the budget itself."""
    ledger = Ledger("fuzz", planned=1000, inputs=1000, compared=1, allowance=0)
    ledger.impls = {"a": Tally(sent=1000, answered=1, cut=999)}
    assert "a: 999 of 1,000 requests cut by the budget" in " ".join(ledger.problems())
    parts = Ledger("fuzz", planned=5000)
    parts.add(Ledger("fuzz", planned=0, inputs=1000))  # a batch: a part of the plan, adding nothing to it
    assert parts.planned == 5000 and "1,000 of 5,000 planned inputs run" in parts.problems()[0]


def test_a_campaign_classifies_a_group_first_seen_past_its_first_tasks() -> None:
    """A campaign samples a group's examples by their place; a group none of whose examples was classified yet is
    classified at its first example whatever its place (it was counted classified and never reported)."""
    from harness.classes.expected import ExpectedSet
    from harness.classes.sightings import CLASSIFIED, Sightings
    from harness.testees.findings import Findings
    from harness.testees.inprocess import InProcess

    def stripped(op):  # type: ignore[no-untyped-def]
        return (lambda text: op.reference(text) + "!") if op.name == "normalize_fact_text" else op.reference

    impls = {"reference": InProcess("reference", lambda op: op.reference), "bang": InProcess("bang", stripped)}
    sightings = Sightings(list(impls), {"reference": {}, "bang": {}}, ExpectedSet([], []), Findings(), 0.0,
                          float("inf"))
    args = {"text": "Hello"}
    responses = {name: impl.call("normalize_fact_text", args) for name, impl in impls.items()}
    fates = [sightings.consider(impls, "normalize_fact_text", args, responses, {}, (100, index)) for index in range(3)]
    assert fates == [CLASSIFIED] * 3
    assert len(sightings.divergences) == 1  # the planted bug is a class, though its places were all sampled out
