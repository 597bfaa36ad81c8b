"""The one JSON-lines protocol every implementation speaks (docs/protocol.md).

Request:  ``{"id": <string|integer>, "op": <op name>, "args": {<python parameter name>: <host value>}}``
Response: ``{"id": ..., "ok": <return value>}`` or ``{"id": ..., "error": {"code": ..., "message": ...}}``

Args and return values use the host-value encoding of ``harness.hostvalues`` (plain JSON plus the
``$float`` and ``$utf16`` forms). An omitted argument takes the binding's default.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from . import hostvalues
from .registry import check_args, get_op

PROTOCOL_VERSION = 1


def bad_request(request_id: Any, message: str) -> dict[str, Any]:
    return {"id": request_id, "error": {"code": "bad_request", "message": message}}


def handle(impl: Any, request: Any) -> dict[str, Any]:
    """Answer one parsed request with ``impl``; never raises."""
    if not isinstance(request, dict):
        return bad_request(None, "a request must be a JSON object")
    request_id = request.get("id")
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        return bad_request(request_id, "id must be a string or an integer")
    try:
        op = get_op(request.get("op"))  # type: ignore[arg-type]
        raw_args = request.get("args", {})
        if not isinstance(raw_args, dict):
            raise ValueError("args must be an object")
        args = hostvalues.decode_args(raw_args)
        check_args(op, args)
    except (KeyError, ValueError) as exc:
        return bad_request(request_id, str(exc).strip("'\""))
    response = impl.call(op.name, args)
    if "ok" in response:
        return {"id": request_id, "ok": hostvalues.encode(response["ok"])}
    return {"id": request_id, "error": response["error"]}


def encode_line(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n"


def serve(impl: Any, stdin: TextIO, stdout: TextIO) -> int:
    """Read requests line by line and answer each; a malformed line gets a bad_request answer."""
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            response = bad_request(None, f"not JSON: {exc}")
        else:
            response = handle(impl, request)
        stdout.write(encode_line(response))
        stdout.flush()
    return 0
