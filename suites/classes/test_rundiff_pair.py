"""``rundiff.pair`` (harness/classes/rundiff.py) finds the pairs one part apart by dictionaries and compares only
the classes left two by two: it must pair exactly as the one global order its docstring names does (nearest
pairs first: fewest of implementations, step and detail changed, then most implementations and characters
shared, ties in the order of the names; one to one). Held against a brute force over every pair, on seeded
random runs of small classes that grew, shrank, moved, were renamed or stayed (plants: the leftovers never
compared, the three one-part stages ordered each on its own, seen failing)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from harness.classes import rundiff
from harness.classes.key import ClassKey
from harness.classes.record import ClassRecord, Witness

IMPLS = ("pyo3", "pyodide", "wasm")
CAUSES = ("whitespace_definition", "line_breaks")
STEPS = ("norm.edges", "norm.collapse", None)
DETAILS = ("ws", "nel", None)


def _record(impls: tuple[str, ...], cause: str, step: str | None, detail: str | None,
            characters: frozenset[int]) -> ClassRecord:
    witness = Witness({"text": "a"}, {"reference": {"ok": "a"}, **{name: {"ok": "b"} for name in impls}}, "e")
    return ClassRecord("normalize_fact_text", impls, cause, detail, step, witness, characters)


def _random_record(rng: random.Random) -> ClassRecord:
    impls = tuple(name for name in IMPLS if rng.random() < 0.5) or (rng.choice(IMPLS),)
    return _record(impls, rng.choice(CAUSES), rng.choice(STEPS), rng.choice(DETAILS),
                   frozenset(rng.sample(range(1, 5), rng.randint(0, 2))))


def _changed(rng: random.Random, record: ClassRecord) -> ClassRecord:
    """The class in a later run: some of its parts changed (none, one or several), or another class."""
    if rng.random() < 0.15:
        return _random_record(rng)
    impls, step, detail, characters = record.divergent, record.step, record.detail, record.characters
    for _ in range(rng.randint(0, 3)):
        part = rng.randrange(4)
        if part == 0:
            impls = tuple(name for name in IMPLS if (name in impls) != (rng.random() < 0.4)) or impls
        elif part == 1:
            step = rng.choice(STEPS)
        elif part == 2:
            detail = rng.choice(DETAILS)
        else:
            characters = characters ^ frozenset({rng.randint(1, 4)})
    return _record(impls, record.cause, step, detail, characters)


def _parts_changed(was: ClassKey, now: ClassKey) -> int:
    return (set(was.impls) != set(now.impls)) + (was.step != now.step) + (was.detail != now.detail)


def brute_pair(before: dict[Any, ClassRecord], after: dict[Any, ClassRecord]) -> dict[Any, tuple[Any, Any]]:
    """The docstring's order over every pair of a class of OLD only and one of NEW only that are kin."""
    candidates = []
    for old_name, old in before.items():
        for new_name, new in after.items():
            if old_name in after or new_name in before:
                continue
            kin = rundiff.kinship(old, new)
            if kin is None:
                continue
            shared = len(set(old.key.impls) & set(new.key.impls)), len(old.characters & new.characters)
            candidates.append(((_parts_changed(old.key, new.key), -shared[0], -shared[1], repr(old_name),
                                repr(new_name)), old_name, new_name, kin))
    pairs: dict[Any, tuple[Any, Any]] = {}
    for _, old_name, new_name, kin in sorted(candidates, key=lambda candidate: candidate[0]):
        if old_name not in {was for was, _ in pairs.values()} and new_name not in pairs:
            pairs[new_name] = (old_name, kin)
    return pairs


@pytest.mark.parametrize("name", ["identity", "anchor"])
def test_pair_gives_the_pairs_of_the_one_global_order(name: str) -> None:
    rng = random.Random(20261206)
    paired_far = paired_near = 0
    for _ in range(600):
        olds = [_random_record(rng) for _ in range(rng.randint(0, 7))]
        news = [_changed(rng, record) for record in olds if rng.random() < 0.85]
        news += [_random_record(rng) for _ in range(rng.randint(0, 3))]
        rng.shuffle(news)
        before = {getattr(record.key, name): record for record in olds}
        after = {getattr(record.key, name): record for record in news}
        expected = brute_pair(before, after)
        assert rundiff.pair(before, after) == expected, (olds, news)
        for _, kin in expected.values():
            if kin.distance > 1:
                paired_far += 1
            else:
                paired_near += 1
    assert paired_far > 100 and paired_near > 100  # both stages had work (the runs are not all one kind)
