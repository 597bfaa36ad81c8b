"""The specification lives in the repository: docs/contract.md lists every op's steps as the op registry
declares them, and no file of the project points outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from harness.model import contract_doc
from harness.model.contract_doc import step_tables
from harness.model.registry import FAMILIES, OPS

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "docs" / "contract.md"


def test_the_specification_lists_the_families_steps() -> None:
    """docs/contract.md lists every memgate op's steps (and the JSON rules) as the family file declares them:
    one table each, in the family's order, numbered 1..n, with the error code the family gives each step, and
    no step the family lacks (harness/model/contract_doc.py, which `python -m harness lint` runs on every
    family)."""
    (memgate,) = [family for family in FAMILIES if family.name == "memgate"]
    assert memgate.contract == CONTRACT
    assert set(contract_doc.declared(memgate)) == {"JSON rules", *OPS}
    assert contract_doc.problems(memgate) == []


def test_every_op_has_steps() -> None:
    assert all(op.steps for op in OPS.values())
    ids = [step for family in FAMILIES for rows in contract_doc.declared(family).values() for _, step, _ in rows]
    assert len(ids) == len(set(ids)), "a step id is declared twice"


def test_step_table_parser_sees_a_planted_change(tmp_path: Path) -> None:
    """The check above can fail: a swapped, a renamed and a missing row each change what is parsed, and each
    is a problem of the family's specification."""
    (memgate,) = [family for family in FAMILIES if family.name == "memgate"]
    text = CONTRACT.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if contract_doc.ROW.match(line)]
    assert len(rows) == sum(len(steps) for steps in contract_doc.declared(memgate).values())
    original = step_tables(text)
    assert step_tables(text.replace(rows[0], rows[0].replace("`", "'"))) != original
    assert step_tables(text.replace("`norm.nfc_again`", "`norm.nfc2`")) != original
    assert step_tables(text.replace(rows[1] + "\n", "")) != original
    planted = tmp_path / "contract.md"
    for changed, says in ((text.replace("`norm.nfc_again`", "`norm.nfc2`"), "norm.nfc2"),
                          (text.replace(rows[1] + "\n", ""), "not its steps"),
                          (text.replace(rows[0], rows[0].replace("| `invalid_json` |", "| — |")), "not its steps"),
                          (text + "\n| 1 | `norm.extra` | planted | — |\n", "does not declare: norm.extra")):
        planted.write_text(changed, encoding="utf-8")
        assert any(says in problem for problem in contract_doc.problems(memgate, planted)), says


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
