"""The start handshake of a command testee (harness/testees/command.py, docs/protocol.md): after each start the
client sends ``start`` (the protocol version, the op table and the contract's error codes) and reads back the
testee's self-description, checked against the protocol. A testee that does not answer within STARTUP_TIMEOUT,
answers with another protocol version, refuses or dies is unavailable, with a clear message; lines before its answer
are protocol faults. A restarted process that describes itself otherwise than the first is a ``handshake_lie``, and
the first description is kept.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from harness.model import caps, untrusted
from harness.model.registry import OPS
from harness.testees.errors import ImplementationUnavailable
from harness.testees.findings import Findings, line_evidence
from harness.testees.protocol import PROTOCOL_VERSION, encode_line
from harness.testees.verdicts import Fault, same_id
from reference.errors import CODES

if TYPE_CHECKING:
    from harness.testees.lines import TooLong
    from harness.testees.process import TesteeProcess

STARTUP_TIMEOUT = 30.0  # seconds for the handshake after a start

_START_ID = "__start__"


def op_table() -> dict[str, Any]:
    """The registry as a testee needs it: JS name and Python parameter names in signature order."""
    return {
        op.name: {"js": op.js_name, "params": [p.name for p in op.params],
                  "required": sum(1 for p in op.params if p.required)}
        for op in OPS.values()
    }


def start_request() -> dict[str, Any]:
    """The handshake: the protocol version, the op table and the contract's error codes (a testee maps
    an error message "code: detail" to its code with them)."""
    return {"id": _START_ID, "op": "start",
            "args": {"protocol": PROTOCOL_VERSION, "ops": op_table(), "codes": sorted(CODES)}}


class _StartExited(Exception):
    """A start that failed by the process's exit by a signal, or a refused fork: worth another try."""


