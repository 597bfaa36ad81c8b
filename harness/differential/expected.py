"""Expected divergences: one declarative file per implementation (``expected/<impl>.json``), like a
conformance suite's failure list.

An entry names an op, a cause and a witness input. During a run, a divergence of that implementation
with the same op and cause is *expected* and does not fail the run. Every entry is also re-checked
on its witness: if the witness no longer diverges (an unexpected pass), diverges for another cause,
or the entry is malformed or names an unknown op (stale), the run fails until the file is updated
(``python -m harness expected update``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from harness.differential.counterfactual.skew import UNEXPLAINED, own_details
from harness.differential.explain import examine_all
from harness.model import hostvalues, paths
from harness.model.files import atomic_write
from harness.model.paths import SCHEMAS
from harness.model.registry import OPS
from harness.testees.impls import ImplementationUnavailable, declaration, oracle
from harness.testees.testee import Testee

EXPECTED_DIR = paths.EXPECTED
SCHEMA = SCHEMAS / "expected-divergences-v1.schema.json"


def entry_details(cause: str, detail: str | None) -> list[str | None]:
    """The details an implementation's share is listed under: one per Unicode step for a version skew
    ("case_mapping+normalization": one entry each), the detail itself otherwise. An unexplained share
    is not split (no entry lists it)."""
    if cause == "unicode_version_skew" and detail and detail != UNEXPLAINED:
        return list(detail.split("+"))
    return [detail]


@dataclass(frozen=True)
class Entry:
    impl: str
    id: str
    op: str
    cause: str
    args: dict[str, Any]  # host-value encoded
    note: str
    detail: str | None = None

    def matches(self, op: str, cause: str, detail: str | None) -> bool:
        return self.op == op and self.cause == cause and (self.detail is None or self.detail == detail)


class ExpectedSet:
    def __init__(self, entries: list[Entry], problems: list[str]) -> None:
        self.entries = entries
        self.problems = problems  # stale or malformed entries, found while loading

    def find(self, impl: str, op: str, cause: str, detail: str | None) -> Entry | None:
        for entry in self.entries:
            if entry.impl == impl and entry.matches(op, cause, detail):
                return entry
        return None

    def covers(self, divergent: list[str], op: str, cause: str, detail: str | None,
               own: dict[str, str | None] | None = None) -> Entry | None:
        """The entry covering a divergence when every divergent implementation lists it.

        ``own``: an implementation's own detail where it is narrower than the divergence's (see
        ``counterfactual.skew.own_details``: a skew in two Unicode steps, where one implementation differs from the
        oracle in one step only). A version skew in several steps is covered when the implementation
        lists each of its steps (one entry per step); nothing else is split."""
        found = []
        for impl in divergent:
            mine = (own or {}).get(impl, detail)
            if mine == UNEXPLAINED:  # its share of a skew is not one: a bug of its own, never covered
                found.append(None)
                continue
            entries = [self.find(impl, op, cause, part) for part in entry_details(cause, mine)]
            found.append(entries[0] if entries and all(entries) else None)
        return found[0] if found and all(found) else None


def cover(expected: ExpectedSet, impls: dict[str, Testee], divergence: Any,
          versions: dict[str, dict[str, str]]) -> Entry | None:
    """Mark a divergence expected or new (the one place that decides it): each divergent implementation's
    own share is worked out first (``counterfactual.skew.own_details``, kept on the divergence for reports and
    ``expected update``), then every one of them must list it."""
    divergence.own_details = own_details(impls, divergence.op, divergence.args, divergence.cause,
                                         divergence.divergent, versions)
    entry = expected.covers(divergence.divergent, divergence.op, divergence.cause, divergence.detail,
                            divergence.own_details)
    divergence.status, divergence.expected_entry = ("expected", f"{entry.impl}/{entry.id}") if entry else ("new", None)
    return entry


def path_for(impl: str, directory: Path | None = None) -> Path:
    """The implementation's list: the one its declaration names, or ``<directory>/<impl>.json``."""
    if directory is not None:
        return directory / f"{impl}.json"
    try:
        declared = declaration(impl).expected
    except ImplementationUnavailable:
        declared = None
    return declared or EXPECTED_DIR / f"{impl}.json"


def load(impls: list[str], directory: Path | None = None) -> ExpectedSet:
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    entries: list[Entry] = []
    problems: list[str] = []
    for impl in impls:
        path = path_for(impl, directory)
        if not path.exists():
            continue
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            problems.append(f"{path.name}: not JSON: {exc}")
            continue
        errors = list(validator.iter_errors(document))
        if errors:
            problems += [f"{path.name}: {e.message[:200]}" for e in errors]
            continue
        if document["implementation"] != impl:
            problems.append(f"{path.name}: names implementation {document['implementation']!r}")
        seen: set[str] = set()
        for raw in document["entries"]:
            if raw["id"] in seen:
                problems.append(f"{path.name}: duplicate entry id {raw['id']!r}")
            seen.add(raw["id"])
            if raw["op"] not in OPS:
                problems.append(f"{path.name}: stale entry {raw['id']!r}: unknown op {raw['op']!r}")
                continue
            entries.append(Entry(impl, raw["id"], raw["op"], raw["cause"], raw["args"], raw["note"],
                                 raw.get("detail")))
    return ExpectedSet(entries, problems)


