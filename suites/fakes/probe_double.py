"""A testee double for the selftest's probes (suites/checks/test_selftest_probes.py): a faithful command testee
(the reference's functions, traced, through the harness's own protocol server) that gets exactly one thing wrong,
the one PROBE_WRONG names, and nothing else, so that the selftest probe for that thing is seen failing alone.

    PROBE_WRONG=                 faithful: every probe passes
    PROBE_WRONG=start_invalid    its start answer lacks "language" (not a valid self-description)
    PROBE_WRONG=contracts        it says it serves contract v9, not the v1 its declaration names
    PROBE_WRONG=wrong_id         a plain request is answered with another id
    PROBE_WRONG=wrong_type       normalize_fact_text answers a number where the op table says a string
    PROBE_WRONG=batch_order      a batch's answers come back reversed
    PROBE_WRONG=not_json         a line that is not JSON gets a contract error, not bad_request
    PROBE_WRONG=unknown_op       an unknown op is answered ok
    PROBE_WRONG=unknown_arg      an unknown argument is ignored (answered ok)
    PROBE_WRONG=missing_arg      a missing argument is answered ok
    PROBE_WRONG=args_not_object  args that are not an object are answered ok
    PROBE_WRONG=any_version      a start of another protocol version (valid in every other way) is taken
    PROBE_WRONG=stale_after_bad  after the bad requests, the next request is answered with another id
    PROBE_WRONG=trace_invalid    a trace whose outcome is not the op's own answer
    PROBE_WRONG=trace_unlisted   a trace of an op it does not list in "traces" is answered, not refused
    PROBE_WRONG=oversized        its self-description's language is over the harness's cap (a finding)
    PROBE_WRONG=restart_lie      each process describes itself with another version (a handshake_lie on restart)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import reference
from harness.testees import protocol
from harness.testees.command import PROTOCOL_VERSION
from harness.testees.impls import InProcess

WRONG = os.environ.get("PROBE_WRONG", "")
UNLISTED = "build_dedup_context"  # the op trace_unlisted leaves out of "traces"


def _description() -> dict[str, Any]:
    traced = [op for op in reference.TRACED if not (WRONG == "trace_unlisted" and op == UNLISTED)]
    description = {"protocol": PROTOCOL_VERSION, "name": "probe-double", "version": "faithful",
                   "language": "Python (a test double)", "unicode": json.loads(reference.unicode_versions()),
                   "contracts": ["v1"], "traces": traced}
    if WRONG == "start_invalid":
        del description["language"]
    elif WRONG == "contracts":
        description["contracts"] = ["v9"]
    elif WRONG == "oversized":
        description["language"] = "Python " + "x" * 5000
    elif WRONG == "restart_lie":
        description["version"] = f"build-{os.getpid()}"
    return description


def _distort(request: Any, answer: dict[str, Any], description: dict[str, Any]) -> dict[str, Any]:
    """The one wrong thing, applied to the faithful answer of ``request`` (None: the line was not JSON)."""
    if not isinstance(request, dict):
        return ({"id": None, "error": {"code": "invalid_text", "message": "invalid_text: not a text"}}
                if WRONG == "not_json" else answer)
    op, args, request_id = request.get("op"), request.get("args"), request.get("id")
    if WRONG == "any_version" and op == "start" and isinstance(args, dict) and "codes" in args:
        return {"id": request_id, "ok": description}
    if WRONG == "batch_order" and isinstance(answer.get("batch"), list):
        return {**answer, "batch": answer["batch"][::-1]}
    if isinstance(request_id, int) and request_id < 90 and op not in ("start", "trace"):
        if WRONG == "wrong_id":
            return {**answer, "id": request_id + 1000}
        if WRONG == "wrong_type" and op == "normalize_fact_text" and "ok" in answer:
            return {**answer, "ok": 42}
    wrong_ok = {"unknown_op": op == "no_such_op",
                "unknown_arg": isinstance(args, dict) and "no_such_argument" in args,
                "missing_arg": request_id == 92,
                "args_not_object": isinstance(args, list)}
    if wrong_ok.get(WRONG):
        return {"id": request_id, "ok": ""}
    if WRONG == "stale_after_bad" and request_id == 95:
        return {**answer, "id": 96}
    if op == "trace" and isinstance(args, dict):
        if WRONG == "trace_unlisted" and args.get("op") == UNLISTED:
            return {"id": request_id, "ok": {"op": UNLISTED, "steps": []}}
        if WRONG == "trace_invalid" and isinstance(answer.get("ok"), str):  # a trace is a JSON text
            trace = json.loads(answer["ok"])
            return {**answer, "ok": json.dumps({**trace, "outcome": {"ok": "not the answer"}})}
    return answer


def main() -> int:
    description = _description()
    impl = InProcess("probe-double", lambda op: getattr(reference, op.name), description, tracer=reference.trace)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        answer = json.loads(protocol.answer_line(impl, line, description))
        sys.stdout.write(json.dumps(_distort(request, answer, description)) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
