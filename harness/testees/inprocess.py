"""An implementation called in this process: a module (or any resolver) with one function per op.

Kept free of the harness's process machinery (subprocess, threads, jsonschema) so that the testee
side of the protocol can run anywhere the reference runs: ``python -m harness run`` serves an
``InProcess`` over stdin/stdout, and so does the Pyodide testee (pyodide_host/), inside WebAssembly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.model.registry import Op, get_op
from reference.errors import CODES

_CODE = re.compile(r"^([a-z_]+):")


def error_response(exc: BaseException) -> dict[str, Any]:
    """Map an exception to a response. Only ValueError/TypeError with a contract code count as contract errors."""
    message = str(exc)
    match = _CODE.match(message)
    if isinstance(exc, (ValueError, TypeError)) and match and match.group(1) in CODES and \
            not isinstance(exc, UnicodeError):
        return {"error": {"code": match.group(1), "message": message}}
    return {"error": {"code": "unexpected_exception", "message": f"{type(exc).__name__}: {message}"}}


@dataclass
class InProcess:
    """An implementation called in this process (a module with one function per op)."""

    name: str
    resolve: Callable[[Op], Callable[..., Any]]
    description: dict[str, Any] = field(default_factory=dict)  # what a command testee answers to `start`

    def call(self, op_name: str, args: dict[str, Any]) -> dict[str, Any]:
        function = self.resolve(get_op(op_name))
        try:
            return {"ok": function(**args)}
        except Exception as exc:  # noqa: BLE001 (every failure becomes a reported result, never an aborted run)
            return error_response(exc)

    def call_batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        return [self.call(op_name, args) for op_name, args in calls]

    def close(self) -> None:
        pass
