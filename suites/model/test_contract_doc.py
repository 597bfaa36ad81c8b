"""The specification lives in the repository: docs/contract.md lists every op's steps as the op registry
declares them, and no file of the project points outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from harness.model.registry import JSON_RULES, OPS, Step

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "docs" / "contract.md"
_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`([a-z]+(?:\.[a-z0-9_]+)+)`\s*\|(.*)\|\s*(`[a-z_]+`|—)\s*\|\s*$")


def step_tables(text: str) -> list[list[tuple[int, str, str | None]]]:
    """Every table of step rows in `text`, in order: [(position, id, error code or None)]."""
    tables: list[list[tuple[int, str, str | None]]] = []
    current: list[tuple[int, str, str | None]] | None = None
    for line in text.splitlines():
        match = _ROW.match(line)
        if match:
            if current is None:
                current = []
                tables.append(current)
            code = None if match.group(4) == "—" else match.group(4).strip("`")
            current.append((int(match.group(1)), match.group(2), code))
        elif not line.startswith("|"):
            current = None
    return tables


def _declared() -> dict[str, tuple[Step, ...]]:
    lists = {"JSON rules": JSON_RULES}
    lists.update((op.name, op.steps) for op in OPS.values())
    return lists


def test_every_op_has_steps() -> None:
    assert all(op.steps for op in OPS.values())
    ids = [step.id for steps in _declared().values() for step in steps]
    assert len(ids) == len(set(ids)), "a step id is declared twice"


@pytest.mark.parametrize("name", list(_declared()))
def test_document_lists_the_registry_steps(name: str) -> None:
    """One table in docs/contract.md lists exactly this op's steps (or the JSON rules), in the registry's
    order, numbered 1..n, each with the error code the registry gives it."""
    declared = [(i, step.id, step.code) for i, step in enumerate(_declared()[name], start=1)]
    tables = step_tables(CONTRACT.read_text(encoding="utf-8"))
    matching = [table for table in tables if {row[1] for row in table} & {row[1] for row in declared}]
    assert len(matching) == 1, f"{name}: {len(matching)} tables in docs/contract.md list its steps (one wanted)"
    assert matching[0] == declared


def test_document_has_no_step_the_registry_lacks() -> None:
    known = {step.id for steps in _declared().values() for step in steps}
    listed = {row[1] for table in step_tables(CONTRACT.read_text(encoding="utf-8")) for row in table}
    assert listed <= known, f"docs/contract.md lists steps the registry does not declare: {sorted(listed - known)}"


def test_step_table_parser_sees_a_planted_change() -> None:
    """The check above can fail: a swapped, a renamed and a missing row each change what is parsed."""
    text = CONTRACT.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if _ROW.match(line)]
    assert len(rows) == sum(len(steps) for steps in _declared().values())
    original = step_tables(text)
    assert step_tables(text.replace(rows[0], rows[0].replace("`", "'"))) != original
    assert step_tables(text.replace("`norm.nfc_again`", "`norm.nfc2`")) != original
    assert step_tables(text.replace(rows[1] + "\n", "")) != original


# Built from pieces so that this file does not match itself.
_OUTSIDE = re.compile("|".join([r"\.\./" + "shared", "contract-v1" + r"\.md", r"/work/", r"/root/", r"/home/"]))
_RELATIVE = re.compile(r"(?<![\w./])((?:\.\./)+)[\w.-]")


def _tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    paths = [ROOT / name for name in listed.decode().split("\0") if name]
    out = []
    for path in paths:
        if path.is_file() and path.suffix not in {".whl", ".wasm", ".png", ".gz"}:
            try:
                path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            out.append(path)
    return out


def outside_references(path: Path, root: Path = ROOT) -> list[str]:
    """Every line of `path` that names a path outside the repository at `root`: a known outside place, or
    a relative path with more `../` than the file is deep."""
    found = []
    depth = len(path.parent.relative_to(root).parts)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if _OUTSIDE.search(line) or any(m.group(1).count("../") > depth for m in _RELATIVE.finditer(line)):
            found.append(f"{path.relative_to(root)}:{number}: {line.strip()[:120]}")
    return found


def test_nothing_points_outside_the_repository() -> None:
    files = _tracked_text_files()
    assert len(files) > 50
    found = [hit for path in files if path != Path(__file__).resolve() for hit in outside_references(path)]
    assert found == [], "references outside the repository:\n" + "\n".join(found)


def test_outside_reference_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    planted = tmp_path / "docs" / "planted.md"
    planted.write_text("see ../" + "shared/spec.md\nand ../../elsewhere/x\nbut ../schemas is fine\n", encoding="utf-8")
    hits = outside_references(planted, tmp_path)
    assert [hit.split(":")[1] for hit in hits] == ["1", "2"], hits
