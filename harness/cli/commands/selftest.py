"""``selftest --impl NAME``: check a testee against the protocol (harness/checks/selftest.py)."""

from __future__ import annotations

import argparse

from harness.cli.commands.command import Command
from harness.cli.commands.shared import IMPL_HELP
from harness.cli.tools import impl_error
from harness.testees import impls


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--impl", required=True, help=IMPL_HELP)


def run(args: argparse.Namespace) -> int:
    from harness.checks.selftest import main as run_selftest

    try:
        return run_selftest(args.impl)
    except (impls.ImplementationUnavailable, impls.DeclarationError) as exc:
        raise impl_error(exc) from None


COMMAND = Command(
    name="selftest", summary="check a testee against the protocol", examples=("selftest --impl wasm",),
    arguments=arguments, run=run, budgets=(), verdict=None, use="serve",
    listed="selftest --impl NAME       check a testee against the protocol (handshake, schema, batches, bad requests, "
           "crash)")
