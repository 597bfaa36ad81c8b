"""``fuzz``: fuzz for divergences within a time budget (or a fixed number of examples), minimal explained reports;
a progress line; the divergence report; exit 1 on a new one. ``--shard`` and ``--merge``: one campaign on N
machines (harness/fuzzing/fuzz_report.py)."""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from harness.cli.commands.command import Command
from harness.cli.commands.shared import (
    IMPLS_HELP,
    REQUIRE_ALL_HELP,
    baseline_view,
    divergence_report,
    output_options,
    too_few,
    writable_report,
)
from harness.cli.reports import divergences as divergences_kind
from harness.cli.tools import close_all, open_impls, split_names
from harness.model import envelope
from harness.model.settings import OPTIONS
from harness.model.status import FOUND, INTERRUPTED, Unavailable, UsageError, did_you_mean


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--minutes", type=float, default=None, help="the budget in minutes (default: 1)")
    parser.add_argument("--seconds", type=float, default=None, help="the budget in seconds, in place of --minutes")
    parser.add_argument("--impls", help=IMPLS_HELP)
    parser.add_argument("--require-all", action="store_true", help=REQUIRE_ALL_HELP)
    parser.add_argument("--ops", help="comma-separated ops (default: every comparable op)")
    parser.add_argument("--seed", type=int, default=None, help="a reproducible run (default: a random seed)")
    parser.add_argument("--report", type=Path, default=Path("reports/fuzz-report.json"),
                        help="where the report goes")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--stop-after-new", type=float, default=None, metavar="SECONDS",
                        help="stop this long after the first new divergence (planted-bug runs)")
    parser.add_argument("--max-examples", type=int, default=None, metavar="M",
                        help="stop after M examples (whole batches of 1,000): with --seed and one worker, a fixed set "
                             "of inputs")
    parser.add_argument("--shard", default="1/1",
                        help="K/N: run the K-th of N shares of the seed's task stream (with --max-examples, of that "
                             "run's tasks): N machines, one campaign; join the reports with --merge")
    parser.add_argument("--merge", type=Path, nargs="+", metavar="REPORT",
                        help="join the shard reports of one campaign into --report (runs nothing)")
    output_options(parser)


def _merge(args: argparse.Namespace) -> int:
    """fuzz --merge: the shard reports of one campaign joined into --report (harness/fuzzing/fuzz_report.py)."""
    from harness.classes.report import validate, write
    from harness.fuzzing import fuzz_report

    reports = [divergence_report(path) for path in args.merge]
    try:
        report = fuzz_report.merge(reports)
    except ValueError as exc:
        raise UsageError(f"fuzz --merge: {exc}") from None
    problems = validate(report)
    if problems:
        raise RuntimeError("the merged report does not match its schema (a harness bug): " + "; ".join(problems[:3]))
    write(args.report, report)
    print(divergences_kind.classes_view(report, args.format, args.show))
    print(f"merged {len(reports)} reports (shards {', '.join(report['fuzz']['shards'])}) into {args.report}: "
          f"{report['examples']:,} examples")
    if args.baseline:
        print("\n" + baseline_view(args, report))
    return 0 if report["ok"] else FOUND


