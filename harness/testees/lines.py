"""The line reader of a command testee (harness/testees/command.py): the testee's stdout read in chunks and split
into lines, none held over the line limit, into a bounded queue (at most _QUEUED_LINES lines and _QUEUED_BYTES of
them, or one line whatever its length), taken from it with a deadline.

A line over the limit is handed over as a ``TooLong`` (its first bytes and how much of it was read) and the rest of
it is skipped up to its newline: a testee that writes without end holds no more than the limit of one line here, and
the reader waits (and so does the testee) while the queue is full. The process around it (harness/testees/process.py)
runs the reading thread, and ends the stream of lines at the testee's exit.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from dataclasses import dataclass

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024  # the longest line read from a testee
_QUEUED_LINES = 64  # stdout lines read ahead; then the reader waits (and so does the testee)
# Bytes of stdout lines read ahead, at most (a line over it is queued alone): 64 lines of 16 MiB were 1 GiB held.
_QUEUED_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class TooLong:
    """What the reader hands over instead of a line longer than the limit (the rest of it is skipped)."""

    head: bytes
    length: int  # bytes read of it when the limit was passed


class LineReader:
    """A testee's stdout as lines: one thread reads it (``_read_lines``) into ``lines``, a bounded queue; the client
    takes them in order (``next_line``, ``stray_lines``). ``_stopping`` ends the reading (the process is killed or
    closed)."""

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self.lines: queue.Queue[bytes | TooLong | None] = queue.Queue(maxsize=_QUEUED_LINES)  # None: EOF
        self._stopping = threading.Event()
        self._eof_sent = False
        self._eof_lock = threading.Lock()
        self._queued = 0  # bytes of the lines in self.lines
        self._room = threading.Condition()

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

    def _read_lines(self, fd: int) -> None:
        """Read the testee's stdout (``fd``) in chunks, split it into lines and queue them; at its end,
        the last line without its newline and then EOF (None)."""
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
