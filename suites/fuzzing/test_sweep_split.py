"""The sweep's classes split by what differs (issue 51, item 5, the sweep's half) and explained on a sample
(item 6): a worker groups disagreeing inputs by the outcome's shape and the swept character's properties
(General_Category major class, age against the versions in play, UTF-8 width: harness/fuzzing/classes.py
``group_key``), and ``build`` explains a few members of each group, bisecting where they part, so that the
classifier's calls per group are bounded whatever the group's size.

The differences come from suites/fuzzing/split_testee.py, run in this process (its functions as an in-process
implementation beside the reference)."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest

import reference
from harness.differential.explain import unicode_versions_of
from harness.fuzzing import classes, sweep
from harness.model import unicode_tables
from harness.model.ledger import Ledger
from harness.testees.inprocess import InProcess
from suites.fuzzing import split_testee

# Mn in a row (U+0300..), letters cased since 14.0 (U+1C89, U+A7CB..), Deseret letters (4 bytes: cut by the byte
# cap) and Brahmi, where 4-byte letters, marks, punctuation and digits interleave.
SPANS = [(0x300, 0x370), (0x1C80, 0x1C90), (0xA7C0, 0xA7D0), (0x10400, 0x10450), (0x11000, 0x11080)]


def _opened(bug: Any) -> dict[str, InProcess]:
    unicode = json.loads(reference.unicode_versions())
    mine = {**unicode, "case_mapping": split_testee.NEWER} if bug is split_testee._three else unicode

    def resolve(op: Any) -> Any:
        if op.name == "normalize_fact_text":
            return bug
        if op.name == "unicode_versions":
            return lambda: json.dumps(mine)
        return getattr(reference, op.name)

    return {"reference": InProcess("reference", lambda op: op.reference, description={"unicode": unicode}),
            "split": InProcess("split", resolve, description={"unicode": mine})}


def _run(opened: dict[str, InProcess], spans: list[tuple[int, int]]) -> sweep.SweepRun:
    run = sweep.SweepRun(sweep.Settings(tuple(opened), ("alone",), 0, 0x10FFFF, (1, 1)))
    for first, stop in spans:
        run.results.append(sweep.run_chunk(sweep.Chunk("alone", first, stop), opened, None))
    return run


def _differences(cp: int) -> set[str]:
    """Which of split_testee's three planted differences change the code point's result alone: (a) the byte cap,
    (b) marks dropped, (c) the newer case mapping (a 4-byte mark is gone by (a) and (b) alike)."""
    result = reference.normalize_fact_text(chr(cp))
    newer, older = unicode_tables.table(split_testee.NEWER), unicode_tables.table("14.0.0")
    out = set()
    if any(ord(ch) in newer.lower and ord(ch) not in older.lower for ch in result):
        out.add("c")
    if any(unicodedata.category(ch) == "Mn" for ch in result):
        out.add("b")
    if len(result.encode("utf-8", "surrogatepass")) > 3:
        out.add("a")
    return out


def test_three_differences_in_one_sweep_are_classes_of_their_own() -> None:
    """A length cap counting bytes, marks dropped and letters cased in a newer Unicode version, overlapping in one
    op's sweep: no class holds inputs of two of them, each has a class, and the version skew is named one. Planted:
    the worker's split left out (every group one of (implementations, kinds, hint)): a class then held inputs of two
    differences."""
    opened = _opened(split_testee._three)
    run = _run(opened, SPANS)
    versions = unicode_versions_of(opened)
    ledger = run.ledger()
    found = classes.build(sweep.groups(run), opened, versions, ledger=ledger)
    assert ledger.disagreeing == ledger.classified + ledger.not_reproduced and ledger.classified > 0
    of_class = {}
    for sweep_class in found:
        labels = [_differences(index) for _, first, last in sweep_class.runs for index in range(first, last + 1)]
        assert all(labels), (sweep_class.cause, [s for s in labels if not s])  # every member is a planted one's
        common = set.intersection(*labels)
        assert common, f"class {sweep_class.cause}/{sweep_class.detail} holds inputs of differences {labels}"
        of_class[(sweep_class.cause, sweep_class.detail, sweep_class.step)] = common
    assert len(found) >= 3
    for difference in "abc":
        assert any(common == {difference} for common in of_class.values()), (difference, of_class)
    skews = [key[:2] for key, common in of_class.items() if common == {"c"}]
    assert skews == [("unicode_version_skew", "case_mapping")], of_class


def test_classifier_calls_per_group_are_bounded_whatever_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two thirds of 16,384 code points disagree (split_testee's thirds): every disagreeing input is assigned to a
    class (the ledger's classified) or counted in a mixed group whose boundaries were not found (the classifier
    names the appended "!" differently on capitals and small letters, which alternate in Latin Extended-A), while
    the classifier explains at most CALL_LIMIT members of each group. Planted: every member of a mixed group
    explained (the old CLASSIFY_ALL_LIMIT): thousands of calls."""
    opened = _opened(split_testee._thirds)
    run = _run(opened, [(start, start + sweep.CHUNK) for start in range(0, 4 * sweep.CHUNK, sweep.CHUNK)])
    groups = sweep.groups(run)
    calls: dict[Any, int] = {}
    explain = classes.name_shares

    def counted(impls: Any, op: str, args: dict[str, Any], *rest: Any, **named: Any) -> Any:
        member = ord(args["text"]) if len(args["text"]) == 1 else None
        group = next(key for key, runs in groups.items()
                     if any(first <= (member or -1) <= last for _, first, last in runs))
        calls[group] = calls.get(group, 0) + 1
        return explain(impls, op, args, *rest, **named)

    monkeypatch.setattr(classes, "name_shares", counted)
    ledger: Ledger = run.ledger()
    assert ledger.disagreeing > 10_000
    found = classes.build(groups, opened, unicode_versions_of(opened), ledger=ledger)
    assert found and ledger.classified + ledger.not_reproduced + ledger.mixed == ledger.disagreeing
    assert ledger.classified > 9_000 and ledger.not_classified == ledger.mixed
    assert sum(c.inputs for c in found) >= ledger.classified
    assert calls and max(calls.values()) <= classes.CALL_LIMIT, calls
    assert sum(calls.values()) < ledger.disagreeing / 10


