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
"""

from __future__ import annotations

import collections
import errno
import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.model import caps, hostvalues, repeated_keys, untrusted
from harness.model.caps import ANSWER_CAP, MESSAGE_CAP
from harness.model.registry import OPS, RETURN_TYPES, check_args
from harness.model.traces import TRACE_OP
from harness.testees import reaper
from harness.testees.errors import ImplementationUnavailable
from harness.testees.findings import DEFAULT_MAX_FAULTS, Findings, line_evidence
from harness.testees.protocol import PROTOCOL_VERSION, encode_line
from reference.errors import CODES

DEFAULT_TIMEOUT = 10.0  # seconds per request
BATCH = 1000  # requests per batch line, at most
PIPELINE = 3  # batch lines in flight: the client encodes and decodes while the testee works
# A batch's deadline: the request deadline plus this per request (a batch answers as one line, so a
# hang inside it shows only at its deadline; its requests then go one per line, each with the full
# request deadline, so a tight batch deadline costs time, never a verdict).
BATCH_SECONDS_PER_REQUEST = 0.002
STARTUP_TIMEOUT = 30.0  # seconds for the handshake after a start
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024  # the longest line read from a testee
BATCH_SHARE_OF_LINE = 8  # a batch line's requests take at most this share of the line limit, so its answer fits

_START_ID = "__start__"
EXIT_GRACE = 0.5  # seconds after a testee's exit for the last of its stdout, when something else holds the pipe
_STDERR_TAIL_BYTES = 4096
_STDERR_LINES = 20
_QUEUED_LINES = 64  # stdout lines read ahead; then the reader waits (and so does the testee)
# Bytes of stdout lines read ahead, at most (a line over it is queued alone): 64 lines of 16 MiB were 1 GiB held.
_QUEUED_BYTES = 4 * 1024 * 1024
TRACE_CAP = 4 * 1024 * 1024  # a trace answer's value (a trace-v1 document: one entry per step, each with its text)
FAULTED = "protocol_fault"  # the harness code of a request faulted twice: never compared
CUT = "cut"  # the harness code of a request unanswered when the budget ran out: never compared


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


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def same_id(got: Any, want: Any) -> bool:
    """Whether an answer's id is the request's: the same JSON type and value (``true`` is not ``1``, ``1.0``
    is not ``1``, and an array or object is never an id). Never raises, whatever the testee sent."""
    return type(got) is type(want) and got == want


_ERROR_CODE = re.compile(r"[a-z_]+")  # protocol v2: an error code matches ^[a-z_]+$


@dataclass(frozen=True)
class TooLong:
    """What the reader hands over instead of a line longer than the limit (the rest of it is skipped)."""

    head: bytes
    length: int  # bytes read of it when the limit was passed


@dataclass(frozen=True)
class Fault:
    kind: str  # a protocol-fault kind of harness/testees/findings.py
    message: str
    line: str | None = None  # evidence: the first bytes of the offending line


class TesteeProcess:
    """One testee process: its stdout read in chunks and split into lines (none held over the line limit)
    into a bounded queue, and the tail of its stderr.

    It runs in a process group of its own, killed as a group: nothing it starts outlives it. A watcher
    waits for the process itself, so its exit is seen at once even when something else holds its pipes
    (a child of its own): the group is killed, and the reader's end of stdout is closed within
    EXIT_GRACE seconds whatever still holds it."""

    def __init__(self, command: Sequence[str], env: dict[str, str] | None, cwd: Path | None,
                 max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        reaper.become()  # what it starts in a session of its own stays below this process (harness/testees/reaper.py)
        self.popen = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=cwd, bufsize=0, start_new_session=True,
        )
        self.max_line_bytes = max_line_bytes
        self.lines: queue.Queue[bytes | TooLong | None] = queue.Queue(maxsize=_QUEUED_LINES)  # None: EOF
        self.used = False  # a request was sent to it (a retry wants a process that has seen nothing)
        self.stderr_bytes = 0
        self.flood_reported = False
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        self._stopping = threading.Event()
        self._eof_sent = False
        self._eof_lock = threading.Lock()
        self._queued = 0  # bytes of the lines in self.lines
        self._room = threading.Condition()
        self._threads = [
            threading.Thread(target=self._read_stdout, name="testee-stdout", daemon=True),
            threading.Thread(target=self._read_stderr, name="testee-stderr", daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        self._watcher = threading.Thread(target=self._watch, name="testee-watch", daemon=True)
        self._watcher.start()
        self._outbox: queue.Queue[list[bytes] | None] = queue.Queue()
        self._writer: threading.Thread | None = None

    def _put(self, item: bytes | TooLong | None) -> None:
        size = len(item) if isinstance(item, bytes) else 0
        with self._room:  # at most _QUEUED_BYTES of lines read ahead (but one line, whatever its length)
            while self._queued > 0 and self._queued + size > _QUEUED_BYTES and not self._stopping.is_set():
                self._room.wait(0.1)
            self._queued += size
        while not self._stopping.is_set():
            try:
                self.lines.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _read_stdout(self) -> None:
        assert self.popen.stdout is not None
        fd = self.popen.stdout.fileno()
        limit = self.max_line_bytes
        pending = bytearray()
        skipping = False  # inside a line already reported too long: drop it up to its newline
        try:
            while not self._stopping.is_set():
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                start = 0
                while True:
                    newline = chunk.find(b"\n", start)
                    end = len(chunk) if newline < 0 else newline
                    if not skipping:
                        pending += chunk[start:end]
                        if len(pending) > limit:
                            self._put(TooLong(bytes(pending[:256]), len(pending)))
                            pending = bytearray()
                            skipping = True
                    if newline < 0:
                        break
                    if skipping:
                        skipping = False
                    else:
                        self._put(bytes(pending))
                        pending = bytearray()
                    start = newline + 1
        except (OSError, ValueError):
            pass
        finally:
            if pending and not skipping:
                self._put(bytes(pending))  # a last line without its newline
            self._send_eof()

    def _send_eof(self) -> None:
        with self._eof_lock:
            if self._eof_sent:
                return
            self._eof_sent = True
        self._put(None)

    def _watch(self) -> None:
        """Wait for the process; at its exit, kill its group (whatever it started) and end the stream of
        lines even if a process outside the group still holds the pipe."""
        try:
            self.popen.wait()
        except OSError:
            pass
        self.kill_group()
        self._threads[0].join(timeout=EXIT_GRACE)
        if self._threads[0].is_alive():  # the pipe is held from outside the group: no more lines count
            self._send_eof()

    def kill_group(self) -> None:
        """SIGKILL the testee's process group (the testee and everything it started that stayed in it)."""
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass

    def _read_stderr(self) -> None:
        assert self.popen.stderr is not None
        fd = self.popen.stderr.fileno()
        try:
            while not self._stopping.is_set():
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                with self._stderr_lock:
                    self.stderr_bytes += len(chunk)
                    self._stderr += chunk
                    if len(self._stderr) > 2 * _STDERR_TAIL_BYTES:
                        del self._stderr[:-_STDERR_TAIL_BYTES]
        except (OSError, ValueError):
            pass

    def send(self, lines: list[bytes]) -> None:
        """Queue the lines for the writer thread: writes never block the caller, so a testee that
        answers before reading everything cannot deadlock against us (both sides blocked on full
        pipes), and lines go out in the order they were queued (batches can be pipelined)."""
        self.used = True
        if self._writer is None:
            self._writer = threading.Thread(target=self._write_lines, name="testee-stdin", daemon=True)
            self._writer.start()
        self._outbox.put(lines)

    def _write_lines(self) -> None:
        assert self.popen.stdin is not None
        while True:
            lines = self._outbox.get()
            if lines is None:
                return
            try:
                for line in lines:
                    self.popen.stdin.write(line)
                self.popen.stdin.flush()
            except (OSError, ValueError):
                return  # the process died: the reader sees EOF and the client reports it

    def next_line(self, deadline: float) -> bytes | TooLong | None | str:
        """The next stdout line (without its newline), a TooLong, None at EOF, or "timeout" when nothing
        came before ``deadline``."""
        try:
            return self._taken(self.lines.get(timeout=max(0.0, deadline - time.monotonic())))
        except queue.Empty:
            return "timeout"

    def _taken(self, item: bytes | TooLong | None) -> bytes | TooLong | None:
        if isinstance(item, bytes):
            with self._room:
                self._queued -= len(item)
                self._room.notify_all()
        return item

    def stray_lines(self) -> list[bytes | TooLong]:
        """Lines already read that nobody asked for (taken without waiting)."""
        found: list[bytes | TooLong] = []
        while True:
            try:
                item = self._taken(self.lines.get_nowait())
            except queue.Empty:
                return found
            if item is None:
                self._put(None)  # keep the EOF for whoever reads next
                return found
            found.append(item)

    def stderr_tail(self) -> str:
        time.sleep(0.05)  # let the stderr reader catch the last lines of a dying process
        with self._stderr_lock:
            tail = bytes(self._stderr[-_STDERR_TAIL_BYTES:])
            total = self.stderr_bytes
        lines = tail.decode("utf-8", "replace").splitlines()[-_STDERR_LINES:]
        text = "\n".join(line[:500] for line in lines)
        if total > len(tail):
            text = f"[{total:,} bytes on stderr in all; the last ones:]\n" + text
        return text

    def stderr_text(self) -> str:
        tail = self.stderr_tail()
        return f"; stderr (last lines):\n{tail}" if tail else ""

    def exit_status(self, wait: float = 1.0) -> int | None:
        try:
            return self.popen.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        self._stopping.set()
        self.kill_group()
        try:
            self.popen.kill()
        except OSError:
            pass
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._close_pipes()

    def close(self, wait: float = 2.0) -> None:
        self._outbox.put(None)  # the writer finishes what is queued, then stops
        if self._writer is not None:
            self._writer.join(timeout=wait)
        try:
            if self.popen.stdin is not None:
                self.popen.stdin.close()
        except OSError:
            pass
        self._stopping.set()
        if self.exit_status(wait) is None:
            self.kill()
        self._close_pipes()

    def _close_pipes(self) -> None:
        self._outbox.put(None)
        for thread in self._threads:
            thread.join(timeout=1)
        for pipe in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass


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
CRASH_EVIDENCE = 3  # requests named in the finding of a testee taken out for its crashes
START_ATTEMPTS = 3  # tries of a start that failed by an exit (killed from outside while it started)
START_BACKOFF = (0.2, 1.0)  # seconds before the second and the third


