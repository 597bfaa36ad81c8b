"""The one JSON-lines protocol every implementation speaks (docs/protocol.md, version 2; JSON Schema
schemas/protocol-v2.schema.json).

Start:    ``{"id": X, "op": "start", "args": {"protocol": 2, "ops": <op table>}}`` -> ``{"id": X, "ok":
          <self-description>}`` (protocol, name, version, language, unicode, contracts)
Request:  ``{"id": <string|integer>, "op": <op name>, "args": {<python parameter name>: <host value>}}``
Response: ``{"id": ..., "ok": <return value>}`` or ``{"id": ..., "error": {"code": ..., "message": ...}}``
Batch:    ``{"id": B, "batch": [request, ...]}`` -> ``{"id": B, "batch": [response, ...]}``, in order
Trace:    ``{"id": T, "op": "trace", "args": {"op": <op name>, "args": {...}}}`` -> ``{"id": T, "ok": <trace JSON
          text>}``, for the ops the self-description lists in ``traces`` (optional)

Args and return values use the host-value encoding of ``harness.hostvalues`` (plain JSON plus the
``$float`` and ``$utf16`` forms). An omitted argument takes the binding's default.

``serve`` and ``answer_line`` are the protocol's server side for an implementation called in process
(``python -m harness run --impl NAME``, and the Pyodide testee, pyodide_host/, inside WebAssembly);
harness/testees/command.py is its client side. This module imports no process machinery, so it runs
wherever the reference does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TextIO

from harness.model import hostvalues, untrusted
from harness.model.registry import OPS, check_args, get_op
from harness.model.traces import TRACE_OP
from harness.testees.testee import Testee

PROTOCOL_VERSION = 2


def bad_request(request_id: Any, message: str) -> dict[str, Any]:
    return {"id": request_id, "error": {"code": "bad_request", "message": message}}


def handle(impl: Testee, request: Any, description: dict[str, Any] | None = None) -> dict[str, Any]:
    """Answer one parsed request (or batch) with ``impl``; never raises. ``description``: the answer to
    ``start`` (served only when given). A batch's plain calls take ``_plain_call``, the others ``_handle_one``:
    the same answers (suites/testees/test_protocol_fast_path.py)."""
    if isinstance(request, dict) and "batch" in request and isinstance(request["batch"], list) \
            and isinstance(request.get("id"), (str, int)) and not isinstance(request.get("id"), bool):
        return {"id": request["id"], "batch": [_plain_call(impl, item) or _handle_one(impl, item)
                                               for item in request["batch"]]}
    return _handle_one(impl, request, description)


_SCALARS = (str, int, float, bool, type(None))  # host values that decode to themselves


def _plain_call(impl: Testee, request: Any) -> dict[str, Any] | None:
    """The answer to a request that is a plain call: exactly id (a string or an integer), op (an op of the
    registry) and args (an object of scalar values, names the op takes); None for any other request, which
    ``_handle_one`` answers. A batch's requests are almost all plain (a sweep's, a fuzz run's): this path skips
    the checks and host-value decoding that cannot apply to them, and answers exactly as ``_handle_one``."""
    if type(request) is not dict or len(request) != 3:
        return None
    request_id, op_name, raw_args = request.get("id"), request.get("op"), request.get("args")
    if type(request_id) not in (str, int) or type(op_name) is not str or type(raw_args) is not dict \
            or op_name not in OPS:
        return None
    for value in raw_args.values():
        if type(value) not in _SCALARS:
            return None
    try:
        check_args(OPS[op_name], raw_args)
    except ValueError:
        return None
    response = impl.call(op_name, raw_args)
    if "ok" in response:
        return {"id": request_id, "ok": hostvalues.encode(response["ok"])}
    return {"id": request_id, "error": response["error"]}


def _handle_one(impl: Testee, request: Any, description: dict[str, Any] | None = None) -> dict[str, Any]:
    """``handle`` for any request, every check made in turn."""
    if not isinstance(request, dict):
        return bad_request(None, "a request must be a JSON object")
    request_id = request.get("id")
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        return bad_request(request_id, "id must be a string or an integer")
    if "batch" in request:
        if not isinstance(request["batch"], list):
            return bad_request(request_id, "batch must be an array of requests")
        return {"id": request_id, "batch": [handle(impl, item) for item in request["batch"]]}
    if request.get("op") == "start" and description is not None:
        version = (request.get("args") or {}).get("protocol") if isinstance(request.get("args"), dict) else None
        if version != PROTOCOL_VERSION:
            return bad_request(request_id,
                               f"protocol {version!r} is not supported: this testee speaks {PROTOCOL_VERSION}")
        return {"id": request_id, "ok": description}
    tracing = request.get("op") == TRACE_OP
    try:
        raw_args = request.get("args", {})
        if tracing:  # {"op": "trace", "args": {"op": <an op it traces>, "args": {...}}}
            traced = list(impl.description.get("traces") or [])
            if not isinstance(raw_args, dict) or set(raw_args) != {"op", "args"} or raw_args["op"] not in traced:
                raise ValueError(f"trace needs args {{op: one of {', '.join(traced) or '(none: it traces no op)'}, "
                                 "args: {...}}")
            op, raw_args = get_op(raw_args["op"]), raw_args["args"]
        else:
            op = get_op(request.get("op"))  # type: ignore[arg-type]
        if not isinstance(raw_args, dict):
            raise ValueError("args must be an object")
        args = hostvalues.decode_args(raw_args)
        check_args(op, args)
    except (KeyError, ValueError, TypeError) as exc:  # TypeError: an op that is not a string (a list)
        return bad_request(request_id, str(exc).strip("'\""))
    response = impl.call(TRACE_OP, {"op": op.name, "args": args}) if tracing else impl.call(op.name, args)
    if "ok" in response:
        return {"id": request_id, "ok": hostvalues.encode(response["ok"])}
    return {"id": request_id, "error": response["error"]}


def encode_line(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n"


def answer_line(impl: Testee, line: str, description: dict[str, Any] | None = None) -> str:
    """The answer line (newline included) to one request line; a malformed line gets a bad_request."""
    try:  # the untrusted reader: a request nested past the parser's limit is a bad request, not a crash
        request = untrusted.loads(line, max_depth=None)
    except untrusted.Refused as exc:
        return encode_line(bad_request(None, f"not JSON: {exc}"))
    return encode_line(handle(impl, request, description))


def serve(impl: Testee, stdin: TextIO, stdout: TextIO, description: dict[str, Any] | None = None,
          after: Callable[[], None] | None = None) -> int:
    """Read requests line by line and answer each; ``after`` runs after each answer."""
    for line in stdin:
        if not line.strip():
            continue
        stdout.write(answer_line(impl, line, description))
        stdout.flush()
        if after is not None:
            after()
    return 0
