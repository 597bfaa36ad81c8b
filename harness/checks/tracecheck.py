"""``python -m harness tracecheck``: traces checked on many fuzz examples, on every implementation that serves
them (issue 19: a million per op).

Each batch of inputs (first some that change every step of the op, harness/checks/step_inputs.py, then the
fuzzer's random ones, harness/fuzzing/generate.py; both seeded) is sent to every tracing implementation at
once, each example twice: the op itself and its trace, in one batch per implementation
(harness/testees/fanout.py). Every trace must end in exactly its op's own output, name the op's steps in the
specification's order and show each step's value following from the one it takes (harness/testees/traces.py);
the schema is validated on every ``validate_every``-th trace (validation costs more than everything else
together; the cheap checks run on every one). A trace that
fails is a ``trace_mismatch`` finding. Traces are not compared across implementations here: that is for a
divergence (``python -m harness trace``), never the fuzzer's path.

A testee that lists an op in ``traces`` and then refuses a trace of it (or answers one malformed) has shown its
claim false: the command client makes that a ``handshake_lie`` finding, once, and answers its later trace
requests of the op without asking it (harness/testees/command.py, ``untraced``). Here it is a black box for that
op from then on: its traces are not counted (checked nor problems), its tally says why, and no more of its
inputs are sent. So for a testee taken out of the run (its ``taken_out`` finding says why).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from harness.checks import step_inputs
from harness.checks.traces import untraced
from harness.fuzzing.generate import Inputs
from harness.model.ledger import Ledger
from harness.model.printable import printable
from harness.model.registry import OPS
from harness.model.step_relations import undeclared
from harness.model.traces import TRACE_OP
from harness.testees.fanout import call_all, expressible
from harness.testees.findings import Findings
from harness.testees.testee import Testee
from harness.testees.traces import by_role, problems, traced_ops


@dataclass
class Tally:
    checked: int = 0
    not_sent: int = 0  # inputs its host cannot hold
    problems: int = 0
    first: list[str] = field(default_factory=list)  # the first few problems, with their inputs
    withdrawn: str | None = None  # its claim to trace the op shown false: what came back (then a black box)


def check(opened: dict[str, Testee], ops: list[str], examples: int, seed: int, batch: int = 500,
          validate_every: int = 25, findings: Findings | None = None,
          stream: TextIO = sys.stderr, ledger: Ledger | None = None,
          step_examples: int | None = None) -> dict[str, dict[str, Tally]]:
    """``examples`` random inputs per op, each traced and called on every implementation of ``opened`` that
    traces that op; tallies by implementation and op. The first ``step_examples`` of them (default: a tenth,
    at most 2,000) are inputs that change every step of the op (harness/checks/step_inputs.py: titlecase
    letters, capitals whose lowercase is not NFC, quotes, runs of White_Space, line breaks), so that a step
    whose value is not what the step before it showed (``unfollowed``) has a value to be seen in; the rest the
    fuzzer's. ``ledger``: the run's account (harness/model/ledger.py):
    ``examples`` planned per op some implementation traces, each request's fate, each trace checked as a
    comparison (of the trace with its op's own answer) and each trace problem as a disagreement judged (a
    finding)."""
    ledger = ledger if ledger is not None else Ledger("tracecheck")
    ledger.planned = ledger.planned or 0
    tallies: dict[str, dict[str, Tally]] = {name: {} for name in opened}
    started = time.monotonic()
    for op in ops:
        tracing = {name: impl for name, impl in opened.items() if op in traced_ops(impl)}
        unsaid = unsaid_steps(op)
        if tracing and unsaid:
            stream.write(f"tracecheck {op}: {', '.join(unsaid)} say(s) nothing of the step before (no \"follows\" in "
                         "its family file, no relation by its role): their values are not checked against it\n")
        if tracing:
            ledger.planned += examples
        inputs = Inputs(seed)
        changing = step_inputs.examples(op, min(examples, 2000, examples // 10 or 1) if step_examples is None
                                        else min(step_examples, examples), seed)
        done = 0
        while done < examples:
            tracing = {name: impl for name, impl in tracing.items()
                       if op not in untraced(impl) and not getattr(impl, "taken_out", None)}
            if not tracing:
                break
            size = min(batch, examples - done)
            args_batch = changing[done:done + size]
            args_batch += inputs.batch(op, size - len(args_batch)) if size > len(args_batch) else []
            sendable = {name: [a for a in args_batch if expressible(name, a)] for name in tracing}
            calls = {name: [call for a in sent for call in ((op, a), (TRACE_OP, {"op": op, "args": a}))]
                     for name, sent in sendable.items()}
            answers = call_all(tracing, calls)
            ledger.inputs += size
            for name, sent in sendable.items():
                ledger.count_responses(name, answers[name])
                ledger.tally(name).not_sent += 2 * (size - len(sent))
                tally = tallies[name].setdefault(op, Tally())
                tally.not_sent += size - len(sent)
                withdrawn = untraced(tracing[name]).get(op)
                if withdrawn is not None:
                    tally.withdrawn = withdrawn
                out = getattr(tracing[name], "taken_out", None)
                for index, args in enumerate(sent):
                    own, traced = answers[name][2 * index], answers[name][2 * index + 1]
                    if "ok" not in traced and (withdrawn is not None or out and _unavailable(traced)):
                        continue  # a claim shown false (a handshake_lie), a testee taken out: no trace, no problem
                    found = problems(op, traced, own, validate=(tally.checked % validate_every == 0))
                    tally.checked += 1
                    ledger.compared += 1
                    if found:
                        tally.problems += 1
                        ledger.disagreeing += 1
                        ledger.classified += 1  # judged: a trace_mismatch finding
                        if len(tally.first) < 3:
                            tally.first.append(f"{found[0]} (args {args!r:.300})")
                        if findings is not None:
                            findings.add(name, "trace_mismatch", f"{op}: {found[0]}", request=repr(args)[:400])
            done += size
            elapsed = time.monotonic() - started
            stream.write(f"\rtracecheck {op}: {done:,}/{examples:,} on {', '.join(tracing)} "
                         f"({elapsed:.0f} s)")
            stream.flush()
        stream.write("\n")
    return tallies


def unsaid_steps(op: str) -> list[str]:
    """The steps of ``op`` past its first whose family file says nothing of the step before them
    (``step_relations.undeclared``): a trace's value there is checked against nothing."""
    spec = OPS.get(op)
    return undeclared(spec.steps, by_role(spec)) if spec is not None else []


