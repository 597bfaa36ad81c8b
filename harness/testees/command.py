"""The client of a command testee: an implementation in another process that speaks the protocol
(docs/protocol.md, schema schemas/protocol-v2.schema.json) on stdin/stdout.

The client keeps one testee process. After each start it sends the ``start`` handshake (the protocol
version and the op table) and gets back the testee's self-description; a testee that does not answer,
answers with another protocol version or dies is unavailable, with a clear message. It then sends
requests (one per line, or many as the protocol's batch lines) and reads every answer through the
verdict stage of the protocol, before anything is compared:

* a **protocol fault** (a line that is not JSON or not UTF-8, a line over the line limit, an answer
  with another id, a duplicate, a batch with answers missing, extra or out of order, a malformed
  answer, ``bad_request`` for a well-formed request) is a finding about the testee
  (harness/testees/findings.py); the process is replaced and each request the fault touched is sent
  again alone on the fresh one. A request that is faulted twice is answered ``protocol_fault``, which
  is never compared;
* a **crash, trap or hang** (the process exits, answers ``crash`` and exits, or does not answer within
  its deadline: it is killed) is retried once, alone, on a fresh process. It fails again: that request
  is answered ``crash`` or ``timeout`` (an input finding, classified and shrunk like a divergence). It
  is answered: a ``flaky_crash`` / ``flaky_timeout`` finding, and the good answer is used. A batch
  that died unanswered is first sent again one request per line, which names the request;
* ``max_faults`` faults in a row (no good answer between them) take the testee out: every later
  request is answered ``unavailable``, with one finding;
* a **trace claim shown false**: a trace request of an op the start answer lists in ``traces`` answered
  ``bad_request`` or with a malformed answer is a ``handshake_lie`` finding naming the op and what came
  back, the first time; the process is kept (the answer was a line in its place), the request is answered
  ``unavailable`` and no trace of that op is asked of the testee again in this run (``untraced``: answered
  ``unavailable`` without a request; the callers take it for a black box for that op). Trace faults
  (a claim shown false, a trace request faulted twice, crashed or hung again on a fresh process) count in
  a row of their own, which only a good trace ends; ``max_faults`` of them take the testee out too;
* a ``cutoff`` (a time budget) ends every wait: what is unanswered then is answered ``cut``.

Lines are read in chunks, never more than the line limit of one line held, and no more than 4 MiB of them (or
one line) read ahead; stderr is read in chunks and only its tail kept. An answer's value, an error's code or message
and a self-description's string over its cap are kept capped (harness/model/caps.py: a prefix, the length and a
digest, still compared exactly), an ``oversized_answer`` / ``oversized_description`` finding. A run is never
aborted, hung or grown by one testee.

Its parts have modules of their own, and ``CommandTestee`` is their assembly, with the policy above
(``call_batch``: what is retried, where, and what is a finding): the process (harness/testees/process.py), its
stdout as lines (harness/testees/lines.py), the start handshake (harness/testees/handshake.py), starting, replacing
and taking out (harness/testees/lifecycle.py), the exchanges of batch lines and single lines
(harness/testees/exchange.py) and the verdict stage (harness/testees/verdicts.py).
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from harness.model import hostvalues
from harness.model.traces import TRACE_OP
from harness.testees.exchange import (
    _PROCESS_TROUBLE,
    BATCH,
    BATCH_SECONDS_PER_REQUEST,
    BATCH_SHARE_OF_LINE,
    PIPELINE,
    Exchange,
)
from harness.testees.findings import DEFAULT_MAX_FAULTS, Findings
from harness.testees.handshake import STARTUP_TIMEOUT, Handshake, op_table, start_request
from harness.testees.lifecycle import CRASH_EVIDENCE, START_ATTEMPTS, START_BACKOFF, Lifecycle
from harness.testees.lines import _QUEUED_BYTES, DEFAULT_MAX_LINE_BYTES, TooLong
from harness.testees.process import EXIT_GRACE, TesteeProcess
from harness.testees.protocol import PROTOCOL_VERSION
from harness.testees.verdicts import TRACE_CAP, Fault, Verdicts, _error, _plain_answer, same_id

# What other modules and the suites import from here (the client's names before its parts had modules).
__all__ = [
    "BATCH", "BATCH_SECONDS_PER_REQUEST", "BATCH_SHARE_OF_LINE", "CRASH_EVIDENCE", "CUT", "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_TIMEOUT", "EXIT_GRACE", "FAULTED", "PIPELINE", "PROTOCOL_VERSION", "START_ATTEMPTS", "START_BACKOFF",
    "STARTUP_TIMEOUT", "TRACE_CAP", "CommandTestee", "Fault", "TesteeProcess", "TooLong", "_QUEUED_BYTES",
    "_plain_answer", "op_table", "same_id", "start_request",
]

DEFAULT_TIMEOUT = 10.0  # seconds per request
FAULTED = "protocol_fault"  # the harness code of a request faulted twice: never compared
CUT = "cut"  # the harness code of a request unanswered when the budget ran out: never compared


class CommandTestee(Lifecycle, Handshake, Exchange, Verdicts):
    """``call(op, args)`` / ``call_batch([(op, args), ...])`` through a testee in another process."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        name: str = "testee",
        timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float = STARTUP_TIMEOUT,
        env: dict[str, str] | None = None,
        cwd: Path | str | None = None,
        hint: str = "",
        handshake: bool = True,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_faults: int = DEFAULT_MAX_FAULTS,
        cutoff: float | None = None,
    ) -> None:
        """``timeout``: seconds per request; ``hint``: how to make the testee available, shown when the
        first start fails; ``cutoff``: a time.monotonic() after which nothing is waited for.
        ``handshake=False`` only for test doubles that do not speak ``start``."""
        self.name = name
        self.command = list(command)
        self.timeout = float(timeout)
        self.startup_timeout = float(startup_timeout)
        self.handshake = handshake
        self.hint = hint
        self.max_line_bytes = int(max_line_bytes)
        self.max_faults = int(max_faults)
        self.cutoff = cutoff
        self.description: dict[str, Any] = {}  # the testee's answer to `start`
        self.findings = Findings()
        self.faults_in_a_row = 0
        self.trace_faults_in_a_row = 0  # trace requests without a good trace between them
        # Process deaths and hangs (a crash, a trap, a hang; a batch line's too) with no good answer between
        # them, and the requests they happened on: a testee that dies on everything is taken out at max_faults,
        # as one that breaks the protocol is, so a run ends in bounded time whatever it does.
        self.crashes_in_a_row = 0
        self.crashed_on: list[str] = []  # the first requests of the current run of crashes (evidence)
        self.taken_out: str | None = None  # why, once it is out of the run
        # op -> what came back when a trace of it, claimed in `traces`, was asked for: never asked again
        self.untraced: dict[str, str] = {}
        self.cut_requests = 0  # requests left unanswered when the cutoff came
        self.answered = 0  # good answers read (from any of its processes)
        self.batches_refused = 0  # a testee without batch lines (legitimate): counted, not a finding
        self._env = env
        self._cwd = Path(cwd) if cwd is not None else None
        self.restarts = 0  # how many times a dead, trapped, hung or faulty process was replaced
        self.start_retries = 0  # starts tried again after an exit during start-up
        self.batch_form = True  # send batches as the protocol's batch lines (until a testee refuses them)
        self._next_id = 0
        self._proc: TesteeProcess | None = None
        self._start(first=True)

    def fresh(self) -> CommandTestee:
        """A new process of the same command and settings, asked nothing yet, with findings of its own (the
        reproduction gate's fresh instance, harness/differential/verdict.py); ImplementationUnavailable if it
        cannot start."""
        return CommandTestee(self.command, name=self.name, timeout=self.timeout, startup_timeout=self.startup_timeout,
                             env=self._env, cwd=self._cwd, hint=self.hint, handshake=self.handshake,
                             max_line_bytes=self.max_line_bytes, max_faults=self.max_faults, cutoff=self.cutoff)

    def __enter__(self) -> CommandTestee:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- calls -------------------------------------------------------------------------------------

    def call(self, op_name: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.call_batch([(op_name, args)])[0]

    def call_batch(self, calls: Iterable[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Send every request, then read the answers in order; see the module docstring for failures."""
        calls = list(calls)
        results: list[dict[str, Any] | None] = [None] * len(calls)
        self._calls = calls
        self._bodies: dict[int, dict[str, Any]] = {}  # index -> the request without its id (host values)
        for index, (op_name, args) in enumerate(calls):
            if op_name == TRACE_OP and args.get("op") in self.untraced:
                results[index] = self._untraced_error(args["op"])
                continue
            try:
                encoded = ({"op": args["op"], "args": hostvalues.encode_args(args["args"])} if op_name == TRACE_OP
                           else hostvalues.encode_args(args))
                self._bodies[index] = {"op": op_name, "args": encoded}
            except TypeError as exc:
                results[index] = _error("bad_request", f"cannot encode the arguments: {exc}")
        pending = [i for i in range(len(calls)) if results[i] is None]
        lines: list[int] = []  # one request per line (to find which one killed a batch)
        retry: collections.deque[int] = collections.deque()  # alone, on a fresh process, once
        first_trouble: dict[int, tuple[str, str]] = {}
        deaths: list[tuple[str, str, list[int]]] = []  # batch lines a process died or hung on
        self._drain_stray()

        def remaining() -> list[int]:
            return [*retry, *lines, *pending]

        while pending or lines or retry:
            if self.taken_out is not None:
                for index in remaining():
                    results[index] = _error("unavailable", f"{self.name} was taken out of this run: {self.taken_out}")
                break
            if self._past_cutoff():
                for index in remaining():
                    results[index] = _error(CUT, "the run's time budget ran out before this request was answered")
                self.cut_requests += len(remaining())
                break
            if retry and self._proc is not None and self._proc.used:
                self._drop()
            if self._proc is None:
                failure = self._restart()
                if failure is not None:
                    if self._past_cutoff():
                        continue
                    self.findings.add(self.name, "restart_failed", failure)
                    self._take_out(f"a fresh process could not be started: {failure}")
                    continue
            proc = self._proc
            if retry:
                outcome = self._exchange_lines([retry.popleft()])
            elif lines:
                outcome, lines = self._exchange_lines(lines), []
            elif self.batch_form and len(pending) > 1:
                outcome, pending = self._exchange_batch(pending), []
            else:
                outcome, pending = self._exchange_lines(pending), []
            self._check_stderr(proc)
            if outcome.answered:
                self.faults_in_a_row = 0
                self.crashes_in_a_row, self.crashed_on = 0, []
            self._count_crashes(outcome)
            for index, response in outcome.answered.items():
                results[index] = response
                if calls[index][0] == TRACE_OP and "ok" in response:
                    self.trace_faults_in_a_row = 0
                if index in first_trouble and first_trouble[index][0] in _PROCESS_TROUBLE:
                    kind, message = first_trouble[index]
                    self.findings.add(self.name, "flaky_timeout" if kind == "timeout" else "flaky_crash",
                                      f"{kind} on a request that a fresh process then answered: {message[:300]}",
                                      request=self._shown(index))
            self.faults_in_a_row += outcome.faults
            for index, kind, message in outcome.troubled:
                if index not in first_trouble:
                    first_trouble[index] = (kind, message)
                    retry.append(index)
                else:
                    if kind in _PROCESS_TROUBLE:  # again, alone, on a fresh process: the input does it
                        results[index] = _error("timeout" if kind == "timeout" else "crash", message)
                    else:
                        results[index] = _error(FAULTED,
                                                f"faulted twice ({first_trouble[index][0]}, then {kind}): {message}")
                    if calls[index][0] == TRACE_OP:
                        self.trace_faults_in_a_row += 1
            if outcome.died is not None:
                deaths.append(outcome.died)
            lines = outcome.lines + lines
            pending = outcome.batch + pending
            if outcome.cut:
                for index in remaining():
                    results[index] = _error(CUT, "the run's time budget ran out before this request was answered")
                self.cut_requests += len(remaining())
                break
            if self.faults_in_a_row >= self.max_faults and self.taken_out is None:
                self._take_out(f"{self.faults_in_a_row} protocol faults in a row")
            if self.crashes_in_a_row >= self.max_faults and self.taken_out is None:
                self._take_out(f"{self.crashes_in_a_row} crashes or hangs in a row, with no answer between them "
                               f"(died, trapped or hung; first on: {'; '.join(self.crashed_on)})")
            if self.trace_faults_in_a_row >= self.max_faults and self.taken_out is None:
                self._take_out(f"{self.trace_faults_in_a_row} trace faults in a row (trace requests refused, "
                               "malformed, faulted twice, or crashed or hung again on a fresh process)")
        for kind, why, chunk in deaths:
            # Sent again one per line, no request of it died or hung again (nor was cut): the batch's
            # process was the trouble, not an input (a process killed from outside, a flaky testee).
            if all(_answered_by_testee(results[i]) for i in chunk):
                self.findings.add(self.name, "flaky_timeout" if kind == "timeout" else "flaky_crash",
                                  f"{why.splitlines()[0]}; every request of it was then answered one per line")
        return [r if r is not None else _error(CUT, "no answer") for r in results]


def _answered_by_testee(response: dict[str, Any] | None) -> bool:
    """An answer of the testee's own: ok, or an error it gave (not a crash, hang, cut or fault)."""
    return response is not None and ("ok" in response or response["error"]["code"] not in
                                     (*_PROCESS_TROUBLE, CUT, FAULTED, "unavailable"))
