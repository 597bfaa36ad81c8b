"""What every implementation is to the harness, in process or not: the one call path."""

from __future__ import annotations

from typing import Any, Protocol

Response = dict[str, Any]  # {"ok": <return value>} or {"error": {"code": ..., "message": ...}}


class Testee(Protocol):
    """An implementation, started: ``harness.testees.impls.get_impl(name)`` returns one."""

    name: str
    description: dict[str, Any]  # its self-description (the answer to `start`)

    def call(self, op_name: str, args: dict[str, Any]) -> Response:
        """One op on decoded host values; never raises (a failure is an error response). ``trace``
        (harness.model.traces.TRACE_OP) with ``{"op", "args"}`` asks for the trace of one call, for an op
        ``description["traces"]`` lists (docs/traces.md)."""
        ...

    def call_batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[Response]:
        """Many calls in one round trip, answered in order."""
        ...

    def close(self) -> None:
        ...
