"""``trace OP ARG...``: every implementation's step trace of one call, side by side, the first difference marked
and its cause named (harness/cli/trace_view.py)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from harness.cli.commands.command import Command
from harness.cli.commands.shared import IMPLS_HELP, call_args
from harness.cli.tools import close_all, open_impls, split_names
from harness.model.status import FOUND, UsageError
from harness.testees import impls


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("op")
    parser.add_argument("args", nargs="*",
                        help="positional arguments as host-value JSON ('\"A\\u001cb\"', 30, null); one that is not "
                             "JSON is a string, its Python escapes decoded")
    parser.add_argument("--arg", action="append", default=[], metavar="NAME=JSON", help="a named argument")
    parser.add_argument("--impls", help=IMPLS_HELP)
    parser.add_argument("--json", action="store_true", help="print the traces as one JSON object instead")


def run(args: argparse.Namespace) -> int:
    from harness.checks.traces import check_examples, traced_ops, untraced
    from harness.cli.trace_view import parting_index, side_by_side
    from harness.differential.causes import cause_from_traces
    from harness.model.registry import check_args

    op, given = call_args(args.op, args.args, args.arg, loose=True)
    try:
        check_args(op, given)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    opened = open_impls(split_names(args.impls))
    unserved = [name for name in opened if not impls.declaration(name).serves_op(op.name)]
    documents: dict[str, Any] = {}
    versions: dict[str, dict[str, str]] = {}
    black_boxes: dict[str, Any] = {}
    problems: dict[str, list[str]] = {}
    try:
        for name, impl in opened.items():
            if name in unserved:
                continue  # never sent an op it does not serve (named below)
            if not impls.declaration(name).can_express(given):
                black_boxes[name] = {"not run": "its host cannot hold these arguments (host_strings)"}
            elif op.name not in traced_ops(impl):
                black_boxes[name] = impl.call(op.name, given)
            else:
                checked = check_examples(impl, [(op.name, given)])[0]
                if op.name in untraced(impl):  # its claim shown false (a handshake_lie, below): a black box
                    black_boxes[name] = impl.call(op.name, given)
                elif checked.problems:
                    problems[name] = list(checked.problems)
                if checked.trace is not None and op.name not in untraced(impl):
                    documents[name] = checked.trace
                    unicode = impl.description.get("unicode") if isinstance(impl.description, dict) else None
                    versions[name] = unicode if isinstance(unicode, dict) else {}
            found = impl.findings.to_json() if getattr(impl, "findings", None) is not None else []
            for finding in found:
                problems.setdefault(name, []).append(f"finding {finding['kind']}: {finding['message']}")
    finally:
        close_all(opened)
    oracle = impls.oracle(op.name)
    if oracle not in documents:
        print(f"error: the oracle {oracle} gave no trace: {'; '.join(problems.get(oracle, []))}", file=sys.stderr)
        return FOUND  # a finding about the oracle's testee
    index, parted = parting_index(documents, oracle)
    causes = {name: cause_from_traces(op.name, documents[oracle], documents[name], given, versions[oracle],
                                      versions[name]) for name in parted}
    if args.json:
        print(json.dumps({"op": op.name, "traces": documents, "black_boxes": black_boxes, "problems": problems,
                          "first_difference": index,
                          "causes": {name: None if c is None else {"cause": c.cause, "detail": c.detail, "step": c.step,
                                                                   "rule": c.rule, "why": c.why}
                                     for name, c in causes.items()}}, ensure_ascii=True, indent=1))
    else:
        print(side_by_side(op.name, given, documents, oracle, black_boxes, problems))
        if unserved:
            print(f"not served by {', '.join(unserved)} (their declarations' ops): not sent")
        for name, found in causes.items():
            if found is not None:
                print(f"{name}: cause {found.cause}" + (f" ({found.detail})" if found.detail else "")
                      + f", by rule {found.rule} at {found.step}: {found.why}")
    return 1 if index is not None or problems else 0


COMMAND = Command(
    name="trace", summary="every implementation's step trace of one call, side by side",
    examples=("trace normalize_fact_text '\"It\\u2019s here\"'",), arguments=arguments, run=run, budgets=(),
    verdict=None, use="search",
    listed="trace OP ARG...            every implementation's step trace of one call, side by side, first difference "
           "marked")
