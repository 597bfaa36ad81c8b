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
from pathlib import Path
from typing import Any

from harness.model import files, schemas, untrusted

SCHEMA = "run-summary-v1"
KEEP = 10  # the runs a page shows by default


@dataclass(frozen=True)
class Past:
    """The summaries of earlier runs, oldest first, each with the file it came from."""

    runs: list[tuple[Path, dict[str, Any]]]

    def seen(self, anchor: str) -> list[bool]:
        """In which of the earlier runs (oldest first) the class of this anchor was."""
        return [any(c["anchor"] == anchor for c in summary["classes"]) for _, summary in self.runs]

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
