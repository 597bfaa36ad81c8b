"""The page's memory: one small summary per run (``run-summary-v1``: its classes by identity, each
implementation's counts), kept in a folder (``report html --history DIR``), read back to show, per class and
per implementation, since when it is seen.

A summary is a file anybody can hand over: read through the untrusted reader, validated against its schema;
one that is not a summary is a clear error naming it (status 2), never a page built on it. The folder keeps
the newest ``KEEP`` summaries the page asked for; older ones are left where they are, unread.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from harness.classes.key import ClassKey
from harness.classes.record import ClassRecord
from harness.classes.rundiff import Kinship, pair
from harness.model import files, schemas, untrusted

SCHEMA = "run-summary-v1"
KEEP = 10  # the runs a page shows by default


@dataclass(frozen=True)
class Summarised:
    """A class as a run summary holds it (the schema's ``classes`` items, read and written only here): the
    anchor it had, its key's fields as its record had them, its status. It names no characters (a summary is
    a few lines), so two of them are one class, changed, by ``rundiff.kinship``'s rule with the detail equal."""

    anchor: str
    op: str
    impls: tuple[str, ...]
    cause: str
    detail: str | None
    step: str | None
    status: str

    @property
    def key(self) -> ClassKey:
        return ClassKey.of(self.op, self.impls, self.cause, self.detail, self.step)

    @property
    def characters(self) -> frozenset[int]:
        return frozenset()

    @classmethod
    def of(cls, record: ClassRecord) -> Summarised:
        return cls(record.key.anchor, record.op, tuple(sorted(record.divergent)), record.cause, record.detail,
                   record.step, record.status)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Summarised:
        return cls(data["anchor"], data["op"], tuple(data["implementations"]), data["cause"], data["detail"],
                   data["step"], data["status"])

    def to_json(self) -> dict[str, Any]:
        return {"anchor": self.anchor, "op": self.op, "implementations": list(self.impls), "cause": self.cause,
                "detail": self.detail, "step": self.step, "status": self.status}


def classes_of(summary: dict[str, Any]) -> list[Summarised]:
    """A run summary's classes (the summary validated against its schema before)."""
    return [Summarised.from_json(data) for data in summary["classes"]]


@dataclass(frozen=True)
class Since:
    """This run's classes against the last run's, as ``report diff`` would pair them: the ones it has that the
    last had not, the ones the last had that it has not, and the ones that are one of the last's changed
    (grew, shrank, moved: ``rundiff.kinship``), each with the class it was and how."""

    arrived: list[Summarised]
    gone: list[Summarised]
    changed: list[tuple[Summarised, Summarised, Kinship]]

    def kin(self, anchor: str) -> tuple[Summarised, Kinship] | None:
        """The last run's class that the class of this anchor is, changed (None: none)."""
        return next(((was, how) for now, was, how in self.changed if now.anchor == anchor), None)


def since_last(last: list[Summarised], now: list[Summarised]) -> Since:
    """``now`` (this run's classes) against ``last`` (the last run's), by anchor, then by kinship."""
    before, after = {c.anchor: c for c in last}, {c.anchor: c for c in now}
    kin = pair(before, after)
    paired = {was for was, _ in kin.values()}
    return Since([c for c in now if c.anchor not in before and c.anchor not in kin],
                 [c for c in last if c.anchor not in after and c.anchor not in paired],
                 [(after[anchor], before[was], how) for anchor, (was, how) in kin.items()])


@dataclass(frozen=True)
class Past:
    """The summaries of earlier runs, oldest first, each with the file it came from."""

    runs: list[tuple[Path, dict[str, Any]]]

    def seen(self, anchor: str) -> list[bool]:
        """In which of the earlier runs (oldest first) the class of this anchor was."""
        return [anchor in anchors for anchors in self.anchors]

    @cached_property
    def anchors(self) -> list[frozenset[str]]:
        """Each earlier run's classes' anchors, oldest first (read once)."""
        return [frozenset(c.anchor for c in classes_of(summary)) for _, summary in self.runs]

    def first_seen(self, anchor: str) -> dict[str, Any] | None:
        """The summary of the run that first saw the class since the last run without it (None: this run)."""
        first = None
        for (_, summary), was in zip(self.runs, self.seen(anchor), strict=True):
            first = (first or summary) if was else None
        return first


def read(folder: Path, keep: int = KEEP) -> Past:
    """The newest ``keep`` summaries in ``folder`` (none when it does not exist), oldest first by the end of
    their runs; BadDocument naming a file that is not a run summary."""
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        document = untrusted.read_document(path, "run summary")  # within untrusted.LIMITS
        problems = schemas.problems(document) if document.get("schema") == SCHEMA else [
            f"schema {document.get('schema')!r}, not {SCHEMA!r}"]
        if problems:
            raise untrusted.BadDocument(f"{path}: not a run summary: {'; '.join(problems[:3])}")
        found.append((path, document))
    found.sort(key=lambda item: (item[1].get("ended") or item[1]["run"]["ended"], item[0].name))
    return Past(found[-keep:] if keep > 0 else [])


def name_of(summary: dict[str, Any]) -> str:
    """A summary's file name: the end of the newest report of its run, that report's commit and a digest of
    what it says (all but the page's own run), so that a page made again from the same reports keeps one
    summary, not two, and two runs never share a name."""
    ended = (summary.get("ended") or summary["run"]["ended"]).replace(":", "").replace("-", "")
    commit = (summary.get("commit") or "unknown")[:12]
    said = json.dumps({key: value for key, value in summary.items() if key != "run"}, sort_keys=True)
    return f"{ended}-{commit}-{hashlib.sha256(said.encode('ascii')).hexdigest()[:8]}.json"


def write(folder: Path, summary: dict[str, Any]) -> Path:
    """Keep ``summary`` in ``folder`` under a name of its run's end and commit (atomically, only over another
    summary); its path."""
    problems = schemas.problems(summary)
    if problems:  # the harness's own document: its bug, never the user's
        raise RuntimeError(f"a run summary that breaks its schema: {'; '.join(problems[:3])}")
    files.make_folder(folder, "the folder of run summaries")
    path = folder / name_of(summary)
    files.write_document(path, summary, replaces=(SCHEMA,), what="run summary")
    return path
