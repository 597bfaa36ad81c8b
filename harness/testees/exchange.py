"""The exchanges of a command testee (harness/testees/command.py): requests sent to the current process as the
protocol's batch lines (up to BATCH requests each, PIPELINE of them in flight) or one request per line (pipelined),
and their answers matched to the requests in order, each through the verdict stage (harness/testees/verdicts.py).
An exchange ends at the first trouble (a crash, a hang, a trap, a protocol fault, the cutoff), with the process
dropped; its ``_Outcome`` says what was answered, what was troubled and what is still to send (one per line, to name
the request a batch line died on, or as batch lines). What to do with it (retries, findings, taking a testee out) is
CommandTestee.call_batch's. Lines that came after the last answer are faults of the process (``_drain_stray``).
"""

from __future__ import annotations

import collections
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.model import untrusted
from harness.model.caps import ANSWER_CAP
from harness.testees.findings import line_evidence
from harness.testees.handshake import _START_ID
from harness.testees.protocol import encode_line
from harness.testees.verdicts import Fault, _kept, _plain_answer, same_id

if TYPE_CHECKING:
    from harness.testees.process import TesteeProcess

BATCH = 1000  # requests per batch line, at most
PIPELINE = 3  # batch lines in flight: the client encodes and decodes while the testee works
# A batch's deadline: the request deadline plus this per request (a batch answers as one line, so a
# hang inside it shows only at its deadline; its requests then go one per line, each with the full
# request deadline, so a tight batch deadline costs time, never a verdict).
BATCH_SECONDS_PER_REQUEST = 0.002
BATCH_SHARE_OF_LINE = 8  # a batch line's requests take at most this share of the line limit, so its answer fits


@dataclass
class _Outcome:
    """What one exchange with the process gave."""

    answered: dict[int, dict[str, Any]]
    troubled: list[tuple[int, str, str]]  # (index, "crash" | "timeout" | "trap" | a fault kind, message)
    batch: list[int]  # still to send as batch lines
    lines: list[int]  # still to send one request per line
    faults: int = 0  # protocol-fault events
    cut: bool = False  # the budget ran out: everything still to send is cut
    died: tuple[str, str, list[int]] | None = None  # a batch line the process died or hung on: kind, why, its requests


def _outcome() -> _Outcome:
    return _Outcome({}, [], [], [])


_PROCESS_TROUBLE = ("crash", "timeout", "trap")


