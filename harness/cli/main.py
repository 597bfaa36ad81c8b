"""``python -m harness``: the harness's command line, its commands by use.

check the implementations (what `nox -s parity` runs on each):
  check --impl NAME          run every fixture case on one implementation; exit 1 listing failures
read results:
  report show|diff|html      reports as tables; what changed between two runs; the conformance page (-o DIR)
search for divergences:
  fuzz [--minutes N]         fuzz for divergences; progress line; report JSON; exit 1 on a new one
  sweep [--templates T] ...  every code point in every template; classes once each; exit 1 on a new one
  diff OP ARG... [--arg k=v] run one op on every implementation and show the differences, explained
  trace OP ARG...            every implementation's step trace of one call, side by side, first difference marked
  tracecheck [--examples N]  N fuzz inputs per op, traced on every implementation: each must end in its op's output
maintain:
  expected update|check      maintain expected/<impl>.json (the expected-divergence lists)
  promote --report R --index N --id ID [--steps S]   turn a reported divergence into a fixture case
  lint                       check every fixture file (schema, ids, counts, canonical bytes, regeneration)
  bench                      requests per second on the fixture inputs (table + reports/bench.json)
  impls                      list the declared implementations and whether each is available here
serve a testee, and test one:
  run --impl NAME            serve the JSON-lines protocol on stdin/stdout with one implementation
  selftest --impl NAME       check a testee against the protocol (handshake, schema, batches, bad requests, crash)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, NoReturn

from harness.classes.kinds import Kind
from harness.cli import reports, views
from harness.cli.reports import divergences as divergences_kind
from harness.cli.reports import results as results_kind
from harness.cli.tools import close_all, impl_error, open_impls, parse_typed, request_deadline, split_names, unescape
from harness.model import envelope
from harness.model import paths as project_paths
from harness.model.ledger import Ledger
from harness.model.printable import printable
from harness.model.status import (
    AGREE,
    FOUND,
    INTERNAL,
    INTERRUPTED,
    SHORT,
    STATUSES,
    CommandError,
    Unavailable,
    UsageError,
    did_you_mean,
)
from harness.testees import impls, protocol
from harness.testees.findings import render as render_findings


class _Help(argparse.RawDescriptionHelpFormatter):
    """Help that keeps the epilog's lines and shows each option's default (unless its text names it)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if "default" in text or default in (None, False, argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)".lstrip()


class _Parser(argparse.ArgumentParser):
    """argparse with "did you mean" for a misspelt command or choice (the status stays 2)."""

    def error(self, message: str) -> NoReturn:
        found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if found:
            choices = re.findall(r"'([^']*)'", found.group(2)) or [c.strip() for c in found.group(2).split(",")]
            message += did_you_mean(found.group(1), choices)
        super().error(message)


def _accepted(command: str) -> str:
    """The names a command accepts, for the help texts: ops, implementations (and the sweep's templates)."""
    from harness.model.registry import OPS

    lines = [f"ops: {', '.join(OPS)}", f"implementations: {', '.join(impls.names())}"]
    if command == "sweep":
        from harness.fuzzing.templates import TEMPLATES

        lines.append(textwrap.fill("templates: " + ", ".join(t.name for t in TEMPLATES), 100, break_on_hyphens=False,
                                   subsequent_indent="  "))
    return "\n".join(lines)


SUMMARIES: dict[str, str] = {}  # command -> its one-line summary, as _parser() declares them


# The commands by use, as the help lists them: check, read results, search, maintain, serve.
BY_USE = ("check", "report", "fuzz", "sweep", "diff", "trace", "tracecheck", "expected", "promote", "lint", "bench",
          "impls", "run", "selftest")


def summaries() -> dict[str, str]:
    """Every command of ``python -m harness`` with its summary, by use (memgate-parity --help lists them)."""
    _parser()
    return {name: SUMMARIES[name] for name in sorted(SUMMARIES, key=lambda n: (BY_USE + (n,)).index(n))}


def _command(sub: Any, name: str, summary: str, *examples: str) -> argparse.ArgumentParser:
    SUMMARIES[name] = summary
    epilog = "\n\n".join(["examples:\n" + "\n".join(f"  python -m harness {example}" for example in examples),
                          _accepted(name), textwrap.fill("exit statuses: " + STATUS_LINE, 100)])
    # No help= here: argparse would list every command once more, unordered, above the epilog's list by use.
    command = sub.add_parser(name, description=summary, formatter_class=_Help, epilog=epilog)
    # -q after the command too (`fuzz -q`); SUPPRESS: unset, it leaves the top level's value as it is.
    command.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                         help="print the verdict line only (no tables, no progress); the exit status is the same")
    return command


STATUS_LINE = "; ".join(f"{number} {text}" for number, text in SHORT.items())


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m harness", description="parity harness command line",
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog=__doc__ + "\nexit statuses:\n" + "\n".join(f"  {n}  {t}" for n, t in STATUSES.items()))
    parser.add_argument("-V", "--version", action="version", version=envelope.version_line())
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print the verdict line only (no tables, no progress); the exit status is the same")
    parser.add_argument("--project", metavar="DIR", type=Path,
                        help="the project to check: its implementations/, fixtures/, expected/ and reports/ "
                             "(default: found from the working directory up, as pytest finds its rootdir)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND",
                                help="one of the commands below, by use (COMMAND --help: its options)")
    run = _command(sub, 'run',
                   'serve the JSON-lines protocol with one implementation',
                   'run --impl pyo3 < requests.jsonl')
    run.add_argument("--impl", required=True, help="a declared implementation (implementations/<name>.json)")
    check = _command(sub, 'check',
                     'run every fixture case on one implementation',
                     'check --impl wasm',
                     'check --impl pyo3 --format markdown')
    check.add_argument("--impl", required=True, help="a declared implementation (implementations/<name>.json)")
    check.add_argument("--results", type=Path, default=None,
                       help="where the case results go (fixture-results-v1; default: reports/check-IMPL.json)")
    _output_options(check)
    diff = _command(sub, 'diff',
                    'run one op on every implementation and show the differences',
                    "diff normalize_fact_text 'A\\x1cb'",
                    "diff decide_write \"x\" --arg candidates='[]' --arg threshold=0.9")
    diff.add_argument("op")
    diff.add_argument("args", nargs="*", help="positional string arguments; Python escapes (\\x1c, \\ud800) decoded")
    diff.add_argument("--arg", action="append", default=[], metavar="NAME=JSON",
                      help="a typed argument as host-value JSON, e.g. cap=-1 or threshold='{\"$float\":\"NaN\"}'")
    diff.add_argument("--impls", help="comma-separated implementations (default: all available)")
    diff.add_argument("--require-all", action="store_true",
                      help="with the default set: an implementation left out of 'all available' is an error "
                           "(also PARITY_REQUIRE_ALL=1; CI sets it)")
    diff.add_argument("--json", action="store_true", help="print the report JSON instead of the table")
    _output_options(diff)
    fuzz = _command(sub, 'fuzz',
                    'fuzz for divergences, minimal explained reports',
                    'fuzz --minutes 10',
                    'fuzz --seconds 30 --impls reference,pyo3 --seed 7',
                    'fuzz --shard 2/4 --seed 7 --max-examples 200000 --workers 1 --report fuzz-2-of-4.json',
                    'fuzz --merge fuzz-1-of-4.json fuzz-2-of-4.json fuzz-3-of-4.json fuzz-4-of-4.json')
    fuzz.add_argument("--minutes", type=float, default=None, help="the budget in minutes (default: 1)")
    fuzz.add_argument("--seconds", type=float, default=None, help="the budget in seconds, in place of --minutes")
    fuzz.add_argument("--impls", help="comma-separated implementations (default: all available)")
    fuzz.add_argument("--require-all", action="store_true",
                      help="with the default set: an implementation left out of 'all available' is an error "
                           "(also PARITY_REQUIRE_ALL=1; CI sets it)")
    fuzz.add_argument("--ops", help="comma-separated ops (default: every comparable op)")
    fuzz.add_argument("--seed", type=int, default=None, help="a reproducible run (default: a random seed)")
    fuzz.add_argument("--report", type=Path, default=Path("reports/fuzz-report.json"),
                      help="where the report goes")
    fuzz.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    fuzz.add_argument("--stop-after-new", type=float, default=None, metavar="SECONDS",
                      help="stop this long after the first new divergence (planted-bug runs)")
    fuzz.add_argument("--max-examples", type=int, default=None, metavar="M",
                      help="stop after M examples (whole batches of 1,000): with --seed and one worker, a fixed set "
                           "of inputs")
    fuzz.add_argument("--shard", default="1/1",
                      help="K/N: run the K-th of N shares of the seed's task stream (with --max-examples, of that "
                           "run's tasks): N machines, one campaign; join the reports with --merge")
    fuzz.add_argument("--merge", type=Path, nargs="+", metavar="REPORT",
                      help="join the shard reports of one campaign into --report (runs nothing)")
    _output_options(fuzz)
    sweep = _command(sub, 'sweep',
                     'every code point in every template of every op, on every implementation',
                     'sweep --impls reference,pyo3,wasm',
                     'sweep --templates alone --range U+0000..U+FFFF',
                     'sweep --shard 1/4',
                     'sweep --merge reports/sweep-report-1-of-2.json reports/sweep-report-2-of-2.json')
    sweep.add_argument("--ops", help="comma-separated ops (default: every swept op)")
    sweep.add_argument("--templates", help="comma-separated template names (default: all; see --list)")
    sweep.add_argument("--impls", help="comma-separated implementations (default: all available)")
    sweep.add_argument("--require-all", action="store_true",
                      help="with the default set: an implementation left out of 'all available' is an error "
                           "(also PARITY_REQUIRE_ALL=1; CI sets it)")
    sweep.add_argument("--range", default="U+0000..U+10FFFF", help="code points, e.g. U+0000..U+FFFF or U+1C89")
    sweep.add_argument("--shard", default="1/1", help="K/N: run every N-th chunk, starting with the K-th")
    sweep.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    sweep.add_argument("--checkpoint", type=Path, default=None,
                       help="resume file (default: reports/sweep/checkpoint-K-of-N.jsonl)")
    sweep.add_argument("--fresh", action="store_true", help="discard the checkpoint and start over")
    sweep.add_argument("--report", type=Path, default=None, help="default: reports/sweep-report[-K-of-N].json")
    sweep.add_argument("--merge", type=Path, nargs="+", metavar="REPORT", help="merge shard reports into --report")
    sweep.add_argument("--list", action="store_true", help="list the templates and exit")
    _output_options(sweep)
    expected = _command(sub, 'expected',
                        'maintain the expected-divergence lists (expected/<impl>.json)',
                        'expected check',
                        'expected update --report reports/fuzz-report.json')
    expected.add_argument("action", choices=["update", "check"])
    expected.add_argument("--report", type=Path,
                          help="update: add the new divergences of this report (from fuzz, sweep or diff --json) and "
                               "drop the entries it found passing; without it, update only migrates v1 lists")
    expected.add_argument("--impls", help="comma-separated implementations to run witnesses on (default: all "
                                          "available)")
    expected.add_argument("--cause", action="append", default=None, metavar="CAUSE",
                          help="update: add only the report's new classes of this cause (repeatable): the expected "
                               "differences, say unicode_version_skew, and never the real ones beside them")
    promote = _command(sub, 'promote',
                       'turn a reported divergence into a fixture case',
                       'promote --report reports/fuzz-report.json --index 1 --id nft-fs-1c --steps norm.edges')
    promote.add_argument("--report", type=Path, required=True, help="a divergence report (fuzz, sweep, diff --json)")
    promote.add_argument("--index", type=int, required=True, help="1-based number of the divergence in the report")
    promote.add_argument("--id", required=True, help="the new case's stable id")
    promote.add_argument("--comment", default=None, help="the case's comment (default: the divergence's explanation)")
    promote.add_argument("--steps", default="", metavar="ID[,ID...]",
                         help="the steps of docs/contract.md the case pins (needed when the reference answers a "
                              "result; an error names its own step), e.g. norm.white_space,norm.edges")
    lint = _command(sub, 'lint', 'lint the fixture files', 'lint', 'lint --no-regenerate')
    lint.add_argument("--no-regenerate", action="store_true", help="skip the comparison with a fresh regeneration")
    bench = _command(sub, 'bench', 'requests per second on the fixture inputs', 'bench --seconds 1')
    bench.add_argument("--out", type=Path, default=Path("reports/bench.json"), help="where the report goes")
    bench.add_argument("--seconds", type=float, default=2.0, help="minimum measuring time per row")
    listing = _command(sub, "impls", "list the declared implementations and their availability", "impls",
                       "impls --json")
    listing.add_argument("--json", action="store_true", help="print the self-descriptions as JSON instead")
    listing.add_argument("--format", choices=["text", "markdown"], default="text", help="text or Markdown")
    reading = _command(sub, "report", "read reports: show them as tables, what changed between two runs, or as a "
                       "page", "report show reports/fuzz-report.json --format markdown",
                       "report diff baseline/sweep-report.json reports/sweep-report.json",
                       "report html -o reports/site --baseline old/fixture-results.json")
    reading.add_argument("action", choices=["show", "diff", "html"],
                         help="show REPORT...; diff OLD NEW; html [REPORT...] (default: every divergence report, "
                              "fixture results, parity-ran counts and JUnit file in reports/)")
    reading.add_argument("reports", nargs="*", type=Path, metavar="REPORT",
                         help="divergence reports (fuzz, sweep, diff --json, parity; v1 or v2), fixture results, the "
                              "parity run's parity-ran.json or JUnit XML file; show and html read the other reports "
                              "of a parity run with its own (its command line names them) and end with one verdict")
    reading.add_argument("-o", "--out", type=Path, default=Path("reports/site"),
                         help="html: the folder the page (index.html) goes to (default: reports/site)")
    reading.add_argument("--baseline", dest="baselines", type=Path, action="append", default=[], metavar="REPORT",
                         help="html: an earlier report; the page shows what changed since (repeatable: each is "
                              "compared with the report of its kind)")
    reading.add_argument("--history", type=Path, default=None, metavar="DIR",
                         help="html: a folder of earlier runs' summaries (run-summary-v1): the page shows the last "
                              "runs side by side and since when each class is seen, and keeps this run's there")
    reading.add_argument("--keep", type=int, default=10, metavar="N",
                         help="html --history: how many earlier runs the page shows (default 10)")
    reading.add_argument("--format", choices=["text", "markdown", "json"], default="text",
                         help="text for a terminal, markdown for a CI job summary, json for a program")
    reading.add_argument("--show", choices=["new", "all"], default="new",
                         help="show: details after the table, of the new classes or of all")
    trace = _command(sub, 'trace',
                     "every implementation's step trace of one call, side by side",
                     "trace normalize_fact_text '\"It\\u2019s here\"'")
    trace.add_argument("op")
    trace.add_argument("args", nargs="*",
                       help="positional arguments as host-value JSON ('\"A\\u001cb\"', 30, null); one that is not "
                            "JSON is a string, its Python escapes decoded")
    trace.add_argument("--arg", action="append", default=[], metavar="NAME=JSON", help="a named argument")
    trace.add_argument("--impls", help="comma-separated implementations (default: all available)")
    trace.add_argument("--json", action="store_true", help="print the traces as one JSON object instead")
    tracecheck = _command(sub, 'tracecheck',
                          'fuzz inputs traced on every implementation that serves traces',
                          'tracecheck --examples 1000')
    tracecheck.add_argument("--examples", type=int, default=10_000, help="per op (default 10,000)")
    tracecheck.add_argument("--ops", help="comma-separated ops (default: every op the implementations serve)")
    tracecheck.add_argument("--impls", help="comma-separated implementations (default: all available)")
    tracecheck.add_argument("--seed", type=int, default=1)
    tracecheck.add_argument("--validate-every", type=int, default=25, metavar="K",
                            help="validate every K-th trace against the schema (1: every one)")
    tracecheck.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the tallies as JSON")
    selftest = _command(sub, 'selftest', 'check a testee against the protocol', 'selftest --impl wasm')
    selftest.add_argument("--impl", required=True, help="a declared implementation (implementations/<name>.json)")
    return parser


def _one_impl(name: str):  # type: ignore[no-untyped-def]
    try:
        return impls.get_impl(name)
    except (impls.ImplementationUnavailable, impls.DeclarationError) as exc:
        raise impl_error(exc) from None


def cmd_run(args: argparse.Namespace) -> int:
    from harness.testees.fanout import harvest

    impl = _one_impl(args.impl)

    def report_findings() -> None:  # a command testee served on: its findings go to stderr as they come
        found = harvest({args.impl: impl}).findings
        if found:
            sys.stderr.write(render_findings(found) + "\n")
            sys.stderr.flush()

    try:
        report_findings()  # the start's (a handshake that lies)
        return protocol.serve(impl, sys.stdin, sys.stdout, impl.description, after=report_findings)
    finally:
        impl.close()


RESULTS_WHAT = "fixture-results document"


def cmd_check(args: argparse.Namespace) -> int:
    from harness.checks import fixture_gate
    from harness.fixtures.load import all_cases
    from harness.fixtures.runner import (
        INEXPRESSIBLE,
        NOT_REPRODUCED,
        SCHEMA,
        case_results,
        fixture_ledger,
        not_served,
        results_document,
        skipped_counts,
    )
    from harness.model.files import check_replaceable, write_document
    from harness.model.registry import get_op
    from harness.testees.findings import Findings

    out = args.results or Path(f"reports/check-{args.impl}.json")
    check_replaceable(out, (SCHEMA,), RESULTS_WHAT)  # before the run: never lost to a --results it cannot write
    impl = _one_impl(args.impl)
    found = Findings()
    try:
        declared = impls.declaration(args.impl)
        cases = list(all_cases())
        results = case_results(impl, cases, declared.contracts, declared.can_express, declared.serves_op)
        unserved = not_served(cases, declared.serves_op)
        described = envelope.descriptions({args.impl: impl})
    finally:
        impl.close()
    fixture_gate.keep_findings(impl, found)
    results, notes = fixture_gate.gate(args.impl, results, found, lambda: _one_impl(args.impl))
    findings = found.to_json()
    ledger = fixture_ledger(args.impl, results)
    document = results_document({args.impl: [r.to_json(args.impl) for r in results]}, described, findings,
                                {args.impl: unserved}, ledger)
    write_document(out, document, replaces=(SCHEMA,), what=RESULTS_WHAT)
    failures = [r for r in results if r.state == "fail"]
    print(results_kind.results_view(document, args.format, args.show))
    for note in notes:
        print(note)
    count = sum(r.state != "skip" for r in results)
    print(f"{args.impl}: {count - len(failures)}/{count} fixture cases pass"
          + (f"; {len(findings)} finding(s) about the testee" if findings else ""))
    if unserved:
        print(f"{args.impl}: not served (its declaration's ops), never sent: "
              + ", ".join(f"{number} case(s) of {op}" for op, number in unserved.items()))
    unpinned = [op for op in declared.ops if get_op(op).fixture is None and get_op(op).differential]
    if unpinned:
        print(f"{args.impl}: no fixture pins {', '.join(unpinned)} (its family file's \"fixture\" is null): "
              "check judges none of it; diff, fuzz and sweep compare it with its oracle")
    for contract, number in sorted(skipped_counts(results).items()):
        if contract == INEXPRESSIBLE:
            print(f"{args.impl}: {number} case(s) skipped: its host ({declared.host_strings} strings) cannot hold "
                  "their arguments")
        elif contract == NOT_REPRODUCED:
            print(f"{args.impl}: {number} failing case(s) not judged: the answer did not come again when asked "
                  "alone on a fresh process (a finding about the testee, not a failure of the case)")
        else:
            print(f"{args.impl}: {number} case(s) of contract {contract} skipped: the implementation does not "
                  "serve it")
    print("\n".join(ledger.lines()))
    if args.baseline:
        print("\n" + _baseline_view(args, document))
    print(f"results: {out}")
    return FOUND if failures or findings or not ledger.ok else 0


