"""Divergence classes of a sweep: every disagreeing input grouped so that one bug is one report.

1. Inputs are grouped (by the sweep's workers, chunk by chunk) by (op, the implementations that disagree
   with the oracle, each one's outcome kind: ``ok`` or ``error:<code>``, a property hint of the swept code
   point: a lone surrogate, Unicode data that differs between the versions in play, White_Space or a near
   miss, or none) and by what differs: each disagreeing implementation's outcome shape against the oracle's
   (harness/differential/outcomes.py ``outcome_shape``: an error against a result, a text longer or shorter, a
   JSON list gaining, losing or changing items...) and the character's properties that matter
   (``character_split``: its General_Category major class, its age against the Unicode versions the
   implementations differ in, its UTF-8 width).
2. The causes of a group are explained on a sample and verified (``classified``): ``SAMPLES`` members spread
   across it (``_spread``: one in each equal stretch, at a varying offset; a group of fewer than SAMPLES squared
   members, the square root of its size plus one), its first (the simplest: the first template, the lowest code
   point) and last included, each
   by the step traces or the counterfactual classifier (harness/differential/explain.py ``name_shares``: one
   share per cause, so a skew riding along with a bug is a class of its own). Where two neighbours among the
   explained members part (another signature, or one reproduced and one not), the member halfway between them
   is explained, pair after pair and again, until every boundary is found or ``CALL_LIMIT`` members of the group
   were explained. A member not explained takes the causes of the explained members on either side of it where
   those two agree; where they part (a boundary not found within the calls), it is assigned to no class: the run
   ledger counts it unclassified ("mixed groups: boundary not found") and the run is not green. A group whose
   samples all agree is one class; a difference is never silently counted inside another's class, except where it
   falls wholly between two sampled members that agree (at most a group's size / (SAMPLES - 1) members in a row).
   The run ledger's "classified" counts the inputs assigned to a class.
3. Shares with the same class key (``harness.classes.key.ClassKey``: op, the share's implementations, cause,
   detail, the step where the traces part) are one class (``harness.classes.book.ClassBook``: an input not
   sent to an implementation whose host cannot hold it does not make another class): its code points (as
   ranges, with names), the templates where it shows, and a minimal witness: the simplest member, shrunk
   (harness/classes/shrink.py).

Shard reports merge class by class on the same key.
"""

from __future__ import annotations

import bisect
import json
import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from harness.classes.book import ClassBook
from harness.classes.key import ClassKey, class_step
from harness.classes.record import ClassRecord, Extent, Swept
from harness.classes.replay import replay_command
from harness.differential.counterfactual import length, rewrite
from harness.differential.counterfactual.skew import masked, share_steps
from harness.differential.explain import Found, Share, code_points, name_shares
from harness.differential.outcomes import divergent, oracle_of, outcome_shape
from harness.differential.verdict import gate_shape, outcome_kinds
from harness.fuzzing.templates import BY_NAME, SURROGATE_PAIRS, TEMPLATES
from harness.model import hostvalues, unicode_tables
from harness.model.contract_sets import white_space_like
from harness.model.ledger import Ledger
from harness.model.registry import OPS
from harness.model.unicode_info import is_surrogate
from harness.testees.errors import answered
from harness.testees.fanout import expressible, serves
from harness.testees.findings import Findings
from harness.testees.testee import Testee

SAMPLES = 16  # members explained spread evenly across a group (its first and last included): its causes sampled
CALL_LIMIT = 64  # members explained per group at most, the samples included: the rest bisect where causes part

_ORDER = {template.name: number for number, template in enumerate(TEMPLATES)}

Runs = list[tuple[str, int, int]]  # (template, first index, last index), members of a group in runs


def prepare() -> None:
    """The classifier's tables of every code point built ahead of the first member explained (the parts of canonical
    decompositions, the stable stand-ins by shape and length: 0.3 s on an idle machine, on first use): the sweep
    builds them in a thread while its chunks run, once one has disagreed (harness/fuzzing/sweep.py)."""
    rewrite.composing_parts()
    length.same_shape("a")


