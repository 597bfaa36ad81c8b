"""A fuzz batch keeps the first example of each signature (harness/classes/signature.py), not only the first three of
its group, and the run classifies it where its signature is new (issue 51: the tokens family's one input with the
byte rule alone was never looked at). The op and its black box (a byte-counting length rule, marks kept inside
tokens) are suites/classes/test_split_sightings.py's."""

from __future__ import annotations

import io
from typing import Any

import pytest

from harness.classes import sightings
from harness.classes.expected import ExpectedSet
from harness.fuzzing import fuzz as fuzz_module
from harness.model.registry import Op
from suites.classes.test_split_sightings import BOX, ORACLE, _impls, tokenize  # noqa: F401 (a fixture)

MARKS = ["cafe\u0301 bar", "x\u0301", "na\u0303o e", "ok\u0308 1", "mo\u0301t"]
LENGTH_ALONE = "abc \u0436\u0436\u0436\u0436\u0436\u0436\u0436"  # 7 two-byte letters: 14 bytes, 7 code points


class Batch:
    """Inputs whose every batch is the same: many of the mark rule alone, then one of the length rule alone."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def batch(self, op_name: str, size: int) -> list[dict[str, Any]]:
        texts = [MARKS[n % len(MARKS)] + f" {n}" for n in range(size - 1)] + [LENGTH_ALONE]
        return [{"text": text} for text in texts]


def test_a_batch_keeps_the_first_of_each_signature(tokenize: Op, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Planted: kept only while fewer than KEEP_PER_KEY of the group (as before): the length input not returned;
    failed."""
    monkeypatch.setattr(fuzz_module, "Inputs", Batch)
    got = fuzz_module.run_batch((tokenize.name, 1, 40, (ORACLE, BOX)), _impls())
    ((names, _, count, examples),) = got["disagreeing"]
    assert names == [BOX] and count == 40
    kept = [example[0]["text"] for example in examples]
    assert len(kept) < count and LENGTH_ALONE in kept, kept


def test_the_run_classifies_it_where_the_sample_would_not(tokenize: Op,  # noqa: F811
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A campaign past its first tasks (every task's examples sampled by place) finds both classes. Planted:
    examples kept as before (the first KEEP_PER_KEY of a group alone): the length class missing; failed."""
    monkeypatch.setattr(fuzz_module, "Inputs", Batch)
    monkeypatch.setattr(fuzz_module, "BATCH", 40)
    monkeypatch.setattr(sightings, "CAMPAIGN_FIRST_TASKS", 0)
    result = fuzz_module.fuzz(_impls(), ExpectedSet([], []), 60.0, seed=3, ops=[tokenize.name], stream=io.StringIO(),
                              workers=1, max_examples=80, campaign=True)
    assert sorted((d.cause, d.detail) for d in result.divergences) == [("length_rule", None),
                                                                       ("rule_difference", "oracle-only")]
