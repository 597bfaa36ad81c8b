"""``python -m harness``: the harness's command line, a dispatcher. The commands are modules of
harness/cli/commands/ (each declares its arguments, the ranges of its numbers, its verdict line, its place in the
help and its run function; ``COMMANDS`` there is their table); here the command line is parsed, the project and
the numbers checked, the command looked up and run (``-q``: its verdict line alone), and its exit status returned
(harness/model/status.py).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Callable
from pathlib import Path

from harness.cli import commands, reports
from harness.cli.commands.command import QUIET_HELP, Parser
from harness.model import envelope
from harness.model import paths as project_paths
from harness.model.status import AGREE, FOUND, INTERNAL, INTERRUPTED, SHORT, STATUSES, CommandError, UsageError
from harness.testees import impls

# command -> its run function: the table main runs a command through (a test may plant one here)
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {name: c.run for name, c in commands.COMMANDS.items()}
# The commands by use, as the help lists them: check, read results, search, maintain, serve.
BY_USE = tuple(commands.COMMANDS)
# The top help's list of the commands by use (each command's line is its module's).
BY_USE_HELP = ("``python -m harness``: the harness's command line, its commands by use.\n\n" + commands.listing()
               + "\n")


def summaries() -> dict[str, str]:
    """Every command of ``python -m harness`` with its summary, by use (memgate-parity --help lists them)."""
    return commands.summaries()


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m harness", description="parity harness command line",
                    formatter_class=argparse.RawDescriptionHelpFormatter,
                    epilog=BY_USE_HELP + "\nexit statuses:\n" + "\n".join(f"  {n}  {t}" for n, t in STATUSES.items()))
    parser.add_argument("-V", "--version", action="version", version=envelope.version_line())
    parser.add_argument("-q", "--quiet", action="store_true", help=QUIET_HELP)
    parser.add_argument("--project", metavar="DIR", type=Path,
                        help="the project to check: its implementations/, fixtures/, expected/ and reports/ "
                             "(default: found from the working directory up, as pytest finds its rootdir)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND",
                                help="one of the commands below, by use (COMMAND --help: its options)")
    for command in commands.COMMANDS.values():
        command.add_to(sub)
    return parser


def check_budgets(args: argparse.Namespace) -> None:
    """Every number of the command line in its range (the command's ``budgets``, its row of
    harness/model/settings.py ``OPTIONS``: a budget more than 0 and finite, ``fuzz --seconds inf`` or ``nan``
    refused, ``--workers`` at least 1, ...): a usage error naming the option, before anything runs or is written."""
    from harness.model import settings

    settings.check()  # the environment's and the project's settings too (the preflight's check; cli.main in process)
    given = {option.name: getattr(args, option.name[2:].replace("-", "_"), None)
             for option in commands.COMMANDS[args.command].budgets}
    settings.check_options(args.command, given)


def _check_project(args: argparse.Namespace) -> None:
    """A usage error (status 2) when the command needs a project and there is none (paths.project_problem),
    or when ``--project`` came too late to take effect (the harness imported in process before it was given:
    the entry points take it first)."""
    if getattr(args, "project", None) is not None and args.project.resolve() != project_paths.ROOT:
        raise UsageError(f"--project {args.project}: the harness was imported with the project "
                         f"{project_paths.ROOT} already; give --project first, to python -m harness or "
                         "memgate-parity (or set PARITY_PROJECT)")
    if project_paths.data_problem():
        raise UsageError(project_paths.data_problem())
    if args.needs_project and project_paths.PROBLEM:
        raise UsageError(project_paths.PROBLEM)
    if args.needs_project or os.environ.get(impls.ORACLE_ENV):
        try:  # --oracle and --context name declared implementations (read only where the run names them)
            if os.environ.get(impls.ORACLE_ENV):
                impls.oracle()
            if os.environ.get(impls.CONTEXT_ENV):
                impls.context()
        except impls.UnknownImplementation as exc:
            raise UsageError(str(exc)) from None


def _command_of(argv: list[str]) -> argparse.Namespace:
    """The subcommand and --project of a command line, before the parser (whose choices read declarations)
    is built, and whether it needs a project: for ``_check_project``. Help and version need none, nor a command
    that reads only the files it is given (its ``needs_project``); an unknown command is judged as needing one."""
    project, command, rest = None, None, list(argv)
    while rest:
        word = rest.pop(0)
        if word in ("-h", "--help", "-V", "--version"):
            return argparse.Namespace(command=None, project=None, needs_project=False)
        if word == "--project" and rest:
            project = Path(rest.pop(0))
        elif word.startswith("--project="):
            project = Path(word.split("=", 1)[1])
        elif not word.startswith("-"):
            command = word
            break
    if any(word in ("-h", "--help") for word in itertools.takewhile(lambda word: word != "--", rest)):
        return argparse.Namespace(command=command, project=project, needs_project=False)  # `fuzz --help`
    known = commands.COMMANDS.get(command) if command is not None else None
    return argparse.Namespace(command=command, project=project,
                              needs_project=known.needs_project if known is not None else True)


def _quietly(args: argparse.Namespace) -> int:
    """The command with its output held back and its progress off; then its verdict line alone. What it wrote
    to stderr is shown after all where it did not end with a verdict (a status past 1: the reason is there)."""
    import contextlib
    import io

    from harness.fuzzing import progress

    held, said = io.StringIO(), io.StringIO()
    progress.QUIET = True
    status = INTERNAL
    try:
        with contextlib.redirect_stdout(held), contextlib.redirect_stderr(said):
            status = COMMANDS[args.command](args)
    finally:
        progress.QUIET = False
        if status not in (AGREE, FOUND):
            sys.stderr.write(said.getvalue())
    lines = [line for line in held.getvalue().splitlines() if line.strip()]
    pattern = commands.COMMANDS[args.command].verdict  # None: the command is summed up by its status
    chosen = next((line for line in reversed(lines) if pattern is not None and pattern.match(line)), None)
    print(chosen if chosen is not None else f"{args.command}: {SHORT.get(status, 'status')} (status {status})")
    return status


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status has one meaning (harness/model/status.py)."""
    envelope.mark_start()
    try:  # before the parser: its choices read the project's declarations
        _check_project(_command_of(list(sys.argv[1:] if argv is None else argv)))
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.status
    args = _parser().parse_args(argv)  # a bad command line exits with 2 (argparse)
    try:
        check_budgets(args)  # before anything runs or is written
        if getattr(args, "baseline", None) is not None:  # read before the run: a bad baseline is a usage error
            from harness.classes import rundiff

            try:
                args.baseline_document = rundiff.read(args.baseline)
            except ValueError as exc:
                raise UsageError(f"--baseline: {exc}") from None
            if rundiff.kind_of(args.baseline_document) not in reports.COMPARABLE:
                raise UsageError(f"--baseline {args.baseline}: a {args.baseline_document['schema']} document; a "
                                 "baseline is a divergence report or fixture results")
        if args.quiet:
            return _quietly(args)
        return COMMANDS[args.command](args)
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED


