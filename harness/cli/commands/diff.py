"""``diff OP ARG...``: run one op on every implementation and show the differences, explained (the classes of a
divergence report of one input; ``--json``: the report itself)."""

from __future__ import annotations

import argparse
import json

from harness.cli.commands.command import Command
from harness.cli.commands.shared import IMPLS_HELP, REQUIRE_ALL_HELP, baseline_view, call_args, output_options
from harness.cli.reports import divergences as divergences_kind
from harness.cli.tools import close_all, open_impls, split_names
from harness.model import envelope
from harness.model.ledger import Ledger
from harness.testees.findings import render as render_findings


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("op")
    parser.add_argument("args", nargs="*", help="positional string arguments; Python escapes (\\x1c, \\ud800) decoded")
    parser.add_argument("--arg", action="append", default=[], metavar="NAME=JSON",
                        help="a typed argument as host-value JSON, e.g. cap=-1 or threshold='{\"$float\":\"NaN\"}'")
    parser.add_argument("--impls", help=IMPLS_HELP)
    parser.add_argument("--require-all", action="store_true", help=REQUIRE_ALL_HELP)
    parser.add_argument("--json", action="store_true", help="print the report JSON instead of the table")
    output_options(parser)


def run(args: argparse.Namespace) -> int:
    from harness.classes.examine import examine_all
    from harness.classes.expected import covered, load
    from harness.classes.report import document
    from harness.differential.explain import unicode_versions_of
    from harness.differential.outcomes import observe
    from harness.testees.fanout import expressible, harvest, serves

    op, given = call_args(args.op, args.args, args.arg, loose=False)
    opened = open_impls(split_names(args.impls), require_all=args.require_all)
    unserved = [name for name in opened if not serves(name, op.name)]
    close_all({name: opened.pop(name) for name in unserved})  # an op it does not serve is never sent to it
    try:
        expected = load(list(opened))  # a malformed list stops the command (status 2) before anything is run
        versions = unicode_versions_of(opened)
        # One record per share (explain.name_shares), its own details worked out by examine_all, then covered.
        divergences = [covered(expected, record) for record in examine_all(opened, op.name, given, versions)]
        responses = observe(opened, op.name, given)
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
        if not expressible(name, given):
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
        cannot_hold = [name for name in opened if not expressible(name, given)]
        unanswered = [name for name in opened if name not in responses and name not in cannot_hold]
        if args.baseline:
            print(baseline_view(args, report))
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
            print("\n" + baseline_view(args, report))
    return 1 if findings or not ledger.ok or any(divergence.status == "new" for divergence in divergences) else 0


COMMAND = Command(
    name="diff", summary="run one op on every implementation and show the differences",
    examples=("diff normalize_fact_text 'A\\x1cb'",
              "diff decide_write \"x\" --arg candidates='[]' --arg threshold=0.9"),
    arguments=arguments, run=run, budgets=(), verdict=None, use="search",
    listed="diff OP ARG... [--arg k=v] run one op on every implementation and show the differences, explained")