def hint(template: str, index: int, versions: tuple[str, ...] = ()) -> str:
    """What is special about the swept value, from its properties only (never from an implementation);
    ``versions``: the Unicode versions in play (``versions_in_play``)."""
    if BY_NAME[template].size == SURROGATE_PAIRS:
        return "surrogate_pair"
    if is_surrogate(index):
        return "lone_surrogate"
    ch = chr(index)
    if index in _sensitive(versions, _properties(BY_NAME[template].op)):
        return "unicode_data_differs"
    if white_space_like(ch):
        return "white_space_like"
    return "none"


def _properties(op: str) -> tuple[str, ...]:
    """The Unicode properties ``op``'s steps declare they read (registry ``Op.unicode_steps``), in
    ``unicode_tables.PROPERTIES`` order."""
    declared = OPS[op].unicode_steps if op in OPS else ()
    return tuple(prop for prop in unicode_tables.PROPERTIES if prop in declared)


@cache
def _sensitive(versions: tuple[str, ...], properties: tuple[str, ...]) -> frozenset[int]:
    """The code points whose data, in some property of ``properties`` (an op's declared ones), differs between two
    of ``versions`` that have tables of that property."""
    out: set[int] = set()
    for prop in properties:
        having = [version for version in versions if unicode_tables.has(version, prop)]
        for number, a in enumerate(having):
            for b in having[number + 1:]:
                out |= unicode_tables.differing_set(prop, a, b)
    return frozenset(out)


