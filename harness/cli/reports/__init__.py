"""The report kinds, one module each: ``KINDS`` maps every ``Kind`` (harness/classes/kinds.py: the kinds by
schema) to its ``ReportKind``, the row its module declares: its part in a run's verdict, its table for
``report show``, its diff (``report diff``, ``--baseline``) and its page section. The verdict, the
views, the diff and the page iterate over this table, never over kinds of their own.

A new kind of report is one module here (its ``KIND``, added to ``MODULES``), its schema (schemas/, named in
``harness/classes/kinds.py``) and its tests; docs/architecture.md lists the files, and suites/classes/test_reports.py
holds every kind to every column."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.classes import rundiff
from harness.classes.kinds import Kind
from harness.cli.reports.kind import ReportKind, Section
from harness.cli.views import Part, Verdict


def _modules() -> tuple[Any, ...]:
    from harness.cli.reports import divergences, junit, ran, results

    return results, ran, junit, divergences  # the page's order of their sections


MODULES = _modules()
KINDS: dict[Kind, ReportKind] = {module.KIND.kind: module.KIND for module in MODULES}
missing = set(Kind) - set(KINDS)
assert not missing, f"report kinds without a module: {sorted(missing)}"


def part_of(path: Any, document: dict[str, Any], kind: Kind) -> Part:
    """A report's part in the verdict (``kind``: rundiff.kind_of's), by its kind's row."""
    return KINDS[kind].part(str(path), document)


def run_verdict(documents: Sequence[tuple[Any, dict[str, Any]]], problems: Sequence[str] = ()) -> Verdict:
    """The verdict of the reports ``documents`` ((path, document) pairs: the ones given and the others of
    their runs) and the runs' ``problems`` (rundiff.RunReports)."""
    return Verdict([part_of(path, document, rundiff.kind_of(document)) for path, document in documents],
                   list(problems))


def report_view(document: dict[str, Any], fmt: str = "text", show: str = "new") -> str:
    """A report of any kind the harness reads, as ``report show`` prints it."""
    return KINDS[rundiff.kind_of(document)].view(document, fmt, show)


COMPARABLE = tuple(kind for kind, row in KINDS.items() if row.diff is not None)  # what report diff compares


def diff(old: dict[str, Any], new: dict[str, Any]) -> rundiff.RunDiff:
    """What changed from ``old`` to ``new`` (two reports of one kind); ValueError when they are not."""
    both = rundiff.kind_of(old), rundiff.kind_of(new)
    for kind in both:
        if kind not in COMPARABLE:
            raise ValueError(f"cannot compare {kind}: report diff and --baseline compare reports of these kinds: "
                             + ", ".join(sorted(k.label for k in COMPARABLE)))
    if both[0] != both[1]:
        raise ValueError(f"cannot compare {both[0]} with {both[1]}")
    found = KINDS[both[0]].diff
    assert found is not None
    return found(old, new)


def sections() -> list[Section]:
    """The kinds' sections of the page, in ``MODULES``' order."""
    return [row.section for row in KINDS.values() if row.section is not None]


__all__ = ["KINDS", "MODULES", "ReportKind", "Section", "diff", "part_of", "report_view", "run_verdict", "sections"]
