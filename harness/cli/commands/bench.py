"""``bench``: requests per second on the fixture inputs (harness/checks/bench.py; a table and reports/bench.json)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.commands.command import Command
from harness.model.settings import OPTIONS


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=Path("reports/bench.json"), help="where the report goes")
    parser.add_argument("--seconds", type=float, default=2.0, help="minimum measuring time per row")
    parser.add_argument("--markdown", type=Path, default=None,
                        help="write the table the README's speed section quotes here too (its figures with command, "
                             "date, load and cores)")


def run(args: argparse.Namespace) -> int:
    from harness.checks.bench import main as run_bench

    return run_bench(args.out, args.seconds, args.markdown)


COMMAND = Command(
    name="bench", summary="requests per second on the fixture inputs", examples=("bench --seconds 1",),
    arguments=arguments, run=run, budgets=OPTIONS["bench"], verdict=None, use="maintain",
    listed="bench                      requests per second on the fixture inputs (table + reports/bench.json)")
