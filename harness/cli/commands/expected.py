"""``expected update|check``: maintain the expected-divergence lists (expected/<impl>.json)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.commands.command import Command
from harness.cli.commands.shared import divergence_report
from harness.cli.tools import close_all, open_impls, split_names
from harness.model.status import UsageError, did_you_mean


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["update", "check"])
    parser.add_argument("--report", type=Path,
                        help="update: add the new divergences of this report (from fuzz, sweep or diff --json) and "
                             "drop the entries it found passing; without it, update only migrates v1 lists")
    parser.add_argument("--impls", help="comma-separated implementations to run witnesses on (default: all "
                                        "available)")
    parser.add_argument("--cause", action="append", default=None, metavar="CAUSE",
                        help="update: add only the report's new classes of this cause (repeatable): the expected "
                             "differences, say unicode_version_skew, and never the real ones beside them")


def run(args: argparse.Namespace) -> int:
    from harness.classes.expected import load, migrate, recheck
    from harness.classes.report import update_from_report
    from harness.differential.explain import unicode_versions_of

    causes = _causes(args.cause)  # a misuse stops the command before anything is run
    if args.action == "update":
        # Entries of a v1 list get their step and characters from their witnesses first (run on the
        # implementations), then the report's new divergences are added and its unexpected passes dropped.
        report = divergence_report(args.report) if args.report else None
        opened = open_impls(split_names(args.impls))
        try:
            changes = migrate(opened, unicode_versions_of(opened))
        finally:
            close_all(opened)
        if report is not None:
            changes += update_from_report(report, causes=causes)
        print("\n".join(changes) if changes else "expected lists already up to date")
        return 0
    opened = open_impls(split_names(args.impls))
    try:
        problems = recheck(load(list(opened)), opened, unicode_versions_of(opened))
    finally:
        close_all(opened)
    print("\n".join(problems) if problems else "every expected divergence still happens, for its listed cause")
    return 1 if problems else 0


def _causes(named: list[str] | None) -> frozenset[str] | None:
    """``--cause`` values, each a cause of the classifier (a usage error, status 2, names one that is not)."""
    if not named:
        return None
    from harness.differential.explain import CAUSES

    unknown = [cause for cause in named if cause not in CAUSES]
    if unknown:
        raise UsageError(f"--cause {unknown[0]!r} is not a cause{did_you_mean(unknown[0], CAUSES)}; causes: "
                         f"{', '.join(CAUSES)}")
    return frozenset(named)


COMMAND = Command(
    name="expected", summary="maintain the expected-divergence lists (expected/<impl>.json)",
    examples=("expected check", "expected update --report reports/fuzz-report.json"), arguments=arguments, run=run,
    budgets=(), verdict=None, use="maintain",
    listed="expected update|check      maintain expected/<impl>.json (the expected-divergence lists)")
