"""Exit statuses: one meaning each, for every command of ``python -m harness`` and the tools.

The table below is the one place they are defined; README.md ("Exit statuses") lists it and
suites/test_exit_statuses.py holds every command to it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn

from harness.model.names import did_you_mean

__all__ = ["did_you_mean"]  # the CLI's one import for it

AGREE = 0
FOUND = 1
USAGE = 2
UNAVAILABLE = 3
INTERRUPTED = 4

STATUSES = {
    AGREE: "all agree: every case passes, no new divergence, no finding",
    FOUND: "a new divergence, a failing case, a finding about a testee, or an expected-list problem "
           "(stale, unexpectedly passing)",
    USAGE: "a usage or configuration error: an unknown op or implementation, bad arguments, a malformed "
           "declaration",
    UNAVAILABLE: "a requested implementation could not be built or started",
    INTERRUPTED: "interrupted (Ctrl-C; a sweep resumes from its checkpoint)",
}

SHORT = {AGREE: "all agree", FOUND: "found something new", USAGE: "usage or configuration error",
         UNAVAILABLE: "an implementation could not start", INTERRUPTED: "interrupted"}


class CommandError(Exception):
    """Stops a command with an ``error:`` line on stderr and the status of its kind."""

    status = USAGE


class UsageError(CommandError):
    status = USAGE


class Unavailable(CommandError):
    status = UNAVAILABLE


def exit_with(main: Callable[[], int]) -> NoReturn:
    """The process's exit with ``main``'s status, for ``python -m harness`` and every tool: a CommandError
    gives its kind's status and an ``error:`` line, Ctrl-C gives INTERRUPTED (never a traceback's 1)."""
    try:
        status = main()
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        status = exc.status
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        status = INTERRUPTED
    sys.exit(status)
