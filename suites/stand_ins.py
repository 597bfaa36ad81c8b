"""Small stand-ins the tests share: a stream that says it is a terminal, and a child's SIGINT as a terminal's."""

from __future__ import annotations

import io
import signal


class Terminal(io.StringIO):
    """A text stream that says it is a terminal (rich draws its live bar on it; views colour on it)."""

    def isatty(self) -> bool:
        return True


def interruptible() -> None:
    """In the child, SIGINT as a terminal gives it: a test run started in the background (``nohup``, ``cmd &`` in
    a script) ignores SIGINT, its children inherit that, and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