class Exchange:
    """The exchanges with the current process (a part of CommandTestee, harness/testees/command.py). These are the
    state of the client they read and change:"""

    timeout: float
    max_line_bytes: int
    batch_form: bool
    batches_refused: int
    faults_in_a_row: int
    answered: int
    _proc: TesteeProcess | None
    _next_id: int
    _calls: list[tuple[str, dict[str, Any]]]
    _bodies: dict[int, dict[str, Any]]

    def _drain_stray(self) -> None:
        """Lines that came after the last answer (a duplicate, stray output) are faults of the process."""
        proc = self._proc
        if proc is None:
            return
        stray = proc.stray_lines()
        if not stray:
            return
        for line in stray:
            message, fault = self._read(line)
            if fault is None and message is not None:
                got = message.get("id")
                fault = (Fault("duplicate_answer", f"{untrusted.brief(got, 80)} answered again, after its answer",
                               line_evidence(line) if isinstance(line, bytes) else None)
                         if self._issued(got) or got == _START_ID else
                         Fault("wrong_id", f"a line nobody asked for, with id {untrusted.brief(got, 80)}",
                               line_evidence(line) if isinstance(line, bytes) else None))
            assert fault is not None
            self._record(fault, proc)
        self.faults_in_a_row += 1
        self._drop()

    def _exchange_batch(self, pending: list[int]) -> _Outcome:
        """Send ``pending`` as batch lines (up to BATCH requests, and a share of the line limit, each),
        PIPELINE of them in flight (the testee answers lines in order), and read their answers."""
        proc = self._proc
        assert proc is not None
        out = _outcome()
        waiting = list(pending)
        budget = max(1, self.max_line_bytes // BATCH_SHARE_OF_LINE)
        in_flight: collections.deque[tuple[str, list[int], list[int]]] = collections.deque()

        def send_next() -> None:
            nonlocal waiting
            chunk = waiting[:BATCH]
            while True:  # halved until the line takes at most its share of the line limit
                ids = list(range(self._next_id, self._next_id + len(chunk)))
                batch_id = f"batch-{self._next_id + len(chunk)}"
                line = encode_line({"id": batch_id, "batch": [{"id": request_id, **self._bodies[index]}
                                                              for request_id, index in zip(ids, chunk, strict=True)]})
                if len(line) <= budget or len(chunk) == 1:
                    break
                chunk = chunk[:len(chunk) // 2]
            self._next_id += len(chunk) + 1
            waiting = waiting[len(chunk):]
            proc.send([line.encode("ascii")])
            in_flight.append((batch_id, chunk, ids))

        def later() -> list[int]:
            """What was sent after the head batch, and what was not sent yet."""
            return [i for _, chunk, _ in list(in_flight)[1:] for i in chunk] + waiting

        def fail(fault: Fault, chunk: list[int], answered: int) -> _Outcome:
            self._record(fault, proc)
            self._drop()
            out.faults += 1
            out.lines = chunk[answered:]  # touched: sent again, one per line, on a fresh process
            out.batch = later()
            return out

        while waiting and len(in_flight) < PIPELINE:
            send_next()
        while in_flight:
            batch_id, chunk, ids = in_flight[0]
            deadline = time.monotonic() + self.timeout + BATCH_SECONDS_PER_REQUEST * len(chunk)
            line = proc.next_line(self._wait_until(deadline))
            if line == "timeout" or line is None:
                cut = line == "timeout" and self._past_cutoff()
                if not cut:
                    why = (f"no answer to a batch line of {len(chunk)} within its deadline" if line == "timeout" else
                           f"the testee exited (status {proc.exit_status()}) during a batch line of {len(chunk)}")
                    out.died = ("timeout" if line == "timeout" else "crash", why + proc.stderr_text(), chunk)
                self._drop()
                out.cut = cut
                out.lines, out.batch = (chunk, later()) if not cut else ([], chunk + later())
                return out  # died or hung on it: its requests go one per line, which names the culprit
            assert not isinstance(line, str)
            message, fault = self._read(line)
            if fault is None and message is not None and not same_id(message.get("id"), batch_id):
                fault = self._wrong_id(message.get("id"), batch_id, [b for b, _, _ in list(in_flight)[1:]])
            if fault is not None:
                return fail(fault, chunk, 0)
            assert message is not None
            answers = message.get("batch")
            if not isinstance(answers, list):
                error = message.get("error")
                if isinstance(error, dict) and isinstance(error.get("code"), str):
                    # The testee does not take batch lines: legitimate; one request per line from now on.
                    self.batch_form = False
                    self.batches_refused += 1
                    self._refused_in_flight(list(in_flight)[1:])
                    out.batch = chunk + later()
                    return out
                return fail(Fault("malformed_answer", "a batch answered without a batch array or an error",
                                  line_evidence(line)), chunk, 0)
            done = 0
            fault = None
            trapped = False
            for position, answer in enumerate(answers):
                if position >= len(chunk):
                    fault = Fault("extra_answers", f"{len(answers)} answers to a batch of {len(chunk)}",
                                  line_evidence(line[-200:]))
                    break
                index = chunk[position]
                if _plain_answer(answer, ids[position], self._calls[index][0]):
                    value = answer["ok"]  # what _response makes of it, without its calls
                    out.answered[index] = {"ok": value if len(value) <= ANSWER_CAP else self._capped(value, index)}
                    self.answered += 1
                    done = position + 1
                    continue
                if not isinstance(answer, dict):
                    fault = Fault("malformed_answer", f"batch answer {position} is not an object",
                                  untrusted.brief(answer))
                    break
                if not same_id(answer.get("id"), ids[position]):
                    earlier = {a.get("id"): a for a in answers[:position]}  # each one's id checked already
                    fault = self._wrong_id(answer.get("id"), ids[position], ids[position + 1:], earlier, answer)
                    break
                response, fault = self._response(answer, chunk[position])
                if fault is not None:
                    break
                assert response is not None
                done = position + 1
                if "error" in response and response["error"]["code"] == "crash":
                    trapped = True
                    tail = proc.stderr_text() if proc.exit_status(wait=1.0) is not None else ""
                    out.troubled.append((chunk[position], "trap", response["error"]["message"] + tail))
                    break
                out.answered[chunk[position]] = response
                self.answered += 1
            if fault is None and not trapped and done < len(chunk):
                fault = Fault("missing_answers", f"{len(answers)} answers to a batch of {len(chunk)}, and no trap",
                              line_evidence(line[-200:]))
            if fault is not None:
                return fail(fault, chunk, done)
            if trapped:
                self._drop()
                out.batch = chunk[done:] + later()
                return out
            in_flight.popleft()
            if waiting:
                send_next()
        return out

    def _refused_in_flight(self, flight: list[tuple[str, list[int], list[int]]]) -> None:
        """Read the refusals of the batch lines still in flight (each answered with an error)."""
        proc = self._proc
        assert proc is not None
        for batch_id, _, _ in flight:
            line = proc.next_line(self._wait_until(time.monotonic() + self.timeout))
            if line == "timeout" or line is None:
                self._drop()
                return
            assert not isinstance(line, str)
            message, fault = self._read(line)
            if fault is None and message is not None and (not same_id(message.get("id"), batch_id)
                                                          or "error" not in message):
                fault = Fault("wrong_id", f"expected the refusal of {batch_id}", line_evidence(line))
            if fault is not None:
                self._record(fault, proc)
                self.faults_in_a_row += 1
                self._drop()
                return

    def _exchange_lines(self, pending: list[int]) -> _Outcome:
        """Send ``pending`` one request per line (pipelined) and read the answers in order. The first
        request without a good answer is troubled (a crash, a hang, a trap, a fault); the process is
        then gone and the rest goes to a fresh one."""
        proc = self._proc
        assert proc is not None
        out = _outcome()
        ids: list[int] = []
        lines = []
        for index in pending:
            ids.append(self._next_id)
            lines.append(encode_line({"id": self._next_id, **self._bodies[index]}).encode("ascii"))
            self._next_id += 1
        proc.send(lines)
        deadline = time.monotonic() + self.timeout
        earlier: dict[Any, Any] = {}  # this exchange's answers by id (a duplicate repeats one)
        for position, (request_id, current) in enumerate(zip(ids, pending, strict=True)):
            rest = pending[position + 1:]
            line = proc.next_line(self._wait_until(deadline))
            if line == "timeout":
                if self._past_cutoff():
                    self._drop()
                    out.cut, out.lines = True, pending[position:]
                    return out
                message = (f"no answer within {self.timeout:g} s; the testee was killed and restarted"
                           + proc.stderr_text())
                self._drop()
                out.troubled.append((current, "timeout", message))
                out.lines = rest
                return out
            if line is None:  # EOF: the process died on the first unanswered request
                status = proc.exit_status()
                message = f"the testee exited (status {status}) while handling this request" + proc.stderr_text()
                self._drop()
                out.troubled.append((current, "crash", message))
                out.lines = rest
                return out
            assert not isinstance(line, str)
            answer, fault = self._read(line)
            if fault is None and answer is not None and not same_id(answer.get("id"), request_id):
                fault = self._wrong_id(answer.get("id"), request_id, ids[position + 1:], earlier, answer)
            response = None
            if fault is None and answer is not None:
                response, fault = self._response(answer, current)
            if fault is not None:
                self._record(fault, proc, request=self._shown(current))
                self._drop()
                out.faults += 1
                out.troubled.append((current, fault.kind, fault.message))
                out.lines = rest
                return out
            assert response is not None
            if "error" in response and response["error"]["code"] == "crash":
                # A trap: the testee exits after answering; never trust this instance again.
                tail = proc.stderr_text() if proc.exit_status(wait=1.0) is not None else ""
                self._drop()
                out.troubled.append((current, "trap", response["error"]["message"] + tail))
                out.lines = rest
                return out
            out.answered[current] = response
            self.answered += 1
            earlier[request_id] = _kept(answer)  # never a value whole over its cap: 40 of 15 MiB were 600 MiB
            deadline = time.monotonic() + self.timeout
        return out
