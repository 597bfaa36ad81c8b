"""The live progress of a long run (fuzz, sweep): on a terminal a rich progress bar with the run's counts,
redrawn at most four times a second; otherwise (a CI log, a pipe) one plain line every ``every`` seconds.

rich redraws only when ``update`` is called (no refresh thread): the harness's process stays as free of
threads as it can, and a thread holding a lock at a fork (the fork server starting, a command testee's
process) leaves the child waiting on it for ever."""

from __future__ import annotations

import time
from typing import Any, TextIO

QUIET = False  # `python -m harness -q`: no progress at all, the verdict line only


class Progress:
    def __init__(self, stream: TextIO, label: str, total: float, every: float = 10.0) -> None:
        self.stream, self.label, self.total, self.every = stream, label, total, every
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.last = 0.0
        self._bar: Any = None
        self._task: Any = None

    def update(self, completed: float, text: str, force: bool = False) -> None:
        """``completed`` of ``total`` done; ``text``: the counts to show beside the bar (or on the line)."""
        if QUIET:
            return
        now = time.monotonic()
        if not force and now - self.last < (0.25 if self.tty else self.every):
            return
        self.last = now
        if not self.tty:
            self.stream.write(f"[{self.label}] {text}\n")
            self.stream.flush()
            return
        if self._bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, TaskProgressColumn, TextColumn
            from rich.progress import Progress as Bar
            from rich.table import Column

            # A short bar, and the counts folded onto a second line where the terminal is narrow: rich's
            # defaults (a 40-column bar, counts on one line) cut the label, the bar and the percentage away at
            # 80 columns, leaving the counts' middle.
            self._bar = Bar(TextColumn(f"[bold]{self.label}"), BarColumn(bar_width=10), TaskProgressColumn(),
                            TextColumn("{task.fields[text]}", table_column=Column(overflow="fold", ratio=1)),
                            console=Console(file=self.stream), auto_refresh=False)
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total, text="")
        self._bar.update(self._task, completed=min(completed, self.total), text=text)
        self._bar.refresh()

    def done(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
