"""The lifecycle of a command testee's processes (harness/testees/command.py): the first start (a failure names how to
make the testee available), a start that failed by an exit from outside tried again (START_ATTEMPTS, with a
back-off), a process dropped at any trouble and a fresh one started for the next exchange, and the counts that take a
testee out of the run: process deaths and hangs in a row (``_count_crashes``; CommandTestee.call_batch counts the
protocol and trace faults), each reaching max_faults. The cutoff (a run's time budget) bounds every wait.
"""

from __future__ import annotations

import errno
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.testees.errors import ImplementationUnavailable
from harness.testees.exchange import _PROCESS_TROUBLE
from harness.testees.findings import Findings
from harness.testees.handshake import _StartExited
from harness.testees.process import TesteeProcess

if TYPE_CHECKING:
    from harness.testees.exchange import _Outcome

CRASH_EVIDENCE = 3  # requests named in the finding of a testee taken out for its crashes
START_ATTEMPTS = 3  # tries of a start that failed by an exit (killed from outside while it started)
START_BACKOFF = (0.2, 1.0)  # seconds before the second and the third


class Lifecycle:
    """Starting, replacing, dropping and closing the testee's process, and taking the testee out (a part of
    CommandTestee, harness/testees/command.py). These are the state of the client it reads and changes:"""

    name: str
    command: list[str]
    hint: str
    handshake: bool
    max_line_bytes: int
    cutoff: float | None
    description: dict[str, Any]
    findings: Findings
    crashes_in_a_row: int
    crashed_on: list[str]
    taken_out: str | None
    restarts: int
    start_retries: int
    _env: dict[str, str] | None
    _cwd: Path | None
    _proc: TesteeProcess | None

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
