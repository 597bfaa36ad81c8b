"""``tracecheck``: fuzz inputs traced on every implementation that serves traces: each trace must pass its
checks and end in its op's output (harness/checks/tracecheck.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.commands.command import Command
from harness.cli.commands.shared import IMPLS_HELP
from harness.cli.tools import close_all, open_impls, split_names
from harness.model.ledger import Ledger
from harness.model.settings import OPTIONS
from harness.model.status import UsageError
from harness.testees import impls
from harness.testees.findings import render as render_findings

TRACECHECK_SCHEMA = "tracecheck-v1"  # schemas/tracecheck-v1.schema.json


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--examples", type=int, default=10_000, help="per op (default 10,000)")
    parser.add_argument("--ops", help="comma-separated ops (default: every op the implementations serve)")
    parser.add_argument("--impls", help=IMPLS_HELP)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--validate-every", type=int, default=25, metavar="K",
                        help="validate every K-th trace against the schema (1: every one)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the tallies as JSON")


def run(args: argparse.Namespace) -> int:
    from harness.checks.tracecheck import as_json, check, render
    from harness.model.files import check_replaceable, write_document
    from harness.model.registry import OPS, get_op
    from harness.testees.fanout import harvest
    from harness.testees.findings import Findings

    named = split_names(args.ops)
    ops = named or [op.name for op in OPS.values() if op.differential]  # default: every op compared
    for name in ops:
        try:
            get_op(name)
        except KeyError as exc:
            raise UsageError(exc.args[0]) from None
    if args.examples < 1 or args.validate_every < 1:
        raise UsageError("--examples and --validate-every must be at least 1")
    if args.json is not None:  # before the run: it is never lost to a --json it cannot write
        check_replaceable(args.json, (TRACECHECK_SCHEMA,), "tracecheck report")
    opened = open_impls(split_names(args.impls))
    if not named:  # the default: the ops some implementation of the run serves
        ops = [op for op in ops if any(impls.declaration(name).serves_op(op) for name in opened)]
    findings = Findings()
    ledger = Ledger("tracecheck")
    try:
        tallies = check(opened, ops, args.examples, args.seed, validate_every=args.validate_every,
                        findings=findings, ledger=ledger)
        findings.merge(harvest(opened).findings)
    finally:
        close_all(opened)
    print(render(tallies))
    found = findings.to_json()
    if found:
        print(render_findings(found))
    print("\n".join(ledger.lines()))
    if args.json is not None:
        document = {"schema": TRACECHECK_SCHEMA, "examples": args.examples, "seed": args.seed,
                    "tallies": as_json(tallies), "findings": found, "ledger": ledger.to_json()}
        write_document(args.json, document, replaces=(TRACECHECK_SCHEMA,), what="tracecheck report")
    return 1 if found or not ledger.ok or any(t.problems for by_op in tallies.values() for t in by_op.values()) else 0


COMMAND = Command(
    name="tracecheck", summary="fuzz inputs traced on every implementation that serves traces",
    examples=("tracecheck --examples 1000",), arguments=arguments, run=run, budgets=OPTIONS["tracecheck"],
    verdict=None, use="search",
    listed="tracecheck [--examples N]  N fuzz inputs per op, traced on every implementation: each must end in its "
           "op's output")
