"""Divergence reports: a readable table on the terminal and a JSON file (schema:
schemas/divergence-report-v2.schema.json: v1 and the run's envelope; a v1 report is still read)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.differential.explain import Divergence
from harness.differential.outcomes import agreeing
from harness.model import envelope, hostvalues, schemas
from harness.model.files import atomic_write

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
    atomic_write(path, json.dumps(report, indent=2, ensure_ascii=True) + "\n")


def validate(report: dict[str, Any]) -> list[str]:
    """Each way ``report`` breaks its schema (v2, or v1 for an older report), with where."""
    if report.get("schema") not in READABLE:
        return [f"schema {report.get('schema')!r}: not a divergence report ({', '.join(READABLE)})"]
    return schemas.problems(report)


def read(path: Path) -> dict[str, Any]:
    """A divergence report from a file, v1 or v2; ValueError naming the file and what is wrong."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read it as JSON: {exc}") from None
    if not isinstance(report, dict):
        raise ValueError(f"{path}: not a JSON object")
    problems = validate(report)
    if problems:
        raise ValueError(f"{path}: not a valid divergence report: {'; '.join(problems[:3])}")
    return report


def _show(value: Any, width: int = 100) -> str:
    text = json.dumps(hostvalues.encode(value) if not isinstance(value, dict) else value, ensure_ascii=True)
    return text if len(text) <= width else text[: width - 3] + "..."


def render_divergence(index: int, divergence: Divergence) -> str:
    lines = [
        f"#{index} {divergence.op}  cause: {divergence.cause}"
        + (f" ({divergence.detail})" if divergence.detail else "") + f"  [{divergence.status}"
        + (f": {divergence.expected_entry}" if divergence.expected_entry else "") + "]",
        f"   {divergence.explanation}",
        "   input:",
    ]
    for name, value in divergence.args.items():
        lines.append(f"     {name} = {_show(value)}")
    lines.append("   outputs:")
    width = max(len(name) for name in divergence.responses)
    for name, response in divergence.responses.items():
        mark = "*" if name in divergence.divergent else " "
        if "ok" in response:
            shown = f"ok    {_show(response['ok'])}"
        else:
            error = response["error"]
            shown = f"error {error['code']}: {error.get('message', '')[:80]}"
        lines.append(f"   {mark} {name:<{width}}  {shown}")
    if divergence.code_points:
        lines.append("   code points:")
        for info in divergence.code_points[:12]:
            versions = "; ".join(
                f"{impl} " + ", ".join(f"{step} {state}" for step, state in steps.items())
                for impl, steps in info["versions"].items()
            )
            lines.append(f"     {info['codePoint']:<8} {info['generalCategory']}  {info['name'][:40]:<40} "
                         f"age {info['age']}  | {versions}")
    return "\n".join(lines)


def render(divergences: list[Divergence], expected_problems: list[str]) -> str:
    out = [render_divergence(i, d) for i, d in enumerate(divergences, 1)]
    if expected_problems:
        out.append("expected-divergence list problems:\n" + "\n".join(f"   {p}" for p in expected_problems))
    if not out:
        return "no divergences"
    return "\n\n".join(out)
