"""Fixture generators: one module per fixture version. Expectations come from the reference only.

The memgate family's generators are the modules here; another op family names its own in its family file
(``"fixtures": {"folder": ..., "generators": [...]}``, schemas/family-v1.schema.json): each a .py file that
defines ``SPEC``, a ``generators.framework.FixtureSpec`` of that family's ops. Its fixture files and release
pins go in the folder the family file names, its promoted witnesses in ``promoted/`` beside the generator.
A generator that does not load is a line of ``PROBLEMS`` (every generator command and the fixture lint stop
on it, status 2), never a traceback.
"""

from __future__ import annotations

from pathlib import Path

from harness.model import families as family_files
from harness.model.registry import FAMILIES

from .dedup_context_v1 import SPEC as DEDUP_CONTEXT_V1
from .framework import FixtureSpec
from .write_gate_v1 import SPEC as WRITE_GATE_V1


def _of(family: family_files.Family, path: Path) -> FixtureSpec:
    """The FixtureSpec of one of the family's generator files, placed in the family's folders."""
    where = f"family file {family.path}: fixtures/generators: {path}"
    try:
        module = family_files.load_file(f"parity_generator_{family.name}_{path.stem}", path)
    except Exception as exc:  # noqa: BLE001 - the generator's own import failing: its message, not a traceback
        raise ValueError(f"{where}: does not import ({type(exc).__name__}: {exc}); fix: make it importable") from None
    spec = getattr(module, "SPEC", None)
    if not isinstance(spec, FixtureSpec):
        raise ValueError(f"{where}: defines no SPEC (a generators.framework.FixtureSpec); fix: define one "
                         "(docs/fixtures.md)")
    own = {op["name"] for op in family.ops}
    if not spec.ops or not set(spec.ops) <= own:
        raise ValueError(f"{where}: SPEC.ops {list(spec.ops)} must name ops of the family {family.name} "
                         f"({', '.join(sorted(own))}); fix: list the ops its cases call")
    spec.folder = family.fixture_folder
    spec.promoted_folder = path.parent / "promoted"
    return spec


def _load() -> tuple[dict[str, FixtureSpec], list[str]]:
    found: dict[str, FixtureSpec] = {spec.name: spec for spec in (WRITE_GATE_V1, DEDUP_CONTEXT_V1)}
    problems: list[str] = []
    for family in FAMILIES:
        for path in family.generators:
            try:
                spec = _of(family, path)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            if spec.name in found:
                problems.append(f"family file {family.path}: fixtures/generators: {path}: fixture {spec.name!r} is "
                                "generated already by another generator; fix: give it its own fixture family name")
                continue
            found[spec.name] = spec
    return found, problems


FIXTURES, PROBLEMS = _load()
