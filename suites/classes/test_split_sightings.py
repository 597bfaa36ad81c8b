"""A fuzz run's classes hold one difference each, for a black box with two that overlap (issue 51, "Done when": one
rightly named class per distinct difference in ``fuzz``).

A tokenizer-like op (text -> the JSON text of its maximal runs of letters and numbers, tokens over 12 code points
dropped) is registered for the test with an in-process oracle and a black box (no traces) that differs from it in
two planted ways, as docs/examples/tokens' box does: it counts a token's length in UTF-8 bytes, and it keeps a
combining mark (Mn) inside the token it follows. An input can carry both, and a campaign's sample can miss the one
input that shows the length rule alone:

- an input that carries both is split: shrinking it meets the other difference on a smaller input, which is filed
  as its own class, and a witness that still holds both (a mark made its token too long in bytes: no removal
  leaves the length rule alone) is no class of its own (harness/classes/shrink.py ``Elsewhere``,
  harness/classes/sightings.py ``place``);
- an input whose difference looks like none classified (harness/classes/signature.py) is classified wherever the
  campaign's sample falls, and a run where every input disagrees the same way classifies no more for it.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from typing import Any

import pytest

from harness.classes import sightings as sightings_module
from harness.classes.expected import ExpectedSet
from harness.classes.sightings import CLASSIFIED, Sightings, campaign_classifies
from harness.differential.outcomes import observe
from harness.model import registry
from harness.model.registry import Op
from harness.testees.findings import Findings
from suites import tokens_box
from suites.tokens_box import Box

OP = "h2_tokenize"
CAP = tokens_box.CAP
ORACLE, BOX = "h2-oracle", "h2-box"
TWO_BUGS = frozenset({"bytes", "marks-inside"})


def box(bugs: frozenset[str] = TWO_BUGS) -> Callable[[str], str]:
    """The tokens box (suites/tokens_box.py) with this Python's letters on both sides: no skew, only ``bugs``."""
    return tokens_box.box(bugs, category=unicodedata.category)


oracle = box(frozenset())


@pytest.fixture
def tokenize(monkeypatch: pytest.MonkeyPatch) -> Op:
    op = tokens_box.tokens_op("h2", oracle, unicode_steps=("general_category",))
    monkeypatch.setitem(registry.OPS, OP, op)
    return op


def _impls(bugs: frozenset[str] = TWO_BUGS) -> dict[str, Box]:
    # a run asks every implementation that serves unicode_versions (these serve every op)
    return {name: Box(name, fn, op=OP, answers={"unicode_versions": "{}"})
            for name, fn in ((ORACLE, oracle), (BOX, box(bugs)))}


def _run(impls: dict[str, Box], texts: list[tuple[str, tuple[int, int]]]) -> Sightings:
    """The sightings of a campaign whose disagreeing examples are ``texts``, each at its place in the stream."""
    sightings = Sightings(list(impls), {}, ExpectedSet([], []), Findings(), 0.0, float("inf"))
    for text, place in texts:
        args = {"text": text}
        fate = sightings.consider(impls, OP, args, observe(impls, OP, args), {}, place)
        assert fate == CLASSIFIED, (text, fate)
    return sightings


