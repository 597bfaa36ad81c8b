"""Divergence reports: a readable table on the terminal and a JSON file (schema:
schemas/divergence-report-v2.schema.json: v1 and the run's envelope; a v1 report is still read)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.differential.explain import Divergence
from harness.differential.outcomes import agreeing
from harness.model import envelope, schemas
from harness.model.files import write_document

SCHEMA = "divergence-report-v2"
READABLE = ("divergence-report-v1", SCHEMA)  # what report diff, expected update and promote read


def document(profile: str, versions: dict[str, dict[str, str]], divergences: list[Divergence], examples: int,
             seconds: float, expected_problems: list[str], seed: int | None = None,
             unexpected_passes: list[dict[str, str]] | None = None, findings: list[dict[str, Any]] | None = None,
             cut: list[str] | None = None, taken_out: list[str] | None = None,
             batches_refused: dict[str, int] | None = None,
             described: dict[str, dict[str, Any] | None] | None = None) -> dict[str, Any]:
    """The report; ``described``: each implementation's self-description (envelope.descriptions; default:
    none known, a test double's); ``findings``: about testees (harness/testees/findings.py), never divergences;
    ``cut``: work the budget cut; ``taken_out``: implementations taken out of the run;
    ``batches_refused``: testees that refuse batch lines (legitimate), counted."""
    new = [d for d in divergences if d.status == "new"]
    for divergence in divergences:
        if agreeing(divergence.op, divergence.responses):
            raise ValueError(f"a {divergence.op} divergence ({divergence.cause}) whose recorded outputs agree: "
                             "the verdict stage let it through (a harness bug)")
    return {
        "schema": SCHEMA,
        "run": envelope.build(described if described is not None else dict.fromkeys(versions), seed),
        "profile": profile,
        "seed": seed,
        "implementations": versions,
        "examples": examples,
        "seconds": round(seconds, 3),
        "ok": not new and not expected_problems and not findings,
        "divergences": [d.to_json() for d in divergences],
        "findings": findings or [],
        "cut": cut or [],
        "takenOut": taken_out or [],
        "batchLinesRefused": batches_refused or {},
        "expectedCheck": {"problems": expected_problems, "unexpectedPasses": unexpected_passes or []},
    }


def write(path: Path, report: dict[str, Any]) -> None:
    """Write a divergence report, only over nothing or another divergence report (files.check_replaceable:
    a --report that names a source file, an expected list or a fixture is refused, status 2)."""
    write_document(path, report, replaces=READABLE, what="divergence report")


def validate(report: dict[str, Any]) -> list[str]:
    """Each way ``report`` breaks its schema (v2, or v1 for an older report), with where."""
    if report.get("schema") not in READABLE:
        return [f"schema {report.get('schema')!r}: not a divergence report ({', '.join(READABLE)})"]
    return schemas.problems(report)
