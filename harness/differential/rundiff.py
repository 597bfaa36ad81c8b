"""What changed between two runs: ``python -m harness report diff OLD NEW`` and ``--baseline OLD``.

Two divergence reports (v1 or v2) are compared class by class, and two fixture-results documents case
by case. A class is known by ``explain.class_key`` (op, the share's implementations, cause, detail,
the step where the traces part), which survives another witness; a case by (implementation, fixture,
case id).

Changes, one row each:
  new       in NEW, not in OLD (a class, or a case that fails now and did not before)
  fixed     in OLD, not in NEW, where NEW's absence means something: a sweep (every input of its
            templates was tried again) or a fixture case that passes now
  not seen  in OLD, not in NEW, where NEW is a sample (a fuzz, diff or parity run): maybe only not hit
  changed   in both, with another status (new/expected), expected entry or characters; a case with
            another state or mismatch
Implementations whose self-description (version, Unicode versions) changed are listed too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.differential.explain import reported_class_key

EXHAUSTIVE = ("sweep",)  # profiles whose absence of a class is evidence that it is gone
DIVERGENCE_SCHEMAS = ("divergence-report-v1", "divergence-report-v2")
RESULTS_SCHEMA = "fixture-results-v1"


@dataclass(frozen=True)
class Change:
    """One row of a diff: what (a class or a case), how it changed, and what it is."""

    kind: str  # "class" or "case"
    change: str  # "new", "fixed", "not seen", "changed"
    impls: tuple[str, ...]
    subject: str  # a class: "op cause (detail) at step"; a case: "fixture/case"
    before: str | None  # its state in OLD (None: absent)
    after: str | None  # its state in NEW
    witness: str | None = None  # a class: its witness's arguments, as JSON
    blocking: bool = False  # counts for the exit status: something new that is not covered

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "change": self.change, "implementations": list(self.impls),
                "subject": self.subject, "before": self.before, "after": self.after, "witness": self.witness,
                "blocking": self.blocking}


@dataclass
class RunDiff:
    kind: str  # "divergences" or "fixture results"
    changes: list[Change] = field(default_factory=list)
    unchanged: int = 0
    implementations: list[str] = field(default_factory=list)  # lines: an implementation's description changed

    @property
    def new(self) -> list[Change]:
        return [change for change in self.changes if change.blocking]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "unchanged": self.unchanged, "implementations": self.implementations,
                "changes": [change.to_json() for change in self.changes], "new": len(self.new)}


def kind_of(document: dict[str, Any]) -> str:
    schema = document.get("schema")
    if schema in DIVERGENCE_SCHEMAS:
        return "divergences"
    if schema == RESULTS_SCHEMA:
        return "fixture results"
    raise ValueError(f"schema {schema!r}: not a report diff knows (divergence reports, fixture results)")


def identity(divergence: dict[str, Any]) -> tuple[Any, ...]:
    """The class's identity across runs: its class key with the implementations as a set (two runs may have
    opened them in another order)."""
    op, impls, *rest = reported_class_key(divergence)
    return (op, tuple(sorted(impls)), *rest)


def _subject(divergence: dict[str, Any]) -> str:
    detail = f" ({divergence['detail']})" if divergence.get("detail") else ""
    step = divergence.get("step")
    return f"{divergence['op']} {divergence['cause']}{detail}" + (f" at {step}" if step else "")


def _state(divergence: dict[str, Any]) -> str:
    entry = divergence.get("expectedEntry")
    return divergence["status"] + (f": {entry}" if entry else "")


def _witness(divergence: dict[str, Any]) -> str:
    import json

    return json.dumps(divergence["args"], ensure_ascii=True)


def _described_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """One line per implementation in both runs whose self-description's version or Unicode changed."""
    before = (old.get("run") or {}).get("implementations") or {}
    after = (new.get("run") or {}).get("implementations") or {}
    lines = []
    for name in sorted(set(before) & set(after)):
        was, now = before[name] or {}, after[name] or {}
        for field_name in ("version", "unicode", "language"):
            if was.get(field_name) != now.get(field_name):
                lines.append(f"{name}: {field_name} {was.get(field_name)} -> {now.get(field_name)}")
    return lines


