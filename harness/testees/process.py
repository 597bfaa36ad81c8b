"""One command testee's process (harness/testees/command.py): started in a process group and a session of its own
(and below this process, harness/testees/reaper.py), its stdin written by a thread of its own (a testee that answers
before it reads everything cannot deadlock against the client), its stdout read as lines
(harness/testees/lines.py), the tail of its stderr kept, its exit watched, and killed as a group: nothing it starts
outlives it.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from harness.testees import reaper
from harness.testees.lines import DEFAULT_MAX_LINE_BYTES, LineReader

EXIT_GRACE = 0.5  # seconds after a testee's exit for the last of its stdout, when something else holds the pipe
_STDERR_TAIL_BYTES = 4096
_STDERR_LINES = 20


class TesteeProcess(LineReader):
    """One testee process: its stdout read in chunks and split into lines (none held over the line limit)
    into a bounded queue (harness/testees/lines.py), and the tail of its stderr.

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
        LineReader.__init__(self, max_line_bytes)  # its stdout, as lines (harness/testees/lines.py)
        self.used = False  # a request was sent to it (a retry wants a process that has seen nothing)
        self.stderr_bytes = 0
        self.flood_reported = False
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
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

    def _read_stdout(self) -> None:
        assert self.popen.stdout is not None
        self._read_lines(self.popen.stdout.fileno())

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