def recheck(expected: ExpectedSet, impls: dict[str, Testee], versions: dict[str, dict[str, str]]) -> list[str]:
    """Run every entry's witness again; problems for unexpected passes and changed causes."""
    return [message for message, _ in recheck_detailed(expected, impls, versions)]


def recheck_detailed(expected: ExpectedSet, impls: dict[str, Testee],
                     versions: dict[str, dict[str, str]]) -> list[tuple[str, dict[str, str] | None]]:
    """(message, {"impl", "id"} for an unexpected pass else None) for every problem."""
    problems: list[tuple[str, dict[str, str] | None]] = [(p, None) for p in expected.problems]
    for entry in expected.entries:
        if entry.impl not in impls:
            continue
        try:
            args = hostvalues.decode_args(entry.args)
        except ValueError as exc:
            problems.append((f"{entry.impl}/{entry.id}: stale entry, bad witness args: {exc}", None))
            continue
        # The share of the witness's divergence this implementation is in (explain.name_shares).
        divergence = next((d for d in examine_all(impls, entry.op, args, versions) if entry.impl in d.divergent),
                          None)
        if divergence is None:
            problems.append((f"{entry.impl}/{entry.id}: unexpected pass: the witness no longer diverges; "
                             "remove the entry (python -m harness expected update)",
                             {"impl": entry.impl, "id": entry.id}))
        else:
            # Its own share of the divergence (a skew in two steps: one entry per step, each matching).
            mine = own_details(impls, entry.op, args, divergence.cause, divergence.divergent, versions).get(
                entry.impl, divergence.detail)
            parts = entry_details(divergence.cause, mine)
            if not any(entry.matches(entry.op, divergence.cause, part) for part in parts) or mine == UNEXPLAINED:
                problems.append((f"{entry.impl}/{entry.id}: the witness now diverges for {divergence.cause} "
                                 f"({mine}), not {entry.cause} ({entry.detail})", None))
    return problems


def entry_id(op: str, cause: str, args: dict[str, Any]) -> str:
    digest = hashlib.sha256(json.dumps([op, cause, args], sort_keys=True).encode()).hexdigest()[:8]
    return f"{op.replace('_', '-')}-{cause.replace('_', '-')}-{digest}"


def update_from_report(report: dict[str, Any], directory: Path | None = None) -> list[str]:
    """Add the report's new divergences, drop entries it found passing; returns what changed."""
    changes: list[str] = []
    by_impl: dict[str, list[dict[str, Any]]] = {}
    for impl in report.get("implementations", {}):
        if impl == oracle():
            continue
        path = path_for(impl, directory)
        document = json.loads(path.read_text()) if path.exists() else {
            "schema": "expected-divergences-v1", "implementation": impl, "entries": []}
        by_impl[impl] = document["entries"]
    stale = {(p["impl"], p["id"]) for p in report.get("expectedCheck", {}).get("unexpectedPasses", [])}
    for impl, entries in by_impl.items():
        kept = [e for e in entries if (impl, e["id"]) not in stale]
        changes += [f"{impl}: removed {e['id']} (no longer diverges)" for e in entries if (impl, e["id"]) in stale]
        entries[:] = kept
    for divergence in report.get("divergences", []):
        if divergence.get("status") != "new":
            continue
        for impl in divergence["divergent"]:
            entries = by_impl.setdefault(impl, [])
            mine = divergence.get("ownDetails", {}).get(impl, divergence.get("detail"))
            if mine == UNEXPLAINED:
                changes.append(f"{impl}: not added ({divergence['op']}, {divergence['cause']}): its share is not "
                               "explained by its Unicode versions; look at it by hand")
                continue
            steps = entry_details(divergence["cause"], mine)  # a skew in several steps: one entry per step
            for step in steps:
                if any(e["op"] == divergence["op"] and e["cause"] == divergence["cause"] and
                       e.get("detail") in (None, step) for e in entries):
                    continue
                new_id = entry_id(divergence["op"], divergence["cause"],
                                  {**divergence["args"], "$detail": step} if len(steps) > 1 else divergence["args"])
                entries.append({"id": new_id, "op": divergence["op"], "cause": divergence["cause"],
                                "detail": step, "args": divergence["args"],
                                "note": f"TODO: explain. Found by {report.get('profile', 'a run')}: "
                                        f"{divergence.get('explanation', '')}"})
                changes.append(f"{impl}: added {new_id} ({divergence['op']}, {divergence['cause']}, {step})")
    for impl, entries in by_impl.items():
        path = path_for(impl, directory)
        document = {"schema": "expected-divergences-v1", "implementation": impl, "entries": entries}
        text = json.dumps(document, indent=2, ensure_ascii=True) + "\n"
        if not path.exists() or path.read_text() != text:
            atomic_write(path, text)
    return changes
