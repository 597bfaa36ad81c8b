"""``run --impl NAME``: serve the JSON-lines protocol on stdin/stdout with one implementation (a testee for
another harness, or for selftest)."""

from __future__ import annotations

import argparse
import sys

from harness.cli.commands.command import Command
from harness.cli.commands.shared import IMPL_HELP, one_impl
from harness.testees import protocol
from harness.testees.findings import render as render_findings


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--impl", required=True, help=IMPL_HELP)


def run(args: argparse.Namespace) -> int:
    from harness.testees.fanout import harvest

    impl = one_impl(args.impl)

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


COMMAND = Command(
    name="run", summary="serve the JSON-lines protocol with one implementation",
    examples=("run --impl pyo3 < requests.jsonl",), arguments=arguments, run=run, budgets=(), verdict=None,
    use="serve",
    listed="run --impl NAME            serve the JSON-lines protocol on stdin/stdout with one implementation")