def _call_args(op_name: str, positional: list[str], named: list[str], loose: bool) -> tuple[Any, dict[str, Any]]:
    """The op and its arguments from the command line: positional ones in signature order (host-value JSON
    when ``loose``, a string otherwise or when it is not JSON), then NAME=JSON ones."""
    from harness.model.registry import get_op

    try:
        op = get_op(op_name)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
    if len(positional) > len(op.params):
        raise UsageError(f"{op.name} takes {len(op.params)} argument(s): {', '.join(p.name for p in op.params)}")
    call_args = {}
    for param, value in zip(op.params, positional, strict=False):
        try:
            call_args[param.name] = parse_typed(value, quiet=True) if loose else unescape(value)
        except ValueError:
            call_args[param.name] = unescape(value)
    for item in named:
        name, sep, value = item.partition("=")
        if not sep or name not in {p.name for p in op.params}:
            raise UsageError(f"--arg {item!r}: expected NAME=JSON with NAME one of "
                             f"{', '.join(p.name for p in op.params)}")
        call_args[name] = parse_typed(value)
    return op, call_args


def cmd_trace(args: argparse.Namespace) -> int:
    from harness.checks.traces import check_examples, traced_ops, untraced
    from harness.cli.trace_view import parting_index, side_by_side
    from harness.differential.causes import cause_from_traces
    from harness.model.registry import check_args

    op, call_args = _call_args(args.op, args.args, args.arg, loose=True)
    try:
        check_args(op, call_args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    opened = open_impls(split_names(args.impls))
    unserved = [name for name in opened if not impls.declaration(name).serves_op(op.name)]
    documents: dict[str, Any] = {}
    versions: dict[str, dict[str, str]] = {}
    black_boxes: dict[str, Any] = {}
    problems: dict[str, list[str]] = {}
    try:
        for name, impl in opened.items():
            if name in unserved:
                continue  # never sent an op it does not serve (named below)
            if not impls.declaration(name).can_express(call_args):
                black_boxes[name] = {"not run": "its host cannot hold these arguments (host_strings)"}
            elif op.name not in traced_ops(impl):
                black_boxes[name] = impl.call(op.name, call_args)
            else:
                checked = check_examples(impl, [(op.name, call_args)])[0]
                if op.name in untraced(impl):  # its claim shown false (a handshake_lie, below): a black box
                    black_boxes[name] = impl.call(op.name, call_args)
                elif checked.problems:
                    problems[name] = list(checked.problems)
                if checked.trace is not None and op.name not in untraced(impl):
                    documents[name] = checked.trace
                    unicode = impl.description.get("unicode") if isinstance(impl.description, dict) else None
                    versions[name] = unicode if isinstance(unicode, dict) else {}
            found = impl.findings.to_json() if getattr(impl, "findings", None) is not None else []
            for finding in found:
                problems.setdefault(name, []).append(f"finding {finding['kind']}: {finding['message']}")
    finally:
        close_all(opened)
    oracle = impls.oracle(op.name)
    if oracle not in documents:
        print(f"error: the oracle {oracle} gave no trace: {'; '.join(problems.get(oracle, []))}", file=sys.stderr)
        return FOUND  # a finding about the oracle's testee
    index, parted = parting_index(documents, oracle)
    causes = {name: cause_from_traces(op.name, documents[oracle], documents[name], call_args, versions[oracle],
                                      versions[name]) for name in parted}
    if args.json:
        print(json.dumps({"op": op.name, "traces": documents, "black_boxes": black_boxes, "problems": problems,
                          "first_difference": index,
                          "causes": {name: None if c is None else {"cause": c.cause, "detail": c.detail, "step": c.step,
                                                                   "rule": c.rule, "why": c.why}
                                     for name, c in causes.items()}}, ensure_ascii=True, indent=1))
    else:
        print(side_by_side(op.name, call_args, documents, oracle, black_boxes, problems))
        if unserved:
            print(f"not served by {', '.join(unserved)} (their declarations' ops): not sent")
        for name, found in causes.items():
            if found is not None:
                print(f"{name}: cause {found.cause}" + (f" ({found.detail})" if found.detail else "")
                      + f", by rule {found.rule} at {found.step}: {found.why}")
    return 1 if index is not None or problems else 0


def cmd_tracecheck(args: argparse.Namespace) -> int:
    from harness.checks.tracecheck import as_json, check, render
    from harness.model.files import check_replaceable, write_document
    from harness.model.registry import OPS, get_op
    from harness.testees.fanout import harvest
    from harness.testees.findings import Findings

    TRACECHECK_SCHEMA = "tracecheck-v1"  # schemas/tracecheck-v1.schema.json

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


def cmd_diff(args: argparse.Namespace) -> int:
    from harness.classes.report import document
    from harness.differential.expected import cover, load
    from harness.differential.explain import examine_all, unicode_versions_of
    from harness.differential.outcomes import observe
    from harness.testees.fanout import expressible, harvest, serves

    op, call_args = _call_args(args.op, args.args, args.arg, loose=False)
    opened = open_impls(split_names(args.impls), require_all=args.require_all)
    unserved = [name for name in opened if not serves(name, op.name)]
    close_all({name: opened.pop(name) for name in unserved})  # an op it does not serve is never sent to it
    try:
        expected = load(list(opened))  # a malformed list stops the command (status 2) before anything is run
        versions = unicode_versions_of(opened)
        divergences = examine_all(opened, op.name, call_args, versions)  # one per share (explain.name_shares)
        for divergence in divergences:
            cover(expected, divergence)  # its own details worked out by examine_all
        responses = observe(opened, op.name, call_args)
        described = envelope.descriptions(opened)
        # What a testee did wrong as a program (a protocol fault, a crash, a hang) is a finding about it: it
        # gave no answer, so it is not among the responses, and the run says why (never "all agree").
        findings = harvest(opened).findings
    finally:
        close_all(opened)
    # Compared: the answers came (one implementation alone is shown, as diff always did: nothing to differ from).
    ledger = Ledger("diff", planned=1, inputs=1, compared=int(bool(responses)),
                    disagreeing=int(bool(divergences)), classified=int(bool(divergences)))
    for name in opened:  # one request each: answered, not sent (its host cannot hold it), or no answer (a finding)
        tally = ledger.tally(name)
        if not expressible(name, call_args):
            tally.not_sent += 1
        else:
            tally.sent += 1
            tally.answered += name in responses
            tally.faulted += name not in responses
    report = document("diff", versions, divergences, 1, 0.0, [], described=described, findings=findings,
                      ledger=ledger)
    if args.json:
        print(json.dumps(report, indent=2))
    elif not divergences:
        cannot_hold = [name for name in opened if not expressible(name, call_args)]
        unanswered = [name for name in opened if name not in responses and name not in cannot_hold]
        if args.baseline:
            print(_baseline_view(args, report))
        print(f"all {len(responses)} implementations that answered agree ({', '.join(responses)}):")
        if cannot_hold:
            print(f"  (not run on {', '.join(cannot_hold)}: its host cannot hold these arguments, see host_strings)")
        if unserved:
            print(f"  (not served by {', '.join(unserved)}: not among its declaration's ops)")
        if unanswered:
            print(f"  (no answer from {', '.join(unanswered)}: see the findings below)")
        for name, response in responses.items():
            print(f"  {name}: {json.dumps(response, ensure_ascii=True)[:300]}")
        if findings:
            print("findings about testees (not divergences):\n" + render_findings(findings))
        if not ledger.ok:
            print("\n".join(ledger.lines()))
    else:
        print(divergences_kind.classes_view(report, args.format, args.show))
        if args.baseline:
            print("\n" + _baseline_view(args, report))
    return 1 if findings or not ledger.ok or any(divergence.status == "new" for divergence in divergences) else 0


def _merge_fuzz(args: argparse.Namespace) -> int:
    """fuzz --merge: the shard reports of one campaign joined into --report (harness/fuzzing/fuzz_report.py)."""
    from harness.classes.report import validate, write
    from harness.fuzzing import fuzz_report

    reports = [_divergence_report(path) for path in args.merge]
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
        print("\n" + _baseline_view(args, report))
    return 0 if report["ok"] else FOUND


def cmd_fuzz(args: argparse.Namespace) -> int:
    if args.merge:  # runs nothing: before the imports a run needs (Hypothesis's pools among them)
        return _merge_fuzz(args)
    from harness.classes.report import document, write
    from harness.differential.expected import load
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
    _writable_report(args.report)  # before the run: a run is never lost to a --report it cannot write
    started = time.monotonic()  # the budget counts from here: start-up included
    seconds = args.seconds if args.seconds is not None else 60.0 * (args.minutes if args.minutes is not None else 1.0)
    hard_deadline = started + seconds + request_deadline(split_names(args.impls))
    opened = open_impls(split_names(args.impls), cutoff=hard_deadline, require_all=args.require_all)
    if len(opened) < 2:
        close_all(opened)
        raise too_few("fuzzing", args.impls, opened)
    print(f"fuzzing {', '.join(opened)} for {seconds:.0f}s" + (f" (seed {args.seed})" if args.seed is not None else ""),
          file=sys.stderr)
    described = envelope.descriptions(opened)
    try:
        result = fuzz(opened, load(list(opened)), seconds, seed=args.seed, ops=split_names(args.ops),
                      workers=args.workers, stop_after_new=args.stop_after_new, started=started,
                      hard_deadline=hard_deadline, max_examples=args.max_examples, shard=shard,
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
    print(f"\n{result.examples:,} examples in {result.seconds:.0f}s on {result.workers} worker(s): "
          f"{len(result.new)} new divergence(s), "
          f"{len(result.divergences) - len(result.new)} expected, {len(findings)} finding(s)"
          + ("" if result.ledger.ok else ", the work NOT done (the ledger above)") + f"; report: {args.report}")
    if args.baseline:
        print("\n" + _baseline_view(args, report))
    if result.interrupted:
        print(f"interrupted: a partial run; its report: {args.report}", file=sys.stderr)
        return INTERRUPTED
    return 0 if report["ok"] else FOUND


def cmd_sweep(args: argparse.Namespace) -> int:
    from harness.classes.report import validate, write
    from harness.differential.expected import load
    from harness.differential.explain import unicode_versions_of
    from harness.fuzzing import reach, sweep, sweep_report, templates

    if args.list:
        for template in templates.TEMPLATES:
            print(f"{template.op:<20} {template.name:<28} {template.rule}")
        return 0
    if args.merge:
        try:
            report = sweep_report.merge([_divergence_report(path) for path in args.merge])
        except (ValueError, KeyError) as exc:
            raise UsageError(f"cannot merge: {exc}") from None
        out = args.report or Path("reports/sweep-report.json")
        write(out, report)
        print(sweep_report.summary(report) + "\n\n" + divergences_kind.classes_view(report, args.format, args.show))
        print(f"merged {len(args.merge)} reports into {out}")
        if args.baseline:
            print("\n" + _baseline_view(args, report))
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
    _writable_report(out)  # before the sweep: its run is never lost to a --report it cannot write
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
            run = sweep.run(settings, checkpoint, fresh=args.fresh, workers=args.workers,
                            described=envelope.descriptions(opened))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        print(f"[sweep] classifying and shrinking {sum(sweep.disagreeing(r) for r in run.results):,} disagreeing "
              "inputs", file=sys.stderr)
        versions = unicode_versions_of(opened)
        report = sweep_report.build_report(run, opened, expected, versions)
    finally:
        close_all(opened)
    problems = validate(report)
    if problems:
        raise RuntimeError("the sweep's report does not match its schema (a harness bug): " + "; ".join(problems[:3]))
    write(out, report)
    print(sweep_report.summary(report) + "\n\n" + divergences_kind.classes_view(report, args.format, args.show))
    if args.baseline:
        print("\n" + _baseline_view(args, report))
    print(f"report: {out}" + ("  (interrupted: run the same command again to resume)" if run.interrupted else ""))
    if run.interrupted:
        return INTERRUPTED
    return 1 if not report["ok"] else 0


def cmd_expected(args: argparse.Namespace) -> int:
    from harness.classes.report import update_from_report
    from harness.differential.expected import load, migrate, recheck
    from harness.differential.explain import unicode_versions_of

    causes = _causes(args.cause)  # a misuse stops the command before anything is run
    if args.action == "update":
        # Entries of a v1 list get their step and characters from their witnesses first (run on the
        # implementations), then the report's new divergences are added and its unexpected passes dropped.
        report = _divergence_report(args.report) if args.report else None
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


def cmd_promote(args: argparse.Namespace) -> int:
    from generators.framework import GeneratorError
    from generators.promote import promote

    try:
        message = promote(_divergence_report(args.report), args.index, args.id, args.comment,
                          tuple(step for step in args.steps.split(",") if step))
    except GeneratorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(message)
    return 0


def cmd_lint(args: argparse.Namespace) -> int:
    from generators import PROBLEMS
    from harness.fixtures.lint import lint as run_lint
    from harness.fixtures.lint import unpinned_steps
    from harness.model import contract_doc
    from harness.model.registry import FAMILIES

    if PROBLEMS:  # a broken declaration, not a finding about the fixtures
        raise UsageError("a fixture generator does not load:\n  " + "\n  ".join(PROBLEMS))
    problems = run_lint(regenerate=not args.no_regenerate)
    problems += [problem for family in FAMILIES for problem in contract_doc.problems(family)]  # their specifications
    for problem in problems:
        print(problem)
    unpinned = unpinned_steps()
    for op, step in unpinned:
        print(f"unpinned: step {step} of {op}: no fixture case pins it (docs/fixtures.md, 'Steps')")
    if not unpinned:
        print("fixture lint: every step of every op with a fixture is pinned by at least one case")
    print(f"fixture lint: {'FAILED, ' + str(len(problems)) + ' problem(s)' if problems else 'clean'}")
    return 1 if problems else 0


def cmd_bench(args: argparse.Namespace) -> int:
    from harness.checks.bench import main as run_bench

    return run_bench(args.out, args.seconds)


def cmd_impls(args: argparse.Namespace) -> int:
    declared_all = impls.declarations()
    rows, notes, described = [], [], {}
    for name in impls.names():
        declared = declared_all[name]
        how = f"in process ({declared.python_module})" if declared.in_process else "command testee"
        role = ", the oracle" if declared.oracle else ""
        try:
            impl = impls.get_impl(name)
        except impls.ImplementationUnavailable as exc:
            rows.append([name, declared.language, how + role, ", ".join(declared.contracts), "no", "-"])
            notes.append(f"{name}: unavailable: {exc}")
            continue
        description = impl.description if isinstance(impl.description, dict) else {}
        described[name] = description
        unicode = description.get("unicode") if isinstance(description.get("unicode"), dict) else {}
        rows.append([name, declared.language, how + role, ", ".join(declared.contracts),
                     f"yes, {description.get('name', '?')} {description.get('version', '?')}",
                     ", ".join(f"{step} {version}" for step, version in unicode.items())])
        for finding in getattr(impl, "findings", None) and impl.findings.to_json() or []:
            notes.append(f"{name}: finding: {finding['kind']}: {finding['message']}")
        impl.close()
    for name, problem in impls.broken().items():
        rows.append([name, "-", "-", "-", "no: broken declaration", "-"])
        notes.append(f"{name}: broken declaration: {problem}")
    if args.json:
        print(json.dumps({"implementations": described, "notes": notes}, indent=2, sort_keys=True))
        return 0
    print(views.impls_view(rows, args.format))
    for note in notes:
        print(note)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from harness.classes import rundiff

    if args.action == "html":
        return _report_html(args)
    if not args.reports:
        raise UsageError(f"report {args.action} takes at least one report")
    if args.action == "show":
        return _report_show(args)
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


def _report_show(args: argparse.Namespace) -> int:
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


def _report_html(args: argparse.Namespace) -> int:
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


def cmd_selftest(args: argparse.Namespace) -> int:
    from harness.checks.selftest import main as run_selftest

    try:
        return run_selftest(args.impl)
    except (impls.ImplementationUnavailable, impls.DeclarationError) as exc:
        raise impl_error(exc) from None


COMMANDS = {"selftest": cmd_selftest, "trace": cmd_trace, "tracecheck": cmd_tracecheck, "run": cmd_run,
            "check": cmd_check, "diff": cmd_diff,
            "fuzz": cmd_fuzz, "sweep": cmd_sweep,
            "expected": cmd_expected,
            "promote": cmd_promote, "lint": cmd_lint, "bench": cmd_bench, "impls": cmd_impls, "report": cmd_report}


def _output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=["text", "markdown"], default="text",
                        help="text for a terminal (tables, at most 120 columns without one), markdown for a CI job "
                             "summary")
    parser.add_argument("--show", choices=["new", "all"], default="new",
                        help="details after the table: of the new classes (or failing cases), or of all")
    parser.add_argument("--baseline", type=Path, default=None, metavar="REPORT",
                        help="an earlier report of the same kind: print what changed since (as report diff does)")


def _baseline_view(args: argparse.Namespace, document: dict[str, Any]) -> str:

    try:
        return views.diff_view(reports.diff(args.baseline_document, document), args.format)
    except ValueError as exc:
        raise UsageError(f"--baseline {args.baseline}: {exc}") from None


def _writable_report(path: Path) -> None:
    """Refuse (status 2) a --report that names a file other than a divergence report, before anything runs
    (report.write refuses it too, at the end, but the run would then be lost)."""
    from harness.classes.report import READABLE
    from harness.model.files import check_replaceable

    check_replaceable(path, READABLE, "divergence report")


def _divergence_report(path: Path) -> dict[str, Any]:
    """A divergence report to read (v1 or v2, validated); a usage error naming the file when it is not one."""
    from harness.classes import rundiff

    try:
        document = rundiff.read(path)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if rundiff.kind_of(document) != Kind.DIVERGENCES:
        raise UsageError(f"{path}: a {document['schema']} document, not a divergence report")
    return document


def too_few(what: str, asked: str | None, opened: dict[str, Any]) -> CommandError:
    """Fewer than two implementations to compare: asked so (status 2) or the others could not start (3)."""
    kind = UsageError if asked else Unavailable
    return kind(f"{what} needs at least two implementations; available: {', '.join(opened)}")


def check_budgets(args: argparse.Namespace) -> None:
    """Every number of the command line in its range (harness/model/settings.py ``OPTIONS``: a budget more than 0
    and finite, ``fuzz --seconds inf`` or ``nan`` refused, ``--workers`` at least 1, ...): a usage error naming the
    option, before anything runs or is written."""
    from harness.model import settings

    settings.check()  # the environment's and the project's settings too (the preflight's check; cli.main in process)
    given = {option.name: getattr(args, option.name[2:].replace("-", "_"), None)
             for option in settings.OPTIONS.get(args.command, ())}
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
    if getattr(args, "command", None) != "report" and project_paths.PROBLEM:
        raise UsageError(project_paths.PROBLEM)
    if getattr(args, "command", None) != "report" or os.environ.get(impls.ORACLE_ENV):
        try:  # --oracle and --context name declared implementations (read only where the run names them)
            if os.environ.get(impls.ORACLE_ENV):
                impls.oracle()
            if os.environ.get(impls.CONTEXT_ENV):
                impls.context()
        except impls.UnknownImplementation as exc:
            raise UsageError(str(exc)) from None


def _command_of(argv: list[str]) -> argparse.Namespace:
    """The subcommand and --project of a command line, before the parser (whose choices read declarations)
    is built: for ``_check_project``. Help and version need no project."""
    project, command, rest = None, None, list(argv)
    while rest:
        word = rest.pop(0)
        if word in ("-h", "--help", "-V", "--version"):
            return argparse.Namespace(command="report", project=None)
        if word == "--project" and rest:
            project = Path(rest.pop(0))
        elif word.startswith("--project="):
            project = Path(word.split("=", 1)[1])
        elif not word.startswith("-"):
            command = word
            break
    return argparse.Namespace(command=command, project=project)


# -q: the line of a command's output that is its verdict (the first of them from the end); a command without one
# (diff, trace, tracecheck, ...) is summed up by its status.
VERDICT_LINES: dict[str, re.Pattern[str]] = {
    "check": re.compile(r"^\S+: [\d,]+/[\d,]+ fixture cases"),
    "fuzz": re.compile(r"^[\d,]+ examples in "),
    "sweep": re.compile(r"^\d+ class\(es\): "),
    "report": re.compile(r"^verdict: "),
}


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
    pattern = VERDICT_LINES.get(args.command)
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


