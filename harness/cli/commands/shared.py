"""What several commands share: the output options, the baseline's view, reading and writing divergence reports,
starting one implementation, and an op's arguments from the command line."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.classes.kinds import Kind
from harness.cli import reports, views
from harness.cli.tools import impl_error, parse_typed, unescape
from harness.model.status import CommandError, Unavailable, UsageError
from harness.testees import impls

IMPL_HELP = "a declared implementation (implementations/<name>.json)"
IMPLS_HELP = "comma-separated implementations (default: all available)"
REQUIRE_ALL_HELP = ("with the default set: an implementation left out of 'all available' is an error "
                    "(also PARITY_REQUIRE_ALL=1; CI sets it)")


def output_options(parser: argparse.ArgumentParser) -> None:
    """--format, --show and --baseline: the options of a command that prints a report's tables."""
    parser.add_argument("--format", choices=["text", "markdown"], default="text",
                        help="text for a terminal (tables, at most 120 columns without one), markdown for a CI job "
                             "summary")
    parser.add_argument("--show", choices=["new", "all"], default="new",
                        help="details after the table: of the new classes (or failing cases), or of all")
    parser.add_argument("--baseline", type=Path, default=None, metavar="REPORT",
                        help="an earlier report of the same kind: print what changed since (as report diff does)")


def baseline_view(args: argparse.Namespace, document: dict[str, Any]) -> str:
    """What changed since ``--baseline`` (read by main before the run: ``args.baseline_document``)."""
    try:
        return views.diff_view(reports.diff(args.baseline_document, document), args.format)
    except ValueError as exc:
        raise UsageError(f"--baseline {args.baseline}: {exc}") from None


def writable_report(path: Path) -> None:
    """Refuse (status 2) a --report that names a file other than a divergence report, before anything runs
    (report.write refuses it too, at the end, but the run would then be lost)."""
    from harness.classes.report import READABLE
    from harness.model.files import check_replaceable

    check_replaceable(path, READABLE, "divergence report")


def divergence_report(path: Path) -> dict[str, Any]:
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


def one_impl(name: str):  # type: ignore[no-untyped-def]
    """One implementation, started; a usage error or status 3 naming why it did not start."""
    try:
        return impls.get_impl(name)
    except (impls.ImplementationUnavailable, impls.DeclarationError) as exc:
        raise impl_error(exc) from None


def call_args(op_name: str, positional: list[str], named: list[str], loose: bool) -> tuple[Any, dict[str, Any]]:
    """The op and its arguments from the command line: positional ones in signature order (host-value JSON
    when ``loose``, a string otherwise or when it is not JSON), then NAME=JSON ones."""
    from harness.model.registry import get_op

    try:
        op = get_op(op_name)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
    if len(positional) > len(op.params):
        raise UsageError(f"{op.name} takes {len(op.params)} argument(s): {', '.join(p.name for p in op.params)}")
    found = {}
    for param, value in zip(op.params, positional, strict=False):
        try:
            found[param.name] = parse_typed(value, quiet=True) if loose else unescape(value)
        except ValueError:
            found[param.name] = unescape(value)
    for item in named:
        name, sep, value = item.partition("=")
        if not sep or name not in {p.name for p in op.params}:
            raise UsageError(f"--arg {item!r}: expected NAME=JSON with NAME one of "
                             f"{', '.join(p.name for p in op.params)}")
        found[name] = parse_typed(value)
    return op, found
