"""`trace(op, args)`: one call of an op, with what each of its steps produced (schemas/trace-v1.schema.json).

The op runs once, the function that ships, inside ``steps.recording()``; its steps' notes are the trace.
The trace starts with step ``args`` (each argument as the op received it, in the host view every
implementation writes: ``host_view``) and ends in the op's own outcome: its result, or its error code
with the step that raised it. Values are written so that no host re-encodes them: a float as
``{"$f64": float.hex()}`` (bit-exact), a string holding a surrogate as ``{"$codepoints": [...]}``, tuples
as arrays.

The reference traces every op whose function is marked ``@traced`` (``TRACED``: all but unicode_versions); a step that
runs once per candidate notes once per candidate, and decide_write's normalizations note their own
``norm.*`` steps (``gate.normalize``'s, then each candidate's before ``gate.exact``). build_dedup_context
notes its per-item steps once per item it reaches, in the order the reference applies them (the cap is
checked before an item is collapsed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from . import dedup_context, normalize, write_gate
from .errors import contract_error
from .steps import TRACED_FUNCTIONS, recording

SCHEMA = "trace-v1"
_MODULES = (normalize, write_gate, dedup_context)  # imported for their @traced functions
_FUNCTIONS = dict(TRACED_FUNCTIONS)
TRACED = tuple(_FUNCTIONS)  # the ops trace() serves: every function marked @traced (reference/steps.py)


def encode(value: Any) -> Any:
    """A value as trace JSON: bit-exact floats, strings as code points where they hold a surrogate."""
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return {"$f64": value.hex()}
    if isinstance(value, str):
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            return {"$codepoints": [ord(ch) for ch in value]}
        return value
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {str(key): encode(item) for key, item in value.items()}
    return {"$repr": repr(value)}


_I64 = 2**63


def host_view(value: Any) -> Any:
    """An argument as the ``args`` step shows it, the same in every implementation (the Rust core's
    ``host::host_view``): a string (code points when it holds a surrogate), a float bit-exact, a boolean,
    an integer as itself within i64 and as ``{"$int": "<decimal>"}`` beyond, any other value as
    ``{"$type": <its type's name>}`` (``NoneType``, ``list``, ``dict``)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -_I64 <= value < _I64 else {"$int": str(value)}
    if isinstance(value, (float, str)):
        return encode(value)
    return {"$type": type(value).__name__}


Trace = Callable[[str, dict[str, Any]], str]


def tracer(functions: Mapping[str, Callable[..., Any]], who: str = "the reference") -> Trace:
    """The trace request of a module serving ``functions`` (op -> its @traced function, looked up at each call):
    ``trace(op, args)``, the trace of one call as compact JSON; an op it does not trace is a ValueError. Another
    op family's reference serves its traces with it (docs/examples/tags/src/tags_ref.py) rather than writing the
    document again."""
    served = functions

    def trace(op: str, args: dict[str, Any]) -> str:
        function = served.get(op)
        if function is None:
            raise ValueError(f"{who} traces {', '.join(served)}, not {op!r}")
        steps: list[dict[str, Any]] = [{"step": "args",
                                        "value": {name: host_view(value) for name, value in args.items()}}]
        with recording() as notes:
            try:
                outcome: dict[str, Any] = {"result": encode(function(**args))}
            except (ValueError, TypeError) as exc:
                error = contract_error(exc)
                if error is None:
                    raise
                outcome = {"error": error[0], "step": error[1]}
        steps += [{"step": step, "value": encode(value)} for step, value in notes]
        return json.dumps({"schema": SCHEMA, "op": op, "steps": steps, "outcome": outcome},
                          ensure_ascii=False, separators=(",", ":"))

    return trace


trace = tracer(_FUNCTIONS)  # the memgate reference's: every op it marks @traced
