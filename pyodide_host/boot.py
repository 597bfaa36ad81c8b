"""Runs inside Pyodide: the protocol's server side (harness/testees/protocol.py) over the reference.

pyodide_host/load.js writes the project's ``reference/`` and ``harness/`` Python files into Pyodide's
file system, puts the ``unicodedata2`` stand-in on the path and runs this module. The reference runs
unchanged; requests are answered by the same code that serves an in-process implementation
(``python -m harness run``), so the only new boundary is the line of text that crosses from Node to
Python and back. Every line the harness sends is ASCII JSON (``\\u`` escapes for the rest), so that
crossing is lossless, lone surrogates included.
"""

from __future__ import annotations

import json
import platform
import time
from typing import Any

import unicodedata2

import reference
from harness.model import hostvalues
from harness.model.registry import get_op
from harness.testees.inprocess import InProcess
from harness.testees.protocol import PROTOCOL_VERSION, answer_line, encode_line

DESCRIPTION: dict[str, Any] = {}
IMPL = InProcess("pyodide", lambda op: getattr(reference, op.name), DESCRIPTION, tracer=reference.trace)


def start(version: str, pyodide_version: str) -> str:
    """Fill in the self-description (the answer to `start`); returns it as JSON for the log."""
    stand_in = getattr(unicodedata2, "STAND_IN", False)
    source = (f"unicodedata2 stood in by Pyodide's unicodedata {unicodedata2.unidata_version}" if stand_in
              else f"unicodedata2 {unicodedata2.unidata_version}")
    DESCRIPTION.update({
        "protocol": PROTOCOL_VERSION,
        "name": "memgate-reference-pyodide",
        "version": version,
        "language": f"Python (the reference; {source}) on Pyodide {pyodide_version}, "
                    f"CPython {platform.python_version()}",
        "unicode": json.loads(reference.unicode_versions()),
        "contracts": ["v1"],
        "traces": list(reference.TRACED),
    })
    return json.dumps(DESCRIPTION)


def answer(line: str) -> str:
    """The answer line to one request line. Never raises: a failure outside the reference's calls
    (which InProcess already turns into responses) is answered as an unexpected_exception."""
    try:
        return answer_line(IMPL, line, DESCRIPTION)
    except BaseException as exc:  # noqa: BLE001  (a testee answers; it does not die on one line)
        return encode_line({"id": _id_of(line), "error": {"code": "unexpected_exception",
                                                          "message": f"{type(exc).__name__}: {exc}"}})


def _id_of(line: str) -> Any:
    """The request's id, so that the client can match the answer (null when it cannot be read)."""
    try:
        request = json.loads(line)
    except (ValueError, RecursionError):
        return None
    request_id = request.get("id") if isinstance(request, dict) else None
    return request_id if isinstance(request_id, (str, int)) and not isinstance(request_id, bool) else None


def bench(requests_json: str, seconds: float) -> str:
    """The bare cost inside Pyodide: a Python loop calling the reference directly, no protocol."""
    spec = json.loads(requests_json)
    calls = [(getattr(reference, get_op(r["op"]).name), hostvalues.decode_args(r["args"])) for r in spec["requests"]]
    done, started, elapsed = 0, time.perf_counter(), 0.0
    while elapsed < seconds:
        for function, args in calls:
            try:
                function(**args)
            except Exception:  # noqa: BLE001  (a contract error is a result like any other)
                pass
        done += len(calls)
        elapsed = time.perf_counter() - started
    return json.dumps({"requests": done, "seconds": elapsed, "requestsPerSecond": done / elapsed})
