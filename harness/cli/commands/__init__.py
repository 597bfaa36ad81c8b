"""The commands of ``python -m harness``, one module each: ``COMMANDS`` maps every command's name to the
``Command`` its module declares (harness/cli/commands/command.py): its arguments, the ranges of its numbers, its
verdict line, its place in the help and its run function. harness/cli/main.py builds its parser from this table,
checks, runs and quiets a command through it, and lists the commands from it; it names no command of its own.

A new command is one module here (its ``COMMAND``, added to ``MODULES``), its numbers' row in
harness/model/settings.py ``OPTIONS`` when it has ranged numbers, and its tests; suites/cli/test_commands.py holds
every command to every column."""

from __future__ import annotations

from typing import Any

from harness.cli.commands.command import Command

# The groups of the top help, in its order: a command's ``use`` is one of these keys.
USES: dict[str, str] = {
    "check": "check the implementations (what `nox -s parity` runs on each)",
    "read": "read results",
    "search": "search for divergences",
    "maintain": "maintain",
    "serve": "serve a testee, and test one",
}


def _modules() -> tuple[Any, ...]:
    from harness.cli.commands import (
        bench,
        check,
        diff,
        expected,
        fuzz,
        impls,
        lint,
        promote,
        report,
        run,
        selftest,
        sweep,
        trace,
        tracecheck,
    )

    # The help's order within a group (its groups in USES' order): the order a maintainer reaches for them.
    return (check, report, fuzz, sweep, diff, trace, tracecheck, expected, promote, lint, bench, impls, run, selftest)


MODULES = _modules()
unplaced = [module.COMMAND.name for module in MODULES if module.COMMAND.use not in USES]
assert not unplaced, f"commands whose use is not a group of the help (USES): {unplaced}"
COMMANDS: dict[str, Command] = {command.name: command for command in sorted(
    (module.COMMAND for module in MODULES), key=lambda command: list(USES).index(command.use))}
assert len(COMMANDS) == len(MODULES), "two command modules declare one name"


def listing() -> str:
    """The commands by use, as the top help lists them: each group's heading, then its commands' lines."""
    lines = []
    for use, heading in USES.items():
        lines.append(f"{heading}:")
        lines += [f"  {command.listed}" for command in COMMANDS.values() if command.use == use]
    return "\n".join(lines)


def summaries() -> dict[str, str]:
    """Every command with its summary, by use (memgate-parity --help lists them)."""
    return {name: command.summary for name, command in COMMANDS.items()}


__all__ = ["COMMANDS", "MODULES", "USES", "Command", "listing", "summaries"]
