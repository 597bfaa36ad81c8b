"""Command line: ``python -m generators {write,check,list,release} [FIXTURE ...]``.

* ``write``: regenerate the unreleased fixture files from the reference (atomic); released ones are
  never regenerated (their bytes are checked against the pin).
* ``check``: exit 1 with a unified diff when an unreleased fixture differs from a fresh regeneration,
  or when a released one's bytes differ from its pin.
* ``list``: the fixtures this checkout generates, with status and case counts.
* ``release FIXTURE``: write it with status "released" and pin its sha256 in fixtures/released.json.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import FIXTURES, PROBLEMS
from .framework import GeneratorError, build_document, diff, read_pins, release, write


def _select(names: list[str]) -> list[str]:
    unknown = [name for name in names if name not in FIXTURES]
    if unknown:
        raise GeneratorError(f"unknown fixture(s): {', '.join(unknown)}; known: {', '.join(FIXTURES)}")
    return names or list(FIXTURES)


def _path(directory: Path | None, name: str) -> Path | None:
    return None if directory is None else directory / f"{name}.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generators", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["write", "check", "list", "release"])
    parser.add_argument("fixtures", nargs="*", help="fixture names (default: all)")
    parser.add_argument("--dir", type=Path, default=None, help="fixture directory (default: fixtures/)")
    args = parser.parse_args(argv)
    try:
        if PROBLEMS:
            raise GeneratorError("a fixture generator does not load:\n  " + "\n  ".join(PROBLEMS))
        names = _select(args.fixtures)
        if args.command == "list":
            for name in names:
                spec = FIXTURES[name]
                path = _path(args.dir, name) or spec.path
                pins = read_pins(path.parent)
                status = "released" if name in pins else "unreleased"
                count = pins[name]["numberOfTests"] if name in pins else build_document(spec)["numberOfTests"]
                print(f"{name}\tcontract {spec.contract}\t{status}\t{count} cases\t{path}")
            return 0
        if args.command == "release":
            if not args.fixtures:
                raise GeneratorError("name the fixture(s) to release")
            for name in names:
                print(f"{name}: {release(FIXTURES[name], _path(args.dir, name))}")
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
                released = name in read_pins((_path(args.dir, name) or FIXTURES[name].path).parent)
                print(f"{name}: {'released, bytes as pinned' if released else 'up to date'}")
        if failed:
            print("Regenerate with `nox -s fixtures` (or `python -m generators write`) if the reference is right;"
                  " a released fixture is never regenerated: behaviour changes go into the next version.",
                  file=sys.stderr)
        return 1 if failed else 0
    except GeneratorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