@cache
def _sensitive_stated(stated: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[int, ...]:
    """The code points whose data differs, in some property, between two of the versions the implementations state
    for it (``stated``: (property, its versions)), in order."""
    out: set[int] = set()
    for prop, versions in stated:
        out |= _sensitive(versions, (prop,))
    return tuple(sorted(out))


def sensitive_points(op: str, versions: dict[str, dict[str, str]]) -> tuple[int, ...]:
    """The code points whose data, in a property ``op`` declares, differs between the versions of it the
    implementations read (``versions``: implementation -> property -> version), in order: each gets its own
    ``masked`` answer in ``build``."""
    have = set(unicode_tables.available())
    return _sensitive_stated(tuple((prop, tuple(sorted({said[prop] for said in versions.values()
                                                        if isinstance(said.get(prop), str) and said[prop] in have},
                                                       key=unicode_tables.version_key)))
                                   for prop in _properties(op)))


def versions_in_play(opened: dict[str, Testee]) -> tuple[str, ...]:
    """The Unicode versions the implementations read where they differ: of each property their self-descriptions
    (``unicode``) name with more than one version, those versions there are tables of, oldest first (none where
    every implementation reads the same data)."""
    have = set(unicode_tables.available())
    by_property: dict[str, set[str]] = {}
    for impl in opened.values():
        stated = (getattr(impl, "description", None) or {}).get("unicode") or {}
        for name, version in (stated.items() if isinstance(stated, dict) else ()):
            if isinstance(version, str) and version in have:
                by_property.setdefault(name, set()).add(version)
    found = {version for versions in by_property.values() if len(versions) > 1 for version in versions}
    return tuple(sorted(found, key=unicode_tables.version_key))


def character_split(index: int, versions: tuple[str, ...], pair: bool = False) -> tuple[str, str, str]:
    """The swept character's properties that matter to a difference: its General_Category's major class
    (L, M, N, P, S, Z, C), its age relative to ``versions`` (the versions in play): ``assigned`` in all of them,
    ``new`` (assigned in some, not in others), ``unassigned`` in all, ``-`` where there are fewer than two; and
    its width in UTF-8 bytes (what a length rule counting bytes, or UTF-16 units, sees: ``1`` to ``4``). A pair of
    lone surrogates: ``C``, ``-``, ``6``."""
    if pair:
        return "C", "-", "6"
    major = unicodedata.category(chr(index))[0]
    width = "1" if index < 0x80 else "2" if index < 0x800 else "3" if index < 0x10000 else "4"
    if len(versions) < 2:
        return major, "-", width
    assigned = [unicode_tables.table(version).is_assigned(index) for version in versions]
    return major, "assigned" if all(assigned) else "unassigned" if not any(assigned) else "new", width


def chunk_split(template: str, start: int, stop: int, versions: tuple[str, ...]) -> list[tuple[str, ...]]:
    """``(hint, *character_split)`` of every index start..stop-1 of a template at once (a worker's chunk: the
    same values one by one, without a call and two table searches per input)."""
    if BY_NAME[template].size == SURROGATE_PAIRS:
        return [("surrogate_pair", "C", "-", "6")] * (stop - start)
    sensitive = _sensitive(versions, _properties(BY_NAME[template].op))
    kinds: dict[tuple[str, ...], tuple[str, ...]] = {}
    counts = bytearray(stop - start)
    for version in versions if len(versions) > 1 else ():
        table = unicode_tables.table(version)
        at = max(0, bisect.bisect_right(table.assigned_starts, start) - 1)
        for first, last in table.assigned[at:]:
            if first >= stop:
                break
            low, high = max(first, start), min(last, stop - 1)
            for n in range(low - start, high - start + 1) if low <= high else ():
                counts[n] += 1
    ages = ("-",) if len(versions) < 2 else ("unassigned",) + ("new",) * (len(versions) - 1) + ("assigned",)
    out = []
    for index in range(start, stop):
        if 0xD800 <= index <= 0xDFFF:
            key: tuple[str, ...] = ("lone_surrogate", "C", "-" if len(versions) < 2 else "assigned", "3")
        else:
            ch = chr(index)
            key = ("unicode_data_differs" if index in sensitive else "white_space_like" if white_space_like(ch)
                   else "none", unicodedata.category(ch)[0], ages[counts[index - start]] if len(versions) > 1 else "-",
                   "1" if index < 0x80 else "2" if index < 0x800 else "3" if index < 0x10000 else "4")
        out.append(kinds.setdefault(key, key))
    return out


def group_key(template: str, index: int, responses: dict[str, dict[str, Any]],
              versions: tuple[str, ...] = (), names: list[str] | None = None, oracle: str | None = None,
              split: tuple[str, ...] | None = None) -> tuple[Any, ...]:
    """How a worker groups a disagreeing input: (the disagreeing implementations, outcome kinds, hint, what
    differs: each disagreeing one's outcome shape, the character's major General_Category class, age and width)."""
    op = BY_NAME[template].op
    names = names if names is not None else divergent(op, responses)
    oracle_response = responses[oracle if oracle in responses else oracle_of(op, responses)]
    shapes = ",".join(outcome_shape(op, oracle_response, responses[name]) for name in names)
    if split is None:  # (hint, major class, age, width): chunk_split's
        pair = BY_NAME[template].size == SURROGATE_PAIRS
        split = (hint(template, index, versions), *character_split(index, versions, pair))
    return tuple(names), outcome_kinds(responses), split[0], (shapes, *split[1:])


def _runs_sorted(runs: Runs) -> Runs:
    return sorted(runs, key=lambda run: (_ORDER[run[0]], run[1]))


def _count(runs: Runs) -> int:
    return sum(last - first + 1 for _, first, last in runs)


def _finder(runs: Runs) -> Callable[[int], tuple[str, int]]:
    """The ``n``-th member (template, index) of ``runs`` (sorted), by a search of the runs' first members' numbers
    (made once a group: a group of 87,000 runs is asked for up to CALL_LIMIT members)."""
    starts = []
    count = 0
    for _, first, last in runs:
        starts.append(count)
        count += last - first + 1

    def nth(n: int) -> tuple[str, int]:
        if not 0 <= n < count:
            raise IndexError(n)
        at = bisect.bisect_right(starts, n) - 1
        return runs[at][0], runs[at][1] + n - starts[at]

    return nth


def add_run(runs: Runs, template: str, index: int) -> None:
    if runs and runs[-1][0] == template and runs[-1][2] == index - 1:
        runs[-1] = (template, runs[-1][1], index)
    else:
        runs.append((template, index, index))


def _extend(runs: Runs, run: tuple[str, int, int]) -> None:
    """``run`` (template, first, last) added after ``runs``: joined with the last one where it follows it."""
    template, first, last = run
    if runs and runs[-1][0] == template and runs[-1][2] == first - 1:
        runs[-1] = (template, runs[-1][1], last)
    else:
        runs.append((template, first, last))


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
        template, first, _ = min(self.runs, key=lambda run: (_ORDER[run[0]], run[1]))
        return template, first

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


def classified(runs: Runs, total: int, cause_of: Callable[[tuple[str, int]], tuple[Share, ...] | None],
               samples: int = SAMPLES, limit: int = CALL_LIMIT) -> dict[int, tuple[Share, ...] | None]:
    """The members of a group (``runs``, sorted, ``total`` of them) that are explained, by their number in it ->
    their shares (None: not reproduced): ``samples`` members spread evenly across it, its first and last included
    (every member of a group no larger); then, wherever two neighbours among the explained ones part (another
    signature, or one reproduced and the other not), the member halfway between them, again and again, each
    such pair in turn, until every boundary is found or ``limit`` members in all were explained, or as soon as
    finding them all would take more calls than are left (the group is then not resolved: ``assigned``).
    A group smaller than ``samples`` squared has its square root (plus one, at least 4) sampled. What the members
    between two explained ones are: ``assigned`` (the same as both, where they agree; unchecked where they part)."""
    nth = _finder(runs)
    causes = {n: cause_of(nth(n)) for n in _spread(total, min(samples, max(4, math.isqrt(total) + 1)))[:limit]}
    spent = len(causes)
    checked: set[tuple[int, int]] = set()  # stretches between agreeing neighbours probed once, next to a boundary
    while spent < limit:
        known = sorted(causes)
        pairs = list(zip(known, known[1:], strict=False))
        gaps = [(a, b) for a, b in pairs if b - a > 1 and _sig(causes[a]) != _sig(causes[b])]
        if sum((b - a - 1).bit_length() for a, b in gaps) > limit - spent:
            break  # bisecting each gap to its boundary takes more calls than are left: it cannot be resolved
        if not gaps:
            # Every boundary found: probe once the middle of each stretch between agreeing neighbours one of which is
            # at a boundary (a cause that changes again within a few members, every other one say, shows there).
            edges = {n for a, b in pairs if b - a == 1 and _sig(causes[a]) != _sig(causes[b]) for n in (a, b)}
            gaps = [(a, b) for a, b in pairs if b - a > 1 and (a in edges or b in edges) and (a, b) not in checked]
            checked.update(gaps)
            if not gaps:
                break
        for a, b in gaps:
            if spent >= limit:
                break
            middle = (a + b) // 2
            causes[middle] = cause_of(nth(middle))
            spent += 1
            checked.update({(a, middle), (middle, b)} if _sig(causes[middle]) == _sig(causes[a]) == _sig(causes[b])
                           else ())
    return causes


def _spread(total: int, samples: int) -> list[int]:
    """The members of a group of ``total`` sampled (every one where there are no more than ``samples``): one in
    each of ``samples`` equal stretches of it, the first and last members included, each at an offset into its
    stretch that varies from stretch to stretch (by the golden ratio's fractions), so that causes repeating every
    few members (every other one, every third) are not all sampled at the same phase and seen as one."""
    if total <= samples:
        return list(range(total))
    picks = {0, total - 1}
    for i in range(1, samples - 1):
        low, high = i * total // samples, (i + 1) * total // samples
        picks.add(low + int((i * 0.6180339887498949) % 1 * (high - low)))
    return sorted(picks)


def assigned(causes: dict[int, tuple[Share, ...] | None], start: int, known: list[int] | None = None,
             whole: bool | None = None) -> int | None:
    """Whose causes member ``start`` of a group takes (``classified``'s answer), by number: its own where it was
    explained; else, in a group whose every boundary was found (``resolved``), those of the explained members on
    either side of it, which then agree. None: in a group where two explained neighbours part with members between
    them (the calls ran out before the boundary was found), a member not explained is assigned to no class: its
    explained neighbours agreeing says little where causes change that often (every other member, say)."""
    if start in causes:
        return start
    known = known if known is not None else sorted(causes)
    if not (whole if whole is not None else resolved(causes, known)):  # ``whole``: resolved, worked out already
        return None
    at = bisect.bisect_right(known, start)
    return known[at - 1] if at else known[0]


def resolved(causes: dict[int, tuple[Share, ...] | None], known: list[int] | None = None) -> bool:
    """Whether every pair of explained neighbours that part is next to each other: each boundary was found."""
    known = known if known is not None else sorted(causes)
    return all(b - a == 1 or _sig(causes[a]) == _sig(causes[b]) for a, b in zip(known, known[1:], strict=False))


def _has(points: tuple[int, ...], index: int) -> bool:
    at = bisect.bisect_left(points, index)
    return at < len(points) and points[at] == index


def _sig(found: tuple[Share, ...] | None) -> Any:
    """A member's signature for bisecting: its shares', or "not reproduced"."""
    return "not reproduced" if found is None else _signature(found)


def members(found: list[SweepClass]) -> int:
    """How many inputs the classes hold (an input in two classes, one share each, counted once)."""
    by_template: dict[str, list[tuple[int, int]]] = {}
    for sweep_class in found:
        for template, first, last in sweep_class.runs:
            by_template.setdefault(template, []).append((first, last))
    count = 0
    for spans in by_template.values():
        end = -1
        for first, last in sorted(spans):
            if last > end:
                count += last - max(first, end + 1) + 1
                end = last
    return count


def _signature(shares: tuple[Share, ...]) -> tuple[tuple[Any, ...], ...]:
    """What two members must share to be classified alike: each share's implementations, cause, detail."""
    return tuple((share.impls, share.found.cause, share.found.detail, class_step(share.found.step, share.found.cause))
                 for share in shares)


class _Remembered:
    """A testee whose answers to the classifier's probes are kept for the rest of a sweep's classes (``build``): the
    members explained across groups probe the same stand-ins and plain inputs again and again (3,563 calls, 1,407
    of them distinct, for two thirds of U+0000..U+3FFFF disagreeing), each a round trip to a command testee. Only
    ``call`` is kept, and only an answer (not a crash or a timeout); the gate's own calls, which ask whether a
    member comes again alone, go to the testee itself."""

    def __init__(self, impl: Testee) -> None:
        self._impl = impl
        self._answers: dict[tuple[str, str], dict[str, Any]] = {}

    def call(self, op_name: str, args: dict[str, Any]) -> dict[str, Any]:
        try:
            key = (op_name, json.dumps(args, sort_keys=True))
        except (TypeError, ValueError):  # not JSON (a host value): asked again each time
            return self._impl.call(op_name, args)
        if key not in self._answers:
            response = self._impl.call(op_name, args)
            if not answered(response):
                return response
            self._answers[key] = response
        return self._answers[key]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._impl, name)


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

    masked_by: dict[tuple[Any, ...], frozenset[str]] = {}
    remembered: dict[str, Any] = {name: _Remembered(impl) for name, impl in opened.items()}  # the probes' answers

    sensitive_by_op: dict[str, tuple[int, ...]] = {}

    def sensitive_of(op: str) -> tuple[int, ...]:
        if op not in sensitive_by_op:
            sensitive_by_op[op] = sensitive_points(op, versions)
        return sensitive_by_op[op]

    def absent(template: str, index: int, share: Share) -> frozenset[str]:
        """Those its input was not sent to (by template), and those outside the share that read it with other
        Unicode data (counterfactual.skew.masked). Kept per template and share for the code points whose Unicode
        data is the same in every version the implementations read (what masked reads of the swept one cannot
        differ between them), per code point for the others."""
        pair = BY_NAME[template].size == SURROGATE_PAIRS
        key = (template, share.impls, share.found.cause, share.found.detail,
               index if not pair and _has(sensitive_of(BY_NAME[template].op), index) else None)
        if key in masked_by:
            return masked_by[key]
        args = BY_NAME[template].args(index)
        if template not in absent_in:
            op = BY_NAME[template].op
            absent_in[template] = frozenset(name for name in opened
                                            if not serves(name, op) or not expressible(name, args))
        masked_by[key] = absent_in[template] | masked(BY_NAME[template].op, args, opened, share.impls, versions,
                                                      share_steps(share.found.cause, share.found.detail))
        return masked_by[key]

    def cause_of(member: tuple[str, int], seen: tuple[tuple[str, ...], tuple[tuple[str, str], ...]]
                 ) -> tuple[Share, ...] | None:
        template, index = member
        op, args = BY_NAME[template].op, BY_NAME[template].args(index)
        verdict = gate_shape(opened, op, args, seen, findings, position(template, index))
        if not verdict.reproduced:
            return None
        return tuple(name_shares(remembered, op, args, verdict.responses, versions, fallback=False))

    for key, runs in groups.items():
        op, names, kinds = key[0], key[1], key[2]
        runs = _runs_sorted(runs)
        total = _count(runs)
        causes = classified(runs, total, lambda member, seen=(names, kinds): cause_of(member, seen))
        reproduced = sorted(n for n, found in causes.items() if found is not None)
        if not reproduced:
            ledger.not_reproduced += total
            continue  # not one sampled member came again: findings about a testee, no class
        # Each member takes the causes of the explained members around it where they agree; where they part and
        # the boundary was not found within the group's calls, the stretch between them is left unclassified
        # (the ledger says so): a group is split where its explained members part, never classified whole.
        known = sorted(causes)
        whole = resolved(causes, known)
        plain_absent: dict[tuple[str, int], tuple[Any, ...]] = {}
        batch: list[tuple[str, int, int]] = []  # members in a row with the same shares and the same absent ones
        batched: tuple[Any, ...] | None = None

        def file(shares: tuple[Share, ...], absents: tuple[frozenset[str], ...], members: Runs,
                 op: str = op, kinds: tuple[tuple[str, str], ...] = kinds) -> None:
            for share, gone in zip(shares, absents, strict=True):
                one = share.found
                filed = book.file(SweepClass(op, share.impls, kinds, one.cause, one.detail, one.explanation,
                                             step=one.step, rule=one.rule), gone)
                held = filed.record
                if not filed.created and kinds not in held.all_kinds:
                    held.all_kinds.append(kinds)
                if members:  # joined among themselves already: only the first can join the class's last run
                    _extend(held.runs, members[0])
                    held.runs.extend(members[1:])

        number = 0  # the group's number of the run's first member
        points = sensitive_of(op)
        mixed = lost = placed = 0  # the group's inputs: boundary not found, not reproduced, classified
        for template, first, last in runs:
            # Pieces of the run whose members share their causes and their absent ones, taken at once: a member
            # explained (its own causes, or not reproduced) and a code point whose Unicode data differs between the
            # versions read (its own absent ones) are pieces of their own. A run with neither inside it (most runs)
            # is one piece, which takes the causes of the stretch between two explained members it lies in.
            low, high = number, number + last - first
            number = high + 1
            at = bisect.bisect_left(known, low)
            inside = () if BY_NAME[template].size == SURROGATE_PAIRS else \
                points[bisect.bisect_left(points, first):bisect.bisect_right(points, last)]
            if not inside and (at == len(known) or known[at] > high):
                pieces: Any = ((low, high + 1, (known[at - 1] if at else known[0]) if whole else None, False),)
            else:
                alone = set(known[at:bisect.bisect_right(known, high)])
                alone.update(low + point - first for point in inside)
                bounds = sorted({low, high + 1, *alone, *(n + 1 for n in alone)})
                pieces = [(start, stop, assigned(causes, start, known, whole), start in alone)
                          for start, stop in zip(bounds, bounds[1:], strict=False)]
            for start, stop, source, own in pieces:
                if source is None:
                    mixed += stop - start  # between explained members that part: boundary not found
                    continue
                found = causes[source]
                if found is None:
                    lost += stop - start
                    continue
                placed += stop - start
                index = first + start - low
                if own:  # explained, or a code point whose Unicode data differs: its own absent ones
                    now = (source, tuple(absent(template, index, share) for share in found))
                else:  # the same for every such piece of the template taking these causes
                    plain = plain_absent.get((template, source))
                    if plain is None:
                        plain = plain_absent[(template, source)] = (source, tuple(absent(template, index, share)
                                                                                  for share in found))
                    now = plain
                if now != batched and batch:
                    file(causes[batched[0]] or (), batched[1], batch)  # type: ignore[index]
                    batch = []
                batched = now
                _extend(batch, (template, index, index + stop - start - 1))
        ledger.mixed += mixed
        ledger.not_reproduced += lost
        ledger.classified += placed
        if batch and batched is not None:
            file(causes[batched[0]] or (), batched[1], batch)
    return sorted(book.held.values(), key=lambda c: (_ORDER[c.simplest[0]], c.simplest[1]))


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted (first, last) spans joined where they touch or overlap: the code points they hold as runs (what
    ``code_point_runs`` makes of them one by one, without a list of every code point: 173,000 of them in a class
    of every other code point)."""
    out: list[tuple[int, int]] = []
    for first, last in spans:
        if out and first <= out[-1][1] + 1:
            if last > out[-1][1]:
                out[-1] = (out[-1][0], last)
        else:
            out.append((first, last))
    return out


def to_record(sweep_class: SweepClass, witness_args: dict[str, Any], witness_responses: dict[str, dict[str, Any]],
              versions: dict[str, dict[str, str]], names: list[str], witness_chars: tuple[str, ...] = (),
              trace_at: dict[str, dict[str, Any]] | None = None) -> ClassRecord:
    """The class as a record, new until covered: the witness, and the class's extent (code points, templates). A
    class of a character cause (its witness names characters) is about every swept code point too: an expected
    entry must list them all."""
    spans = _merged(sorted((first, last) for template, first, last in sweep_class.runs
                           if BY_NAME[template].size != SURROGATE_PAIRS))
    pairs = sum(last - first + 1 for template, first, last in sweep_class.runs
                if BY_NAME[template].size == SURROGATE_PAIRS)
    templates: dict[str, int] = {}
    for template, first, last in sweep_class.runs:
        templates[template] = templates.get(template, 0) + last - first + 1
    found = Found(sweep_class.cause, sweep_class.explanation, sweep_class.detail, sweep_class.step, sweep_class.rule,
                  chars=tuple(dict.fromkeys([*witness_chars, *(chr(cp) for first, last in spans
                                                               for cp in range(first, last + 1))])) if witness_chars
                  else (),
                  trace_at=trace_at)
    swept = Swept(sweep_class.inputs, pairs, tuple(spans), templates,
                  {name: kind for name, kind in sweep_class.kinds})
    return ClassRecord.of_sighting(sweep_class.op, witness_args, witness_responses, sweep_class.divergent, found,
                                   code_points(witness_args, versions), extent=Extent(swept=swept),
                                   replay=replay_command(sweep_class.op, hostvalues.encode_args(witness_args), names))