class _StartExited(Exception):
    """A start that failed by the process's exit by a signal, or a refused fork: worth another try."""


class CommandTestee:
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

    # --- process lifecycle -------------------------------------------------------------------------

    def _wait_until(self, deadline: float) -> float:
        return deadline if self.cutoff is None else min(deadline, self.cutoff)

    def _past_cutoff(self) -> bool:
        return self.cutoff is not None and time.monotonic() >= self.cutoff

    def _start(self, first: bool = False) -> None:
        """Start a process and shake hands. A start that fails by an exit or a refused fork (a process
        killed from outside while it starts, a loaded machine) is tried again up to START_ATTEMPTS times
        with a short back-off; a start that hangs, answers wrongly or cannot be run at all is not."""
        for attempt in range(START_ATTEMPTS):
            try:
                self._start_once(first)
                return
            except _StartExited as exc:
                if attempt + 1 == START_ATTEMPTS or self._past_cutoff():
                    raise ImplementationUnavailable(
                        f"{exc}" + (f" ({attempt + 1} attempts)" if attempt else "")
                        + (f"; {self.hint}" if first and self.hint else "")) from None
                self.start_retries += 1
                time.sleep(START_BACKOFF[attempt])

    def _start_once(self, first: bool) -> None:
        try:
            proc = TesteeProcess(self.command, self._env, self._cwd, self.max_line_bytes)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.ENOMEM) and not first:
                raise _StartExited(f"{self.name}: cannot start {self.command!r}: {exc}") from None
            raise ImplementationUnavailable(
                f"{self.name}: cannot start {self.command!r}: {exc}" + (f"; {self.hint}" if first else "")) from None
        if self.handshake:
            try:
                described = self._handshake(proc)
                if not first and self.description and described != self.description:
                    self._restarted_as_another(described, proc)
                self.description = described if first or not self.description else self.description
            except _StartExited:
                proc.kill()
                raise
            except ImplementationUnavailable as exc:
                proc.kill()
                raise ImplementationUnavailable(f"{exc}" + (f"; {self.hint}" if first and self.hint else "")) from None
        self._proc = proc

    def _handshake(self, proc: TesteeProcess) -> dict[str, Any]:
        """Send `start`; the testee's self-description, or ImplementationUnavailable saying why not.
        Lines before its answer are protocol faults (recorded), not reasons to give up; a line that is the
        start answer but not protocol JSON (a byte order mark before it, say) ends the start at once,
        naming its first bytes; a deadline names the lines that came instead."""
        proc.send([self._encode(start_request())])
        deadline = self._wait_until(time.monotonic() + self.startup_timeout)
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
            return self._description(answer, proc, line)

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

    def _restart(self) -> str | None:
        """Replace the process; None on success, else why it failed."""
        if self._proc is not None:
            self._proc.kill()
            self._proc = None
        self.restarts += 1
        try:
            self._start()
        except ImplementationUnavailable as exc:
            return str(exc)
        return None

    def _drop(self) -> None:
        """Kill the current process; the next exchange starts a fresh one."""
        if self._proc is not None:
            self._proc.kill()
            self._proc = None

    def close(self) -> None:
        if self._proc is not None:
            self._proc.close()
            self._proc = None

    def __enter__(self) -> CommandTestee:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading answers: the protocol's verdicts ----------------------------------------------------

    @staticmethod
    def _encode(message: dict[str, Any]) -> bytes:
        return encode_line(message).encode("ascii")

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

    def _count_crashes(self, outcome: _Outcome) -> None:
        """Count the process deaths and hangs of one exchange (each request it died, trapped or hung on, and a
        batch line it died or hung on), with the first few requests as evidence."""
        troubled = [index for index, kind, _ in outcome.troubled if kind in _PROCESS_TROUBLE]
        if outcome.died is not None:
            troubled.append(outcome.died[2][0])
        for index in troubled:
            self.crashes_in_a_row += 1
            if len(self.crashed_on) < CRASH_EVIDENCE:
                self.crashed_on.append(self._shown(index)[:120])

    def _check_stderr(self, proc: TesteeProcess | None) -> None:
        if proc is not None and not proc.flood_reported and proc.stderr_bytes > self.max_line_bytes:
            proc.flood_reported = True
            self.findings.add(self.name, "stderr_flood", f"{proc.stderr_bytes:,} bytes on stderr from one process "
                              f"(more than the line limit, {self.max_line_bytes:,}); read in chunks and dropped",
                              stderr=proc.stderr_tail()[-300:])

    def _take_out(self, why: str) -> None:
        self.taken_out = why
        self.findings.add(self.name, "taken_out", f"{self.name} taken out of the rest of the run: {why}")
        self._drop()

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


def _answered_by_testee(response: dict[str, Any] | None) -> bool:
    """An answer of the testee's own: ok, or an error it gave (not a crash, hang, cut or fault)."""
    return response is not None and ("ok" in response or response["error"]["code"] not in
                                     (*_PROCESS_TROUBLE, CUT, FAULTED, "unavailable"))
