"""``impls``: list the declared implementations and whether each is available here (its self-description,
or why it did not start; a broken declaration named)."""

from __future__ import annotations

import argparse
import json

from harness.cli import views
from harness.cli.commands.command import Command
from harness.testees import impls


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the self-descriptions as JSON instead")
    parser.add_argument("--format", choices=["text", "markdown"], default="text", help="text or Markdown")


def run(args: argparse.Namespace) -> int:
    declared_all = impls.declarations()
    rows, notes, described = [], [], {}
    for name in impls.names():
        declared = declared_all[name]
        how = f"in process ({declared.python_module})" if declared.in_process else "command testee"
        role = ", the oracle" if declared.oracle else ""
        try:
            impl = impls.get_impl(name)
        except impls.ImplementationUnavailable as exc:
            rows.append([name, declared.language, how + role, ", ".join(declared.contracts), "no", "-"])
            notes.append(f"{name}: unavailable: {exc}")
            continue
        description = impl.description if isinstance(impl.description, dict) else {}
        described[name] = description
        unicode = description.get("unicode") if isinstance(description.get("unicode"), dict) else {}
        rows.append([name, declared.language, how + role, ", ".join(declared.contracts),
                     f"yes, {description.get('name', '?')} {description.get('version', '?')}",
                     ", ".join(f"{step} {version}" for step, version in unicode.items())])
        for finding in getattr(impl, "findings", None) and impl.findings.to_json() or []:
            notes.append(f"{name}: finding: {finding['kind']}: {finding['message']}")
        impl.close()
    for name, problem in impls.broken().items():
        rows.append([name, "-", "-", "-", "no: broken declaration", "-"])
        notes.append(f"{name}: broken declaration: {problem}")
    if args.json:
        print(json.dumps({"implementations": described, "notes": notes}, indent=2, sort_keys=True))
        return 0
    print(views.impls_view(rows, args.format))
    for note in notes:
        print(note)
    return 0


COMMAND = Command(
    name="impls", summary="list the declared implementations and their availability",
    examples=("impls", "impls --json"),
    arguments=arguments, run=run, budgets=(), verdict=None, use="maintain",
    listed="impls                      list the declared implementations and whether each is available here")
