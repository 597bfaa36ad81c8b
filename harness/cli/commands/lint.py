"""``lint``: check every fixture file (schema, ids, counts, canonical bytes, regeneration) and every op's
specification, and name the steps no fixture case pins."""

from __future__ import annotations

import argparse

from harness.cli.commands.command import Command
from harness.model.status import UsageError


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-regenerate", action="store_true", help="skip the comparison with a fresh regeneration")


def run(args: argparse.Namespace) -> int:
    from generators import PROBLEMS
    from harness.fixtures.lint import lint as run_lint
    from harness.fixtures.lint import unpinned_steps
    from harness.model import contract_doc, contract_surface
    from harness.model.registry import FAMILIES

    if PROBLEMS:  # a broken declaration, not a finding about the fixtures
        raise UsageError("a fixture generator does not load:\n  " + "\n  ".join(PROBLEMS))
    problems = run_lint(regenerate=not args.no_regenerate)
    problems += [problem for family in FAMILIES  # their specifications: steps, then signatures and parameters
                 for problem in (*contract_doc.problems(family), *contract_surface.problems(family))]
    for problem in problems:
        print(problem)
    unpinned = unpinned_steps()
    for op, step in unpinned:
        print(f"unpinned: step {step} of {op}: no fixture case pins it (docs/fixtures.md, 'Steps')")
    if not unpinned:
        print("fixture lint: every step of every op with a fixture is pinned by at least one case")
    print(f"fixture lint: {'FAILED, ' + str(len(problems)) + ' problem(s)' if problems else 'clean'}")
    return 1 if problems else 0


COMMAND = Command(
    name="lint", summary="lint the fixture files", examples=("lint", "lint --no-regenerate"), arguments=arguments,
    run=run, budgets=(), verdict=None, use="maintain",
    listed="lint                       check every fixture file (schema, ids, counts, canonical bytes, regeneration)")