def test_a_group_whose_samples_part_is_split_where_they_part() -> None:
    """``classified`` bisects between two explained members that part: with causes changing once, at member
    1,000 of 10,000, it finds the boundary within its limit and the members take the cause before them."""
    runs = [("alone", 0, 9_999)]
    seen = []

    def cause_of(member: tuple[str, int]) -> Any:
        seen.append(member[1])
        return (_share("length_rule" if member[1] < 1000 else "rule_difference"),)

    causes = classes.classified(runs, 10_000, cause_of, samples=4, limit=21)
    assert len(seen) <= 5 + 16
    known = sorted(causes)
    before = max(n for n in known if causes[n][0].found.cause == "length_rule")  # type: ignore[index]
    after = min(n for n in known if causes[n][0].found.cause == "rule_difference")  # type: ignore[index]
    assert (before, after) == (999, 1000), known


def _share(cause: str) -> Any:
    from harness.differential.explain import Found, Share

    return Share(("split",), Found(cause, "planted", None))


@pytest.mark.parametrize("versions", [(), ("14.0.0", "16.0.0")])
@pytest.mark.parametrize("start", [0, 0x780, 0x1C80, 0xD7F0, 0x10000, 0x31300])
def test_a_chunks_properties_at_once_are_each_inputs(start: int, versions: tuple[str, ...]) -> None:
    """``chunk_split`` (a worker's chunk at once) gives each input the hint and character properties
    ``hint`` and ``character_split`` give it alone: ASCII, the 2-to-3-byte edge, new letters, the surrogates'
    edge, 4-byte ones.
    Planted: the width of U+0800 counted as 2 bytes in chunk_split; the age counted over the first version only."""
    stop = start + 0x100
    assert classes.chunk_split("alone", start, stop, versions) == [
        (classes.hint("alone", index, versions), *classes.character_split(index, versions))
        for index in range(start, stop)]
    pairs = classes.chunk_split("surrogate-pair", 0, 4, versions)
    assert pairs == [(classes.hint("surrogate-pair", 0, versions), *classes.character_split(0, versions, True))] * 4


def test_the_sweeps_own_report_is_validated_on_its_long_arrays_ends() -> None:
    """A class of inputs that alternate with agreeing ones has a range per two code points: the sweep's schema check
    of its own report (``for_validation``) takes each long array's first and last items, and still finds a broken
    item there or a broken field. Two thirds of 16,384 code points disagree here, as in a report of 5,000 ranges."""
    from harness.classes.expected import load
    from harness.classes.report import validate
    from harness.fuzzing import sweep_report

    opened = _opened(split_testee._thirds)
    run = _run(opened, [(start, start + sweep.CHUNK) for start in range(0, 4 * sweep.CHUNK, sweep.CHUNK)])
    run.planned = run.values
    report = sweep_report.build_report(run, opened, load(list(opened)), unicode_versions_of(opened))
    problems = report["run"]["ledger"]["problems"]  # the mixed groups' members unclassified, nothing else
    assert problems and all("mixed groups: boundary not found" in line for line in problems) and report["divergences"]
    longest = max(report["divergences"], key=lambda d: len(d["ranges"]))
    assert len(longest["ranges"]) > 4 * sweep_report.VALIDATED
    checked = sweep_report.for_validation(report)
    assert validate(checked) == [] == validate(report)
    assert all(len(d["ranges"]) <= sweep_report.VALIDATED for d in checked["divergences"])
    for where in (0, -1):
        broken = json.loads(json.dumps(report))
        max(broken["divergences"], key=lambda d: len(d["ranges"]))["ranges"][where] = ["U+0041", 65]
        assert validate(sweep_report.for_validation(broken)), where
    broken = json.loads(json.dumps(report))
    del broken["divergences"][0]["cause"]
    assert validate(sweep_report.for_validation(broken))
