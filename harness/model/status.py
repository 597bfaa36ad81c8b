"""Exit statuses: one meaning each, for every command of ``python -m harness`` and the tools.

The table below is the one place they are defined; README.md ("Exit statuses") lists it and
suites/cli/test_exit_statuses.py holds every command to it.
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
INTERNAL = 5  # the harness itself failed: an exception it did not expect (a bug to report, not a verdict)

STATUSES = {
    AGREE: "all agree: every case passes, no new divergence, no finding",
    FOUND: "a new divergence, a failing case, a finding about a testee, or an expected-list problem "
           "(stale, unexpectedly passing)",
    USAGE: "a usage or configuration error: an unknown op or implementation, bad arguments, a malformed "
           "declaration, expected list, report, baseline or checkpoint (named, with its problem)",
    UNAVAILABLE: "a requested implementation could not be built or started (report show and html: a partial "
                 "matrix, a Python of the parity matrix asked for and not found, its implementations never started)",
    INTERRUPTED: "interrupted (Ctrl-C, or the reader of its output went away: `| head`; a sweep resumes from "
                 "its checkpoint)",
    INTERNAL: "an internal error: the harness failed (a bug in the harness, not a verdict about any "
              "implementation); its traceback is printed, report it",
}

SHORT = {AGREE: "all agree", FOUND: "found something new", USAGE: "usage or configuration error",
         UNAVAILABLE: "an implementation could not start", INTERRUPTED: "interrupted",
         INTERNAL: "internal error (a harness bug)"}


# Checks every command runs before it starts, each registered by the module whose data it checks (the op
# registry: that every family file loads); a module that runs without them (a tool that reads no op) has none.
PREFLIGHT: list[Callable[[], None]] = []


class CommandError(Exception):
    """Stops a command with an ``error:`` line on stderr and the status of its kind."""

    status = USAGE


class UsageError(CommandError):
    status = USAGE


class Unavailable(CommandError):
    status = UNAVAILABLE


def exit_with(main: Callable[[], int]) -> NoReturn:
    """The process's exit with ``main``'s status, for ``python -m harness`` and every tool: a CommandError
    gives its kind's status and an ``error:`` line, Ctrl-C gives INTERRUPTED, and any other exception is the
    harness's own failure: its traceback, a last line saying so, and INTERNAL (never 1, which is a verdict:
    "found something new")."""
    try:
        preflight()
        status = main()
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        status = exc.status
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        status = INTERRUPTED
    except BrokenPipeError:  # `| head` stopped reading: not the harness's failure, and nothing more to say
        _quiet_stdout()
        status = INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - every exception the harness did not expect ends here
        status = internal_error(exc)
    sys.exit(status)


def preflight() -> None:
    """Run the checks every command runs before it starts (``PREFLIGHT``); a CommandError stops the command.
    Help and version need none."""
    if sys.argv[1:2] and sys.argv[1] in ("-h", "--help", "-V", "--version"):
        return
    for check in PREFLIGHT:
        check()


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of a closed pipe raises nothing."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def internal_error(exc: BaseException) -> int:
    """Report an exception the harness did not expect, on stderr: its traceback (what a bug report needs),
    then one line saying that the harness failed, not an implementation; the status is INTERNAL."""
    import traceback

    try:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    except Exception:  # noqa: BLE001 - the line below is what matters
        pass
    print(f"internal error: the harness failed ({type(exc).__name__}); this is a bug in the harness, not a "
          f"verdict about any implementation: nothing it found is implied. Exit status {INTERNAL}. Please "
          "report it with the traceback above.", file=sys.stderr)
    return INTERNAL
