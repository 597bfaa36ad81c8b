"""One batch of calls on several implementations at once: the out-of-process ones (command testees) in
threads, so their processes work while the in-process ones run here. Every answer still comes back
through the one call path (``Testee.call_batch``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.model.ledger import Ledger
from harness.testees.errors import answered
from harness.testees.impls import ImplementationUnavailable, InProcess, declaration
from harness.testees.testee import Response, Testee

Calls = list[tuple[str, dict[str, Any]]]


def call_all(opened: dict[str, Testee], calls: dict[str, Calls]) -> dict[str, list[Response]]:
    """``calls[name]`` on ``opened[name]`` for every name in ``calls``; answers by name, in order."""
    answers: dict[str, list[Response]] = {}
    failures: dict[str, BaseException] = {}

    def run(name: str) -> None:
        try:
            answers[name] = opened[name].call_batch(calls[name])
        except BaseException as exc:  # noqa: BLE001 - re-raised below, in the caller's thread
            failures[name] = exc

    threads = [threading.Thread(target=run, args=(name,), name=f"call-{name}", daemon=True)
               for name in calls if not isinstance(opened[name], InProcess)]
    for thread in threads:
        thread.start()
    for name in calls:
        if isinstance(opened[name], InProcess):
            run(name)
    for thread in threads:
        thread.join()
    if failures:
        raise next(iter(failures.values()))
    return {name: answers[name] for name in calls}


def expressible(name: str, args: dict[str, Any]) -> bool:
    """Whether implementation ``name``'s host can hold ``args`` as they are (Implementation.can_express);
    an implementation without a declaration (a test double) is taken to hold code points."""
    can_hold = holds(name)
    return can_hold is None or can_hold(args)


def holds(name: str) -> Callable[[dict[str, Any]], bool] | None:
    """``expressible`` for ``name`` with its declaration looked up once (for a batch: a lookup per input cost
    more than the input's comparison); None where it holds every input (no declaration: a test double)."""
    try:
        declared = declaration(name)
    except ImplementationUnavailable:
        return None
    return None if declared.expresses_all else declared.can_express


def serves(name: str, op: str) -> bool:
    """Whether implementation ``name`` serves ``op`` (its declaration's ``ops``); one without a declaration
    (a test double) is taken to serve every op."""
    try:
        return declaration(name).serves_op(op)
    except ImplementationUnavailable:
        return True


def serving(opened: dict[str, Testee], op: str) -> dict[str, Testee]:
    """The implementations of ``opened`` that serve ``op``: the only ones it is sent to and compared across."""
    return {name: impl for name, impl in opened.items() if serves(name, op)}


def answer_each(opened: dict[str, Testee], op: str, batch: list[dict[str, Any]], ledger: Ledger | None = None,
                ) -> tuple[dict[str, list[Response | None]], dict[str, int]]:
    """``op`` on every input of ``batch`` everywhere at once, except where a host cannot hold the input:
    (implementation -> one answer per input, None where not sent or not answered (a request faulted
    twice, cut by the budget, its testee taken out: never compared); implementation -> inputs not sent).
    ``ledger``: each implementation's requests counted into it, with what became of each."""
    opened = serving(opened, op)  # an op it does not serve is never sent to it, nor counted as not sent
    sendable = {}
    for name in opened:
        can_hold = holds(name)
        sendable[name] = (list(range(len(batch))) if can_hold is None
                          else [j for j, args in enumerate(batch) if can_hold(args)])
    got = call_all(opened, {name: [(op, batch[j]) for j in sendable[name]] for name in opened})
    columns: dict[str, list[Response | None]] = {}
    for name in opened:
        column: list[Response | None] = [None] * len(batch)
        for j, response in zip(sendable[name], got[name], strict=False):
            column[j] = response if answered(response) else None
        columns[name] = column
    not_sent = {name: len(batch) - len(sendable[name]) for name in opened if len(sendable[name]) < len(batch)}
    if ledger is not None:
        for name in opened:
            ledger.count_responses(name, got[name])
            ledger.tally(name).not_sent += not_sent.get(name, 0)
    return columns, not_sent


@dataclass
class Harvest:
    """What the testees reported since last time: findings (JSON form), the names of those taken out of
    the run, how many requests to each the budget cut, and how many refused batch lines (a testee
    without batches: legitimate, driven one request per line)."""

    findings: list[dict[str, Any]] = field(default_factory=list)
    taken_out: list[str] = field(default_factory=list)
    cut: dict[str, int] = field(default_factory=dict)
    batches_refused: dict[str, int] = field(default_factory=dict)  # legitimate: counted, not findings

    def add(self, other: Harvest) -> None:
        """Gather ``other`` into this one (a run's harvests, from its workers and its own testees)."""
        self.findings.extend(other.findings)
        self.taken_out.extend(name for name in other.taken_out if name not in self.taken_out)
        for mine, theirs in ((self.cut, other.cut), (self.batches_refused, other.batches_refused)):
            for name, count in theirs.items():
                mine[name] = mine.get(name, 0) + count


def harvest(opened: dict[str, Testee]) -> Harvest:
    """Take what ``opened``'s testees reported since last time (the one place findings leave a testee:
    a worker ships them with its answers, a suite or a report collects them). In-process
    implementations report nothing."""
    got = Harvest()
    for name, impl in opened.items():
        book = getattr(impl, "findings", None)
        if book:
            got.findings.extend(book.take())
        if getattr(impl, "taken_out", None):
            got.taken_out.append(name)
        if getattr(impl, "batches_refused", 0):
            got.batches_refused[name] = impl.batches_refused  # type: ignore[attr-defined]
            impl.batches_refused = 0  # type: ignore[attr-defined]
        if getattr(impl, "cut_requests", 0):
            got.cut[name] = impl.cut_requests  # type: ignore[attr-defined]
            impl.cut_requests = 0  # type: ignore[attr-defined]
    return got
