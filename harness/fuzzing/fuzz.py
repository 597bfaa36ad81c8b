"""The divergence fuzzer: Hypothesis generation over every comparable op of the registry, run on
several implementations until a time budget is spent, shrinking each new divergence to a minimal
input and explaining it (``python -m harness fuzz`` / ``nox -s fuzz -- --minutes N``).

A divergence is *new* unless every implementation that differs from the reference lists its op and
cause in ``expected/<impl>.json``. One divergence per (op, cause, detail, implementations) is reported,
shrunk to a minimal input, whether new or expected.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from hypothesis import given, settings
from hypothesis import seed as hypothesis_seed

from harness.differential import profiles  # noqa: F401  (registers the Hypothesis profiles)
from harness.differential.explain import Divergence, examine, unicode_versions_of
from harness.differential.expected import ExpectedSet, recheck_detailed
from harness.differential.strategies import args_for, comparable_ops
from harness.testees.testee import Testee


class _Found(Exception):
    """Raised inside the Hypothesis test to make it shrink a new divergence."""


@dataclass
class FuzzResult:
    divergences: list[Divergence] = field(default_factory=list)
    examples: int = 0
    seconds: float = 0.0
    expected_problems: list[str] = field(default_factory=list)
    unexpected_passes: list[dict[str, str]] = field(default_factory=list)
    versions: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def new(self) -> list[Divergence]:
        return [d for d in self.divergences if d.status == "new"]


class Progress:
    """One live status line on a terminal; a line every ``every`` seconds otherwise."""

    def __init__(self, stream: TextIO, total: float, every: float = 10.0) -> None:
        self.stream, self.total, self.every = stream, total, every
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.last = 0.0

    def update(self, examples: int, new: int, expected: int, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < (0.25 if self.tty else self.every):
            return
        self.last = now
        elapsed = now - self.start
        rate = examples / elapsed if elapsed > 0 else 0.0
        line = (f"[fuzz] {elapsed:6.1f}s/{self.total:.0f}s  {examples:,} examples ({rate:,.0f}/s)  "
                f"divergences: {new} new, {expected} expected")
        if self.tty:
            self.stream.write("\r" + line + "\x1b[K")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def fuzz(impls: dict[str, Testee], expected: ExpectedSet, seconds: float, seed: int | None = None,
         ops: list[str] | None = None, chunk: int = 100, stream: TextIO = sys.stderr) -> FuzzResult:
    result = FuzzResult(versions=unicode_versions_of(impls))
    checked = recheck_detailed(expected, impls, result.versions)
    result.expected_problems = [message for message, _ in checked]
    result.unexpected_passes = [passed for _, passed in checked if passed]
    ops = ops or comparable_ops()
    known: set[tuple[Any, ...]] = set()
    progress = Progress(stream, seconds)
    started = time.monotonic()
    deadline = started + seconds
    round_no = 0

    def expected_count() -> int:
        return sum(1 for d in result.divergences if d.status == "expected")

    while time.monotonic() < deadline:
        op = ops[round_no % len(ops)]
        round_no += 1
        target: list[tuple[Any, ...]] = []
        first_seen: list[float] = []
        last: list[Divergence] = []

        @settings(settings.get_profile("fuzz"), max_examples=chunk)
        @given(args=args_for(op))
        def probe(args: dict[str, Any]) -> None:
            result.examples += 1
            progress.update(result.examples, len(result.new), expected_count())
            if not target and time.monotonic() >= deadline:
                return
            divergence = examine(impls, op, args, result.versions)
            if divergence is None:
                return
            key = divergence.key
            if target:
                if key != target[0]:
                    return
            else:
                if key in known:
                    return
                # New or expected, the first of each kind is shrunk so that reports show a minimal witness.
                target.append(key)
                first_seen.append(time.monotonic() - started)
            last[:] = [divergence]
            raise _Found()

        if seed is not None:
            probe = hypothesis_seed(seed + round_no)(probe)
        try:
            probe()
        except _Found:
            divergence = last[0]
            divergence.found_after = first_seen[0]
            entry = expected.covers(divergence.divergent, op, divergence.cause, divergence.detail)
            if entry is not None:
                divergence.status, divergence.expected_entry = "expected", f"{entry.impl}/{entry.id}"
            known.add(target[0])
            result.divergences.append(divergence)
        progress.update(result.examples, len(result.new), expected_count())
    progress.update(result.examples, len(result.new), expected_count(), force=True)
    progress.done()
    result.seconds = seconds
    return result
