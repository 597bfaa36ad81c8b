"""Command line: ``python -m generators {write,check,list} [FIXTURE ...]``.

* ``write``: regenerate fixture files from the reference (atomic; refuses released fixtures).
* ``check``: exit 1 with a unified diff when a committed fixture differs from a fresh regeneration.
* ``list``: the fixtures this checkout generates, with status and case counts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import FIXTURES
from .framework import GeneratorError, build_document, diff, write


def _select(names: list[str]) -> list[str]:
    unknown = [name for name in names if name not in FIXTURES]
    if unknown:
        raise GeneratorError(f"unknown fixture(s): {', '.join(unknown)}; known: {', '.join(FIXTURES)}")
    return names or list(FIXTURES)


def _path(directory: Path | None, name: str) -> Path | None:
    return None if directory is None else directory / f"{name}.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generators", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["write", "check", "list"])
    parser.add_argument("fixtures", nargs="*", help="fixture names (default: all)")
    parser.add_argument("--dir", type=Path, default=None, help="fixture directory (default: fixtures/)")
    args = parser.parse_args(argv)
    try:
        names = _select(args.fixtures)
        if args.command == "list":
            for name in names:
                spec = FIXTURES[name]
                count = build_document(spec)["numberOfTests"]
                print(f"{name}\t{spec.status}\t{count} cases\t{spec.path.relative_to(spec.path.parent.parent)}")
            return 0
        if args.command == "write":
            for name in names:
                print(f"{name}: {write(FIXTURES[name], _path(args.dir, name))}")
            return 0
        failed = False
        for name in names:
            text = diff(FIXTURES[name], _path(args.dir, name))
            if text:
                failed = True
                sys.stdout.write(text)
                print(f"{name}: DIFFERS from what the reference produces now (diff above).")
            else:
                print(f"{name}: up to date")
        if failed:
            print("Regenerate with `nox -s fixtures` (or `python -m generators write`) if the reference is right;"
                  " a released fixture needs a new version instead.", file=sys.stderr)
        return 1 if failed else 0
    except GeneratorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
