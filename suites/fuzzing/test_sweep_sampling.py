"""A sweep's group explained on a sample and verified (issue 51, items 5 and 6, review): ``classified`` explains
members spread evenly across a group and bisects every place where two of them part; ``build`` assigns a member to
a class only where the explained members around it agree, and counts a stretch between two that part, whose
boundary was not found within the group's calls, unclassified in the ledger ("mixed groups: boundary not found"),
so that a difference is never counted silently inside another's class.

The causes here are planted per member (a stand-in for the classifier), on groups of 300 members: an island of
cause B (members 120..140) in a group of A, and a group where every other member is B."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from harness.differential.explain import Found, Share
from harness.differential.verdict import Verdict
from harness.fuzzing import classes
from harness.model.ledger import Ledger

OP = "normalize_fact_text"
FIRST = 0x4E00  # CJK ideographs: one General_Category, one width, no Unicode data differing in memgate's steps
TOTAL = 300


def _share(cause: str) -> tuple[Share, ...]:
    return (Share(("split",), Found(cause, f"planted {cause}", None)),)


def _island(n: int) -> str:
    return "length_rule" if 120 <= n <= 140 else "rule_difference"


def _alternating(n: int) -> str:
    return "length_rule" if n % 2 else "rule_difference"


def _explained(planted: Callable[[int], str]) -> tuple[dict[int, Any], list[int]]:
    calls: list[int] = []

    def cause_of(member: tuple[str, int]) -> tuple[Share, ...]:
        calls.append(member[1])
        return _share(planted(member[1]))

    return classes.classified([("alone", 0, TOTAL - 1)], TOTAL, cause_of), calls


@pytest.mark.parametrize("planted", [_island, _alternating], ids=["island", "alternating"])
def test_no_member_is_assigned_the_cause_of_another(planted: Callable[[int], str]) -> None:
    """Every member is assigned its own cause or none (unclassified), never another's, within the calls allowed.
    Planted: the old sample (the first member and two more, members taking the cause at or before them): the
    island's 21 members and the alternating group's B members were counted in A's class."""
    causes, calls = _explained(planted)
    assert len(calls) == len(set(calls)) <= classes.CALL_LIMIT, calls
    wrong = []
    for n in range(TOTAL):
        source = classes.assigned(causes, n)
        if source is not None and causes[source][0].found.cause != planted(n):
            wrong.append(n)
    assert not wrong, wrong


def test_an_island_between_samples_is_found_whole() -> None:
    """The island is sampled and both its boundaries are bisected: every member is assigned, each its own cause."""
    causes, calls = _explained(_island)
    assert all(classes.assigned(causes, n) is not None for n in range(TOTAL))
    assert {n for n in range(TOTAL) if causes[classes.assigned(causes, n)][0].found.cause == "length_rule"} \
        == set(range(120, 141))  # type: ignore[index]


def _build(planted: Callable[[int], str], monkeypatch: pytest.MonkeyPatch) -> tuple[list[classes.SweepClass],
                                                                                     Ledger]:
    """``build`` on one group of TOTAL members, the gate and the classifier planted (every member reproduces;
    its causes are ``planted``'s)."""
    monkeypatch.setattr(classes, "gate_shape", lambda opened, op, args, *rest: Verdict(True, {}))
    monkeypatch.setattr(classes, "name_shares",
                        lambda opened, op, args, *rest, **named: list(_share(planted(ord(args["text"]) - FIRST))))
    monkeypatch.setattr(classes, "masked", lambda *args: frozenset())
    ledger = Ledger("sweep", disagreeing=TOTAL)
    group = {(OP, ("split",), (("reference", "ok"), ("split", "ok")), "none", ("longer", "L", "-", "3")):
             [("alone", FIRST, FIRST + TOTAL - 1)]}
    return classes.build(group, {}, {}, ledger=ledger), ledger


def test_a_mixed_group_whose_boundaries_are_not_found_is_not_green(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every other member B: the B members are never in A's class; what is not assigned is counted unclassified in
    the ledger with its reason, so the run is not green. Planted: a stretch between two explained members that part
    assigned to the one before it (the old rule): the ledger was green with the B members in A's class."""
    found, ledger = _build(_alternating, monkeypatch)
    for sweep_class in found:
        members = [index - FIRST for _, first, last in sweep_class.runs for index in range(first, last + 1)]
        assert {_alternating(n) for n in members} == {sweep_class.cause}, (sweep_class.cause, members[:20])
    assert ledger.classified + ledger.mixed == TOTAL and ledger.mixed > 0 and not ledger.ok
    assert any("mixed groups: boundary not found" in line for line in ledger.problems()), ledger.problems()


def test_an_island_in_a_group_is_a_class_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    found, ledger = _build(_island, monkeypatch)
    by_cause = {c.cause: {i - FIRST for _, a, b in c.runs for i in range(a, b + 1)} for c in found}
    assert by_cause == {"length_rule": set(range(120, 141)),
                        "rule_difference": set(range(TOTAL)) - set(range(120, 141))}, by_cause
    assert ledger.classified == TOTAL and ledger.ok is False  # nothing compared in this ledger: only that line
    assert ledger.problems() == ["nothing was compared"], ledger.problems()


def test_the_split_testee_holds_back_a_call_sent_alone_not_a_batch() -> None:
    """What makes suites/fuzzing/test_sweep_stop.py's classifying phase long on any runner: SPLIT_ALONE_DELAY holds
    back a line of one call, never a sweep's batch. Planted: the delay skipped: the call alone came back at once."""
    import json
    import subprocess
    import sys
    import time

    from suites.fuzzing import split_testee

    lines = [{"id": 1, "op": "start", "args": {"protocol": 2}},
             {"id": 2, "batch": [{"id": 3, "op": "normalize_fact_text", "args": {"text": chr(c)}} for c in (65, 66)]},
             {"id": 4, "op": "normalize_fact_text", "args": {"text": "A"}}]
    took = []
    proc = subprocess.Popen([sys.executable, split_testee.__file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env={**__import__("os").environ, "SPLIT_BUG": "thirds",
                                            "SPLIT_ALONE_DELAY": "0.6"})
    try:
        assert proc.stdin is not None and proc.stdout is not None
        for line in lines:
            sent = time.monotonic()
            proc.stdin.write(json.dumps(line) + "\n")
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())
            took.append(time.monotonic() - sent)
            assert answer["id"] == line["id"] and "error" not in answer, answer
    finally:
        proc.kill()
        proc.wait()
    assert took[1] < 0.5 <= 0.6 <= took[2], took
