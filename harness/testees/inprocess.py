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
from harness.model.traces import TRACE_OP
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
    # trace(op, args) -> the trace's JSON text: the optional diagnostic, for the ops description["traces"] lists
    tracer: Callable[[str, dict[str, Any]], Any] | None = None
    serves: frozenset[str] | None = None  # the ops its declaration says it serves (None: every op)
    # op name -> the function ``resolve`` gave for it (resolved once: a lookup per call cost as much as a call)
    _functions: dict[str, Callable[..., Any]] = field(default_factory=dict, repr=False, compare=False)

    def call(self, op_name: str, args: dict[str, Any]) -> dict[str, Any]:
        """One op; ``trace`` (TRACE_OP) with ``{"op", "args"}`` is the trace of one call of that op."""
        try:
            if op_name == TRACE_OP:
                if self.tracer is None or args.get("op") not in self.description.get("traces", ()):
                    message = f"{self.name} does not trace {args.get('op')!r}"
                    return {"error": {"code": "bad_request", "message": message}}
                return {"ok": self.tracer(args["op"], args["args"])}
            if self.serves is not None and op_name not in self.serves:
                return {"error": {"code": "bad_request", "message": f"{self.name} does not serve {op_name!r}"}}
            function = self._functions.get(op_name)
            if function is None:
                function = self._functions[op_name] = self.resolve(get_op(op_name))
            return {"ok": function(**args)}
        except Exception as exc:  # noqa: BLE001 (every failure becomes a reported result, never an aborted run)
            return error_response(exc)

    def call_batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        return [self.call(op_name, args) for op_name, args in calls]

    def close(self) -> None:
        pass