def _unavailable(response: dict[str, Any]) -> bool:
    return response.get("error", {}).get("code") == "unavailable"


def render(tallies: dict[str, dict[str, Tally]]) -> str:
    lines = []
    for name, by_op in tallies.items():
        for op, tally in by_op.items():
            verdict = "ok" if tally.problems == 0 else f"{tally.problems:,} TRACE PROBLEM(S)"
            unsent = f"; {tally.not_sent:,} not sent (its host cannot hold them)" if tally.not_sent else ""
            lines.append(f"{name:<10} {op:<22} {tally.checked:>10,} traced, each ended in its op's output and "
                         f"followed its steps: {verdict}{unsent}"
                         + ("; then its claim to trace it was shown false: a black box for it"
                            if tally.withdrawn is not None else ""))
            if tally.withdrawn is not None:
                lines.append(f"    claims traces of {op} but did not serve one ({tally.withdrawn}): a handshake_lie")
            lines += [f"    {printable(problem)}" for problem in tally.first]  # a value may hold a lone surrogate
    return "\n".join(lines)


def as_json(tallies: dict[str, dict[str, Tally]]) -> dict[str, Any]:
    return {name: {op: {"checked": t.checked, "notSent": t.not_sent, "problems": t.problems, "first": t.first,
                        **({"withdrawn": t.withdrawn} if t.withdrawn is not None else {})}
                   for op, t in by_op.items()} for name, by_op in tallies.items()}
