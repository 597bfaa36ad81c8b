"""A letter new since the box's Unicode at the head of a token the box's byte rule also touches (issue 51, the
sweep's two-differences input): the skew peel does not remove the difference but *changes* it (a known letter in
its place makes the token too long in bytes for the box: dropped, where the box without that letter kept the
rest), and the same change comes with a known stand-in of the letter's width, so the input's class is the skew;
the length difference is the template's, with a class of its own from the letters every side knows
(harness/differential/counterfactual/skew.py ``changed_alike``).

Doubles in process, no traces (black boxes, suites/tokens_box.py): a tokenizer op reading General_Category,
the oracle at 18.0.0 and boxes declared at 14.0.0, each side's letters read from the harness's own tables
(data/unicode-tables/), so the test does not depend on this Python's ``unicodedata``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from harness.differential import counterfactual, explain, outcomes
from harness.differential.counterfactual import rewrite, skew
from harness.differential.counterfactual.probe import Probe
from harness.differential.outcomes import divergent, observe
from harness.differential.rule import Verdict
from harness.model import registry, unicode_tables
from harness.model.registry import Op
from suites import tokens_box
from suites.tokens_box import Box

OP = "h1_tokenize"
NEW, OLD = "18.0.0", "14.0.0"
VERSIONS = {"h1-oracle": {"general_category": NEW}, "h1-box": {"general_category": OLD}}
TWELVE = "bcdefghijkl"  # a token of 12 code points with the swept letter first (the tokens family's template)
ARMENIAN = "\u0558"  # Lm, two UTF-8 bytes, new since 14.0.0: a letter to the oracle, none to the box
SKEW = ("unicode_version_skew", "general_category")


def _categories(version: str) -> Callable[[str], str]:
    table = unicode_tables.table(version)
    return lambda ch: str(table.category(ord(ch)))


oracle = tokens_box.box(category=_categories(NEW))


# The boxes (suites/tokens_box.py), each declared at 14.0.0:
# - "skew+bytes": letters of 14.0.0 (the skew) and a cap of 12 UTF-8 bytes (the length rule): the tokens box;
# - "known+count": every letter of 18.0.0 (it reads no older data, whatever it declares) and a cap of 11 code
#   points, a plain rule difference: a new letter in a 12-code-point token is dropped with it, as a known one is;
# - "known+bytes": every letter of 18.0.0 and a cap of 12 bytes: a plain length difference, new letter or not.
BOXES: dict[str, Callable[[str], str]] = {
    "skew+bytes": tokens_box.box({"bytes"}, category=_categories(OLD)),
    "known+count": tokens_box.box(category=_categories(NEW), cap=11),
    "known+bytes": tokens_box.box({"bytes"}, category=_categories(NEW)),
    # letters of 14.0.0, a cap of 12 bytes, and a token holding a Hebrew letter dropped (a stop rule of its own,
    # which the peel's stand-in for an uncased letter, a Hebrew one, sets off)
    "skew+hebrew": tokens_box.box({"bytes"}, category=_categories(OLD),
                                  drop=lambda token: any("\u05d0" <= ch <= "\u05ea" for ch in token)),
    # letters of 14.0.0, a cap of 24 bytes, and a token holding a "q" dropped: a bug of its own, which every
    # stand-in of the new letter sets off alike (the box is wrong on "aqcb" too)
    "skew+q": tokens_box.box({"bytes"}, category=_categories(OLD), cap=24, drop=lambda token: "q" in token),
}


@pytest.fixture
def tokenize(monkeypatch: pytest.MonkeyPatch) -> Op:
    op = tokens_box.tokens_op("h1", oracle, unicode_steps=("general_category",), split_unicode="general_category")
    monkeypatch.setitem(registry.OPS, OP, op)
    # The double is the op's oracle (no declaration serves the op): the skew's own share (own_details) and the
    # peel's stand-ins of the oracle's case role (oracle_role) are worked out against it, as for a family's.
    for module in (outcomes, rewrite, skew):
        monkeypatch.setattr(module, "oracle_name", lambda op=None: "h1-oracle")
    return op


def _run(box: str, text: str) -> tuple[dict[str, Box], dict[str, Any], dict[str, dict[str, Any]]]:
    impls = tokens_box.pair("h1", oracle, BOXES[box], OP)
    args = {"text": text}
    responses = observe(impls, OP, args)
    assert divergent(OP, responses) == ["h1-box"], responses
    return impls, args, responses


def _classify(box: str, text: str) -> tuple[str, str | None]:
    impls, args, responses = _run(box, text)
    cause, _, detail = counterfactual.classify(impls, OP, args, responses, VERSIONS)
    return cause, detail


def _skew_rule(box: str, text: str) -> Verdict | None:
    """The version-skew rule alone on the input (not shielded by the length rule before it in ORDER)."""
    rule = next(rule for rule in counterfactual.RULES if rule.name == "version-skew")
    impls, args, responses = _run(box, text)
    found = rule.fires(Probe(impls, OP, args, responses, VERSIONS))
    assert found is None or isinstance(found, Verdict), found
    return found


def test_a_new_letter_the_byte_rule_also_touches_is_the_skew(tokenize: Op) -> None:
    """The box splits the new letter off and keeps the 11 others; known to it, a letter of the same width makes
    the token 13 bytes and the box drops it. The peel changes the difference (changes-item to loses-item), a
    known Lm of two bytes gives the same outcomes: the skew (planted: changed_alike always False, the input was
    classified again after the peel and named length_rule)."""
    assert _classify("skew+bytes", ARMENIAN + TWELVE) == SKEW
    impls, args, responses = _run("skew+bytes", ARMENIAN + TWELVE)
    (share,) = explain.name_shares(impls, OP, args, responses, VERSIONS)
    assert (share.found.cause, share.found.detail, share.found.step) == (*SKEW, "h1.split")
    # its own share (what an expected entry of the skew covers) is the skew too, not unexplained
    assert skew.own_details(impls, OP, args, SKEW[0], ["h1-box"], VERSIONS) == {"h1-box": SKEW[1]}
    # a four-byte letter new since 14.0.0 (U+1E4D0, Nag Mundari), whose peel stand-in is narrower: the same
    assert _classify("skew+bytes", "\U0001e4d0" + TWELVE) == SKEW


def test_a_new_letter_under_a_plain_rule_difference_is_not_the_skew(tokenize: Op) -> None:
    """The box knows the letter (whatever it declares) and drops a 12-code-point token: with a known letter in
    its place it drops it too, the same difference (loses-item both): the peel changes nothing, and no skew is
    named (planted: the outcome-shape check in changed_alike skipped, the skew was named)."""
    assert _skew_rule("known+count", ARMENIAN + TWELVE) is None
    assert _classify("known+count", ARMENIAN + TWELVE)[0] != "unicode_version_skew"


def test_a_plain_length_difference_stays_the_length_rule(tokenize: Op) -> None:
    """No new letter: the length rule. A new letter the box knows, in a token too long in bytes for it: the peel
    leaves the same difference, so neither the skew rule alone nor the classifier names the skew."""
    assert _classify("skew+bytes", "\u00e9" + TWELVE) == ("length_rule", None)
    assert _classify("known+bytes", ARMENIAN + TWELVE) == ("length_rule", None)
    assert _skew_rule("known+bytes", ARMENIAN + TWELVE) is None


def test_the_box_on_the_new_letter_alone_is_the_skew_and_on_known_letters_not(tokenize: Op) -> None:
    """The templates around it: the letter alone or inside a short token is the skew as before; a known two-byte
    letter at the head of the 12-code-point token is the length rule (its own class)."""
    assert _classify("skew+bytes", ARMENIAN) == SKEW
    assert _classify("skew+bytes", "a" + ARMENIAN + "b") == SKEW
    assert _classify("skew+bytes", "\u02b0" + TWELVE) == ("length_rule", None)


def test_a_change_the_peels_own_stand_in_brings_is_not_the_templates(tokenize: Op) -> None:
    """``changed_alike`` asks a known stand-in of the letter's category and width, not the peel alone: for a
    four-byte letter new since 14.0.0 the peel's stand-in is a Hebrew letter (uncased, two bytes), and a box that
    drops tokens holding one turns the difference into another (a token dropped) that a known four-byte letter
    does not give (it agrees): no change of the template's (planted: the read-back comparison taken as equal,
    True)."""
    new_letter = "\U0001e4d0"
    for box, text, alike in (("skew+bytes", new_letter + TWELVE, True), ("skew+hebrew", new_letter + "bc", False)):
        impls, args, responses = _run(box, text)
        skewed = skew.skewed_between(OP, args, ["h1-box"], VERSIONS)
        (peeled, *_) = skew.peels(args, skewed, VERSIONS)
        after = observe(impls, OP, peeled)
        assert divergent(OP, after) == ["h1-box"], (box, after)  # the peel leaves them disagreeing
        assert skew.changed_alike(impls, OP, args, responses, skewed, peeled, after) is alike, box


def test_a_bug_next_to_a_skew_is_named_for_itself(tokenize: Op) -> None:
    """A box that drops every token holding a "q" (a bug of its own: "aqcb" is a rule difference) and reads
    letters of 14.0.0: on "aq" + new letter + "b" the peel changes the difference (the box split the letter off
    and kept "b"; with a known letter it drops the whole token), and a known letter of the same width gives the
    same; but no narrower letter, nor the letter's deletion, settles it: the difference left is the bug's, not
    the width's. The input is named for the bug (the peel's Again), never the skew an expected entry covers
    (planted: ``from_width`` always True, the input was named unicode_version_skew)."""
    bug = _classify("skew+q", "aqcb")
    assert bug[0] != "unicode_version_skew"
    for text in ("aq" + ARMENIAN + "b", "aq" + ARMENIAN + "b zz"):
        assert _classify("skew+q", text) == bug, text
        assert _skew_rule("skew+q", text) is None, text
        impls, args, responses = _run("skew+q", text)
        skewed = skew.skewed_between(OP, args, ["h1-box"], VERSIONS)
        assert not skew.from_width(impls, OP, args, responses, skewed)
        assert skew.own_details(impls, OP, args, SKEW[0], ["h1-box"], VERSIONS) == {"h1-box": skew.UNEXPLAINED}
    # the letter alone in a token the bug leaves alone is still the skew
    assert _classify("skew+q", "a" + ARMENIAN + "b") == SKEW
    # and the template's width difference still is (deleting the letter leaves 11 letters, which every side keeps)
    impls, args, responses = _run("skew+bytes", ARMENIAN + TWELVE)
    assert skew.from_width(impls, OP, args, responses, skew.skewed_between(OP, args, ["h1-box"], VERSIONS))
