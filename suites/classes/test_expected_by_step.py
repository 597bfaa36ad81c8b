"""Expected entries are looked up by (implementation, op, cause, detail, step) (issue 51, item 1): with several
entries of one cause at several steps, as ``expected update`` writes them, each covers the class at its own step
and no other, whatever the order of the list; ``expected check`` (each entry's witness run again) and ``diff`` (the
witness's class covered by the list) say the same of every entry."""

from __future__ import annotations

import json
import subprocess
import sys
from itertools import permutations
from pathlib import Path

import pytest

from harness.classes.expected import Entry, ExpectedSet, cover
from harness.classes.record import EXPECTED, NEW, ClassRecord, Witness
from suites.cli import outside_family

ROOT = Path(__file__).resolve().parents[2]
OP = "build_dedup_context"
STEPS = ("ctx.order", "ctx.join", "ctx.line")  # three steps of role rule: rule_difference at each


def _entry(step: str | None, characters: frozenset[int] | None = frozenset(), cause: str = "rule_difference",
           name: str | None = None) -> Entry:
    return Entry("twin", name or f"at-{step}", OP, cause, {"topical_json": "[]"}, "a note", None, step, characters)


def _record(step: str | None, characters: frozenset[int] = frozenset(), cause: str = "rule_difference") -> ClassRecord:
    return ClassRecord(OP, ("twin",), cause, None, step, Witness({}, {}, "planted"), characters)


@pytest.mark.parametrize("order", list(permutations(range(len(STEPS)))))
def test_each_entry_of_one_cause_covers_the_class_at_its_own_step_in_every_order(order: tuple[int, ...]) -> None:
    entries = [_entry(STEPS[i]) for i in order]
    lists = ExpectedSet(entries, [])
    for step in STEPS:
        coverage = cover(lists, _record(step))
        assert coverage.status == EXPECTED and coverage.entries == (f"twin/at-{step}",), (order, step, coverage)
    assert cover(lists, _record("ctx.output")).status == NEW  # a fourth step: no entry's
    assert cover(lists, _record(None)).status == NEW  # no step (a black box's): none of theirs


@pytest.mark.parametrize("order", list(permutations(range(3))))
def test_entries_at_one_step_each_cover_the_characters_they_list(order: tuple[int, ...]) -> None:
    """Two entries of one cause at one step, each about its own characters (the twin's \\s lacking U+0085, and
    holding U+FEFF), and one at another step: each class is covered by the entry that lists its characters."""
    made = [_entry("ctx.trim", frozenset({0x85}), "whitespace_definition", "lacks-0085"),
            _entry("ctx.trim", frozenset({0xFEFF}), "whitespace_definition", "holds-feff"),
            _entry("ctx.split", frozenset({0x85}), "whitespace_definition", "split-0085")]
    lists = ExpectedSet([made[i] for i in order], [])
    for step, points, name in (("ctx.trim", {0x85}, "lacks-0085"), ("ctx.trim", {0xFEFF}, "holds-feff"),
                               ("ctx.split", {0x85}, "split-0085")):
        coverage = cover(lists, _record(step, frozenset(points), "whitespace_definition"))
        assert coverage.status == EXPECTED and coverage.entries == (f"twin/{name}",), (order, step, coverage)
    assert cover(lists, _record("ctx.split", frozenset({0xFEFF}), "whitespace_definition")).status == NEW
    assert cover(lists, _record("ctx.trim", frozenset({0x2028}), "whitespace_definition")).status == NEW


def test_an_entry_without_a_step_keeps_its_meaning() -> None:
    """A v2 entry whose step is null is a black box's: it covers a divergence named by counterfactuals (no step),
    never one the traces place at a step; a v1 entry (no step, no characters: to migrate) covers any step."""
    black_box = ExpectedSet([_entry(None)], [])
    assert cover(black_box, _record(None)).status == EXPECTED
    assert cover(black_box, _record("ctx.join")).status == NEW
    v1 = ExpectedSet([_entry(None, None)], [])
    assert all(cover(v1, _record(step)).status == EXPECTED for step in (*STEPS, None))


SCRIPT = r"""
import contextlib, io, json, sys
from itertools import permutations
from pathlib import Path
from harness.cli.main import main

impls, folder = sys.argv[1], Path(sys.argv[2])

def run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    return status, out.getvalue()

for witness in "xyz":  # three classes of one cause at three steps, each added by `expected update`
    status, text = run("diff", "--impls", impls, "--json", "h1_chain", witness)
    (folder / f"diff-{witness}.json").write_text(text, encoding="utf-8")
    run("expected", "update", "--impls", impls, "--report", str(folder / f"diff-{witness}.json"))
listed = folder / "fam" / "implementations" / "expected" / "h1-twin.json"
document = json.loads(listed.read_text(encoding="utf-8"))
written = document["entries"]
views = []
for order in permutations(range(len(written))):
    listed.write_text(json.dumps({**document, "entries": [written[i] for i in order]}), encoding="utf-8")
    check, said = run("expected", "check", "--impls", impls)
    diffs = {}
    for witness in "xyz":
        status, text = run("diff", "--impls", impls, "--json", "h1_chain", witness)
        classes = json.loads(text)["divergences"]
        diffs[witness] = [status, [[c["status"], c["step"], c.get("expectedEntries", [])] for c in classes]]
    views.append({"order": list(order), "check": check, "said": said, "diff": diffs})
print(json.dumps({"entries": written, "views": views}))
"""


def test_expected_check_and_diff_agree_on_every_entry_in_every_order(tmp_path: Path) -> None:
    """An outside family's twin with three real differences of one cause (rule_difference) at three steps:
    ``expected update`` lists each, and in every order of the list ``expected check`` finds each still happening
    (status 0) while ``diff`` on each entry's own witness finds its class expected, by that entry alone."""
    folder = outside_family.write(tmp_path / "fam")
    done = subprocess.run([sys.executable, "-c", SCRIPT, outside_family.IMPLS, str(tmp_path)], cwd=tmp_path,
                          env=outside_family.environment(folder), capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    by_witness = {entry["args"]["text"]: entry for entry in found["entries"]}
    assert sorted((entry["cause"], entry["step"]) for entry in found["entries"]) == \
        [("rule_difference", f"chain.{letter}") for letter in "abc"]
    assert len(found["views"]) == 6
    for view in found["views"]:
        assert view["check"] == 0, view
        for witness, (status, classes) in view["diff"].items():
            step = f"chain.{'abc'['xyz'.index(witness)]}"
            assert status == 0 and classes == [[EXPECTED, step, [f"h1-twin/{by_witness[witness]['id']}"]]], \
                (view["order"], witness, classes)
