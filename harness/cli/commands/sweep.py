"""``sweep``: every code point in every template of every op, on every implementation; each class reported once;
resumable from its checkpoint; ``--shard`` and ``--merge`` split it over machines (harness/fuzzing/sweep.py)."""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
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
from harness.model.status import INTERRUPTED, Unavailable, UsageError


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ops", help="comma-separated ops (default: every swept op)")
    parser.add_argument("--templates", help="comma-separated template names (default: all; see --list)")
    parser.add_argument("--impls", help=IMPLS_HELP)
    parser.add_argument("--require-all", action="store_true", help=REQUIRE_ALL_HELP)
    parser.add_argument("--range", default="U+0000..U+10FFFF", help="code points, e.g. U+0000..U+FFFF or U+1C89")
    parser.add_argument("--shard", default="1/1", help="K/N: run every N-th chunk, starting with the K-th")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--checkpoint", type=Path, default=None,
                        help="resume file (default: reports/sweep/checkpoint-K-of-N.jsonl)")
    parser.add_argument("--fresh", action="store_true", help="discard the checkpoint and start over")
    parser.add_argument("--report", type=Path, default=None, help="default: reports/sweep-report[-K-of-N].json")
    parser.add_argument("--merge", type=Path, nargs="+", metavar="REPORT", help="merge shard reports into --report")
    parser.add_argument("--list", action="store_true", help="list the templates and exit")
    output_options(parser)


def accepts() -> list[str]:
    """The templates, for its help (beside the ops and implementations every command lists)."""
    from harness.fuzzing.templates import TEMPLATES

    return [textwrap.fill("templates: " + ", ".join(t.name for t in TEMPLATES), 100, break_on_hyphens=False,
                          subsequent_indent="  ")]


def run(args: argparse.Namespace) -> int:
    from harness.classes.expected import load
    from harness.classes.report import validate, write
    from harness.differential.explain import unicode_versions_of
    from harness.fuzzing import reach, sweep, sweep_report, templates

    if args.list:
        for template in templates.TEMPLATES:
            print(f"{template.op:<20} {template.name:<28} {template.rule}")
        return 0
    if args.merge:
        try:
            report = sweep_report.merge([divergence_report(path) for path in args.merge])
        except (ValueError, KeyError) as exc:
            raise UsageError(f"cannot merge: {exc}") from None
        out = args.report or Path("reports/sweep-report.json")
        write(out, report)
        print(sweep_report.summary(report) + "\n\n" + divergences_kind.classes_view(report, args.format, args.show))
        print(f"merged {len(args.merge)} reports into {out}")
        if args.baseline:
            print("\n" + baseline_view(args, report))
        return 0 if report["ok"] else 1
    try:
        chosen = templates.select(split_names(args.ops), split_names(args.templates))
        for line in reach.unreached(dict.fromkeys(template.op for template in chosen)):
            print(f"warning: {line}", file=sys.stderr)  # the sweep cannot see that role's differences
        first, last = sweep.parse_range(args.range)
        shard = sweep.parse_shard(args.shard)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    suffix = "" if shard == (1, 1) else f"-{shard[0]}-of-{shard[1]}"
    out = args.report or Path(f"reports/sweep-report{suffix}.json")
    writable_report(out)  # before the sweep: its run is never lost to a --report it cannot write
    opened = open_impls(split_names(args.impls), require_all=args.require_all)
    if len(opened) < 2:
        close_all(opened)
        raise too_few("a sweep", args.impls, opened)
    settings = sweep.Settings(tuple(opened), tuple(t.name for t in chosen), first, last, shard)
    checkpoint = args.checkpoint or Path(f"reports/sweep/checkpoint{suffix or '-1-of-1'}.jsonl")
    print(f"sweeping {len(chosen)} template(s) x U+{first:04X}..U+{last:04X} on {', '.join(opened)} "
          f"(shard {shard[0]}/{shard[1]}; checkpoint {checkpoint})", file=sys.stderr)
    try:
        expected = load(list(opened))  # a malformed list stops the sweep (status 2) before a chunk is run
        try:
            swept = sweep.run(settings, checkpoint, fresh=args.fresh, workers=args.workers,
                            described=envelope.descriptions(opened))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        disagreeing = sum(sweep.disagreeing(r) for r in swept.results)
        if swept.interrupted:
            print(f"[sweep] interrupted: {disagreeing:,} disagreeing inputs left unclassified; the report is partial",
                  file=sys.stderr)
        elif disagreeing:
            print(f"[sweep] assigning {disagreeing:,} disagreeing inputs to classes (explaining a sample of each "
                  "group, shrinking one witness per class)", file=sys.stderr)
        try:
            versions = unicode_versions_of(opened)
        except KeyboardInterrupt:  # Ctrl-C (SIGTERM, SIGHUP) here: a partial report all the same
            swept.interrupted = True
            versions = {name: {} for name in opened}
        report = sweep_report.build_report(swept, opened, expected, versions)
    finally:
        close_all(opened)
    problems = validate(sweep_report.for_validation(report))
    if problems:
        raise RuntimeError("the sweep's report does not match its schema (a harness bug): " + "; ".join(problems[:3]))
    write(out, report)
    print(sweep_report.summary(report) + "\n\n" + divergences_kind.classes_view(report, args.format, args.show))
    if args.baseline:
        print("\n" + baseline_view(args, report))
    print(f"report: {out}" + ("  (interrupted: run the same command again to resume)" if swept.interrupted else ""))
    if swept.unavailable:  # never came up in a worker: not green, the status of an implementation that cannot start
        raise Unavailable(f"sweep: {swept.unavailable}; the sweep stopped (its report: {out}; run it again to resume)")
    if swept.interrupted:
        return INTERRUPTED
    return 1 if not report["ok"] else 0


COMMAND = Command(
    name="sweep", summary="every code point in every template of every op, on every implementation",
    examples=("sweep --impls reference,pyo3,wasm", "sweep --templates alone --range U+0000..U+FFFF",
              "sweep --shard 1/4",
              "sweep --merge reports/sweep-report-1-of-2.json reports/sweep-report-2-of-2.json"),
    arguments=arguments, run=run, budgets=OPTIONS["sweep"], verdict=re.compile(r"^\d+ class\(es\): "), use="search",
    listed="sweep [--templates T] ...  every code point in every template; classes once each; exit 1 on a new one",
    accepts=accepts)
