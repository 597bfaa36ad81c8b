"""The class record (harness/classes/record.py): a sighting is a record at once (``of_sighting``) and every field
of its witness reaches the report and reads back from it; its JSON form is the report's, read back into the same
record; two sightings merge into the smaller witness, the stricter coverage and the summed extent; and no module
outside the classes layer reads or writes a report's camelCase names (each scan planted and seen failing)."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.classes import report as divergence_report
from harness.classes.record import EXPECTED, ClassRecord, Coverage, Extent, Swept, Witness
from harness.differential.explain import Found, code_points
from harness.model import paths

ROOT = paths.ROOT
VERSIONS = {"reference": {"unicode": "15.1.0"}, "bugged": {"unicode": "15.1.0"}}


FOUND = Found("whitespace_definition", "U+001C is whitespace to one side", None, "norm.edges", "edges-whitespace",
              ("whitespace_definition", None), ("\x1c",),
              {"reference": {"index": 2, "step": "norm.edges", "value": "a"}})


def _record(text: str, found_after: float | None = None, **coverage: Any) -> ClassRecord:
    args = {"text": text}
    responses = {"reference": {"ok": text.strip()}, "bugged": {"ok": text}}
    return ClassRecord.of_sighting("normalize_fact_text", args, responses, ["bugged"], FOUND,
                                   code_points(args, VERSIONS), extent=Extent(found_after),
                                   coverage=Coverage(**coverage))


def _swept(record: ClassRecord, inputs: int, ranges: tuple[tuple[int, int], ...]) -> ClassRecord:
    from dataclasses import replace

    swept = Swept(inputs, 1, ranges, {"alone": inputs}, {"reference": "ok", "bugged": "ok"})
    return replace(record, extent=Extent(swept=swept), characters=frozenset(
        cp for first, last in ranges for cp in range(first, last + 1)))


def test_a_class_reads_back_from_its_json_as_the_same_record() -> None:
    fuzz = _record("a\x1c", found_after=1.25, own_details={"bugged": None})
    sweep = _swept(_record("b\x1d"), 40, ((0x1C, 0x1F), (0x85, 0x85)))
    for record in (fuzz, sweep):
        data = record.to_json()
        assert json.loads(json.dumps(data)) == data  # plain JSON
        back = ClassRecord.from_json(data)
        assert back.to_json() == data
        assert back.key == record.key and back.witness.code_points == record.witness.code_points
    assert fuzz.to_json()["foundAfterSeconds"] == 1.2 and fuzz.to_json()["ownDetails"] == {"bugged": None}
    data = sweep.to_json()
    assert (data["codePointCount"], data["codePointRangeCount"], data["ranges"]) == (5, 2, [[0x1C, 0x1F], [0x85, 0x85]])
    assert data["codePointRanges"][1] == {"first": "U+0085", "last": "U+0085", "count": 1, "firstName": "<control>"}
    report = divergence_report.document("sweep", VERSIONS, [fuzz, sweep], 2, 1.0, [])
    assert divergence_report.validate(report) == []
    assert [r.to_json() for r in divergence_report.classes(report)] == report["divergences"]


# A witness field the classifier observes costs three files: the classifier (explain.Found), the record
# (Witness, of_sighting, to_json, from_json) and the schema. Two sightings that differ in everything the
# classifier observes; each witness field of one put into the other must show in the report, in keys the schema
# names, and read back as it was.
OTHER = Found("whitespace_definition", "U+0085 is whitespace to one side", None, "norm.edges", "edges-nel",
              ("line_breaks", "nel"), ("\x85",), {"pyo3": {"index": 3, "step": "norm.edges", "value": "b"}})
# A field the classifier finds that neither names yet (a new one): another text on the other sighting.
OTHER = dataclasses.replace(OTHER, **{field.name: f"other {field.name}" for field in dataclasses.fields(Found)
                                      if getattr(OTHER, field.name) == getattr(FOUND, field.name)
                                      and field.name not in ("cause", "detail", "step")})  # its class's, the same


def _sightings() -> tuple[ClassRecord, ClassRecord]:
    one = _record("a\x1c")
    args = {"text": "b\x85"}  # answered without the reference: another oracle
    other = ClassRecord.of_sighting("normalize_fact_text", args, {"pyo3": {"ok": "b"}, "bugged": {"ok": "b\x85"}},
                                    ["bugged"], OTHER, code_points(args, VERSIONS), replay="python -m harness diff x")
    return one, other


def _divergence_properties() -> set[str]:
    schema = json.loads((ROOT / "schemas" / "divergence-report-v2.schema.json").read_text(encoding="utf-8"))
    return set(schema["properties"]["divergences"]["items"]["properties"])


def test_every_witness_field_the_classifier_observes_reaches_the_report_and_reads_back() -> None:
    one, other = _sightings()
    unobserved = [field.name for field in dataclasses.fields(Witness)
                  if getattr(one.witness, field.name) == getattr(other.witness, field.name)]
    assert unobserved == [], f"witness fields of_sighting leaves alike on two different sightings: {unobserved} " \
                             "(a field of explain.Found not carried into the Witness?)"
    properties = _divergence_properties()
    for field in dataclasses.fields(Witness):
        mixed = dataclasses.replace(one, witness=dataclasses.replace(
            one.witness, **{field.name: getattr(other.witness, field.name)}))
        data = mixed.to_json()
        shown = {key for key in data.keys() | one.to_json().keys() if data.get(key) != one.to_json().get(key)}
        assert shown, f"Witness.{field.name}: not in the report (ClassRecord.to_json)"
        assert shown <= properties, f"Witness.{field.name}: {sorted(shown - properties)} not in the report's schema"
        back = ClassRecord.from_json(json.loads(json.dumps(data)))
        assert getattr(back.witness, field.name) == getattr(mixed.witness, field.name), \
            f"Witness.{field.name}: not read back (ClassRecord.from_json)"
    report = divergence_report.document("fuzz", VERSIONS, [one, other], 2, 1.0, [])
    assert divergence_report.validate(report) == []


def test_every_field_the_classifier_finds_reaches_the_record() -> None:
    """A field of ``explain.Found`` that ``of_sighting`` forgets would be lost between classifier and report."""
    one, _ = _sightings()
    for field in dataclasses.fields(Found):
        if field.name == "chars":  # the class's characters, not its witness's
            changed = {"chars": ("\x1d",)}
        else:
            changed = {field.name: getattr(OTHER, field.name) if getattr(OTHER, field.name) != getattr(
                FOUND, field.name) else "elsewhere"}
        found = dataclasses.replace(FOUND, **changed)
        record = ClassRecord.of_sighting(one.op, {"text": "a\x1c"}, {"reference": {"ok": "a"},
                                                                     "bugged": {"ok": "a\x1c"}}, ["bugged"], found)
        base = ClassRecord.of_sighting(one.op, {"text": "a\x1c"}, {"reference": {"ok": "a"},
                                                                   "bugged": {"ok": "a\x1c"}}, ["bugged"], FOUND)
        assert record != base, f"Found.{field.name}: not in the record (ClassRecord.of_sighting)"


def test_a_validation_order_is_one_class_per_op_whatever_step_it_parts_at() -> None:
    """Issue 35: a reference checking the threshold before candidates_json gave two validation_order classes of
    decide_write, one parting at gate.candidates_json and one at the outcome; any other cause keeps its step."""
    from harness.classes.key import ClassKey

    at_check = ClassKey.of("decide_write", ["bugged"], "validation_order", None, "gate.candidates_json")
    at_outcome = ClassKey.of("decide_write", ["bugged"], "validation_order", None, "outcome")
    assert at_check == at_outcome and at_check.step is None
    assert ClassKey.of("decide_write", ["bugged"], "rule_difference", None, "gate.exact") != \
        ClassKey.of("decide_write", ["bugged"], "rule_difference", None, "gate.decision")
    assert ClassKey.of("build_dedup_context", ["bugged"], "validation_order", None, "ctx.cap") != at_check  # per op
    from harness.classes.expected import Entry

    entry = Entry("bugged", "order", "decide_write", "validation_order", {}, "n", None, "gate.candidates_json",
                  frozenset())
    assert entry.explains("outcome", ()) and entry.explains("gate.candidates_json", ())  # its entry covers both
    other = Entry("bugged", "rule", "decide_write", "rule_difference", {}, "n", None, "gate.exact", frozenset())
    assert not other.explains("gate.decision", ())


def test_a_merge_keeps_the_smaller_witness_the_stricter_coverage_and_sums_the_extent() -> None:
    big = _record("long text\x1c", found_after=9.0, own_details={"bugged": "x"})
    small = _record("a\x1c", found_after=3.0, status=EXPECTED, entries=("bugged/e1",))
    joined = big.merge(small)
    assert joined.witness == small.witness and joined.coverage.own_details == small.coverage.own_details
    assert joined.extent.found_after == 3.0
    assert joined.status == "new" and joined.coverage.entries == ()  # new in one sighting: new in the join
    both_expected = small.merge(small)
    assert both_expected.status == "expected" and both_expected.coverage.entries == ("bugged/e1",)
    # A smaller witness that did not reach every implementation the class names is not kept.
    from dataclasses import replace

    short = replace(small, witness=replace(small.witness, outputs={"reference": small.witness.outputs["reference"]}))
    assert big.merge(short).witness == big.witness
    # Sweep classes: counts summed, runs and characters united whichever witness is kept.
    one = _swept(big, 10, ((0x1C, 0x1D),))
    two = _swept(small, 5, ((0x1E, 0x1F), (0x85, 0x85)))
    swept = one.merge(two)
    assert swept.extent.swept is not None
    assert (swept.extent.swept.inputs, swept.extent.swept.ranges) == (15, ((0x1C, 0x1F), (0x85, 0x85)))
    assert swept.extent.swept.templates == {"alone": 15} and swept.characters == one.characters | two.characters
    assert Coverage().stricter(Coverage("expected", ("a/b",))).status == "new"


def test_shard_reports_merge_through_the_records() -> None:
    first = divergence_report.document("fuzz", VERSIONS, [_record("long text\x1c", found_after=5.0)], 10, 1.0, [])
    second = divergence_report.document("fuzz", VERSIONS, [_record("a\x1c", found_after=2.0)], 10, 1.0, [])
    merged = divergence_report.merged_document([first, second], divergence_report.merge_classes([first, second]))
    assert divergence_report.validate(merged) == []
    (only,) = merged["divergences"]
    assert only["args"] == {"text": "a\x1c"} and only["foundAfterSeconds"] == 2.0 and merged["examples"] == 20


# No report key outside the classes layer: the report kinds' camelCase names (every property their schemas
# name), as string constants anywhere in the harness outside harness/classes/.
REPORT_SCHEMAS = ("divergence-report-v1", "divergence-report-v2", "fixture-results-v1", "parity-ran-v1",
                  "run-summary-v1")
ALLOWED = ("harness/classes/",)


def report_names() -> set[str]:
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    names.update(value)
                if key == "required" and isinstance(value, list):
                    names.update(item for item in value if isinstance(item, str))
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for schema in REPORT_SCHEMAS:
        walk(json.loads((ROOT / "schemas" / f"{schema}.schema.json").read_text(encoding="utf-8")))
    return {name for name in names if re.search(r"[a-z][A-Z]", name)}


def uses(source: str, names: set[str]) -> list[tuple[int, str]]:
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names]


def outside_uses(root: Path) -> list[str]:
    names = report_names()
    found = []
    for path in sorted((root / "harness").rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where.startswith(ALLOWED):
            continue
        found += [f"{where}:{line}: {name!r}" for line, name in uses(path.read_text(encoding="utf-8"), names)]
    return found


def test_no_report_key_is_read_or_written_outside_the_classes_layer() -> None:
    names = report_names()
    assert {"ownDetails", "traceAtStep", "expectedCheck", "codePoints", "foundAfterSeconds"} <= names
    assert outside_uses(ROOT) == [], "report keys outside harness/classes (read them through ClassRecord and " \
                                     "harness/classes/report.py)"


@pytest.mark.parametrize("planted", ['x = divergence["ownDetails"]', 'return report.get("expectedCheck", {})',
                                     'out = {"traceAtStep": at}'])
def test_the_key_scan_sees_a_planted_read(tmp_path: Path, planted: str) -> None:
    module = tmp_path / "harness" / "cli" / "planted.py"
    module.parent.mkdir(parents=True)
    module.write_text(f"def f(divergence, report, at):\n    {planted}\n", encoding="utf-8")
    (tmp_path / "harness" / "classes").mkdir()
    (tmp_path / "harness" / "classes" / "fine.py").write_text(f"def f(divergence, report, at):\n    {planted}\n")
    found = outside_uses(tmp_path)
    assert len(found) == 1 and found[0].startswith("harness/cli/planted.py:2:")


# The Unicode version skew in one place: its name as a string and its detail's "+" split only in its module
# (harness/differential/counterfactual/skew.py), the two rule tables that name it, and the plants (each names
# its cause).
SKEW_PLACES = ("harness/differential/counterfactual/skew.py", "harness/differential/causes/characters.py",
               "harness/differential/counterfactual/characters.py", "harness/tools/plants.py")


def skew_uses(root: Path) -> list[str]:
    found = []
    for path in sorted((root / "harness").rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where in SKEW_PLACES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value == "unicode_version_skew":
                found.append(f"{where}:{node.lineno}: the skew's name")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split" \
                    and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "+":
                found.append(f"{where}:{node.lineno}: a detail split on '+'")
    return found


def test_the_skew_is_named_and_split_in_its_module_only(tmp_path: Path) -> None:
    assert skew_uses(ROOT) == [], "ask harness/differential/counterfactual/skew.py (SKEW, steps_of, share_steps)"
    planted = tmp_path / "harness" / "fuzzing" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text('def f(d):\n    return d.cause == "unicode_version_skew" and d.detail.split("+")\n')
    assert len(skew_uses(tmp_path)) == 2
