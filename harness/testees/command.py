"""The client of a command testee: an implementation in another process that speaks the protocol
(docs/protocol.md, schema schemas/protocol-v2.schema.json) on stdin/stdout.

The client keeps one testee process. After each start it sends the ``start`` handshake (the protocol
version and the op table) and gets back the testee's self-description; a testee that does not answer,
answers with another protocol version or dies is unavailable, with a clear message. It then sends
requests (one per line, or many as the protocol's batch lines), matches the answers by id, and survives
a bad input: when the process exits (``crash``), traps (the testee answers ``crash`` and exits) or does
not answer within its deadline (``timeout``: the process is killed), THAT request is reported with the
harness code (a batch that died unanswered is sent again one request per line to find it), the process
is restarted and the rest is sent again. A run is never aborted or hung by one input.
"""

from __future__ import annotations

import collections
import io
import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Sequence

from reference.errors import CODES

from harness.model import hostvalues
from harness.testees.errors import ImplementationUnavailable
from harness.model.registry import OPS
from harness.testees.protocol import PROTOCOL_VERSION, encode_line

DEFAULT_TIMEOUT = 10.0  # seconds per request
BATCH = 1000  # requests per batch line
PIPELINE = 3  # batch lines in flight: the client encodes and decodes while the testee works
BATCH_SECONDS_PER_REQUEST = 0.05  # a batch's deadline: the request deadline plus this per request
STARTUP_TIMEOUT = 30.0  # seconds for the handshake after a start

_START_ID = "__start__"
_STDERR_LINES = 20


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


