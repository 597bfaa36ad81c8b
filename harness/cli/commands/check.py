"""``check --impl NAME``: run every fixture case on one implementation (what ``nox -s parity`` runs on each);
the case results go to reports/check-IMPL.json; exit 1 listing failures."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from harness.cli.commands.command import Command
from harness.cli.commands.shared import IMPL_HELP, baseline_view, one_impl, output_options
from harness.cli.reports import results as results_kind
from harness.model import envelope
from harness.model.status import FOUND
from harness.testees import impls

RESULTS_WHAT = "fixture-results document"


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--impl", required=True, help=IMPL_HELP)
    parser.add_argument("--results", type=Path, default=None,
                        help="where the case results go (fixture-results-v1; default: reports/check-IMPL.json)")
    output_options(parser)


def run(args: argparse.Namespace) -> int:
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
    impl = one_impl(args.impl)
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
    results, notes = fixture_gate.gate(args.impl, results, found, lambda: one_impl(args.impl))
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
        print("\n" + baseline_view(args, document))
    print(f"results: {out}")
    return FOUND if failures or findings or not ledger.ok else 0


COMMAND = Command(
    name="check", summary="run every fixture case on one implementation",
    examples=("check --impl wasm", "check --impl pyo3 --format markdown"), arguments=arguments, run=run, budgets=(),
    verdict=re.compile(r"^\S+: [\d,]+/[\d,]+ fixture cases"), use="check",
    listed="check --impl NAME          run every fixture case on one implementation; exit 1 listing failures")
