"""What each step of an op received and produced, seen from the op's own code path.

Every step of the reference's ops (the ids of docs/contract.md and harness/model/registry.py) calls
``note(step, value)`` with what it produced. Outside ``recording()`` that is one global test and nothing
else, so the ops that ship cost what they did; inside it, the values are kept in order. ``trace`` (in
``reference/tracing.py``) runs an op once inside ``recording()``: the same function, not a copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

_RECORD: list[tuple[str, Any]] | None = None
Function = TypeVar("Function", bound=Callable[..., Any])

# Each op whose function notes its steps -> that function: filled by ``@traced`` where the function is
# defined, so the list of traced ops is never kept apart from the code (``reference/tracing.py`` serves it).
TRACED_FUNCTIONS: dict[str, Callable[..., Any]] = {}


def traced(function: Function) -> Function:
    """Mark an op's function as noting its steps: ``trace(op, args)`` serves the op of its name."""
    TRACED_FUNCTIONS[function.__name__] = function
    return function


def note(step: str, value: Any) -> None:
    """Record what `step` produced, when a trace is being recorded."""
    if _RECORD is not None:
        _RECORD.append((step, value))


@contextmanager
def recording() -> Iterator[list[tuple[str, Any]]]:
    """Keep every note made inside the block, in order (nested recordings each keep their own)."""
    global _RECORD
    outer, _RECORD = _RECORD, []
    try:
        yield _RECORD
    finally:
        _RECORD = outer