class TesteeProcess:
    """One testee process, its stdout lines in a queue (a reader thread) and the tail of its stderr."""

    def __init__(self, command: Sequence[str], env: dict[str, str] | None, cwd: Path | None) -> None:
        self.popen = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=cwd, bufsize=0,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()  # None: EOF
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._threads = [
            threading.Thread(target=self._read_stdout, name="testee-stdout", daemon=True),
            threading.Thread(target=self._read_stderr, name="testee-stderr", daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        self._outbox: queue.Queue[list[bytes] | None] = queue.Queue()
        self._writer: threading.Thread | None = None

    def _read_stdout(self) -> None:
        assert self.popen.stdout is not None
        # The pipe is unbuffered (bufsize=0, for the writes); reading lines from a raw pipe reads one
        # byte per system call, which made every batch answer cost ~20 ms. Read through a buffer.
        reader = io.BufferedReader(self.popen.stdout, buffer_size=1 << 16)  # type: ignore[arg-type]
        try:
            for line in reader:
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self.lines.put(None)

    def _read_stderr(self) -> None:
        assert self.popen.stderr is not None
        try:
            for line in self.popen.stderr:
                self.stderr_tail.append(line.decode("utf-8", "replace").rstrip("\n"))
        except (OSError, ValueError):
            pass

    def send(self, lines: list[bytes]) -> None:
        """Queue the lines for the writer thread: writes never block the caller, so a testee that
        answers before reading everything cannot deadlock against us (both sides blocked on full
        pipes), and lines go out in the order they were queued (batches can be pipelined)."""
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

    def next_line(self, deadline: float) -> bytes | None | str:
        """The next stdout line, None at EOF, or "timeout" when nothing came before ``deadline``."""
        try:
            return self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return "timeout"

    def stderr_text(self) -> str:
        time.sleep(0.05)  # let the stderr reader catch the last lines of a dying process
        tail = "\n".join(self.stderr_tail)
        return f"; stderr (last lines):\n{tail}" if tail else ""

    def exit_status(self, wait: float = 1.0) -> int | None:
        try:
            return self.popen.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
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
    ) -> None:
        """``timeout``: seconds per request; ``hint``: how to make the testee available, shown when the
        first start fails. ``handshake=False`` only for test doubles that do not speak ``start``."""
        self.name = name
        self.command = list(command)
        self.timeout = float(timeout)
        self.startup_timeout = float(startup_timeout)
        self.handshake = handshake
        self.hint = hint
        self.description: dict[str, Any] = {}  # the testee's answer to `start`
        self._env = env
        self._cwd = Path(cwd) if cwd is not None else None
        self.restarts = 0  # how many times a dead, trapped or hung process was replaced
        self.batch_form = True  # send batches as the protocol's batch lines (until a testee refuses them)
        self._next_id = 0
        self._proc: TesteeProcess | None = None
        self._start(first=True)

    # --- process lifecycle -------------------------------------------------------------------------

    def _start(self, first: bool = False) -> None:
        try:
            proc = TesteeProcess(self.command, self._env, self._cwd)
        except OSError as exc:
            raise ImplementationUnavailable(
                f"{self.name}: cannot start {self.command!r}: {exc}" + (f"; {self.hint}" if first else "")) from None
        if self.handshake:
            try:
                self.description = self._handshake(proc)
            except ImplementationUnavailable as exc:
                proc.kill()
                raise ImplementationUnavailable(f"{exc}" + (f"; {self.hint}" if first and self.hint else "")) from None
        self._proc = proc

    def _handshake(self, proc: TesteeProcess) -> dict[str, Any]:
        """Send `start`; the testee's self-description, or ImplementationUnavailable saying why not."""
        proc.send([self._encode(start_request())])
        deadline = time.monotonic() + self.startup_timeout
        while True:
            line = proc.next_line(deadline)
            if line == "timeout":
                raise ImplementationUnavailable(
                    f"{self.name}: no answer to the start handshake within {self.startup_timeout:g} s"
                    + proc.stderr_text())
            if line is None:
                raise ImplementationUnavailable(
                    f"{self.name}: the testee exited during start-up (status {proc.exit_status()})" + proc.stderr_text())
            assert isinstance(line, bytes)
            answer = self._parse(line)
            if answer is None or answer.get("id") != _START_ID:
                continue  # stray output before the answer
            if "error" in answer:
                raise ImplementationUnavailable(f"{self.name}: the testee refused the start handshake: "
                                                f"{json.dumps(answer['error'])[:500]}")
            description = answer.get("ok")
            version = description.get("protocol") if isinstance(description, dict) else None
            if version != PROTOCOL_VERSION:
                raise ImplementationUnavailable(
                    f"{self.name}: protocol version mismatch: the harness speaks {PROTOCOL_VERSION}, the testee "
                    f"answered start with {json.dumps(description)[:300]}")
            return description

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

    def close(self) -> None:
        if self._proc is not None:
            self._proc.close()
            self._proc = None

    def __enter__(self) -> "CommandTestee":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- protocol ----------------------------------------------------------------------------------

    @staticmethod
    def _encode(message: dict[str, Any]) -> bytes:
        return encode_line(message).encode("ascii")

    @staticmethod
    def _parse(line: bytes) -> dict[str, Any] | None:
        try:
            message = json.loads(line.decode("utf-8", "surrogateescape"))
        except ValueError:
            return None
        return message if isinstance(message, dict) else None

    @staticmethod
    def _response(message: dict[str, Any]) -> dict[str, Any]:
        """A protocol response line -> the implementation response ``{"ok": v} | {"error": {...}}``."""
        if "ok" in message:
            value = message["ok"]
            if isinstance(value, dict):
                try:
                    value = hostvalues.decode(value)
                except ValueError as exc:
                    return _error("unexpected_exception",
                                  f"the testee answered a value that is not a host value: {exc}")
            return {"ok": value}
        error = message.get("error")
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            return {"error": {"code": error["code"], "message": str(error.get("message", ""))}}
        return _error("unexpected_exception", f"malformed response from the testee: {json.dumps(message)[:300]}")

    def call(self, op_name: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.call_batch([(op_name, args)])[0]

    def call_batch(self, calls: Iterable[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Send every request, then read the answers in order; see the module docstring for failures."""
        calls = list(calls)
        results: list[dict[str, Any] | None] = [None] * len(calls)
        encoded: dict[int, dict[str, Any]] = {}
        for index, (op_name, args) in enumerate(calls):
            try:
                encoded[index] = {"op": op_name, "args": hostvalues.encode_args(args)}
            except TypeError as exc:
                results[index] = _error("bad_request", f"cannot encode the arguments: {exc}")
        pending = [i for i in range(len(calls)) if results[i] is None]
        single: list[int] = []  # requests to send one per line (to find which one killed a batch)
        while pending or single:
            if self._proc is None:
                failure = self._restart()
                if failure is not None:
                    for index in single + pending:
                        results[index] = _error("crash", f"the testee could not be restarted: {failure}")
                    break
            if single:
                single = self._run(single, encoded, results)
            elif self.batch_form and len(pending) > 1:
                pending, single = self._run_batch(pending, encoded, results)
            else:
                pending = self._run(pending, encoded, results)
        return [r if r is not None else _error("crash", "no answer") for r in results]

    def _run_batch(self, pending: list[int], encoded: dict[int, dict[str, Any]],
                   results: list[dict[str, Any] | None]) -> tuple[list[int], list[int]]:
        """Send ``pending`` as batch lines of up to BATCH requests, PIPELINE of them in flight (the testee
        answers lines in order), and read their answers. Returns (the indexes still to send as batches,
        the indexes to send one by one first). A testee that died or hung on a batch is replaced and
        that batch goes one request per line, which names the culprit; a trap answers the requests up
        to it, the last one `crash`; a testee without batches is driven one request per line from then
        on."""
        proc = self._proc
        assert proc is not None
        waiting = list(pending)
        in_flight: collections.deque[tuple[str, list[int], dict[Any, int]]] = collections.deque()

        def send_next() -> None:
            nonlocal waiting
            chunk, waiting = waiting[:BATCH], waiting[BATCH:]
            ids: dict[Any, int] = {}
            items = []
            for index in chunk:
                ids[self._next_id] = index
                items.append({"id": self._next_id, **encoded[index]})
                self._next_id += 1
            batch_id = f"batch-{self._next_id}"
            proc.send([self._encode({"id": batch_id, "batch": items})])
            in_flight.append((batch_id, chunk, ids))

        def later() -> list[int]:
            """What was sent after the head batch, and what was not sent yet."""
            return [i for _, chunk, _ in list(in_flight)[1:] for i in chunk] + waiting

        while waiting and len(in_flight) < PIPELINE:
            send_next()
        while in_flight:
            batch_id, chunk, ids = in_flight[0]
            deadline = time.monotonic() + self.timeout + BATCH_SECONDS_PER_REQUEST * len(chunk)
            while True:
                line = proc.next_line(deadline)
                if line == "timeout" or line is None:
                    proc.kill()
                    self._proc = None
                    return later(), chunk
                assert isinstance(line, bytes)
                message = self._parse(line)
                if message is not None and message.get("id") == batch_id:
                    break
            answers = message.get("batch")
            if not isinstance(answers, list):
                self.batch_form = False  # e.g. bad_request: this testee does not take batches
                # The batch lines still in flight come back refused too; their ids match nothing later.
                return chunk + later(), []
            answered = set()
            trapped = False
            for answer in answers:
                index = ids.get(answer.get("id")) if isinstance(answer, dict) else None
                if index is None or index in answered:
                    continue
                response = self._response(answer)
                results[index] = response
                answered.add(index)
                trapped = trapped or ("error" in response and response["error"]["code"] == "crash")
            if trapped:
                tail = proc.stderr_text() if proc.exit_status(wait=1.0) is not None else ""
                for index in answered:
                    error = results[index].get("error") if results[index] else None
                    if error and error["code"] == "crash" and tail:
                        error["message"] += tail
                proc.kill()
                self._proc = None
                return [i for i in chunk if i not in answered] + later(), []
            in_flight.popleft()
            if waiting:
                send_next()
        return [], []

    def _run(self, pending: list[int], encoded: dict[int, dict[str, Any]],
             results: list[dict[str, Any] | None]) -> list[int]:
        """Send ``pending`` to the current process and collect answers; returns the indexes still to
        send (after a crash, trap or timeout, the process is gone and they go to a fresh one)."""
        proc = self._proc
        assert proc is not None
        ids: dict[Any, int] = {}
        lines = []
        for index in pending:
            request_id = self._next_id
            self._next_id += 1
            ids[request_id] = index
            lines.append(self._encode({"id": request_id, **encoded[index]}))
        proc.send(lines)
        waiting = collections.OrderedDict((i, None) for i in pending)  # unanswered, in send order
        deadline = time.monotonic() + self.timeout
        while waiting:
            current = next(iter(waiting))
            line = proc.next_line(deadline)
            if line == "timeout":
                proc.kill()
                self._proc = None
                results[current] = _error(
                    "timeout", f"no answer within {self.timeout:g} s; the testee was killed and restarted"
                    + proc.stderr_text())
                del waiting[current]
                return list(waiting)
            if line is None:  # EOF: the process died on the first unanswered request
                status = proc.exit_status()
                message = proc.stderr_text()
                proc.kill()
                self._proc = None
                results[current] = _error(
                    "crash", f"the testee exited (status {status}) while handling this request" + message)
                del waiting[current]
                return list(waiting)
            assert isinstance(line, bytes)
            message = self._parse(line)
            if message is None or message.get("id") not in ids:
                continue  # not an answer to this batch (stray output, a stale handshake): ignore
            index = ids[message["id"]]
            if index not in waiting:
                continue
            response = self._response(message)
            results[index] = response
            del waiting[index]
            deadline = time.monotonic() + self.timeout
            if "error" in response and response["error"]["code"] == "crash":
                # A trap: the testee exits after answering; never trust this instance again.
                tail = proc.stderr_text() if proc.exit_status(wait=1.0) is not None else ""
                if tail:
                    response["error"]["message"] += tail
                proc.kill()
                self._proc = None
                return list(waiting)
        return []
