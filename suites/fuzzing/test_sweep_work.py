"""The sweep's work per disagreeing input, counted (issue 51, item 6: a sweep whose inputs mostly disagree stays near
its agreeing speed). A count, not a clock: a busy machine does not move it.

* A worker finds a disagreeing input's group from its text answers (which implementations differ, each one's text
  longer, shorter or as long as the oracle's) and its character's properties (``chunk_split``): ``group_key``, and
  the ``outcome_shape`` calls in it, run once per group of a chunk, not once per input; the groups are the ones
  ``group_key`` gives each input alone.
* ``classes.build`` explains at most ``CALL_LIMIT`` members of a group, and assigns the rest run by run: a run with
  no explained member inside it takes its stretch's causes without an ``assigned`` call.

The differences come from suites/fuzzing/split_testee.py, run in this process beside the reference."""

from __future__ import annotations

import json
from typing import Any

import pytest

import reference
from harness.differential.explain import unicode_versions_of
from harness.fuzzing import classes, sweep
from harness.fuzzing.templates import BY_NAME
from harness.model.ledger import Ledger
from suites.fuzzing import split_testee
from suites.fuzzing.test_sweep_split import SPANS, _opened


def _parity(text: Any) -> Any:
    """The reference's text with "!" appended where the text holds an odd code point, its last character dropped
    where it holds an even one not a multiple of 3: neighbours of the same properties differ longer and shorter."""
    result = reference.normalize_fact_text(text)
    if isinstance(text, str) and text and ord(text[0]) % 2:
        return result + "!"
    return result[:-1] if isinstance(text, str) and text and ord(text[0]) % 3 else result


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """``owner.name`` replaced by itself counting its calls (in the returned list's one item)."""
    calls = [0]
    real = getattr(owner, name)

    def counted(*args: Any, **named: Any) -> Any:
        calls[0] += 1
        return real(*args, **named)

    monkeypatch.setattr(owner, name, counted)
    return calls


@pytest.mark.parametrize("bug", ["thirds", "three", "parity"])
def test_a_chunks_groups_are_keyed_once_each_not_once_an_input(bug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two thirds of a chunk disagree (thirds), three differences overlap in the spans of test_sweep_split
    (three), or neighbours alike but for their parity differ longer and shorter (parity): ``group_key`` is called
    once per group of the chunk and ``outcome_shape`` once per group and disagreeing implementation, whatever the
    number of disagreeing inputs; and every input is in the group ``group_key`` gives it alone. Planted: the memo
    skipped (a key made per input): 2,730 calls for 21 groups, failed; the memo keyed without the lengths' signs
    (parity: a longer input in a shorter one's group), failed."""
    opened = _opened({"thirds": split_testee._thirds, "three": split_testee._three, "parity": _parity}[bug])
    spans = SPANS if bug == "three" else [(0, sweep.CHUNK), (0x10000, 0x10000 + sweep.CHUNK)]
    keyed = _counting(monkeypatch, classes, "group_key")
    shaped = _counting(monkeypatch, classes, "outcome_shape")
    results = []
    for first, stop in spans:
        keyed[0] = shaped[0] = 0
        result = sweep.run_chunk(sweep.Chunk("alone", first, stop), opened, None)
        assert sweep.disagreeing(result) >= (1 if bug == "three" else 2_000)
        assert keyed[0] == len(result["groups"]), (keyed[0], len(result["groups"]), sweep.disagreeing(result))
        assert shaped[0] == sum(len(names) for names, *_ in result["groups"])
        results.append(result)
    monkeypatch.undo()  # group_key itself, for each input alone
    versions = classes.versions_in_play(opened)
    for result in results:
        for names, kinds, hint, split, runs in result["groups"]:
            key = (tuple(names), tuple(tuple(kind) for kind in kinds), hint, tuple(split))
            for low, high in zip(runs[0::2], runs[1::2], strict=True):
                for index in range(low, high + 1):
                    args = BY_NAME["alone"].args(index)
                    responses = {name: impl.call("normalize_fact_text", args) for name, impl in opened.items()}
                    assert classes.group_key("alone", index, responses, versions) == key, (hex(index), key)


def test_build_assigns_runs_without_a_call_per_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two thirds of 16,384 code points disagree, in runs of two: ``build`` explains at most CALL_LIMIT members a
    group (the classifier's calls, each member's gate and shares) and calls ``assigned`` only for a piece that holds
    an explained member or a code point whose Unicode data differs between the versions read (none here), never
    once per run (over 5,000 runs). Planted: every piece's source looked up by ``assigned`` (the old loop): 6,073
    calls for 377 members explained, failed; every member of a group explained: 10,922 calls for 23 groups, failed.
    And the classifier's probes are asked once each (``_Remembered``). Planted: the probes sent to the testees
    themselves: 1,088 calls made again (377 members explained), failed."""
    opened = _opened(split_testee._thirds)
    run = sweep.SweepRun(sweep.Settings(tuple(opened), ("alone",), 0, 0x10FFFF, (1, 1)))
    for start in range(0, 4 * sweep.CHUNK, sweep.CHUNK):
        run.results.append(sweep.run_chunk(sweep.Chunk("alone", start, start + sweep.CHUNK), opened, None))
    groups = sweep.groups(run)
    assert sum(len(runs) for runs in groups.values()) > 5_000
    explained = _counting(monkeypatch, classes, "gate_shape")  # once per member explained, before its shares
    looked_up = _counting(monkeypatch, classes, "assigned")
    asked: list[str] = []  # what the split testee was asked one call at a time (the gate's and the probes')
    real_call = opened["split"].call

    def call(op: str, args: dict[str, Any]) -> Any:
        asked.append(json.dumps([op, args], sort_keys=True))
        return real_call(op, args)

    monkeypatch.setattr(opened["split"], "call", call)
    ledger: Ledger = run.ledger()
    found = classes.build(groups, opened, unicode_versions_of(opened), ledger=ledger)
    assert found and ledger.classified + ledger.not_reproduced + ledger.mixed == ledger.disagreeing > 10_000
    assert 0 < explained[0] <= classes.CALL_LIMIT * len(groups), (explained[0], len(groups))
    # an explained member inside a run: the pieces before it, of it and after it
    assert looked_up[0] <= 3 * explained[0], (looked_up[0], explained[0])
    # the probes' answers kept for the build (the same stand-ins and plain inputs, member after member): a call made
    # again is a gate's, asking whether a member comes again alone
    assert len(asked) - len(set(asked)) <= explained[0], (len(asked), len(set(asked)), explained[0])


def test_the_classifiers_tables_are_built_ahead() -> None:
    """``classes.prepare`` (run by the sweep in a thread while its chunks run) builds the classifier's tables of
    every code point, so that the first member explained does not. Planted: prepare doing nothing, failed."""
    from harness.differential.counterfactual import length, rewrite

    tables = (rewrite.composing_parts, length._pools, length._joining)
    for table in tables:
        table.cache_clear()
    classes.prepare()
    assert [table.cache_info().currsize for table in tables] == [1, 1, 1]
