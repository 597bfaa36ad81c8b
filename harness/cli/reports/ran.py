"""The parity run's counts' kind (``Kind.RAN``, schema parity-ran-v1: tests passed, failed and skipped per
implementation, and each Python of the matrix as the run saw it): its part in a run's verdict (a Python of the
matrix asked for and not found: "partial matrix"), its table and the page's section of the run's tests (shared
with the JUnit files': ``tests_section``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.classes.kinds import Kind
from harness.cli import views
from harness.cli.html import (
    Source,
    attrs,
    code,
    escape,
    html_table,
    section,
)
from harness.cli.reports.kind import ReportKind, Section
from harness.cli.views import Part, counted, table
from harness.model.printable import printable

RAN_HEADERS = ("implementation", "passed", "failed", "skipped")
MATRIX_HEADERS = ("Python", "state", "interpreter")


def not_run(document: dict[str, Any]) -> list[str]:
    """The Pythons of the matrix this run asked for and did not run (no interpreter found)."""
    return [version for version, got in (document.get("matrix") or {}).items() if got["state"] == "not found"]


def matrix_line(document: dict[str, Any]) -> str:
    """``Pythons of the matrix: 3.11 this run; 3.12 own session; 3.13 not found (partial matrix: 3.13 not run)``,
    or "" for a report without a matrix."""
    record = document.get("matrix") or {}
    if not record:
        return ""
    missing = not_run(document)
    return ("Pythons of the matrix: " + "; ".join(f"{version} {got['state']}" for version, got in record.items())
            + (f" (partial matrix: {', '.join(missing)} not run)" if missing else ""))


def ran_view(document: dict[str, Any], fmt: str = "text") -> str:
    """parity-ran counts: a row per implementation; then the Pythons of the matrix, a row each."""
    rows = [[impl, str(got["passed"]), str(got["failed"]), str(got["skipped"])]
            for impl, got in document["counts"].items()]
    out = table(RAN_HEADERS, rows, fmt, title="parity tests per implementation")
    record = document.get("matrix") or {}
    if record:
        pythons = [[version, got["state"], got["interpreter"] or "-"] for version, got in record.items()]
        out += "\n\n" + table(MATRIX_HEADERS, pythons, fmt, title="Pythons of the matrix")  # a Markdown table ends
        missing = not_run(document)  # at a blank line only
        if missing:
            out += "\n\n" + printable(f"partial matrix: {', '.join(missing)} not run (asked for, no interpreter found)")
    return out


def _ran_part(path: str, document: dict[str, Any]) -> Part:
    red = []
    for impl, got in document["counts"].items():
        if got["failed"]:
            red.append(f"{counted(got['failed'], 'parity test')} failed on {impl}")
        elif got["passed"] + got["failed"] == 0:
            red.append(f"no parity test ran on {impl}")
    tests = sum(got["passed"] + got["failed"] for got in document["counts"].values())
    return Part(path, Kind.RAN.label, {"test": tests}, red, not_run=not_run(document))


def tests_section(sources: Sequence[Source], notes: Sequence[str] = ()) -> str:
    """The parity run's own result: each parity-ran document's counts per implementation and each JUnit
    file's counts and failing tests (with their messages)."""
    parts = []
    for source in sources:
        document = source.document
        if source.kind == Kind.RAN:
            rows = [[escape(impl), str(got["passed"]), str(got["failed"]), str(got["skipped"])]
                    for impl, got in document["counts"].items()]
            parts.append(f"<h3>Per implementation ({code(str(source.path))})</h3>"
                         + html_table(RAN_HEADERS, rows, class_="ran-table"))
            if document.get("matrix"):
                missing = not_run(document)
                parts.append(f"<p{attrs(class_='matrix', data_not_run=' '.join(missing))}>"
                             f"{escape(matrix_line(document))}</p>")
        elif source.kind == Kind.JUNIT:
            failing = "".join(
                f"<li{attrs(class_='failing-test', data_outcome=item['outcome'])}><b>{escape(item['outcome'])}</b> "
                f"{code(item['test'])}<pre class='mismatch'>{escape(item['message'])}</pre></li>"
                for item in document["failing"])
            parts.append(f"<h3>JUnit ({code(str(source.path))})</h3><p>{document['tests']:,} tests: "
                         f"{document['passed']:,} passed, {document['failures']:,} failed, "
                         f"{views.counted(document['errors'], 'error')}, {document['skipped']:,} skipped.</p>"
                         + (f"<ol class='failing-tests'>{failing}</ol>" if failing
                            else "<p class='ok'>No test failed or errored.</p>"))
    noted = "".join(f"<li>{escape(note)}</li>" for note in notes)
    if not parts:
        return section("tests", "Parity tests", "<p class='none'>No parity tests among the reports (<code>nox -s "
                       "parity</code> writes <code>reports/parity-ran.json</code> and <code>reports/parity-junit.xml"
                       "</code>).</p>" + (f"<ul class='notes'>{noted}</ul>" if noted else ""))
    return section("tests", "Parity tests", "".join(parts) + (f"<ul class='notes'>{noted}</ul>" if noted else ""))


KIND = ReportKind(Kind.RAN, part=_ran_part, view=lambda document, fmt, show: ran_view(document, fmt),
                  section=Section("tests", "Parity tests", lambda page: tests_section(page.sources, page.run_notes)))
