"""A fuzz run's classes from its disagreeing examples: ``Sightings``.

Examples are grouped per (op, the implementations that disagree, their outcome kinds) and classified on a
sample: the first CLASSIFY_FIRST of a group, then one in CLASSIFY_EVERY while every classified one had one
cause (a campaign samples by each example's place in the seed's stream instead, ``campaign_classifies``,
so that shards together classify what one run would), and besides, whatever the sample says, the first example
of each signature of its group (harness/classes/signature.py: what its difference looks like, worked out with
no call). An example is classified only when it comes again alone (the reproduction gate,
harness/differential/verdict.py). Each share of the first example of a classification (its shares' causes) is
shrunk to a minimal witness (harness/classes/shrink.py), named again on it, and filed in the run's ``ClassBook``
(one class per key, grown when a sighting names more implementations); later examples so classified are counted
under the classes its witness shrank to. A class met on a smaller input while shrinking (shrink's ``Elsewhere``)
is filed too, shrunk in its own class; a witness with such a class one removal away holds that class's
difference as well and is split: its sighting is counted under the classes beside it, and it is no class of its
own (after that, examples of its classification are told apart by signature too: those of the first
MIXED_SHRINKS new signatures are shrunk, later ones counted under the classes their shares were placed under).
A sighting is a ``ClassRecord`` at once (``of_sighting``); a class keeps its first witness, and the witness of
the sighting that made it grow. Each class's expected-list coverage is worked out when its witness is first shown
(``examine.worked_out``, then ``expected.covered``: a new record, never a change to one).
"""

from __future__ import annotations

import time
import zlib
from typing import Any

from harness.classes.book import ClassBook
from harness.classes.examine import worked_out
from harness.classes.expected import ExpectedSet, covered
from harness.classes.key import ClassKey
from harness.classes.record import ClassRecord, Extent
from harness.classes.shrink import Elsewhere, Other, shrink
from harness.classes.signature import Signature, signature
from harness.differential.counterfactual.skew import masked, share_steps
from harness.differential.explain import Share, code_points, name_shares
from harness.differential.outcomes import agreeing, divergent
from harness.differential.verdict import gate, outcome_kinds
from harness.testees.findings import Findings
from harness.testees.testee import Testee

CLASSIFY_FIRST = 20  # examples of a (op, implementations, kinds) group classified before sampling
CLASSIFY_EVERY = 25  # then one in this many
SHRINK_SECONDS = 60.0
CAMPAIGN_FIRST_TASKS = 8  # a campaign classifies every disagreeing example of its first tasks, then samples
SPLIT_DEPTH = 2  # a class met while shrinking is shrunk and filed; one met while shrinking that one too, no deeper
# A first classification whose witness split: the inputs of this many new signatures are shrunk each; later ones
# are counted under the classes each of their shares was last placed under (``Sightings.placed``), no shrink.
MIXED_SHRINKS = 4
# What became of a disagreeing example (Sightings.consider), for the run's ledger (harness/model/ledger.py).
CLASSIFIED, NOT_REPRODUCED, NOT_CLASSIFIED = "classified", "not reproduced", "not classified"


def campaign_classifies(number: int, index: int) -> bool:
    """Whether a campaign classifies the disagreeing example ``index`` of task ``number``: all of the first
    CAMPAIGN_FIRST_TASKS tasks' (a group's first sightings, as a run's first CLASSIFY_FIRST are), then one in
    CLASSIFY_EVERY, chosen by a hash of the example's place, whatever came before it."""
    return number < CAMPAIGN_FIRST_TASKS or zlib.crc32(f"{number}:{index}".encode()) % CLASSIFY_EVERY == 0


