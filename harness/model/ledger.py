"""The run ledger: one account of a run's planned work, and the verdict on the work computed from it.

Every command that sends inputs to implementations (check, diff, fuzz, sweep) keeps one ``Ledger``: the inputs
planned and run, per implementation the requests sent and what became of each (answered; cut by the time
budget; faulted twice; unanswered because the testee was taken out), the inputs whose answers were compared,
how many disagreed, and how many of those were classified. ``problems`` says, as lines, every way the work
was not done; a run is green only when there is none (``ok``):

* every request sent was answered, except what the end of a time budget cut from the batches in flight
  then (``allowance``: at most one batch per worker, per implementation);
* every disagreeing input was classified (explaining and shrinking may be sampled);
* the planned inputs were all run (a plan with an end: check, diff, a sweep, a fuzz run of a fixed size);
* something was compared at all, and the run was not interrupted.

It is a value: made from counts, joined (``add``: workers, shards), written into every report's envelope
(``to_json``, schema ``$defs/ledger`` of schemas/run-envelope-v1.schema.json) and read back validated
(``from_json``). The report's ``ok`` and the command's exit status take its verdict (harness/classes/report.py,
harness/fixtures/runner.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# What became of one request, by the harness's own response codes (harness/testees/errors.py NO_ANSWER).
FATES = {"cut": "cut", "protocol_fault": "faulted", "unavailable": "out"}


@dataclass
class Tally:
    """One implementation's requests in a run."""

    sent: int = 0
    answered: int = 0  # an answer or a contract error (a crash or hang the input caused, twice, included)
    cut: int = 0  # unanswered when the time budget ended
    faulted: int = 0  # a protocol fault twice on it: never compared
    out: int = 0  # the testee had been taken out of the run
    not_sent: int = 0  # legitimately: its host cannot hold the input, or it does not serve the op

    FIELDS = ("sent", "answered", "cut", "faulted", "out", "not_sent")

    def add(self, other: Tally) -> None:
        for name in self.FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def unanswered(self) -> int:
        return self.cut + self.faulted + self.out

    def to_json(self) -> dict[str, int]:
        return {("notSent" if name == "not_sent" else name): getattr(self, name) for name in self.FIELDS}

    @classmethod
    def from_json(cls, row: Mapping[str, Any], count: Any = lambda value, where: value) -> Tally:
        """A tally read back (``count`` checks each value: the ledger's reader names what is not a count)."""
        return cls(*(count(row.get("notSent" if name == "not_sent" else name, 0), name) for name in cls.FIELDS))


