"""What every fixture generator shares: cases, expectations from the reference, the document layout,
canonical formatting, atomic writes, releases and their pins, and drift checks.

Expectations are computed here, from the reference only (the behaviour of the fixture's contract
version); a generator module only lists inputs.

A released fixture is data: `release` writes it once with status "released" and pins its bytes
(sha256) in `released.json` beside it. From then on it is never regenerated: `write` leaves it as it
is, `check` and the lint compare its bytes with the pin, and a behaviour change goes into the next
version (docs/fixtures.md).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.model import fixture_schema, hostvalues, paths, unicode_tables
from harness.model.files import atomic_write
from harness.model.registry import check_args, get_op
from harness.testees.impls import declaration, oracle
from reference import unicode_versions
from reference.errors import contract_error

from . import steps, unicode_stability
from .cases import Case

ROOT = paths.ROOT  # the project (harness/model/paths.py): in a source checkout, the checkout
FIXTURES_DIR = paths.FIXTURES
PROMOTED_DIR = ROOT / "generators" / "promoted"  # promoted witnesses: the project's, never an installed copy's
PROMOTED_NOTE = "Found by the divergence fuzzer and promoted with `python -m harness promote`."
SCHEMA_PATH = "../schemas/fixture-v1.schema.json"  # relative to fixtures/
PINS_NAME = "released.json"  # beside the fixture files: the released ones and their sha256
PINS_SCHEMA = "released-fixtures-v1"


class GeneratorError(Exception):
    """A generator refused to run or found its inputs wrong; the message says what to do."""


@dataclass
class FixtureSpec:
    family: str  # "write-gate"
    version: int  # 1
    generator_version: str
    module: str  # the generator module, recorded in the file
    notes: dict[str, str]  # flag -> what it marks
    cases: Callable[[], list[Case]]
    min_cases: int = 1
    ops: tuple[str, ...] = field(default=())
    contract: str = "v1"  # the contract version whose behaviour the expectations record
    # flag -> the steps a result case with that flag pins (generators/steps.py); error cases name the
    # step that failed, as the reference reports it.
    flag_steps: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Where its file and release pins live, and its promoted witnesses: the project's fixtures/ and
    # generators/promoted/ unless its op family's file names a folder (generators/__init__.py sets both).
    folder: Path | None = None
    promoted_folder: Path | None = None

    @property
    def name(self) -> str:
        return f"{self.family}-v{self.version}"

    @property
    def path(self) -> Path:
        return (self.folder or FIXTURES_DIR) / f"{self.name}.json"

    @property
    def promoted_path(self) -> Path:
        return (self.promoted_folder or PROMOTED_DIR) / f"{self.name}.json"

    def all_cases(self) -> list[Case]:
        """The module's cases, then the promoted ones (generators/promoted/<name>.json), in file order."""
        cases = list(self.cases())
        if self.promoted_path.exists():
            document = json.loads(self.promoted_path.read_text(encoding="utf-8"))
            for raw in document["cases"]:
                cases.append(Case(raw["id"], raw["op"], raw["comment"], tuple(raw["flags"]),
                                  hostvalues.decode_args(raw["args"]), tuple(raw.get("steps", ()))))
        return cases

    def all_notes(self) -> dict[str, str]:
        notes = dict(self.notes)
        if self.promoted_path.exists():
            notes.setdefault("promoted", PROMOTED_NOTE)
        return notes


def outcome(op_name: str, args: dict[str, Any], contract: str = "v1") -> tuple[dict[str, Any], str | None]:
    """Run the reference's behaviour of `contract`: (the expectation, the step that failed or None). A
    contract error becomes ``{"error": code}``, anything else is a bug."""
    op = get_op(op_name)
    try:
        result = op.reference_for(contract)(**args)
    except (ValueError, TypeError) as exc:
        error = contract_error(exc)
        if error is None:
            raise GeneratorError(f"{op_name}{_shown(args)}: the reference raised {type(exc).__name__}: {exc}, "
                                 "not a contract error (a ValueError or TypeError with a str `code` and `step`)"
                                 ) from exc
        code, step = error
        if step is None:
            raise GeneratorError(f"{op_name}: the reference raised {code} without naming its step") from None
        return {"error": code}, step
    if op.result_kind == "json":
        result = json.loads(result)
    return {"result": result}, None


def _shown(args: dict[str, Any]) -> str:
    return f"({', '.join(f'{k}={v!r}'[:80] for k, v in args.items())})"


def expectation(op_name: str, args: dict[str, Any], contract: str = "v1") -> dict[str, Any]:
    return outcome(op_name, args, contract)[0]


