"""Divergence classes of a sweep: every disagreeing input grouped so that one bug is one report.

1. Inputs are grouped (by the sweep's workers, chunk by chunk) by (op, the implementations that disagree
   with the oracle, each one's outcome kind: ``ok`` or ``error:<code>``, and a property hint of the
   swept code point: a lone surrogate, Unicode data that differs between the versions in play,
   White_Space or a near miss, or none).
2. The causes of a group are assigned on its simplest member (the first template, the lowest code
   point), from the step traces or by the counterfactual classifier (harness/differential/explain.py,
   ``name_shares``: one share per cause, so a skew riding along with a bug is a class of its own), and
   checked on a few members spread across the group; if they disagree, every member is classified.
3. Shares with the same class key (``harness.classes.key.ClassKey``: op, the share's implementations, cause,
   detail, the step where the traces part) are one class (``harness.classes.book.ClassBook``: an input not
   sent to an implementation whose host cannot hold it does not make another class): its code points (as
   ranges, with names), the templates where it shows, and a minimal witness: the simplest member, shrunk
   (harness/classes/shrink.py).

Shard reports merge class by class on the same key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from harness.classes.book import ClassBook
from harness.classes.key import ClassKey, class_step
from harness.classes.record import ClassRecord, Extent, Swept
from harness.classes.replay import replay_command
from harness.differential.counterfactual.skew import masked, share_steps
from harness.differential.explain import Found, Share, code_point_runs, code_points, name_shares
from harness.differential.outcomes import divergent
from harness.differential.verdict import gate_shape, outcome_kinds
from harness.fuzzing.templates import BY_NAME, SURROGATE_PAIRS, TEMPLATES
from harness.model import hostvalues, unicode_tables
from harness.model.contract_sets import white_space_like
from harness.model.ledger import Ledger
from harness.model.unicode_info import is_surrogate
from harness.testees.fanout import expressible, serves
from harness.testees.findings import Findings
from harness.testees.testee import Testee

SAMPLES = 4  # members classified besides the simplest one, to check that a group has one cause
CLASSIFY_ALL_LIMIT = 5000  # above this, a mixed group keeps the simplest member's cause for the rest

_ORDER = {template.name: number for number, template in enumerate(TEMPLATES)}

Runs = list[tuple[str, int, int]]  # (template, first index, last index), members of a group in runs


def hint(template: str, index: int) -> str:
    """What is special about the swept value, from its properties only (never from an implementation)."""
    if BY_NAME[template].size == SURROGATE_PAIRS:
        return "surrogate_pair"
    if is_surrogate(index):
        return "lone_surrogate"
    ch = chr(index)
    if index in unicode_tables.sensitive_anywhere():
        return "unicode_data_differs"
    if white_space_like(ch):
        return "white_space_like"
    return "none"


def group_key(template: str, index: int, responses: dict[str, dict[str, Any]]) -> tuple[Any, ...]:
    """How a worker groups a disagreeing input: (the disagreeing implementations, outcome kinds, hint)."""
    op = BY_NAME[template].op
    return tuple(divergent(op, responses)), outcome_kinds(responses), hint(template, index)


def _runs_sorted(runs: Runs) -> Runs:
    return sorted(runs, key=lambda run: (_ORDER[run[0]], run[1]))


def _count(runs: Runs) -> int:
    return sum(last - first + 1 for _, first, last in runs)


def _nth(runs: Runs, n: int) -> tuple[str, int]:
    for template, first, last in runs:
        if n <= last - first:
            return template, first + n
        n -= last - first + 1
    raise IndexError(n)


def _members(runs: Runs) -> Iterator[tuple[str, int]]:
    for template, first, last in runs:
        for index in range(first, last + 1):
            yield template, index


def add_run(runs: Runs, template: str, index: int) -> None:
    if runs and runs[-1][0] == template and runs[-1][2] == index - 1:
        runs[-1] = (template, runs[-1][1], index)
    else:
        runs.append((template, index, index))


@dataclass
class SweepClass:
    op: str
    divergent: tuple[str, ...]
    kinds: tuple[tuple[str, str], ...]
    cause: str
    detail: str | None
    explanation: str
    runs: Runs = field(default_factory=list)  # its members
    all_kinds: list[tuple[tuple[str, str], ...]] = field(default_factory=list)  # outcome kinds beyond ``kinds``
    step: str | None = None  # where the traces part (None: counterfactuals named the cause)
    rule: str | None = None  # the rule that named it

    @property
    def key(self) -> ClassKey:
        return ClassKey.of(self.op, self.divergent, self.cause, self.detail, self.step)

    @property
    def inputs(self) -> int:
        return _count(self.runs)

    @property
    def simplest(self) -> tuple[str, int]:
        return _nth(_runs_sorted(self.runs), 0)

    def merge(self, other: SweepClass) -> SweepClass:
        """A class grown into one already there (``ClassBook``): one class, with the members of both."""
        runs = list(self.runs)
        for template, first_index, last_index in other.runs:
            for index in range(first_index, last_index + 1):
                add_run(runs, template, index)
        return replace(self, runs=runs)

    def named_by(self, key: ClassKey, witness_from: SweepClass) -> SweepClass:
        """The class named by a grown key (its witness is chosen from its members at the end)."""
        return replace(self, divergent=key.impls)

    def witness_member(self) -> tuple[str, int]:
        """The simplest member that was sent to every implementation the class names (a class can also
        hold inputs a UTF-16 host could not be sent: ClassBook); else the simplest."""
        for template, first_index, _ in _runs_sorted(self.runs):
            args = BY_NAME[template].args(first_index)
            if all(expressible(name, args) for name in self.divergent):
                return template, first_index
        return self.simplest


def _signature(shares: tuple[Share, ...]) -> tuple[tuple[Any, ...], ...]:
    """What two members must share to be classified alike: each share's implementations, cause, detail."""
    return tuple((share.impls, share.found.cause, share.found.detail, class_step(share.found.step, share.found.cause))
                 for share in shares)


