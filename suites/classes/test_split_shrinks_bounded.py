"""A first classification whose witness split (it held two classes' differences) tells its later inputs apart by
signature, and shrinks them: a bounded number of times (``sightings.MIXED_SHRINKS``). Past that, an input of a new
signature is counted under the classes its share was placed under, with no shrink (each can take up to
SHRINK_SECONDS).

The black box of suites/classes/test_split_sightings.py (a byte cap and marks kept in tokens): the witness that
holds both differences, then 24 tokens too long in bytes after a paragraph separator, which the classifier names
as it named that witness (rule_difference divergent-only), each given a signature of its own.
"""

from __future__ import annotations

import pytest

from harness.classes import sightings as sightings_module
from harness.classes.expected import ExpectedSet
from harness.classes.sightings import CLASSIFIED, MIXED_SHRINKS, Sightings
from harness.differential.outcomes import observe
from harness.model.registry import Op
from harness.testees.findings import Findings
from suites.classes.test_split_sightings import OP, _classes, _impls, tokenize  # noqa: F401

MIXED = "\u00c5\u030a\u0302\u20d7Caaaaa"  # ref ['Å', 'Caaaaa'], box [] (15 bytes): both differences
GREEK = "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ"
LATER = ["\u2029" + "".join(GREEK[(i + j * 3) % len(GREEK)] for j in range(7)) for i in range(24)]


def test_the_shrinks_of_a_split_classification_are_bounded(tokenize: Op,  # noqa: F811
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted (no bound: every new signature of the split classification shrunk, as before): 24 shrinks of the
    24 later inputs; failed."""
    shrunk: list[str] = []
    shrink = sightings_module.shrink
    monkeypatch.setattr(sightings_module, "shrink", lambda *a, **kw: shrunk.append(a[2]["text"]) or shrink(*a, **kw))
    # every input a signature of its own (the worst case: each misses the memo of the signatures shrunk)
    monkeypatch.setattr(sightings_module, "signature", lambda op, args, responses, names: ((names[0], args["text"],
                                                                                            ()),))
    impls = _impls()
    sightings = Sightings(list(impls), {}, ExpectedSet([], []), Findings(), 0.0, float("inf"))
    for number, text in enumerate([MIXED, *LATER]):
        args = {"text": text}
        assert sightings.consider(impls, OP, args, observe(impls, OP, args), {}, (0, number)) == CLASSIFIED
    assert len(sightings.mixed) == 1  # the first witness split, as the test relies on
    of_later = [text for text in shrunk if text in LATER]
    assert len(of_later) == MIXED_SHRINKS, shrunk
    # the same classes as before, every input counted
    assert _classes(sightings) == {"length": ("length_rule", None), "marks": ("rule_difference", "oracle-only")}
    length = next(key for key in sightings.seen if key.cause == "length_rule")
    assert sightings.seen[length] == len(LATER)
