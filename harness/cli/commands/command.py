"""The row a command's module declares (harness/cli/commands/): ``Command``, and how its parser is made.

A command is whole in its module: its summary and examples (its ``--help``), its arguments, the numbers among
them that have a range (its row of harness/model/settings.py ``OPTIONS``, checked before it runs), the line of
its output that is its verdict (``-q``), its place in the top help's list by use, and the function that runs
it. harness/cli/main.py only parses, looks the command up and runs it.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from harness.model.settings import Option
from harness.model.status import SHORT, did_you_mean


class Help(argparse.RawDescriptionHelpFormatter):
    """Help that keeps the epilog's lines and shows each option's default (unless its text names it)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if "default" in text or default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)".lstrip()


class Parser(argparse.ArgumentParser):
    """argparse with "did you mean" for a misspelt command or choice (the status stays 2)."""

    def error(self, message: str) -> NoReturn:
        found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if found:
            choices = re.findall(r"'([^']*)'", found.group(2)) or [c.strip() for c in found.group(2).split(",")]
            message += did_you_mean(found.group(1), choices)
        super().error(message)


STATUS_LINE = "; ".join(f"{number} {text}" for number, text in SHORT.items())
QUIET_HELP = "print the verdict line only (no tables, no progress); the exit status is the same"


@dataclass(frozen=True)
class Command:
    """One command of ``python -m harness``. Every field is given: a command without a verdict line or a
    ranged number says so (None, ``()``), so that leaving one out is an error where the module is read."""

    name: str
    summary: str  # its --help's description and memgate-parity --help's line
    examples: tuple[str, ...]  # its --help's examples (python -m harness EXAMPLE)
    arguments: Callable[[argparse.ArgumentParser], None]  # adds its arguments to its parser
    run: Callable[[argparse.Namespace], int]  # runs it; its exit status (harness/model/status.py)
    budgets: tuple[Option, ...]  # its numbers' ranges: settings.OPTIONS[name], checked before it runs
    verdict: re.Pattern[str] | None  # -q: the line of its output that is its verdict (None: its status says it)
    use: str  # its group in the top help (harness/cli/commands/__init__.py USES)
    listed: str  # its line in that group, as the top help shows it (synopsis, then what it does)
    accepts: Callable[[], list[str]] | None = None  # more lines for its --help's list of accepted names
    needs_project: bool = True  # False: it reads only the files it is given (report), so no project is needed

    def add_to(self, sub: Any) -> argparse.ArgumentParser:
        """Its parser, added to the top parser's subparsers ``sub``: its description, examples, accepted names
        and the exit statuses as the epilog, ``-q`` after the command too, then its own arguments."""
        epilog = "\n\n".join(["examples:\n" + "\n".join(f"  python -m harness {example}" for example in self.examples),
                              self.accepted(), textwrap.fill("exit statuses: " + STATUS_LINE, 100)])
        # No help= here: argparse would list every command once more, unordered, above the epilog's list by use.
        parser: argparse.ArgumentParser = sub.add_parser(self.name, description=self.summary, formatter_class=Help,
                                                         epilog=epilog)
        # -q after the command too (`fuzz -q`); SUPPRESS: unset, it leaves the top level's value as it is.
        parser.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS, help=QUIET_HELP)
        self.arguments(parser)
        return parser

    def accepted(self) -> str:
        """The names it accepts, for its help: ops, implementations (and what ``accepts`` adds). Help needs no
        project: where none is found, the implementations are said to be the project's, not read."""
        from harness.model import paths
        from harness.model.registry import OPS
        from harness.testees import impls

        declared = ("those the project declares (no project found here; --project DIR names one)"
                    if paths.project_problem() else ", ".join(impls.names()))
        lines = [f"ops: {', '.join(OPS)}", f"implementations: {declared}"]
        return "\n".join(lines + (self.accepts() if self.accepts is not None else []))


__all__ = ["QUIET_HELP", "STATUS_LINE", "Command", "Help", "Parser"]
