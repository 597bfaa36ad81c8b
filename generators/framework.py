"""What every fixture generator shares: cases, expectations from the reference, the document layout,
canonical formatting, atomic writes, the released-fixture guard and drift checks.

Expectations are computed here, from the reference only; a generator module only lists inputs.
"""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from harness.model import hostvalues
from harness.model.registry import check_args, get_op
from reference import ContractError, unicode_versions

from . import unicode_stability

ROOT = Path(__file__).resolve().parent.parent
FIXTURES_DIR = ROOT / "fixtures"
PROMOTED_DIR = Path(__file__).resolve().parent / "promoted"
PROMOTED_NOTE = "Found by the divergence fuzzer and promoted with `python -m harness promote`."
SCHEMA_PATH = "schemas/fixture-v1.schema.json"  # relative to fixtures/


class GeneratorError(Exception):
    """A generator refused to run or found its inputs wrong; the message says what to do."""


@dataclass(frozen=True)
class Case:
    id: str
    op: str
    comment: str
    flags: tuple[str, ...]
    args: dict[str, Any]  # Python host values, exactly as passed to the binding function


@dataclass
class FixtureSpec:
    family: str  # "write-gate"
    version: int  # 1
    status: str  # "unreleased" or "released"
    generator_version: str
    module: str  # the generator module, recorded in the file
    notes: dict[str, str]  # flag -> what it marks
    cases: Callable[[], list[Case]]
    min_cases: int = 1
    ops: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return f"{self.family}-v{self.version}"

    @property
    def path(self) -> Path:
        return FIXTURES_DIR / f"{self.name}.json"

    @property
    def promoted_path(self) -> Path:
        return PROMOTED_DIR / f"{self.name}.json"

    def all_cases(self) -> list[Case]:
        """The module's cases, then the promoted ones (generators/promoted/<name>.json), in file order."""
        cases = list(self.cases())
        if self.promoted_path.exists():
            document = json.loads(self.promoted_path.read_text(encoding="utf-8"))
            for raw in document["cases"]:
                cases.append(Case(raw["id"], raw["op"], raw["comment"], tuple(raw["flags"]),
                                  hostvalues.decode_args(raw["args"])))
        return cases

    def all_notes(self) -> dict[str, str]:
        notes = dict(self.notes)
        if self.promoted_path.exists():
            notes.setdefault("promoted", PROMOTED_NOTE)
        return notes


def expectation(op_name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run the reference; a contract error becomes ``{"error": code}``, anything else is a bug."""
    op = get_op(op_name)
    try:
        result = op.reference(**args)
    except ContractError as exc:
        return {"error": exc.code}
    if op.result_kind == "json":
        result = json.loads(result)
    return {"result": result}


def build_document(spec: FixtureSpec) -> dict[str, Any]:
    cases = spec.all_cases()
    notes = spec.all_notes()
    problems: list[str] = []
    seen: set[str] = set()
    used_flags: set[str] = set()
    tests = []
    for case in cases:
        if case.id in seen:
            problems.append(f"duplicate case id {case.id!r}")
        seen.add(case.id)
        op = get_op(case.op)
        if spec.ops and case.op not in spec.ops:
            problems.append(f"{case.id}: op {case.op} does not belong in {spec.name}")
        try:
            check_args(op, case.args)
        except ValueError as exc:
            problems.append(f"{case.id}: {exc}")
            continue
        unknown_flags = [flag for flag in case.flags if flag not in notes]
        if unknown_flags:
            problems.append(f"{case.id}: flags without a note: {', '.join(unknown_flags)}")
        if not case.comment:
            problems.append(f"{case.id}: no comment")
        used_flags.update(case.flags)
        problems += unicode_stability.check_args(case.id, case.args)
        tests.append(
            {
                "id": case.id,
                "op": case.op,
                "comment": case.comment,
                "flags": list(case.flags),
                "args": hostvalues.encode_args(case.args),
                "expect": expectation(case.op, case.args),
            }
        )
    unused = sorted(set(notes) - used_flags)
    if unused:
        problems.append(f"notes for flags no case uses: {', '.join(unused)}")
    if len(tests) < spec.min_cases:
        problems.append(f"{spec.name} needs at least {spec.min_cases} cases, has {len(tests)}")
    if problems:
        raise GeneratorError(f"{spec.name}: the case list is wrong:\n  " + "\n  ".join(problems))
    return {
        "fixture": spec.name,
        "schema": SCHEMA_PATH,
        "version": spec.version,
        "status": spec.status,
        "generator": {"name": spec.module, "version": spec.generator_version},
        "unicodeVersions": {
            "reference": json.loads(unicode_versions()),
            "inputsStableAcross": [unicode_stability.OLDEST, unicode_stability.NEWEST],
        },
        "notes": dict(sorted(notes.items())),
        "numberOfTests": len(tests),
        "tests": tests,
    }


def canonical(document: Any) -> str:
    """The one byte form of a fixture: 2-space indent, ASCII only (\\u escapes), trailing newline."""
    return json.dumps(document, indent=2, ensure_ascii=True, allow_nan=False) + "\n"


def render(spec: FixtureSpec) -> str:
    return canonical(build_document(spec))


def atomic_write(path: Path, text: str) -> None:
    """Write to a temporary file in the same directory, fsync, then rename over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="ascii", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def committed_status(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("status")
    except (ValueError, AttributeError):
        return None


def write(spec: FixtureSpec, path: Path | None = None) -> str:
    """Regenerate one fixture file. Returns "written" or "unchanged"; refuses to touch a released one."""
    path = path or spec.path
    text = render(spec)
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        return "unchanged"
    if committed_status(path) == "released":
        raise GeneratorError(
            f"{path.name} is released and immutable, and the reference now produces different content.\n"
            f"Released fixtures are never rewritten: add {spec.family}-v{spec.version + 1} (a new generator "
            f"module with version {spec.version + 1}) for the new behaviour, and keep v{spec.version} as it is."
        )
    atomic_write(path, text)
    return "written"


def diff(spec: FixtureSpec, path: Path | None = None) -> str:
    """A unified diff from the file on disk to a fresh regeneration ("" when they are equal)."""
    path = path or spec.path
    text = render(spec)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if old == text:
        return ""
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=f"{path.name} (committed)",
            tofile=f"{path.name} (regenerated from the reference)",
        )
    )
