"""The report diff and the page read classes as records (harness/classes/rundiff.py, ``records``, ``kinship``,
``pair``; harness/cli/reports/divergences.py, ``pick``): a class that grew, shrank or moved between two runs is
one row, "changed", saying how, never "new" plus "not seen"; a class of another op, cause or implementation is
new; the page shows the sighting whose witness is smaller by ``Witness.size``, the order the merge keeps."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.classes import rundiff
from harness.classes.record import ClassRecord, Coverage, Witness
from harness.cli.html import Source
from harness.cli.reports import divergences
from harness.model import hostvalues

IMPLS = {"reference": {}, "pyo3": {}, "wasm": {}}


def _record(divergent: tuple[str, ...] = ("pyo3",), step: str | None = "norm.edges", detail: str | None = None,
            cause: str = "whitespace_definition", text: str = "a\x1c", characters: str = "\x1c",
            expected: bool = False) -> ClassRecord:
    outputs = {"reference": {"ok": text.strip("\x1c")}, **{name: {"ok": text} for name in divergent}}
    witness = Witness(hostvalues.encode_args({"text": text}), outputs, "U+001C is whitespace to one side")
    coverage = Coverage("expected", tuple(f"{name}/x" for name in divergent)) if expected else Coverage()
    return ClassRecord("normalize_fact_text", divergent, cause, detail, step, witness,
                       frozenset(ord(ch) for ch in characters), coverage=coverage)


def _report(*records: ClassRecord, profile: str = "fuzz") -> dict[str, Any]:
    return {"schema": "divergence-report-v2", "profile": profile, "implementations": IMPLS,
            "divergences": [record.to_json() for record in records]}


def _rows(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, tuple[str, ...], bool]]:
    return [(change.change, change.how, change.blocking) for change in rundiff.diff_divergences(old, new).changes]


def test_a_class_that_grew_is_changed_naming_the_implementation_it_gained() -> None:
    """divergent ["pyo3"] -> ["pyo3", "wasm"]: one row, never "new" plus "not seen" (the old reader's rows)."""
    old, new = _report(_record(("pyo3",))), _report(_record(("pyo3", "wasm")))
    found = rundiff.diff_divergences(old, new)
    assert _rows(old, new) == [("changed", ("implementations +wasm",), True)], found
    [row] = found.changes
    assert row.impls == ("pyo3", "wasm") and row.before == "new" and row.after == "new; implementations +wasm"
    assert row.to_json()["how"] == ["implementations +wasm"]
    # An implementation joined a class no entry covers: something new (as the new row it was before said).
    assert found.new == [row]
    # Shrank: one row too; nothing joined, nothing newly uncovered, so nothing blocks.
    assert _rows(new, old) == [("changed", ("implementations -wasm",), False)]
    # Grew and is covered now: changed, not blocking; was covered and grew uncovered: blocking.
    assert _rows(old, _report(_record(("pyo3", "wasm"), expected=True)))[0][::2] == ("changed", False)
    assert _rows(_report(_record(("pyo3",), expected=True)), new)[0][::2] == ("changed", True)


def test_a_class_that_moved_to_another_step_is_changed_naming_both_steps() -> None:
    old, new = _report(_record(step="norm.edges")), _report(_record(step="norm.collapse"))
    assert _rows(old, new) == [("changed", ("step norm.edges -> norm.collapse",), False)]
    [row] = rundiff.diff_divergences(old, new).changes
    assert row.subject.endswith(" at norm.collapse") and row.after == "new; step norm.edges -> norm.collapse"
    was_expected = _report(_record(step="norm.edges", expected=True))
    assert _rows(was_expected, new) == [("changed", ("step norm.edges -> norm.collapse",), True)]
    # Grew and moved at once, its characters changed too: still one row, every part named.
    both = _report(_record(("pyo3", "wasm"), step="norm.collapse", characters="\x1c\x1d"))
    assert _rows(old, both) == [("changed", ("implementations +wasm", "step norm.edges -> norm.collapse",
                                             "+1 U+001D"), True)]


def test_another_op_cause_or_implementation_is_a_new_class() -> None:
    old = _report(_record(("pyo3",)))
    for other in (_record(("wasm",)),  # disjoint implementations: another implementation's bug
                  _record(cause="rule_difference"),  # another cause
                  _record(detail="other", characters="\x85"),  # another detail about other characters
                  replace(_record(), op="decide_write")):  # another op
        assert sorted(change for change, _, _ in _rows(old, _report(other))) == ["new", "not seen"], other.key
    assert sorted(change for change, _, _ in _rows(old, _report(_record(cause="rule_difference"),
                                                                   profile="sweep"))) == ["fixed", "new"]
    # Another detail about the same characters is the same class, named otherwise; uncovered, it blocks as the
    # new class it was before kinship did (a diff's status never weakens by pairing); covered now, it does not.
    assert _rows(_report(_record(detail="a")), _report(_record(detail="b"))) == \
        [("changed", ("detail a -> b",), True)]
    assert _rows(_report(_record(detail="a")), _report(_record(detail="b", expected=True))) == \
        [("changed", ("detail a -> b",), False)]
    # A class of the same identity in both runs is unchanged; one in NEW only, with no kin in OLD, is new.
    assert rundiff.diff_divergences(old, old).changes == [] and rundiff.diff_divergences(old, old).unchanged == 1
    assert _rows(_report(), old) == [("new", (), True)]


def test_a_class_is_paired_with_its_nearest_kin_once() -> None:
    """Two classes of NEW could each be the one of OLD: the nearer (fewer parts changed) is paired, the other
    is new; two runs that both keep a class keep it unchanged, whatever else grew beside it."""
    old = _report(_record(("pyo3",)))
    new = _report(_record(("pyo3", "wasm"), step="norm.collapse"), _record(("pyo3", "wasm")))
    found = rundiff.diff_divergences(old, new)
    assert sorted((c.change, c.how) for c in found.changes) == [("changed", ("implementations +wasm",)),
                                                                ("new", ())]
    kept = _report(_record(("pyo3",)), _record(("pyo3", "wasm")))
    found = rundiff.diff_divergences(old, kept)
    assert [(c.change, c.impls) for c in found.changes] == [("new", ("pyo3", "wasm"))] and found.unchanged == 1
    assert rundiff.diff_divergences(new, new).changes == []


def _sized(text: str) -> ClassRecord:
    return _record(text=text)


def test_the_page_shows_the_smaller_witness_by_witness_size_not_json_length(tmp_path: Path) -> None:
    """Two sightings of one class: "\\u2000\\u2001" (two characters, 26 characters of JSON) against "abcdefgh"
    (eight, 20 of JSON): the page and the merge both keep the first, which Witness.size calls smaller."""
    escaped, plain = _sized("\u2000\u2001"), _sized("abcdefgh")
    assert escaped.witness.size < plain.witness.size
    assert len(json.dumps(escaped.witness.args)) > len(json.dumps(plain.witness.args))  # the two orders disagree
    assert divergences.pick(plain, escaped) is escaped and divergences.pick(escaped, plain) is escaped
    assert plain.merge(escaped).witness == escaped.witness  # the one order the merge keeps
    sources = [Source(tmp_path / name, _report(record)) for name, record in (("a.json", plain), ("b.json", escaped))]
    [seen] = divergences.seen_classes(sources)
    assert seen.record.witness == escaped.witness and len(seen.reports) == 2
    # Uncovered before covered still comes first, whatever the size.
    covered = replace(escaped, coverage=Coverage("expected", ("pyo3/x",)))
    assert divergences.pick(covered, plain) is plain


def test_the_page_reads_each_class_oracle_through_its_record(tmp_path: Path) -> None:
    from harness.cli import page

    record = _record()
    named = replace(record, witness=replace(record.witness, oracle="wasm"))
    assert "<b>wasm</b>" in page.oracles_html([Source(tmp_path / "a.json", _report(named))], "reference")
    assert "<b>reference</b>" in page.oracles_html([Source(tmp_path / "a.json", _report(record))], "reference")


def _summary(*records: ClassRecord) -> dict[str, Any]:
    from harness.classes import history

    return {"ended": "2026-01-01T00:00:00Z", "commit": "0123456789ab", "verdict": "something new",
            "implementations": {}, "classes": [history.Summarised.of(record).to_json() for record in records]}


def test_the_page_history_says_a_class_that_grew_is_changed_not_arrived_and_gone(tmp_path: Path) -> None:
    """The history section and a card's "since" pair the last run's classes with this run's as report diff
    does: the class that grew is listed as changed, with how, never as arrived plus gone."""
    import re

    from harness.classes import history
    from harness.cli import page

    grown, other = _record(("pyo3", "wasm")), _record(("wasm",), cause="rule_difference")
    past = history.Past([(tmp_path / "last.json", _summary(_record(("pyo3",))))])
    shown = page.history_section(_summary(grown, other), past)

    def listed(name: str) -> str:
        found = re.search(rf"<ul id='{name}'>(.*?)</ul>", shown, re.S)
        assert found is not None, shown
        return found.group(1)

    assert re.findall(r"href='#([^']+)'", listed("arrived")) == [other.key.anchor]  # truly new: arrived
    assert listed("gone") == ""
    assert grown.key.anchor in listed("changed") and "implementations +wasm" in listed("changed")
    cards = divergences.classes_section([Source(tmp_path / "now.json", _report(grown, other))], "reference", {},
                                        past)
    card = re.search(rf'<article id="{grown.key.anchor}".*?</h3>', cards, re.S)
    assert card is not None and "changed since the last run: implementations +wasm" in card.group(0)
    card = re.search(rf'<article id="{other.key.anchor}".*?</h3>', cards, re.S)
    assert card is not None and "not in the last run" in card.group(0)
    # What a summary holds of a class reads back as it was written.
    assert history.classes_of(_summary(grown)) == [history.Summarised.of(grown)]