class Handshake:
    """The start handshake of each process (a part of CommandTestee, harness/testees/command.py). These are the state
    of the client it reads:"""

    name: str
    startup_timeout: float
    start_seconds: float | None = None  # how long the last start that came up took (None: none yet)
    description: dict[str, Any]  # the first process's answer to `start`
    findings: Findings

    @staticmethod
    def _encode(message: dict[str, Any]) -> bytes:
        return encode_line(message).encode("ascii")

    def _handshake(self, proc: TesteeProcess) -> dict[str, Any]:
        """Send `start`; the testee's self-description, or ImplementationUnavailable saying why not.
        Lines before its answer are protocol faults (recorded), not reasons to give up; a line that is the
        start answer but not protocol JSON (a byte order mark before it, say) ends the start at once,
        naming its first bytes; a deadline names the lines that came instead."""
        began = time.monotonic()
        proc.send([self._encode(start_request())])
        deadline = self._wait_until(began + self.startup_timeout)
        seen: list[str] = []  # evidence of the lines that came instead of the answer
        while True:
            line = proc.next_line(deadline)
            if line == "timeout":
                if self._past_cutoff():
                    raise ImplementationUnavailable(f"{self.name}: the run's time budget ran out during start-up")
                message = f"no answer to the start handshake within {self.startup_timeout:g} s"
                if seen:
                    message += f"; {len(seen)} other line(s) came instead, the first: {seen[0]}"
                self.findings.add(self.name, "startup_deadline", message, stderr=proc.stderr_tail() or None)
                raise ImplementationUnavailable(f"{self.name}: {message}" + proc.stderr_text())
            if line is None:
                status = proc.exit_status()
                why = (f"{self.name}: the testee exited during start-up (status {status})"
                       + (f", after {len(seen)} line(s) that were not the start answer, the first: {seen[0]}"
                          if seen else "") + proc.stderr_text())
                if status is not None and status < 0:  # killed by a signal: from outside, maybe; try again
                    raise _StartExited(why)
                raise ImplementationUnavailable(why)
            answer, fault = self._read(line)
            if fault is not None and isinstance(line, bytes) and _START_ID.encode() in line[:4096]:
                # The start answer itself, not protocol JSON: say so now, not at the deadline.
                bom = line.startswith(b"\xef\xbb\xbf")
                self._record(Fault(fault.kind, ("a start answer that begins with a UTF-8 byte order mark (EF BB "
                                                "BF): protocol lines are UTF-8 JSON without one") if bom else
                                   f"a start answer that is {fault.message.removeprefix('a line that is ')}",
                                   fault.line), proc, request="start")
                raise ImplementationUnavailable(
                    f"{self.name}: its start answer is not protocol JSON: "
                    + ("it begins with a UTF-8 byte order mark (EF BB BF)" if bom else fault.message)
                    + f"; first bytes: {fault.line}" + proc.stderr_text())
            if fault is None and answer is not None and not same_id(answer.get("id"), _START_ID):
                fault = Fault("wrong_id",
                              f"a line before the start answer, with id {untrusted.brief(answer.get('id'), 80)}",
                              line_evidence(line) if isinstance(line, bytes) else None)
            if fault is not None:
                self._record(fault, proc, request="start")
                seen.append(fault.line or fault.message)
                continue
            assert answer is not None
            description = self._description(answer, proc, line)
            self.start_seconds = time.monotonic() - began  # the last start that came up: what a next one may take
            return description

    def _description(self, answer: dict[str, Any], proc: TesteeProcess, line: bytes | TooLong) -> dict[str, Any]:
        """The self-description in a start answer, checked against the protocol."""
        evidence = line_evidence(line) if isinstance(line, bytes) else None
        if untrusted.too_deep(answer):
            self._record(Fault("malformed_answer", f"a start answer nested more than {untrusted.MAX_DEPTH} levels",
                               evidence), proc, request="start")
            raise ImplementationUnavailable(f"{self.name}: its start answer nests more than "
                                            f"{untrusted.MAX_DEPTH} levels of arrays and objects")
        if "error" in answer and "ok" not in answer:
            raise ImplementationUnavailable(f"{self.name}: the testee refused the start handshake: "
                                            f"{untrusted.brief(answer['error'], 500)}")
        description = answer.get("ok")
        version = description.get("protocol") if isinstance(description, dict) else None
        if version != PROTOCOL_VERSION or isinstance(version, bool):
            raise ImplementationUnavailable(
                f"{self.name}: protocol version mismatch: the harness speaks {PROTOCOL_VERSION}, the testee "
                f"answered start with {untrusted.brief(description, 300)}")
        extra = sorted(set(answer) - {"id", "ok"})
        if extra:  # usable, but not the protocol: a finding, and the run goes on
            self._record(Fault("malformed_answer", f"a start answer with key(s) {untrusted.brief(extra, 120)} "
                               "beside id and ok (protocol 2 has none)", evidence), proc, request="start")
        description, capped = caps.cap_description(description)
        if capped:  # kept capped (in memory and in every report's envelope); the run goes on
            where, length = capped[0]
            self.findings.add(self.name, "oversized_description",
                              f"a self-description with {len(capped)} string(s) over the cap of "
                              f"{caps.DESCRIPTION_CAP:,} characters, the first {where or '(top)'} of {length:,}; "
                              f"kept as its first {caps.PREFIX_CHARS} characters, its length and its sha256",
                              request="start")
        return description

    def _restarted_as_another(self, described: dict[str, Any], proc: TesteeProcess) -> None:
        """A fresh process that describes itself otherwise than the first did (another name, version, language,
        contracts, ops...): a handshake lie; the run keeps the first description, which its answers so far were
        read by."""
        changed = sorted(key for key in set(described) | set(self.description)
                         if described.get(key) != self.description.get(key))
        self._record(Fault("handshake_lie", "a restarted process described itself otherwise than the first: "
                           + ", ".join(f"{key} {untrusted.brief(self.description.get(key), 60)} -> "
                                       f"{untrusted.brief(described.get(key), 60)}" for key in changed[:4]), None),
                     proc, request="start")
