"""Exit statuses: one meaning each, for every command of ``python -m harness`` and the tools.

The table below is the one place they are defined; README.md ("Exit statuses") lists it and
suites/cli/test_exit_statuses.py holds every command to it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

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
    FOUND: "a new divergence, a failing case, a finding about a testee, an expected-list problem "
           "(stale, unexpectedly passing), or work the run planned and did not do (its ledger)",
    USAGE: "a usage or configuration error: an unknown op or implementation, bad arguments, a malformed "
           "declaration, expected list, report, baseline or checkpoint (named, with its problem)",
    UNAVAILABLE: "a requested implementation could not be built or started (report show and html: a partial "
                 "matrix, a Python of the parity matrix asked for and not found, its implementations never started)",
    INTERRUPTED: "interrupted (Ctrl-C, SIGTERM or SIGHUP, or the reader of its output went away: `| head`; a "
                 "sweep resumes from its checkpoint)",
    INTERNAL: "an internal error: the harness failed (a bug in the harness, not a verdict about any "
              "implementation); its traceback is printed, report it",
}

SHORT = {AGREE: "all agree", FOUND: "found something new", USAGE: "usage or configuration error",
         UNAVAILABLE: "an implementation could not start", INTERRUPTED: "interrupted",
         INTERNAL: "internal error (a harness bug)"}


# Checks every command runs before it starts, each registered by the module whose data it checks (the op
# registry: that every family file loads); a module that runs without them (a tool that reads no op) has none.
PREFLIGHT: list[Callable[[], None]] = []

# What the command asked, while it ran, to be done as it ends, however it ends (after its report is written, before
# the exit): registered by the module that needs it (harness/testees/reaper.py: end every process left below this
# one, once this process has started testees). Emptied as each command starts.
ENDING: list[Callable[[], object]] = []

# Signals that stop a command as Ctrl-C does (a partial report, marked interrupted; status INTERRUPTED).
AS_INTERRUPT = ("SIGTERM", "SIGHUP")
_INTERRUPTED: list[int] = []  # the signal that interrupted this process, once one has


class CommandError(Exception):
    """Stops a command with an ``error:`` line on stderr and the status of its kind."""

    status = USAGE


class UsageError(CommandError):
    status = USAGE


class Unavailable(CommandError):
    status = UNAVAILABLE


def exit_with(main: Callable[[], int]) -> NoReturn:
    """The process's exit with ``main``'s status, for ``python -m harness`` and every tool: a CommandError
    gives its kind's status and an ``error:`` line, Ctrl-C (or SIGTERM, SIGHUP: ``as_interrupt``) gives
    INTERRUPTED, and any other exception is the harness's own failure: its traceback, a last line saying so, and
    INTERNAL (never 1, which is a verdict: "found something new"). Then what ``ENDING`` holds runs."""
    ENDING.clear()
    previous = as_interrupt()
    status = INTERNAL
    try:
        try:
            preflight()
            status = main()
        except CommandError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = exc.status
        except KeyboardInterrupt:
            print(f"interrupted{interruption()}", file=sys.stderr)
            status = INTERRUPTED
        except BrokenPipeError:  # `| head` stopped reading: not the harness's failure, and nothing more to say
            _quiet_stdout()
            status = INTERRUPTED
        except SystemExit:  # a tool's own exit (argparse: 2), after what ENDING holds (the finally below)
            raise
        except Exception as exc:  # noqa: BLE001 - every exception the harness did not expect ends here
            status = internal_error(exc)
    except KeyboardInterrupt:  # the first SIGTERM or SIGHUP landed after main returned, or in a handler above
        status = INTERRUPTED
    finally:
        ending(previous)  # whatever happened above: what the run started is ended
    sys.exit(status)


def as_interrupt() -> dict[int, Any]:
    """SIGTERM and SIGHUP raise KeyboardInterrupt in this (the main) thread, as SIGINT does: the command stops
    where it is, writes what it has and exits INTERRUPTED. Only the first one: a later one (a signal sent to
    the whole process group reaches this process too, or a second kill) is ignored, so that nothing cuts the
    report being written (SIGKILL still ends the process). A signal already ignored (``nohup``) stays ignored.
    The handlers it replaced, for ``ending``."""
    import signal

    _INTERRUPTED.clear()
    replaced: dict[int, Any] = {}
    for name in AS_INTERRUPT:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            try:
                replaced[number] = signal.signal(number, _interrupt)
            except ValueError:  # not the main thread: its signals are not this caller's
                break
    return replaced


def interrupted_by() -> str:
    """What interrupted this process: the name of the signal ``as_interrupt`` handled ("SIGTERM"), else "Ctrl-C"."""
    import signal

    return signal.Signals(_INTERRUPTED[0]).name if _INTERRUPTED else "Ctrl-C"


def interruption() -> str:
    """" (SIGTERM)" when a signal ``as_interrupt`` handles interrupted this process; else ""."""
    return f" ({interrupted_by()})" if _INTERRUPTED else ""


def _interrupt(number: int, _frame: object) -> None:
    if _INTERRUPTED:
        return
    _INTERRUPTED.append(number)
    raise KeyboardInterrupt


def ending(previous: dict[int, Any] | None = None) -> None:
    """Run what ``ENDING`` holds, each once, with SIGINT, SIGTERM and SIGHUP held off (they would cut it); then
    the handlers ``as_interrupt`` replaced (``previous``) are put back."""
    import signal

    held: list[tuple[int, Any]] = []
    for name in ("SIGINT", *AS_INTERRUPT):
        number = getattr(signal, name, None)
        try:
            if number is not None:
                held.append((number, signal.signal(number, signal.SIG_IGN)))
        except ValueError:  # not the main thread
            break
    try:
        while ENDING:
            try:
                ENDING.pop(0)()
            except Exception as exc:  # noqa: BLE001 - the exit status is already decided
                print(f"warning: while ending: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        for number, handler in held:
            signal.signal(number, (previous or {}).get(number, handler))


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
