"""Running fixture cases on an implementation, outside pytest (CLI, mutation checks, reports)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from . import protocol
from .compare import mismatch
from .fixtures import FixtureCase


@dataclass(frozen=True)
class Failure:
    case: FixtureCase
    problem: str


def run_cases(impl: Any, cases: Iterable[FixtureCase]) -> tuple[int, list[Failure]]:
    """(number of cases run, failures), every case through the protocol's request handling."""
    count = 0
    failures = []
    for case in cases:
        count += 1
        response = protocol.handle(impl, {"id": case.id, "op": case.op, "args": case.raw_args})
        problem = mismatch(case.op, case.expect, response)
        if problem is not None:
            failures.append(Failure(case, problem))
    return count, failures