def run(args: argparse.Namespace) -> int:
    if args.merge:  # runs nothing: before the imports a run needs (Hypothesis's pools among them)
        return _merge(args)
    from harness.classes.expected import load
    from harness.classes.report import document, write
    from harness.differential.strategies import comparable_ops
    from harness.fuzzing.fuzz import fuzz
    from harness.fuzzing.fuzz_report import campaign
    from harness.fuzzing.sweep import parse_shard

    for name in split_names(args.ops) or []:
        if name not in comparable_ops():
            raise UsageError(f"unknown or incomparable op {name!r}{did_you_mean(name, comparable_ops())}; "
                             f"fuzzed ops: {', '.join(comparable_ops())}")
    try:
        shard = parse_shard(args.shard)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.max_examples is not None and args.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    if shard != (1, 1) and args.seed is None:
        raise UsageError("--shard needs --seed: every shard of a campaign runs the same seed's task stream")
    writable_report(args.report)  # before the run: a run is never lost to a --report it cannot write
    # The start-up is measured from here; the budget counts from the moment every implementation, in this process and
    # in every worker, has answered its start (harness/fuzzing/fuzz.py, Clock): each start bounded by its own
    # start-up deadline, not by the budget.
    started = time.monotonic()
    seconds = args.seconds if args.seconds is not None else 60.0 * (args.minutes if args.minutes is not None else 1.0)
    opened = open_impls(split_names(args.impls), require_all=args.require_all)
    if len(opened) < 2:
        close_all(opened)
        raise too_few("fuzzing", args.impls, opened)
    print(f"fuzzing {', '.join(opened)} for {seconds:.0f}s" + (f" (seed {args.seed})" if args.seed is not None else ""),
          file=sys.stderr)
    described = envelope.descriptions(opened)
    try:
        result = fuzz(opened, load(list(opened)), seconds, seed=args.seed, ops=split_names(args.ops),
                      workers=args.workers, stop_after_new=args.stop_after_new, started=started,
                      max_examples=args.max_examples, shard=shard,
                      campaign=args.max_examples is not None)
    finally:
        close_all(opened)
    findings = result.findings.to_json()
    report = document("fuzz", result.versions, result.divergences, result.examples, result.seconds,
                      result.expected_problems, seed=result.seed, unexpected_passes=result.unexpected_passes,
                      findings=findings, cut=result.cut, taken_out=result.taken_out,
                      batches_refused=result.batches_refused, described=described, ledger=result.ledger)
    report["fuzz"] = campaign(result.seed, args.max_examples, shard, split_names(args.ops) or comparable_ops(),
                              interrupted=result.interrupted)
    write(args.report, report)
    print(divergences_kind.classes_view(report, args.format, args.show))
    for line in result.cut:
        print(f"cut by the budget: {line}")
    for name, count in result.batches_refused.items():
        print(f"{name} takes no batch lines (refused {count}): driven one request per line")
    if result.not_reproduced:
        print(f"{result.not_reproduced:,} disagreement(s) did not come again alone: findings, not divergences")
    for name, count in result.inexpressible.items():
        print(f"not expressible in {name}'s host (not sent to it, not compared): {count:,} examples")
    print("\n" + "\n".join(result.ledger.lines()))
    if result.unavailable:  # never came up: the report says what ran (nothing, as a rule); the verdict is this
        raise Unavailable(f"fuzz: {result.unavailable}; the run stopped after {result.startup:.1f}s of start-up, "
                          f"not green (its report: {args.report})")
    restarted = [f"{name} {count}" for name, count in sorted(result.testee_restarts.items())]
    print(f"\n{result.examples:,} examples in {result.seconds:.0f}s (after {result.startup:.1f}s of start-up) on "
          f"{result.workers} worker(s)"
          + (f", {result.worker_restarts} started again" if result.worker_restarts else "")
          + (f", testee processes restarted: {', '.join(restarted)}" if restarted else "") + ": "
          f"{len(result.new)} new divergence(s), "
          f"{len(result.divergences) - len(result.new)} expected, {len(findings)} finding(s)"
          + ("" if result.ledger.ok else ", the work NOT done (the ledger above)") + f"; report: {args.report}")
    if args.baseline:
        print("\n" + baseline_view(args, report))
    if result.interrupted:
        print(f"interrupted: a partial run; its report: {args.report}", file=sys.stderr)
        return INTERRUPTED
    return 0 if report["ok"] else FOUND


COMMAND = Command(
    name="fuzz", summary="fuzz for divergences, minimal explained reports",
    examples=("fuzz --minutes 10", "fuzz --seconds 30 --impls reference,pyo3 --seed 7",
              "fuzz --shard 2/4 --seed 7 --max-examples 200000 --workers 1 --report fuzz-2-of-4.json",
              "fuzz --merge fuzz-1-of-4.json fuzz-2-of-4.json fuzz-3-of-4.json fuzz-4-of-4.json"),
    arguments=arguments, run=run, budgets=OPTIONS["fuzz"], verdict=re.compile(r"^[\d,]+ examples in "), use="search",
    listed="fuzz [--minutes N]         fuzz for divergences; progress line; report JSON; exit 1 on a new one")