class Sightings:
    """The classes of one fuzz run: ``divergences`` (its records, in the order found), ``seen`` (per class, the
    disagreeing inputs counted), what the budget cut (``not_classified``, ``shrink_cut``) and what did not come
    again (``not_reproduced``; the findings go to ``findings``)."""

    def __init__(self, order: list[str], versions: dict[str, dict[str, str]], expected: ExpectedSet,
                 findings: Findings, started: float, hard: float) -> None:
        self.versions, self.expected, self.findings = versions, expected, findings
        self.started, self.hard = started, hard
        self.found: list[ClassKey] = []  # the classes, in the order found (a grown class keeps its place)
        self.divergences: list[ClassRecord] = []  # their records, in that order (a caller may hold the list)
        self.seen: dict[ClassKey, int] = {}
        self.not_classified = self.shrink_cut = self.not_reproduced = 0
        self.book: ClassBook[ClassRecord] = ClassBook(order)  # class -> its record
        self.classified: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}  # group -> each one's shares
        self.shrunk_to: dict[tuple[Any, ...], list[ClassKey]] = {}  # first classification -> its classes
        self.signed: dict[tuple[Any, ...], set[Signature]] = {}  # group -> the signatures of the ones classified
        self.placed: dict[tuple[str, Other], list[ClassKey]] = {}  # (op, a share as named) -> the classes filed
        self.placing: set[tuple[str, Other]] = set()  # the shares being shrunk (a split never goes back to one)
        self.split = 0  # witnesses that held another class's difference, filed as the classes they held
        self.mixed: set[tuple[Any, ...]] = set()  # first classifications whose witness split
        self.mixed_shrunk: dict[tuple[Any, ...], int] = {}  # such a one -> the signatures of it shrunk since

    def consider(self, impls: dict[str, Testee], op: str, args: dict[str, Any], responses: dict[str, dict[str, Any]],
                 positions: dict[str, int], place_in_stream: tuple[int, int] | None = None,
                 signed: Signature | None = None, novel_only: bool = False) -> str:
        """One disagreeing example of the run (``impls``: the implementations still in it; ``place_in_stream``:
        a campaign's (task number, index); ``signed``: its signature, harness/classes/signature.py, when the
        batch worked it out; ``novel_only``: the batch kept it for its signature alone, so it is classified only
        where that is new). What became of it, for the run's ledger: CLASSIFIED (named, or
        counted under its group's one cause by the sampling), NOT_REPRODUCED (it did not come again alone, or
        came again between other implementations: findings), NOT_CLASSIFIED (the hard deadline had passed, or
        an implementation it disagreed with was taken out of the run since)."""
        responses = {name: r for name, r in responses.items() if name in impls}
        if len(responses) < 2 or agreeing(op, responses):
            return NOT_CLASSIFIED
        names, kinds = tuple(divergent(op, responses)), outcome_kinds(responses)
        # Classified per (op, implementations, outcome kinds); reported per class (ClassKey: op, the
        # implementations of one share, cause, detail, step): one bug shows with different codes on different
        # inputs (validation order) but is one class, and a skew riding along is a share of its own.
        group = (op, names, kinds)
        causes = self.classified.setdefault(group, [])
        # An example whose difference looks like none classified in its group (its signature: the shape, the kinds
        # of the characters the sides part on) is classified whatever the sampling says: one planted difference
        # among many of another (a token dropped for its bytes among tokens joined by marks) is not left to luck.
        sign = signed if signed is not None and tuple(part[0] for part in signed) == names else \
            signature(op, args, responses, names)  # (worked out again where an implementation was taken out since)
        novel = sign not in self.signed.setdefault(group, set())
        if novel or novel_only:
            sampled_out = not novel
        elif place_in_stream is not None:  # by its place; but a group none of whose examples was classified yet
            # is classified now, whatever its place (else a group first seen past the first tasks went unreported)
            sampled_out = bool(causes) and not campaign_classifies(*place_in_stream)
        else:  # the first examples of a group, then one in CLASSIFY_EVERY while they all had one cause
            sampled_out = len(causes) >= CLASSIFY_FIRST and len(set(causes)) == 1 and len(causes) % CLASSIFY_EVERY
        if sampled_out:
            if place_in_stream is None and not novel_only:  # counted under the one cause every classified one had
                causes.append(causes[0])
                for key in self.shrunk_to[(*group, causes[0])]:
                    self.seen[key] += 1
            return CLASSIFIED
        if time.monotonic() >= self.hard:
            self.not_classified += 1
            return NOT_CLASSIFIED
        self.signed[group].add(sign)  # one try a signature: an example that does not come again is not tried twice
        verdict = gate(impls, op, args, responses, self.findings, positions, hard=self.hard)
        if verdict.cut or time.monotonic() >= self.hard:
            # Too close to the hard deadline to start fresh instances, or past it once the gate was done: the
            # testees answer nothing more (their cutoff), and a class named or shrunk on cut answers is no class.
            self.not_classified += 1
            return NOT_CLASSIFIED
        if not verdict.reproduced:
            self.not_reproduced += 1
            return NOT_REPRODUCED
        responses = verdict.responses
        if tuple(divergent(op, responses)) != names:
            return NOT_REPRODUCED  # came again, but between other implementations: counted in its own group next time
        shares = name_shares(impls, op, args, responses, self.versions, fallback=False)
        named = tuple((share.impls, share.found.cause, share.found.detail) for share in shares)
        causes.append(named)
        first_key = (*group, named)
        # A first classification whose witness split (it held two classes' differences) is no name for one
        # difference: the inputs so named are told apart by their signatures too (a token dropped for its bytes
        # and one its marks made too long were both rule_difference divergent-only).
        memo = (*first_key, sign) if first_key in self.mixed else first_key
        if memo in self.shrunk_to:  # seen before: count it under the classes its first witness shrank to
            for key in self.shrunk_to[memo]:
                self.seen[key] += 1
            return CLASSIFIED
        if first_key in self.mixed and (reused := self._reused(op, shares, first_key)) is not None:
            for key in reused:
                self.seen[key] += 1
            self.shrunk_to[memo] = reused
            return CLASSIFIED
        found_after = time.monotonic() - self.started
        splits = self.split
        keys = [key for share in shares for key in self.place(impls, op, args, share, found_after, answers=responses)]
        self.shrunk_to.setdefault(first_key, keys)
        if self.split > splits or first_key in self.mixed:
            self.mixed.add(first_key)
            self.shrunk_to[(*first_key, sign)] = keys
        return CLASSIFIED

    def _reused(self, op: str, shares: list[Share], first_key: tuple[Any, ...]) -> list[ClassKey] | None:
        """For an input of a new signature in a first classification that split: None while fewer than
        MIXED_SHRINKS signatures of it were shrunk (this one is shrunk, and counted so), or where a share of it was
        never placed; else the classes its shares were placed under (``placed``, per share as named), so that a
        run whose split classification meets many signatures pays a bounded number of shrinks for them, each up
        to SHRINK_SECONDS."""
        markers = [(op, (share.impls, share.found.cause, share.found.detail)) for share in shares]
        if self.mixed_shrunk.get(first_key, 0) < MIXED_SHRINKS or not all(m in self.placed for m in markers):
            self.mixed_shrunk[first_key] = self.mixed_shrunk.get(first_key, 0) + 1
            return None
        return list(dict.fromkeys(key for marker in markers for key in self.placed[marker]))

    def place(self, impls: dict[str, Testee], op: str, args: dict[str, Any], share: Share,
              found_after: float, depth: int = 0, count: bool = True,
              answers: dict[str, dict[str, Any]] | None = None) -> list[ClassKey]:
        """Shrink one share's witness, name its class, count and report it; the keys of the classes the sighting
        is counted under: its class's, or, where the witness it shrank to holds another class's difference too
        (one removal away from it the shrinker met that class, ``Elsewhere.beside``), the classes it is split into.
        Every other class met while shrinking is filed too, shrunk in its own class (``_elsewhere``). ``count``:
        count the sighting (a class met while shrinking counts the inputs that held it, not the one met). ``answers``:
        those the sighting was classified on (filed on them if the shrink's stopped coming)."""
        cause, detail = share.found.cause, share.found.detail
        marker = (op, (share.impls, cause, detail))
        shrink_until = min(time.monotonic() + SHRINK_SECONDS, self.hard)
        elsewhere = Elsewhere() if depth < SPLIT_DEPTH else None
        self.placing.add(marker)
        try:
            small, small_responses = shrink(impls, op, args, self.versions, (cause, detail), deadline=shrink_until,
                                            share=share.impls, elsewhere=elsewhere)
            split, counted = self._elsewhere(impls, op, elsewhere, found_after, depth, count, (cause, detail)) \
                if elsewhere is not None and time.monotonic() < self.hard else ([], set())
        finally:
            self.placing.discard(marker)
        if split:  # the witness held the difference of the classes beside it: its sighting is theirs, not a class
            self.split += 1
            keys = list(dict.fromkeys(split))
            for key in keys:
                if count and key not in counted:  # a class filed just now from this sighting counted it already
                    self.seen[key] += 1
            self.placed[marker] = keys
            return keys
        if agreeing(op, small_responses) or not set(share.impls) <= set(small_responses):
            # The answers stopped coming while it shrank (the hard deadline, the testees' cutoff, came meanwhile):
            # filed on the answers it was classified on, when there are, never as a divergence whose outputs agree.
            if answers is None:
                return []
            small, small_responses = args, answers
        key = self._file(impls, op, share, small, small_responses, found_after, count)
        self.placed[marker] = [key]
        return [key]

    def _elsewhere(self, impls: dict[str, Testee], op: str, elsewhere: Elsewhere, found_after: float,
                   depth: int, count: bool, own: tuple[str, Any]) -> tuple[list[ClassKey], set[ClassKey]]:
        """File each class a shrink met elsewhere (``Elsewhere.found``) that is not filed yet: its smallest input
        shrunk in its own class, counted as a sighting of the input being shrunk (which held it) when that one is
        counted. (the keys of the classes beside the witness the shrink ended on, known ones too: the classes that
        witness splits into, none where nothing lay beside it; the keys that counted the sighting)."""
        beside: list[ClassKey] = []
        counted: set[ClassKey] = set()
        for other, (met, _, part) in elsewhere.found.items():
            marker = (op, other)
            # A class of the same cause met on a smaller input where one of the two names no detail is the same rule,
            # named less or more exactly (the depth scan's bug: json_strictness with none, then "depth"): not a class
            # of its own. Two details of one cause (oracle-only, divergent-only) are two differences.
            vague = other[1] == own[0] and (other[2] is None or own[1] is None)
            if not vague and marker not in self.placed and marker not in self.placing:
                counted.update(self.place(impls, op, met, part, found_after, depth + 1, count))
            if other in elsewhere.beside:
                beside.extend(self.placed.get(marker, []))
        return beside, counted

    def _file(self, impls: dict[str, Testee], op: str, share: Share, small: dict[str, Any],
              small_responses: dict[str, dict[str, Any]], found_after: float, count: bool) -> ClassKey:
        """Name the class of a shrunk share's witness, file and count it; its key."""
        if time.monotonic() >= self.hard:
            # Past the hard deadline the command testees answer nothing more (it is their cutoff): the class is
            # named as the share was, before it, never on answers that stopped coming (a plant's class named
            # again there lost two implementations to unanswered trace requests, and was reported twice).
            self.shrink_cut += 1
            shares = [share]
        else:
            # The class is named on the minimal witness (its detail may be narrower than the first input's), by
            # the share that holds the implementations this one was about.
            shares = name_shares(impls, op, small, small_responses, self.versions)
        kept = [s for s in shares if set(share.impls) & set(s.impls)]
        share = kept[0] if kept else share
        found = share.found
        # An input not sent to some implementation (its host cannot hold it) names fewer of them: the
        # same bug is still one class (ClassBook), named by every implementation it was seen in.
        # So does an implementation that agrees only because it reads the witness with other Unicode data.
        absent = frozenset(impls) - frozenset(small_responses) | \
            masked(op, small, small_responses, share.impls, self.versions,
                   share_steps(found.cause, found.detail))
        sighting = ClassRecord.of_sighting(op, small, small_responses, share.impls, found,
                                           code_points(small, self.versions), extent=Extent(found_after))
        filed = self.book.file(sighting, absent)
        key, created = filed.key, filed.created
        if filed.record.witness is sighting.witness:  # a new class, or one this sighting made grow: shown by it
            self.book.held[key] = covered(self.expected, worked_out(impls, filed.record, small, self.versions))
        if filed.grew_from is not None:  # the class (or the two it joined) keeps its place and its count
            old = filed.grew_from
            self.seen[key] = self.seen.pop(old) + self.seen.get(key, 0)
            if key in self.found:  # joined with the class of the grown key: that one keeps its place
                self.found.remove(old)
            else:
                self.found[self.found.index(old)] = key
            for keys in (*self.shrunk_to.values(), *self.placed.values()):
                keys[:] = [key if known == old else known for known in keys]
        if created:
            self.found.append(key)
        self.divergences[:] = [self.book.held[known] for known in self.found]
        self.seen[key] = (1 if count else 0) if created else self.seen[key] + count
        return key
