"""Promotion: a divergence from a report becomes a fixture case, through the generator.

The case (inputs only) is appended to ``generators/promoted/<fixture>.json``, which the fixture's
generator reads after its own cases; the expectation is then computed by the reference, like every
other case, and the fixture file is rewritten atomically. The target is the newest version of the
op's fixture family; a released fixture is never touched (the command says to add the next version).
Inputs that the Unicode-stability check refuses (version skew) cannot become cases: they belong in
``expected/<impl>.json``.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from harness.model import hostvalues
from harness.model.registry import get_op

from . import FIXTURES
from .framework import FixtureSpec, GeneratorError, atomic_write, read_pins, write

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def target_spec(op_name: str) -> FixtureSpec:
    family = get_op(op_name).fixture
    if family is None:
        raise GeneratorError(f"{op_name} is not pinned by any fixture")
    specs = sorted((s for s in FIXTURES.values() if s.family == family), key=lambda s: s.version)
    if not specs:
        raise GeneratorError(f"no generator for the {family} fixture family")
    latest = specs[-1]
    if latest.name in read_pins(latest.path.parent):
        raise GeneratorError(f"{latest.name} is released and immutable: add {family}-v{latest.version + 1} "
                             f"(generators/{family.replace('-', '_')}_v{latest.version + 1}.py) and promote into it")
    return latest


def promote(report: dict[str, Any], index: int, case_id: str, comment: str | None = None,
            steps: tuple[str, ...] = ()) -> str:
    """Append divergence `index` (1-based) of `report` as case `case_id`, pinning `steps` (the ids of
    docs/contract.md; a case whose reference answer is an error also pins the step that failed, so
    `steps` may be empty for it) and regenerate the fixture; nothing changes when the generator refuses."""
    divergences = report.get("divergences", [])
    if not 1 <= index <= len(divergences):
        raise GeneratorError(f"the report has {len(divergences)} divergence(s); --index must be 1..{len(divergences)}")
    if not _ID.match(case_id):
        raise GeneratorError(f"case id {case_id!r} must match {_ID.pattern}")
    divergence = divergences[index - 1]
    spec = target_spec(divergence["op"])
    hostvalues.decode_args(divergence["args"])  # a malformed report fails here, before anything is written
    path = spec.promoted_path
    document = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"fixture": spec.name, "cases": []}
    if any(c["id"] == case_id for c in document["cases"]) or any(c.id == case_id for c in spec.cases()):
        raise GeneratorError(f"{spec.name} already has a case {case_id!r}")
    explained = comment or f"Promoted divergence ({divergence['cause']}): {divergence.get('explanation', '')}".strip()
    case = {"id": case_id, "op": divergence["op"], "comment": explained, "flags": ["promoted"],
            "args": divergence["args"]}
    if steps:
        case["steps"] = list(steps)
    document["cases"].append(case)
    before = path.read_text(encoding="utf-8") if path.exists() else None
    atomic_write(path, json.dumps(document, indent=2, ensure_ascii=True) + "\n")
    try:
        outcome = write(spec)
    except GeneratorError:
        if before is None:
            os.unlink(path)
        else:
            atomic_write(path, before)
        raise
    return f"{spec.name}: case {case_id} added ({outcome}); expectation computed by the reference"