@dataclass
class Ledger:
    command: str
    planned: int | None = None  # inputs planned; None: as many as a time budget allows
    inputs: int = 0  # inputs run (sent to at least one implementation)
    compared: int = 0  # inputs whose answers were compared (with each other, or with a fixture's expectation)
    disagreeing: int = 0  # of those, the ones that disagreed (a failing fixture case)
    classified: int = 0  # disagreeing inputs assigned to a class (or, in check, judged as a failing case)
    not_reproduced: int = 0  # disagreeing inputs whose answers did not come again alone: findings about testees
    allowance: int = 0  # requests per implementation the end of a time budget may leave unanswered
    interrupted: bool = False
    stopped: str | None = None  # why the run ended before its plan, where it did
    impls: dict[str, Tally] = field(default_factory=dict)
    # Of the disagreeing inputs not classified, those left between two explained members of a sweep's group that
    # part, where the boundary was not found within the group's classifier calls (harness/fuzzing/classes.py):
    # a reason in the problem line, not a count of its own in a report (read back, the line says "not classified").
    mixed: int = 0
    # A timed run's start-up (seconds until every implementation was up: the budget counts from then, docs/fuzzing.md)
    # and what was started again while it ran: the testee processes restarted, per implementation, and the worker
    # processes. Said in ``lines``, kept in ``to_json`` (the envelope's ledger: "startup", "restarts") when there.
    startup: float | None = None
    restarts: dict[str, int] = field(default_factory=dict)
    worker_restarts: int = 0

    def tally(self, name: str) -> Tally:
        return self.impls.setdefault(name, Tally())

    def count_responses(self, name: str, responses: Iterable[Mapping[str, Any] | None]) -> None:
        """Count the responses one implementation gave to the requests it was sent (None: no answer came)."""
        tally = self.tally(name)
        responses = responses if isinstance(responses, list) else list(responses)
        tally.sent += len(responses)
        tally.answered += len(responses)
        # Only errors can be no answer: the common answer ({ok}) costs a membership test (the sweep counts millions).
        for response in [r for r in responses if r is None or "error" in r]:
            error = response.get("error") if response is not None else None
            code = error.get("code") if isinstance(error, Mapping) else None
            fate = "cut" if response is None else FATES.get(code) if isinstance(code, str) else None
            if fate is not None:
                tally.answered -= 1
                setattr(tally, fate, getattr(tally, fate) + 1)

    def add(self, other: Ledger) -> None:
        """Join another part of the same run (a worker's batch, a shard): counts add up."""
        self.planned = None if self.planned is None or other.planned is None else self.planned + other.planned
        for name in ("inputs", "compared", "disagreeing", "classified", "not_reproduced", "allowance", "mixed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.interrupted = self.interrupted or other.interrupted
        self.stopped = self.stopped or other.stopped
        if other.startup is not None:
            self.startup = max(self.startup or 0.0, other.startup)
        for impl, count in other.restarts.items():
            self.restarts[impl] = self.restarts.get(impl, 0) + count
        self.worker_restarts += other.worker_restarts
        for impl, tally in other.impls.items():
            self.tally(impl).add(tally)

    @property
    def not_classified(self) -> int:
        return max(0, self.disagreeing - self.classified - self.not_reproduced)

    def problems(self) -> list[str]:
        """Every way the planned work was not done, one line each; none: the work was done and compared."""
        out = []
        if self.interrupted:
            out.append("interrupted: a partial run")
        if self.planned is not None and self.inputs < self.planned:
            out.append(f"{self.inputs:,} of {self.planned:,} planned inputs run"
                       + (f" ({self.stopped})" if self.stopped else ""))
        elif self.stopped:
            out.append(f"stopped before its plan: {self.stopped}")
        if self.compared == 0 and (self.planned is None or self.planned > 0):
            out.append("nothing was compared")
        for name, tally in sorted(self.impls.items()):
            if tally.faulted or tally.out:
                parts = [f"{tally.faulted:,} faulted twice" if tally.faulted else "",
                         f"{tally.out:,} after it was taken out" if tally.out else ""]
                out.append(f"{name}: {tally.faulted + tally.out:,} of {tally.sent:,} requests not answered "
                           f"({', '.join(p for p in parts if p)}): not compared")
            if tally.cut > self.allowance:
                out.append(f"{name}: {tally.cut:,} of {tally.sent:,} requests cut by the budget, more than the "
                           f"batches in flight at its end ({self.allowance:,}): not compared")
        if self.not_classified:
            out.append(f"{self.not_classified:,} of {self.disagreeing:,} disagreeing inputs not classified"
                       + (f" ({min(self.mixed, self.not_classified):,} in mixed groups: boundary not found)"
                          if self.mixed else ""))
        return out

    @property
    def ok(self) -> bool:
        return not self.problems()

    def lines(self) -> list[str]:
        """The ledger for a terminal or a summary: what was planned, sent, answered and compared."""
        planned = "open (a time budget)" if self.planned is None else f"{self.planned:,}"
        head = (f"ledger: {self.inputs:,} inputs run (planned: {planned}), {self.compared:,} compared, "
                f"{self.disagreeing:,} disagreeing, {self.classified:,} classified"
                + (f", {self.not_reproduced:,} not reproduced" if self.not_reproduced else ""))
        rows = [head]
        if self.startup is not None:
            rows.append(f"  start-up: {self.startup:.1f}s until every implementation was up (not counted in the "
                        "budget)")
        if self.restarts or self.worker_restarts:
            rows.append("  restarted while it ran: " + ", ".join(
                [f"{name} {count:,} testee process(es)" for name, count in sorted(self.restarts.items())]
                + ([f"{self.worker_restarts:,} worker(s)"] if self.worker_restarts else [])))
        for name, tally in sorted(self.impls.items()):
            extra = [f"{value:,} {label}" for value, label in ((tally.cut, "cut"), (tally.faulted, "faulted"),
                                                                 (tally.out, "after taken out"),
                                                                 (tally.not_sent, "not sent (host, op)")) if value]
            rows.append(f"  {name}: {tally.sent:,} sent, {tally.answered:,} answered"
                        + (f", {', '.join(extra)}" if extra else ""))
        problems = self.problems()
        rows.append("  verdict on the work: " + ("done and compared" if not problems else "NOT DONE: "
                                                 + "; ".join(problems)))
        return rows

    def to_json(self) -> dict[str, Any]:
        return {"command": self.command, "planned": self.planned, "inputs": self.inputs, "compared": self.compared,
                "disagreeing": self.disagreeing, "classified": self.classified,
                "notReproduced": self.not_reproduced, "allowance": self.allowance, "interrupted": self.interrupted,
                "stopped": self.stopped, "implementations": {n: t.to_json() for n, t in sorted(self.impls.items())},
                "ok": self.ok, "problems": self.problems(),
                **({"startup": round(self.startup, 3)} if self.startup is not None else {}),
                **({"restarts": {"testees": dict(sorted(self.restarts.items())), "workers": self.worker_restarts}}
                   if self.restarts or self.worker_restarts else {})}

    @classmethod
    def from_json(cls, data: Any) -> Ledger:
        """A ledger read back from a report (validated against its schema before); a ValueError names what is
        wrong where the shape is not a ledger's."""
        if not isinstance(data, Mapping):
            raise ValueError("a ledger is an object")

        def count(value: Any, where: str) -> int:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"ledger {where}: not a count")
            return value

        planned = data.get("planned")
        ledger = cls(str(data.get("command", "")), None if planned is None else count(planned, "planned"),
                     *(count(data.get(key, 0), key) for key in ("inputs", "compared", "disagreeing", "classified",
                                                                "notReproduced", "allowance")),
                     interrupted=bool(data.get("interrupted")), stopped=data.get("stopped"))
        startup = data.get("startup")
        if startup is not None:
            if isinstance(startup, bool) or not isinstance(startup, (int, float)) or not 0 <= startup < float("inf"):
                raise ValueError("ledger startup: not a number of seconds")
            ledger.startup = float(startup)
        restarts = data.get("restarts", {})
        if not isinstance(restarts, Mapping) or not isinstance(restarts.get("testees", {}), Mapping):
            raise ValueError("ledger restarts: not an object of testees and workers")
        ledger.restarts = {str(name): count(value, f"restarts.testees.{name}")
                           for name, value in restarts.get("testees", {}).items()}
        ledger.worker_restarts = count(restarts.get("workers", 0), "restarts.workers")
        impls = data.get("implementations", {})
        if not isinstance(impls, Mapping):
            raise ValueError("ledger implementations: not an object")
        for name, row in impls.items():
            if not isinstance(row, Mapping):
                raise ValueError(f"ledger implementations.{name}: not an object")
            ledger.impls[str(name)] = Tally.from_json(row, lambda value, field, name=name: count(value,
                                                                                                  f"{name}.{field}"))
        return ledger