def build_document(spec: FixtureSpec, status: str = "unreleased") -> dict[str, Any]:
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
        expect, failed_step = outcome(case.op, case.args, spec.contract)
        pinned, step_problems = steps.pinned_steps(case, failed_step, spec.flag_steps)
        problems += step_problems
        tests.append(
            {
                "id": case.id,
                "op": case.op,
                "comment": case.comment,
                "flags": list(case.flags),
                "steps": list(pinned),
                "args": hostvalues.encode_args(case.args),
                "expect": expect,
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
        "contract": spec.contract,
        "status": status,
        "generator": {"name": spec.module, "version": spec.generator_version},
        "unicodeVersions": {
            "reference": reference_versions(),
            "inputsStableAcross": unicode_stability.versions_in_play(),
        },
        "notes": dict(sorted(notes.items())),
        "numberOfTests": len(tests),
        "tests": tests,
    }


def reference_versions() -> dict[str, Any]:
    """The Unicode data the reference reads, the same on every Python it supports: its case mapping as the
    versions of all of them (its declaration's unicode_platforms; the inputs are stable across them,
    unicode_stability), so a fixture is byte for byte the same whichever of them generates it."""
    running = json.loads(unicode_versions())
    declared = declaration(oracle())
    supported = sorted(declared.platform_versions("case_mapping"), key=unicode_tables.version_key)
    if running["case_mapping"] not in supported:
        python = ".".join(map(str, sys.version_info[:2]))
        raise GeneratorError(
            f"this Python ({python}) lowercases with Unicode {running['case_mapping']}, not one of the versions of "
            f"the Pythons the reference supports ({', '.join(supported) or 'none declared'}; unicode_platforms in "
            f"{declared.source}): add it there, with its table (python -m harness.tools.make_unicode_tables --versions "
            f"{running['case_mapping']}), or generate on a supported Python")
    return {**running, "case_mapping": supported}


def canonical(document: Any) -> str:
    """The one byte form of a fixture: 2-space indent, ASCII only (\\u escapes), trailing newline."""
    return json.dumps(document, indent=2, ensure_ascii=True, allow_nan=False) + "\n"


def schema_problems(document: dict[str, Any]) -> list[str]:
    """Each way a fixture document breaks its schema (schemas/fixture-v1.schema.json with the per-op rules of
    the op registry, harness/model/fixture_schema.py), with where."""
    import jsonschema

    schema = fixture_schema.derive(json.loads((paths.SCHEMAS / "fixture-v1.schema.json").read_text(encoding="utf-8")))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document), key=lambda e: list(e.absolute_path))
    return [f"at {'/'.join(str(p) for p in error.absolute_path) or '(top level)'}: {error.message[:300]}"
            for error in errors]


def render(spec: FixtureSpec, status: str = "unreleased") -> str:
    """The fixture file's text; a GeneratorError when the document would break its schema (nothing is
    written: every writer renders first)."""
    document = build_document(spec, status)
    problems = schema_problems(document)
    if problems:
        raise GeneratorError(f"{spec.name}: the generated fixture breaks its schema ({len(problems)} problem(s)); "
                             f"first: {problems[0]}; fix the generator's cases or the op's family file")
    return canonical(document)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def read_pins(directory: Path) -> dict[str, dict[str, Any]]:
    """The released fixtures of `directory` (``released.json``): name -> {"sha256", "numberOfTests"}."""
    path = directory / PINS_NAME
    if not path.exists():
        return {}
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GeneratorError(f"{path}: cannot read the release pins: {exc}") from None
    pins = document.get("fixtures") if isinstance(document, dict) and document.get("schema") == PINS_SCHEMA else None
    if not isinstance(pins, dict) or not all(
            isinstance(p, dict) and isinstance(p.get("sha256"), str) and isinstance(p.get("numberOfTests"), int)
            for p in pins.values()):
        raise GeneratorError(f"{path}: not a {PINS_SCHEMA} document "
                             '({"schema": ..., "fixtures": {name: {"sha256", "numberOfTests"}}})')
    return pins


def pin_problem(name: str, path: Path, pins: dict[str, dict[str, Any]]) -> str | None:
    """Why the released fixture at `path` is not byte for byte what was released, or None."""
    if not path.exists():
        return f"{path.name} is released (pinned in {PINS_NAME}) but missing; restore it from version control"
    found = sha256(path.read_text(encoding="utf-8"))
    if found != pins[name]["sha256"]:
        return (f"{path.name} is released, but its bytes changed (sha256 {found[:12]}..., pinned "
                f"{pins[name]['sha256'][:12]}...); released fixtures are immutable: restore it from version control")
    return None


def write(spec: FixtureSpec, path: Path | None = None) -> str:
    """Regenerate one unreleased fixture file: "written" or "unchanged". A released one is never
    regenerated: "released" (its bytes checked against the pin)."""
    path = path or spec.path
    pins = read_pins(path.parent)
    if spec.name in pins:
        problem = pin_problem(spec.name, path, pins)
        if problem:
            raise GeneratorError(problem)
        return "released (pinned; never regenerated)"
    text = render(spec)
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        return "unchanged"
    atomic_write(path, text)
    return "written"


def release(spec: FixtureSpec, path: Path | None = None) -> str:
    """Release one fixture: write it with status "released" and pin its sha256 in released.json."""
    path = path or spec.path
    pins = read_pins(path.parent)
    if spec.name in pins:
        raise GeneratorError(f"{spec.name} is already released")
    text = render(spec, "released")
    atomic_write(path, text)
    pins[spec.name] = {"sha256": sha256(text), "numberOfTests": json.loads(text)["numberOfTests"]}
    atomic_write(path.parent / PINS_NAME, canonical({"schema": PINS_SCHEMA, "fixtures": dict(sorted(pins.items()))}))
    return f"released: {path.name} pinned (sha256 {pins[spec.name]['sha256'][:12]}...)"


def diff(spec: FixtureSpec, path: Path | None = None) -> str:
    """A unified diff from the file on disk to a fresh regeneration ("" when they are equal). A released
    fixture is not regenerated: the text says how its bytes differ from the pin ("" when they do not)."""
    path = path or spec.path
    pins = read_pins(path.parent)
    if spec.name in pins:
        return (pin_problem(spec.name, path, pins) or "")
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
