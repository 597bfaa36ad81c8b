"""``report show|diff|html``: read reports: as tables with one verdict of the run, what changed between two
runs, or the conformance page (harness/cli/page.py). It reads only the files it is given (or reports/), so it
needs no project."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from harness.classes.kinds import Kind
from harness.cli import reports, views
from harness.cli.commands.command import Command
from harness.model.printable import printable
from harness.model.status import FOUND, UsageError


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["show", "diff", "html"],
                        help="show REPORT...; diff OLD NEW; html [REPORT...] (default: every divergence report, "
                             "fixture results, parity-ran counts and JUnit file in reports/)")
    parser.add_argument("reports", nargs="*", type=Path, metavar="REPORT",
                        help="divergence reports (fuzz, sweep, diff --json, parity; v1 or v2), fixture results, the "
                             "parity run's parity-ran.json or JUnit XML file; show and html read the other reports "
                             "of a parity run with its own (its command line names them) and end with one verdict")
    parser.add_argument("-o", "--out", type=Path, default=Path("reports/site"),
                        help="html: the folder the page (index.html) goes to (default: reports/site)")
    parser.add_argument("--baseline", dest="baselines", type=Path, action="append", default=[], metavar="REPORT",
                        help="html: an earlier report; the page shows what changed since (repeatable: each is "
                             "compared with the report of its kind)")
    parser.add_argument("--history", type=Path, default=None, metavar="DIR",
                        help="html: a folder of earlier runs' summaries (run-summary-v1): the page shows the last "
                             "runs side by side and since when each class is seen, and keeps this run's there")
    parser.add_argument("--keep", type=int, default=10, metavar="N",
                        help="html --history: how many earlier runs the page shows (default 10)")
    parser.add_argument("--format", choices=["text", "markdown", "json"], default="text",
                        help="text for a terminal, markdown for a CI job summary, json for a program")
    parser.add_argument("--show", choices=["new", "all"], default="new",
                        help="show: details after the table, of the new classes or of all")


def run(args: argparse.Namespace) -> int:
    from harness.classes import rundiff

    if args.action == "html":
        return _html(args)
    if not args.reports:
        raise UsageError(f"report {args.action} takes at least one report")
    if args.action == "show":
        return _show(args)
    try:
        documents = [rundiff.read(path) for path in args.reports]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.action == "diff":
        if len(documents) != 2:
            raise UsageError(f"report diff takes two reports, OLD and NEW; given {len(documents)}")
        try:
            found = reports.diff(documents[0], documents[1])
        except ValueError as exc:
            raise UsageError(f"{args.reports[0]} and {args.reports[1]}: {exc}") from None
        if args.format == "json":
            print(json.dumps(found.to_json(), indent=2, ensure_ascii=True))
        else:
            print(views.diff_view(found, args.format))
        return FOUND if found.new else 0
    raise AssertionError(args.action)  # argparse's choices: show, diff, html


def _show(args: argparse.Namespace) -> int:
    """report show: each report as tables, then the other reports of its run (its command line names them:
    the parity session's JUnit file and per-implementation counts among them), then one verdict of them all
    (views.Verdict), which is the status: 0 only when nothing is red and every part checked something."""
    from harness.classes import rundiff

    try:
        run = rundiff.read_run(args.reports)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    verdict = reports.run_verdict(run.documents, run.problems)
    if args.format == "json":
        for _, document in run.given:
            print(json.dumps(document, indent=2, ensure_ascii=True))
        return verdict.status
    if args.format == "markdown":  # a job summary leads with the verdict
        print(verdict.line("markdown") + "\n")
    for path, document in run.given:
        envelope_of = document.get("run") or {}
        made = ("a JUnit XML file" if rundiff.kind_of(document) == Kind.JUNIT
                else envelope_of.get("command", "no run envelope (a v1 report)"))
        print(printable(f"{path}: {document['schema']}, {made}"))
        print(reports.report_view(document, args.format, args.show))
    for path, document, option in run.others:
        print("\n" + printable(f"{path}: {document['schema']}, of the same run (its command line names it: {option})"))
        if rundiff.kind_of(document).test_run:
            print(reports.report_view(document, args.format, args.show))
        else:
            print(views.part_line(reports.part_of(path, document, rundiff.kind_of(document)))
                  + f" (python -m harness report show {path})")
    for note in run.notes:
        print(printable(f"note: {note}"))
    if args.format != "markdown":
        print("\n" + verdict.line(args.format))
    return verdict.status


def _html(args: argparse.Namespace) -> int:
    """The page (harness/cli/page.py): written whatever the reports hold; the status says, as report show's
    does, whether they hold something new (1), a new change since a baseline included."""
    from harness.cli import page

    try:
        baselines = page.read_baselines(args.baselines)
        paths = args.reports or page.latest_reports(Path("reports"))
        if not paths:
            raise UsageError("report html: no reports given and none in reports/ (run nox -s parity, fuzz or "
                             "sweep first, or name the reports)")
        run = page.read_run(paths)
        if args.keep < 1:
            raise UsageError(f"report html: --keep {args.keep}: give at least 1 run")
        target = page.write(args.out, run.sources, baselines, run.problems, run.notes, args.history, args.keep)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(f"page: {target} (from {len(run.sources)} report(s)"
          + (f", {len(baselines)} baseline(s)" if baselines else "") + f"); open file://{target.resolve()}")
    judged = page.verdict(run.sources, baselines, problems=run.problems)
    print(judged.line())
    if judged.state == "partial":
        print(f"the page shows a {judged.partial} (exit status {judged.status}: a Python of the parity matrix was "
              "asked for and not found, so its implementations never started)")
    elif judged.status:
        print("the page shows something new (a failing case or test, a new class, a finding, an expected-list "
              "problem, a new change since a baseline, a report of the run missing) or a part that checked nothing "
              "(exit status 1)")
    return judged.status


COMMAND = Command(
    name="report", summary="read reports: show them as tables, what changed between two runs, or as a page",
    examples=("report show reports/fuzz-report.json --format markdown",
              "report diff baseline/sweep-report.json reports/sweep-report.json",
              "report html -o reports/site --baseline old/fixture-results.json"),
    arguments=arguments, run=run, budgets=(), verdict=re.compile(r"^verdict: "), use="read",
    listed="report show|diff|html      reports as tables; what changed between two runs; the conformance page (-o DIR)",
    needs_project=False)
