"""``python -m harness``: the harness's command line.

  run --impl NAME     serve the JSON-lines protocol on stdin/stdout with one implementation
  check --impl NAME   run every fixture case on one implementation; exit 1 listing the failures
  lint                check every fixture file (schema, ids, counts, canonical bytes, regeneration)
  bench               requests per second on the fixture inputs (table + reports/bench.json)
  impls               list implementations and whether each is available here
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import impls, protocol


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="serve the JSON-lines protocol with one implementation")
    run.add_argument("--impl", required=True, choices=sorted(impls.FACTORIES))
    check = sub.add_parser("check", help="run every fixture case on one implementation")
    check.add_argument("--impl", required=True, choices=sorted(impls.FACTORIES))
    lint = sub.add_parser("lint", help="lint the fixture files")
    lint.add_argument("--no-regenerate", action="store_true", help="skip the comparison with a fresh regeneration")
    sub.add_parser("impls", help="list implementations and their availability")
    bench = sub.add_parser("bench", help="requests per second on the fixture inputs")
    bench.add_argument("--out", type=Path, default=Path("reports/bench.json"))
    bench.add_argument("--seconds", type=float, default=2.0, help="minimum measuring time per row")
    args = parser.parse_args(argv)

    if args.command == "run":
        try:
            impl = impls.get_impl(args.impl)
        except impls.ImplementationUnavailable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        try:
            return protocol.serve(impl, sys.stdin, sys.stdout)
        finally:
            impl.close()
    if args.command == "check":
        from .fixtures import all_cases
        from .runner import run_cases

        try:
            impl = impls.get_impl(args.impl)
        except impls.ImplementationUnavailable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        try:
            count, failures = run_cases(impl, all_cases())
        finally:
            impl.close()
        for failure in failures:
            print(f"FAIL {failure.case.full_id}: {failure.problem}")
        print(f"{args.impl}: {count - len(failures)}/{count} fixture cases pass")
        return 1 if failures else 0
    if args.command == "lint":
        from .lint import lint as run_lint

        problems = run_lint(regenerate=not args.no_regenerate)
        for problem in problems:
            print(problem)
        print(f"fixture lint: {'FAILED, ' + str(len(problems)) + ' problem(s)' if problems else 'clean'}")
        return 1 if problems else 0
    if args.command == "bench":
        from .bench import main as run_bench

        return run_bench(args.out, args.seconds)
    if args.command == "impls":
        for name in impls.FACTORIES:
            try:
                impls.get_impl(name).close()
                print(f"{name}\tavailable")
            except impls.ImplementationUnavailable as exc:
                print(f"{name}\tunavailable: {exc}")
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