def build(groups: dict[tuple[Any, ...], Runs], opened: dict[str, Testee],
          versions: dict[str, dict[str, str]], findings: Findings | None = None,
          position: Callable[[str, int], int] = lambda template, index: 0,
          ledger: Ledger | None = None) -> list[SweepClass]:
    """Classes from the groups the workers made ((op, implementations, kinds, hint) -> member runs),
    simplest first. Causes come from the counterfactual classifier, re-running each classified member
    alone: a member that does not come again (the reproduction gate, harness/differential/verdict.py)
    is a finding in ``findings``, never in a class; a group none of whose sampled members come again is
    no class at all. ``position``: where a member was in the batch line its implementations got. ``ledger``:
    each member counted into it, classified (in a class) or not reproduced."""
    ledger = ledger if ledger is not None else Ledger("sweep")
    findings = findings if findings is not None else Findings()
    book: ClassBook[SweepClass] = ClassBook(list(opened))
    absent_in: dict[str, frozenset[str]] = {}  # template -> implementations its inputs are not sent to

    def absent(template: str, index: int, share: Share) -> frozenset[str]:
        """Those its input was not sent to (by template), and those outside the share that read it with other
        Unicode data (counterfactual.skew.masked)."""
        args = BY_NAME[template].args(index)
        if template not in absent_in:
            op = BY_NAME[template].op
            absent_in[template] = frozenset(name for name in opened
                                            if not serves(name, op) or not expressible(name, args))
        return absent_in[template] | masked(BY_NAME[template].op, args, opened, share.impls, versions,
                                            share_steps(share.found.cause, share.found.detail))

    def cause_of(member: tuple[str, int], seen: tuple[tuple[str, ...], tuple[tuple[str, str], ...]]
                 ) -> tuple[Share, ...] | None:
        template, index = member
        op, args = BY_NAME[template].op, BY_NAME[template].args(index)
        verdict = gate_shape(opened, op, args, seen, findings, position(template, index))
        if not verdict.reproduced:
            return None
        return tuple(name_shares(opened, op, args, verdict.responses, versions, fallback=False))

    for (op, names, kinds, _), runs in groups.items():
        runs = _runs_sorted(runs)
        total = _count(runs)
        step = max(1, total // (SAMPLES + 1))
        sampled = [_nth(runs, 0)] + [_nth(runs, n) for n in range(step, total, step)[:SAMPLES]]
        causes = {member: cause_of(member, (names, kinds)) for member in sampled}
        reproduced = [member for member in sampled if causes[member] is not None]
        if not reproduced:
            ledger.not_reproduced += total
            continue  # not one sampled member came again: findings about a testee, no class
        first = causes[reproduced[0]]
        assert first is not None
        mixed = len({_signature(c) for c in causes.values() if c is not None}) > 1
        for number, member in enumerate(_members(runs)):
            if member in causes:
                found = causes[member]
            elif mixed and number < CLASSIFY_ALL_LIMIT:
                found = cause_of(member, (names, kinds))
            else:
                found = first
            if found:
                ledger.classified += 1
            else:
                ledger.not_reproduced += 1
            for share in found or ():
                one = share.found
                filed = book.file(SweepClass(op, share.impls, kinds, one.cause, one.detail, one.explanation,
                                             step=one.step, rule=one.rule), absent(*member, share))
                held = filed.record
                if not filed.created and kinds not in held.all_kinds:
                    held.all_kinds.append(kinds)
                add_run(held.runs, *member)
    return sorted(book.held.values(), key=lambda c: (_ORDER[c.simplest[0]], c.simplest[1]))


def to_record(sweep_class: SweepClass, witness_args: dict[str, Any], witness_responses: dict[str, dict[str, Any]],
              versions: dict[str, dict[str, str]], names: list[str], witness_chars: tuple[str, ...] = (),
              trace_at: dict[str, dict[str, Any]] | None = None) -> ClassRecord:
    """The class as a record, new until covered: the witness, and the class's extent (code points, templates). A
    class of a character cause (its witness names characters) is about every swept code point too: an expected
    entry must list them all."""
    points = [index for template, first, last in sweep_class.runs if BY_NAME[template].size != SURROGATE_PAIRS
              for index in range(first, last + 1)]
    pairs = sum(last - first + 1 for template, first, last in sweep_class.runs
                if BY_NAME[template].size == SURROGATE_PAIRS)
    templates: dict[str, int] = {}
    for template, first, last in sweep_class.runs:
        templates[template] = templates.get(template, 0) + last - first + 1
    found = Found(sweep_class.cause, sweep_class.explanation, sweep_class.detail, sweep_class.step, sweep_class.rule,
                  chars=tuple(dict.fromkeys([*witness_chars, *map(chr, sorted(set(points)))])) if witness_chars else (),
                  trace_at=trace_at)
    swept = Swept(sweep_class.inputs, pairs, tuple((a, b) for a, b in code_point_runs(points)), templates,
                  {name: kind for name, kind in sweep_class.kinds})
    return ClassRecord.of_sighting(sweep_class.op, witness_args, witness_responses, sweep_class.divergent, found,
                                   code_points(witness_args, versions), extent=Extent(swept=swept),
                                   replay=replay_command(sweep_class.op, hostvalues.encode_args(witness_args), names))