def _sampled_out(count: int) -> list[tuple[int, int]]:
    """Places past a campaign's first tasks that its sample does not classify."""
    places = ((100 + n // 1000, n % 1000) for n in range(100_000))
    return [place for place in places if not campaign_classifies(*place)][:count]


def _pure(record: Any) -> str:
    """Which planted difference a class's witness shows, and only that one ('both' where it shows two)."""
    text = record.witness.args["text"]
    ours, theirs = json.loads(oracle(text)), json.loads(box()(text))
    marks = any(unicodedata.category(ch) == "Mn" for ch in "".join(theirs))
    long = [t for t in ours if len(t.encode("utf-8")) > CAP]
    # the length rule alone: the box drops exactly the oracle's tokens too long in bytes, and keeps no mark
    if long and not marks and [t for t in ours if t not in long] == theirs:
        return "length"
    # the mark rule alone: the box keeps a mark inside a token, and drops no token for its bytes
    if marks and not long and json.loads(box(frozenset({"marks-inside"}))(text)) == theirs:
        return "marks"
    return "both"


def _classes(sightings: Sightings) -> dict[str, tuple[str, str | None]]:
    shown = {_pure(record): (record.cause, record.detail) for record in sightings.divergences}
    assert len(shown) == len(sightings.divergences), [(r.cause, r.detail, r.witness.args)
                                                      for r in sightings.divergences]
    return shown


BOTH = "жжжжжжж a\u0301b"  # a token of 7 two-byte letters (14 bytes, 7 code points), and a mark kept in 'ab'
LENGTH_ALONE = "abc жжжжжжж"
MARKS_ALONE = "cafe\u0301 bar"


def test_an_input_with_two_differences_is_two_classes_each_witness_pure(tokenize: Op) -> None:
    """Planted: shrink given no Elsewhere (the other class met while shrinking dropped, as before): one class,
    whose witness keeps the one difference its first naming took; failed."""
    sightings = _run(_impls(), [(BOTH, (0, 0))])
    classes = _classes(sightings)
    assert classes == {"length": ("length_rule", None), "marks": ("rule_difference", "oracle-only")}, classes


def test_a_witness_that_still_holds_both_splits_into_the_classes_beside_it(tokenize: Op) -> None:
    """A mark that makes its token too long in bytes (a two-byte mark has no shorter stand-in): no removal leaves the
    length rule alone, and the witness is not a third class. Planted: the split skipped (the witness filed as
    its own class whatever lay beside it): a class of both; failed."""
    mixed = "\u00c5\u030a\u0302\u20d7Caaaaa"  # ref ['Å', 'Caaaaa'], box [] (15 bytes)
    sightings = _run(_impls(), [(mixed, (0, 0)), (LENGTH_ALONE, (0, 1))])
    classes = _classes(sightings)
    assert "both" not in classes and set(classes) == {"length", "marks"}, classes
    assert sightings.split >= 1


def test_a_difference_the_sample_misses_is_classified_for_its_signature(tokenize: Op) -> None:
    """The length rule alone comes at a place the campaign's sample skips, after the marks' inputs: classified
    because no classified input looked like it. Planted: every signature the same (signature() -> ()): the
    length class missing; failed."""
    later = _sampled_out(3)
    sightings = _run(_impls(), [(MARKS_ALONE, (0, 0)), ("x\u0301", later[0]), (LENGTH_ALONE, later[1]),
                                ("na\u0303o", later[2])])
    classes = _classes(sightings)
    assert classes == {"length": ("length_rule", None), "marks": ("rule_difference", "oracle-only")}, classes


def test_a_run_that_disagrees_the_same_way_classifies_no_more(tokenize: Op, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every input shows the mark rule alone, in many texts: the classifier is called for a handful of signatures
    beside the campaign's sample, not per input. Planted: the signature made of the input's own characters:
    210 calls; failed."""
    calls = []
    gate = sightings_module.gate
    monkeypatch.setattr(sightings_module, "gate", lambda *args, **kw: calls.append(1) or gate(*args, **kw))
    words = ["cafe\u0301", "x\u0301", "na\u0303o", "ok\u0308", "\u00e9t\u00e9\u0300", "Zo\u0327e", "mo\u0301t 42"]
    texts = [f"{words[n % len(words)]} {n} {words[(n * 3) % len(words)]}" for n in range(240)]
    places = _sampled_out(len(texts))
    sightings = _run(_impls(frozenset({"marks-inside"})), list(zip(texts, places, strict=True)))
    assert [(r.cause, r.detail) for r in sightings.divergences] == [("rule_difference", "oracle-only")]
    assert len(calls) <= 6, len(calls)  # the first of the group, and one per new signature


def test_a_classification_that_split_is_told_apart_by_signature(tokenize: Op) -> None:
    """A token too long in bytes after a paragraph separator is rule_difference divergent-only to the classifier,
    as the witness holding both differences was: counted under that one's classes (the marks'), the length rule
    was lost. Planted: later examples of a classification that split counted under its first one's classes
    whatever their signature: the length class missing; failed."""
    mixed = "\u00c5\u030a\u0302\u20d7Caaaaa"
    sightings = _run(_impls(), [(mixed, (0, 0)), ("\u2029\u039f\u0394\u039f\u03a3\u039f\u0394\u039f", (0, 1))])
    classes = _classes(sightings)
    assert classes == {"length": ("length_rule", None), "marks": ("rule_difference", "oracle-only")}, classes
