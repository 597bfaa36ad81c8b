"""``promote``: turn a reported divergence into a fixture case (generators/promote.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.commands.command import Command
from harness.cli.commands.shared import divergence_report


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--report", type=Path, required=True, help="a divergence report (fuzz, sweep, diff --json)")
    parser.add_argument("--index", type=int, required=True, help="1-based number of the divergence in the report")
    parser.add_argument("--id", required=True, help="the new case's stable id")
    parser.add_argument("--comment", default=None, help="the case's comment (default: the divergence's explanation)")
    parser.add_argument("--steps", default="", metavar="ID[,ID...]",
                        help="the steps of docs/contract.md the case pins (needed when the reference answers a "
                             "result; an error names its own step), e.g. norm.white_space,norm.edges")


def run(args: argparse.Namespace) -> int:
    from generators.framework import GeneratorError
    from generators.promote import promote

    try:
        message = promote(divergence_report(args.report), args.index, args.id, args.comment,
                          tuple(step for step in args.steps.split(",") if step))
    except GeneratorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(message)
    return 0


COMMAND = Command(
    name="promote", summary="turn a reported divergence into a fixture case",
    examples=("promote --report reports/fuzz-report.json --index 1 --id nft-fs-1c --steps norm.edges",),
    arguments=arguments, run=run, budgets=(), verdict=None, use="maintain",
    listed="promote --report R --index N --id ID [--steps S]   turn a reported divergence into a fixture case")
