"""The verdict stage of the command client (harness/testees/command.py): each line a testee sends becomes its answer
or the protocol fault it is, before anything is compared (the kinds: harness/testees/findings.py). A line that is not
JSON, not UTF-8, over the line limit or with a key twice; an answer with another id (out of order, a duplicate, one
nobody asked for); an answer that does not fit the protocol or the op table; ``bad_request`` for a well-formed
request. A value, an error's code or message over its cap is kept capped (harness/model/caps.py: a prefix, the
length and a digest, still compared exactly), an ``oversized_answer`` finding. A trace request of an op the start
answer lists in ``traces``, answered with a fault, shows the claim false: a ``handshake_lie``, answered
``unavailable``, and that op's traces are not asked for again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.model import caps, hostvalues, repeated_keys, untrusted
from harness.model.caps import ANSWER_CAP, MESSAGE_CAP
from harness.model.registry import OPS, RETURN_TYPES, check_args
from harness.model.traces import TRACE_OP
from harness.testees.findings import Findings, line_evidence
from harness.testees.lines import TooLong

if TYPE_CHECKING:
    from harness.testees.process import TesteeProcess

TRACE_CAP = 4 * 1024 * 1024  # a trace answer's value (a trace-v1 document: one entry per step, each with its text)


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def same_id(got: Any, want: Any) -> bool:
    """Whether an answer's id is the request's: the same JSON type and value (``true`` is not ``1``, ``1.0``
    is not ``1``, and an array or object is never an id). Never raises, whatever the testee sent."""
    return type(got) is type(want) and got == want


_ERROR_CODE = re.compile(r"[a-z_]+")  # protocol v2: an error code matches ^[a-z_]+$


@dataclass(frozen=True)
class Fault:
    kind: str  # a protocol-fault kind of harness/testees/findings.py
    message: str
    line: str | None = None  # evidence: the first bytes of the offending line


def _kept(answer: Any) -> Any:
    """An answer as an exchange remembers it (to know a duplicate): a value or an error's string over its cap in
    its Oversized form (harness/model/caps.py), equal to another exactly when the strings are."""
    if not isinstance(answer, dict):
        return answer
    ok = answer.get("ok")
    if isinstance(ok, str) and len(ok) > ANSWER_CAP:
        return {**answer, "ok": caps.oversized(ok)}
    error = answer.get("error")
    if isinstance(error, dict) and any(isinstance(v, str) and len(v) > MESSAGE_CAP for v in error.values()):
        return {**answer, "error": {k: caps.cap(v, MESSAGE_CAP) if isinstance(v, str) else v for k, v in error.items()}}
    return answer


def _plain_answer(answer: Any, request_id: int, op_name: str) -> bool:
    """Whether a batch answer is the common one: exactly ``{"id": <the request's id>, "ok": <a string>}`` to a
    call of an op that returns a string. Its response is ``{"ok": <that string>}``, as ``_response`` would make
    it; every other answer goes through ``_response``'s checks (suites/testees/test_protocol_fast_path.py)."""
    if type(answer) is not dict or len(answer) != 2:
        return False
    got = answer.get("id")
    if type(got) is not int or got != request_id or type(answer.get("ok")) is not str:
        return False
    op = OPS.get(op_name)
    return op is not None and op.returns == "string"



class Verdicts:
    """The client's verdicts on what a testee sent (a part of CommandTestee, harness/testees/command.py): a line ->
    its JSON object or its fault; an answer -> the implementation response or its fault. These are the state of the
    client they read:"""

    name: str
    max_line_bytes: int
    description: dict[str, Any]  # the testee's answer to `start`
    findings: Findings
    untraced: dict[str, str]
    trace_faults_in_a_row: int
    _proc: TesteeProcess | None
    _next_id: int  # the next request id: every id below it was sent
    _calls: list[tuple[str, dict[str, Any]]]  # the batch being sent
    _bodies: dict[int, dict[str, Any]]  # index -> the request without its id (host values)

    def _read(self, line: bytes | TooLong) -> tuple[dict[str, Any] | None, Fault | None]:
        """A line -> its JSON object, or the fault it is."""
        if isinstance(line, TooLong):
            return None, Fault("line_too_long", f"a line of more than {self.max_line_bytes:,} bytes (the line limit; "
                                                f"{line.length:,} read before it was cut)", line_evidence(line.head))
        if len(line) > ANSWER_CAP and caps.dense(line):  # parsed, it would take up to 420 MiB (harness/model/caps.py)
            return None, Fault("malformed_answer", f"a line with more than {caps.MAX_CONTAINERS:,} '[' and '{{' "
                               "(no answer holds as many; not parsed)", line_evidence(line))
        try:  # depth: every field is checked against the protocol next (_response), so no walk here
            message = untrusted.loads(line, want=dict, max_depth=None)
            if repeated_keys.may_repeat_keys(line, message):  # exact: the pairs hook (slow) only when a key may repeat
                untrusted.loads(line, want=dict, max_depth=None, unique_keys=True)
            return message, None
        except untrusted.Refused as refused:
            if refused.kind == "duplicate_key":  # last one wins in Python's parser: the answer is ambiguous
                return None, Fault("malformed_answer", f"a line that is JSON with {refused} (which one counts is "
                                   "the parser's guess: an object's keys are unique in the protocol)",
                                   line_evidence(line))
            if refused.kind == "not_utf8":
                return None, Fault("not_utf8", f"a line that is {refused}", line_evidence(line))
            if refused.kind == "not_object":
                return None, Fault("not_json", "a line that is JSON but not an object", line_evidence(line))
            return None, Fault("not_json", f"a line that is not protocol JSON: {refused}", line_evidence(line))

    def _issued(self, got: Any) -> bool:
        """Whether ``got`` is an id this client sent earlier (a request or a batch line)."""
        if isinstance(got, str) and got.startswith("batch-") and got[6:].isdigit():
            got = int(got[6:])
        return isinstance(got, int) and not isinstance(got, bool) and 0 <= got < self._next_id

    def _wrong_id(self, got: Any, expected: Any, later: Iterable[Any], earlier: dict[Any, Any] | None = None,
                  answer: Any = None) -> Fault:
        """The fault of an answer with id ``got`` where the answer to ``expected`` belongs: the answer to a
        later request (out of order), an earlier answer again (a duplicate), or another id."""
        shown = untrusted.brief(got, 80)
        if any(same_id(got, other) for other in later):
            return Fault("out_of_order", f"the answer to {shown} came where the answer to "
                         f"{json.dumps(expected)} belongs")
        if (earlier is not None and isinstance(got, (str, int)) and not isinstance(got, bool) and got in earlier
                and earlier[got] == _kept(answer)):
            return Fault("duplicate_answer", f"the answer to {shown} again, where the answer to "
                         f"{json.dumps(expected)} belongs")
        return Fault("wrong_id", f"an answer with id {shown} where the answer to {json.dumps(expected)} belongs")

    def _return_type(self, index: int) -> tuple[str, str]:
        """What request ``index`` returns: (the op it names, its declared return type)."""
        op_name = self._calls[index][0]
        if op_name == TRACE_OP:
            return "a trace", "string"  # the trace's JSON text
        return op_name, OPS[op_name].returns

    def _response(self, message: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, Fault | None]:
        """A protocol answer (its id checked) -> the implementation response, or its fault (``_checked``);
        except that a trace request of an op the testee claims in ``traces`` answered with a fault (refused,
        malformed) shows the claim false: the answer is ``unavailable``, never a fault (``_trace_claim_false``)."""
        response, fault = self._checked(message, index)
        op_name, args = self._calls[index]
        if op_name != TRACE_OP or (response is not None and ("ok" in response or response["error"]["code"] == "crash")):
            return response, fault  # not a trace, a trace, or a trap (the caller replaces the process)
        traced = args.get("op")
        if traced in self.untraced:  # shown false by an earlier answer, this one sent before it came
            return self._untraced_error(traced), None
        if fault is not None and traced in (self.description.get("traces") or []):
            return self._trace_claim_false(traced, fault, index), None
        return response, fault

    def _trace_claim_false(self, traced: str, fault: Fault, index: int) -> dict[str, Any]:
        """A trace request of ``traced``, an op the start answer lists in ``traces``, answered with ``fault``
        (bad_request, a malformed answer): a ``handshake_lie``; ``traced`` is not asked again in this run."""
        what = f"{fault.kind}: {fault.message}"[:300]
        self.untraced[traced] = what
        self.trace_faults_in_a_row += 1
        proc = self._proc
        self.findings.add(self.name, "handshake_lie",
                          f"claims traces of {traced} in its start answer's traces, but answered a trace request of "
                          f"{traced} with {what}; not asked for traces of {traced} again in this run (a black box "
                          "for it)", line=fault.line, stderr=(proc.stderr_tail() or None) if proc is not None else None,
                          request=self._shown(index))
        return self._untraced_error(traced)

    def _untraced_error(self, traced: str) -> dict[str, Any]:
        return _error("unavailable", f"{self.name} claimed traces of {traced} but did not serve one "
                                     f"({self.untraced[traced]}): not asked for them again in this run")

    def _checked(self, message: dict[str, Any], index: int) -> tuple[dict[str, Any] | None, Fault | None]:
        """A protocol answer -> the implementation response ``{"ok": v} | {"error": {...}}``, or its fault.
        Checked against the protocol and the op table before anything is compared: only the protocol's
        keys, ``ok`` of the op's declared return type, an error of a code and a message (both strings)."""
        if "ok" in message:
            extra = sorted(set(message) - {"id", "ok"})
            if extra:
                return None, Fault("malformed_answer", f"an answer with key(s) {untrusted.brief(extra, 120)} beside "
                                   "id and ok (protocol 2 has none)", untrusted.brief(message))
            value = message["ok"]
            if isinstance(value, dict):
                try:
                    value = hostvalues.decode(value)
                except (ValueError, RecursionError) as exc:
                    shown = str(exc)[:200] if isinstance(exc, ValueError) else "nested too deep"
                    return None, Fault("malformed_answer", f"an answer that is not a host value: {shown}",
                                       untrusted.brief(message))
            what, returns = self._return_type(index)
            if not RETURN_TYPES[returns](value):
                return None, Fault("malformed_answer", f"an answer whose ok is {untrusted.type_name(value)}, where "
                                   f"{what} returns a {returns} (the op table)", untrusted.brief(message))
            if isinstance(value, str) and len(value) > self._cap_of(index):
                value = self._capped(value, index)
            return {"ok": value}, None
        error = message.get("error")
        problem = None
        if "error" not in message:
            problem = "an answer that is neither {ok} nor {error: {code, message}}"
        elif set(message) != {"id", "error"}:
            problem = (f"an answer with key(s) {untrusted.brief(sorted(set(message) - {'id', 'error'}), 120)} "
                       "beside id and error (protocol 2 has none)")
        elif not (isinstance(error, dict) and set(error) == {"code", "message"}
                  and isinstance(error["code"], str) and isinstance(error["message"], str)):
            problem = "an error that is not {code: <string>, message: <string>}"
        elif not _ERROR_CODE.fullmatch(error["code"]):
            problem = "an error code that is not [a-z_]+"
        if problem is not None:
            return None, Fault("malformed_answer", problem, untrusted.brief(message))
        if error["code"] == "bad_request" and self._wellformed(index):
            return None, Fault("refused_op", "a well-formed request answered bad_request: "
                               + error["message"][:200], untrusted.brief(message))
        code, text = error["code"], error["message"]
        if len(code) > MESSAGE_CAP or len(text) > MESSAGE_CAP:
            self._oversized("an error " + ("code" if len(code) > MESSAGE_CAP else "message"),
                            max(len(code), len(text)), MESSAGE_CAP, index)
            code, text = caps.cap(code, MESSAGE_CAP), caps.cap(text, MESSAGE_CAP)
        return {"error": {"code": code, "message": text}}, None

    def _cap_of(self, index: int) -> int:
        """The cap of request ``index``'s value: a trace's is TRACE_CAP, an op's ANSWER_CAP."""
        return TRACE_CAP if self._calls[index][0] == TRACE_OP else ANSWER_CAP

    def _capped(self, value: str, index: int) -> str:
        """An answer's value over its cap: an oversized_answer finding, and the value as kept (harness/model/caps.py:
        its first characters, its length and its digest, compared exactly by the digest)."""
        op_name = self._calls[index][0]
        self._oversized("a value", len(value), self._cap_of(index), index)
        return caps.oversized(value, json_result=op_name != TRACE_OP and OPS[op_name].result_kind == "json")

    def _oversized(self, what: str, length: int, limit: int, index: int) -> None:
        self.findings.add(self.name, "oversized_answer", f"an answer with {what} of {length:,} characters (its cap: "
                          f"{limit:,}); kept as its first {caps.PREFIX_CHARS} characters, its length and its sha256, "
                          "and compared by the digest", request=self._shown(index))

    def _record(self, fault: Fault, proc: TesteeProcess | None, request: str | None = None) -> None:
        tail = proc.stderr_tail() if proc is not None else ""
        self.findings.add(self.name, fault.kind, fault.message, line=fault.line, stderr=tail or None, request=request)

    def _shown(self, index: int) -> str:
        """A request as evidence (its first bytes)."""
        return json.dumps(self._bodies[index], ensure_ascii=True)[:300]

    def _wellformed(self, index: int) -> bool:
        """Whether request ``index`` names an op of the table with arguments that fit it (decided only
        when a testee answers it bad_request: then it must not have been)."""
        op_name, args = self._calls[index]
        if op_name == TRACE_OP:  # a trace of an op it lists in `traces`
            if args.get("op") not in (self.description.get("traces") or []):
                return False
            op_name, args = args["op"], args["args"]
        op = OPS.get(op_name)
        if op is None:
            return False
        try:
            check_args(op, args)
        except ValueError:
            return False
        return True
