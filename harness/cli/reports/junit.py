"""The JUnit files' kind (``Kind.JUNIT``: the parity run's pytest JUnit XML, read by rundiff.read into a document
of its own): its part in a run's verdict and its table; on the page its tests are in the run's tests section
(harness/cli/reports/ran.py, ``tests_section``)."""

from __future__ import annotations

from typing import Any

from harness.classes.kinds import Kind
from harness.cli.reports.kind import ReportKind
from harness.cli.views import Part, counted, printable, table

JUNIT_HEADERS = ("test", "outcome", "message")


JUNIT_SHOWN = 50  # failing tests listed (--show all: every one)


def junit_view(document: dict[str, Any], fmt: str = "text", show: str = "new") -> str:
    """A JUnit file: its counts, then its failing and erroring tests with their messages' first lines."""
    out = [printable(f"{counted(document['tests'], 'test')}: {document['passed']:,} passed, {document['failures']:,} "
                     f"failed, {counted(document['errors'], 'error')}, {document['skipped']:,} skipped")]
    failing = document["failing"]
    shown = failing if show == "all" else failing[:JUNIT_SHOWN]
    if shown:
        rows = [[item["test"], item["outcome"], (item["message"].splitlines() or [""])[0][:200]] for item in shown]
        out.append(table(JUNIT_HEADERS, rows, fmt, title="failing tests"))
        if len(failing) > len(shown):
            out.append(f"+{len(failing) - len(shown)} more failing tests (--show all lists them)")
    return "\n\n".join(out)


def _junit_part(path: str, document: dict[str, Any]) -> Part:
    red = []
    for outcome, said, key in (("failed", "failed", "failures"), ("error", "errored", "errors")):
        if document[key]:
            names = [item["test"] for item in document["failing"] if item["outcome"] == outcome]
            more = document[key] - min(len(names), 3)
            listed = ", ".join(names[:3]) + (f" +{more} more" if more > 0 else "")
            red.append(f"{counted(document[key], 'test')} {said}" + (f" ({listed})" if names else ""))
    return Part(path, Kind.JUNIT.label, {"test": document["tests"] - document["skipped"]}, red)


KIND = ReportKind(Kind.JUNIT, part=_junit_part, view=junit_view)  # its tests: ran.tests_section
