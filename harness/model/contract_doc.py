"""An op family's specification against its family file: the document the family file names (``"contract"``)
lists each op's steps in one table, ``| # | `step.id` | what it does | `error_code` or — |``, numbered 1..n in the
family file's order, each with the error code the family gives it, and lists no step the family lacks.

``python -m harness lint`` reports each problem (status 1); suites/model/test_contract_doc.py holds the
project's own docs/contract.md to the memgate family with the same reader and plants changes it must see. The same
document's signature and parameter tables (names, positions, kinds, defaults, codes) are harness/model/
contract_surface.py's: a family that names a contract gives all three kinds of table.
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.model import untrusted
from harness.model.families import Family
from harness.model.registry import JSON_RULES

ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`([a-z]+(?:\.[a-z0-9_]+)+)`\s*\|(.*)\|\s*(`[a-z_]+`|—)\s*\|\s*$")
JSON_RULES_TABLE = "JSON rules"  # the table of the rules a *_json argument is read with, in a family that has one

Row = tuple[int, str, str | None]  # (position, step id, error code or None)


def step_tables(text: str) -> list[list[Row]]:
    """Every table of step rows in ``text``, in order."""
    tables: list[list[Row]] = []
    current: list[Row] | None = None
    for line in text.splitlines():
        match = ROW.match(line)
        if match:
            if current is None:
                current = []
                tables.append(current)
            code = None if match.group(4) == "—" else match.group(4).strip("`")
            current.append((int(match.group(1)), match.group(2), code))
        elif not line.startswith("|"):
            current = None
    return tables


def declared(family: Family) -> dict[str, list[Row]]:
    """Each op of ``family`` (and the JSON rules, where one of its ops takes a JSON argument) -> the rows its
    table must have."""
    out: dict[str, list[Row]] = {}
    if any(param["kind"].endswith("_json") for op in family.ops for param in op["params"]):
        out[JSON_RULES_TABLE] = [(i, rule.id, rule.code) for i, rule in enumerate(JSON_RULES, start=1)]
    for op in family.ops:
        out[op["name"]] = [(i, step["id"], step.get("code")) for i, step in enumerate(op["steps"], start=1)]
    return out


def problems(family: Family, path: Path | None = None) -> list[str]:
    """Each way the family's specification (``path``, default: the one its file names) disagrees with its family
    file; [] when it names none."""
    path = path or family.contract
    if path is None:
        return []
    where = f"op family {family.name}: its contract {path}"
    try:  # a regular file within its limit (untrusted.LIMITS): a FIFO or a device is refused, never waited on
        text = untrusted.read_bounded(path, "contract").decode("utf-8")
    except (untrusted.BadDocument, UnicodeDecodeError) as exc:
        return [f"{where} cannot be read ({exc}); fix: name the family's specification in its \"contract\""]
    tables = step_tables(text)
    wanted = declared(family)
    found: list[str] = []
    for name, rows in wanted.items():
        ids = {row[1] for row in rows}
        matching = [table for table in tables if {row[1] for row in table} & ids]
        if len(matching) != 1:
            found.append(f"{where}: {len(matching)} step tables list {name}'s steps, one wanted "
                         "(| # | `step.id` | what it does | `error_code` or — |)")
        elif matching[0] != rows:
            shown = ", ".join(f"{n}. {step} ({code or '—'})" for n, step, code in rows)
            found.append(f"{where}: the table of {name} is not its steps as the family file declares them: {shown}")
    known = {row[1] for rows in wanted.values() for row in rows}
    extra = sorted({row[1] for table in tables for row in table} - known)
    if extra:
        found.append(f"{where}: lists steps the family file does not declare: {', '.join(extra)}")
    return found
