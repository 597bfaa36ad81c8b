"""The kinds of report the harness reads, as a table keyed by schema: ``Kind`` (one name each, compared as a
string where a report says its kind), the schemas each is read from, and how the page and the verdict name a
report of it. Each kind's part in a verdict, table, diff and page section are its module's
(harness/cli/reports/: ``KINDS``); readers (``rundiff.read``) and everything else dispatch on ``Kind``, never on a
string of their own."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    DIVERGENCES = "divergences"  # a fuzz, sweep, diff or parity run's classes
    RESULTS = "fixture results"  # check's and the parity run's fixture cases
    RAN = "parity tests"  # nox -s parity: tests passed, failed, skipped per implementation
    JUNIT = "junit tests"  # the parity run's pytest JUnit XML

    @property
    def schemas(self) -> tuple[str, ...]:
        return SCHEMAS[self]

    @property
    def label(self) -> str:
        """How the page and the verdict name a report of this kind (a divergence report: by its profile)."""
        return LABELS[self]

    @property
    def test_run(self) -> bool:
        """A run's test counts: shown whole among a run's other reports, never as a part line."""
        return self in (Kind.RAN, Kind.JUNIT)


SCHEMAS: dict[Kind, tuple[str, ...]] = {
    Kind.DIVERGENCES: ("divergence-report-v1", "divergence-report-v2"),
    Kind.RESULTS: ("fixture-results-v1",),
    Kind.RAN: ("parity-ran-v1",),
    Kind.JUNIT: ("junit-xml",),  # the document read from a JUnit XML file (which names no schema of its own)
}
LABELS: dict[Kind, str] = {Kind.DIVERGENCES: "divergence report", Kind.RESULTS: "fixture results",
                           Kind.RAN: "parity tests per implementation", Kind.JUNIT: "JUnit tests"}
BY_SCHEMA: dict[str, Kind] = {schema: kind for kind, schemas in SCHEMAS.items() for schema in schemas}


def of(document: dict[str, Any]) -> Kind:
    """The kind of a report document, by the schema it names; ValueError naming the schema otherwise."""
    found = BY_SCHEMA.get(document.get("schema"))  # type: ignore[arg-type]
    if found is None:
        raise ValueError(f"schema {document.get('schema')!r}: not a report the harness reads (divergence reports, "
                         "fixture results, parity-ran counts, JUnit XML)")
    return found