def diff_divergences(old: dict[str, Any], new: dict[str, Any]) -> RunDiff:
    result = RunDiff("divergences", implementations=_described_changes(old, new))
    before = {identity(d): d for d in old["divergences"]}
    after = {identity(d): d for d in new["divergences"]}
    absent = "fixed" if new.get("profile") in EXHAUSTIVE else "not seen"
    for key, divergence in after.items():
        impls = tuple(divergence["divergent"])
        if key not in before:
            result.changes.append(Change("class", "new", impls, _subject(divergence), None, _state(divergence),
                                         _witness(divergence), blocking=divergence["status"] == "new"))
            continue
        was = before[key]
        if (_state(was), sorted(was.get("characters", []))) != (_state(divergence),
                                                              sorted(divergence.get("characters", []))):
            # A class that was expected and is not covered now is something new as well.
            blocking = divergence["status"] == "new" and was["status"] != "new"
            result.changes.append(Change("class", "changed", impls, _subject(divergence), _state(was),
                                         _state(divergence), _witness(divergence), blocking=blocking))
        else:
            result.unchanged += 1
    for key, divergence in before.items():
        if key not in after:
            result.changes.append(Change("class", absent, tuple(divergence["divergent"]), _subject(divergence),
                                         _state(divergence), None, _witness(divergence)))
    return result


def _case_state(row: dict[str, Any]) -> str:
    return row["state"] + (f": {row['why']}" if row.get("why") else "")


def diff_results(old: dict[str, Any], new: dict[str, Any]) -> RunDiff:
    result = RunDiff("fixture results", implementations=_described_changes(old, new))

    def keyed(document: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
        return {(row["implementation"], row["fixture"], row["case"]): row for row in document["results"]}

    before, after = keyed(old), keyed(new)
    for key, row in after.items():
        impl, fixture, case = key
        was = before.get(key)
        subject = f"{fixture}/{case}"
        if was is None or was["state"] != row["state"] or was.get("why") != row.get("why"):
            if row["state"] == "fail" and (was is None or was["state"] != "fail"):
                change = "new"
            elif row["state"] == "pass" and was is not None and was["state"] == "fail":
                change = "fixed"
            elif was is None:
                change = "new"
            else:
                change = "changed"
            result.changes.append(Change("case", change, (impl,), subject, None if was is None else _case_state(was),
                                         _case_state(row), blocking=row["state"] == "fail" and change == "new"))
        else:
            result.unchanged += 1
    for key, row in before.items():
        if key not in after:
            result.changes.append(Change("case", "not seen", (key[0],), f"{key[1]}/{key[2]}", _case_state(row), None))
    return result


def diff(old: dict[str, Any], new: dict[str, Any]) -> RunDiff:
    """What changed from ``old`` to ``new`` (two reports of one kind); ValueError when they are not."""
    kinds = kind_of(old), kind_of(new)
    if kinds[0] != kinds[1]:
        raise ValueError(f"cannot compare {kinds[0]} with {kinds[1]}")
    return diff_divergences(old, new) if kinds[0] == "divergences" else diff_results(old, new)


def read(path: Any) -> dict[str, Any]:
    """A report a diff can read (a divergence report v1 or v2, fixture results), read through the untrusted
    reader and validated against the schema it names; ValueError (BadDocument where the file is no JSON
    object) naming the file and what is wrong."""
    from pathlib import Path

    from harness.model import untrusted
    from harness.model.schemas import problems

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise untrusted.BadDocument(f"{path}: cannot read it as JSON: {exc.strerror or exc}") from None
    try:  # bounded and strict: a report is a file anybody can hand over (too deep, NaN, a BOM: refused)
        document = untrusted.loads(data, want=dict, max_bytes=untrusted.MAX_FILE_BYTES,
                                   max_depth=untrusted.DOCUMENT_DEPTH)
    except untrusted.Refused as exc:
        raise untrusted.BadDocument(f"{path}: cannot read it as JSON: {exc}") from None
    try:
        kind_of(document)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    found = problems(document)
    if found:
        raise ValueError(f"{path}: does not match its schema {document['schema']}: {'; '.join(found[:3])}")
    return document
