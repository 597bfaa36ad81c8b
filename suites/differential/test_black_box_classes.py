"""A black box's distinct differences are distinct, rightly named classes (issue 51, build 5).

A tokenizer-like op (text -> the JSON text of a list of tokens: lowercased, maximal runs of letters and digits,
tokens over 12 code points dropped) is registered for the test, with an in-process oracle and a black box (no
traces; both suites/tokens_box.py) that differs from it in three planted ways: it counts a token's length in UTF-8
bytes, it keeps combining marks (Mn) inside tokens, and it reads General_Category from this Python's older
Unicode data (letters new since then are not letters to it). Each difference is its own class: ``length_rule``
for the first (never ``case_mapping`` or ``final_sigma``, though the op lists them as character rules and a
stand-in letter shortens the token), ``rule_difference`` with opposite sides for the other two.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from typing import Any

import pytest
import unicodedata2

from harness.differential import explain
from harness.differential.causes.facts import DIVERGENT_ONLY, ORACLE_ONLY
from harness.differential.counterfactual import length
from harness.differential.outcomes import divergent, lost_piece, observe, outcome_shape, value_shape
from harness.model import registry
from harness.model.registry import Op, Param
from harness.model.traces import TRACE_OP
from suites import tokens_box
from suites.tokens_box import Box

OP = "h4_tokenize"
CAP = tokens_box.CAP


def _tokens(text: str, letter: Callable[[str], bool], too_long: Callable[[str], bool]) -> str:
    return tokens_box.tokens(text, letter, too_long, lower=True)


def _oracle_letter(ch: str) -> bool:
    return unicodedata2.category(ch)[0] in "LN"


oracle = tokens_box.box(lower=True)


def box(bugs: set[str]) -> Callable[[str], str]:
    """The tokens box (suites/tokens_box.py), lowercasing, with ``bugs`` planted."""
    return tokens_box.box(bugs, lower=True)


ALL_BUGS = {"bytes", "marks", "old-letters"}


@pytest.fixture
def tokenize(monkeypatch: pytest.MonkeyPatch) -> Op:
    op = tokens_box.tokens_op("h4", oracle, lower=True, unicode_steps=("case_mapping", "general_category"),
                              char_rules=("final_sigma", "case_mapping"))
    monkeypatch.setitem(registry.OPS, OP, op)
    return op


def _share(text: str, bugs: set[str] = ALL_BUGS) -> explain.Share:
    impls = tokens_box.pair("h4", oracle, box(bugs), OP)
    args = {"text": text}
    responses = observe(impls, OP, args)
    assert divergent(OP, responses) == ["h4-box"], responses
    (share,) = explain.name_shares(impls, OP, args, responses, {})
    return share


def _classify(text: str, bugs: set[str] = ALL_BUGS) -> tuple[str, str | None, str]:
    found = _share(text, bugs).found
    return found.cause, found.detail, found.explanation


# Each planted difference alone, and in inputs that hold no other: (input, the bug it shows).
# A token of 12 code points, the first one swept (the example family's template "{c}bcdefghijkl"): a letter of
# two, three or four bytes, of a category ASCII has (Ll) or not (Lo: its one-byte stand-in is an Ll letter).
TWELVE = "bcdefghijkl"
LENGTH = ["жжжжжжж", "abc жжжжжжж", "ΣΣΣΣΣΣΣ", "Σσσσσσσ d", "日本語日本", "𐀀𐀁𐀂a",
          "ж" + TWELVE, "日" + TWELVE, "\u05d0" + TWELVE, "\U00010000" + TWELVE, "\u0663" + TWELVE,
          # two-byte No characters: none has a stable stand-in of its own category (each has a decomposition)
          "\u00b2" + TWELVE, "\u00bd" + TWELVE, "\u00b9" + TWELVE]
MARKS = ["cafe\u0301 bar", "x\u0301", "na\u0303o e", "\u0301"]
NEW_LETTERS = ["a\U0001e4d0b", "\U00011f04", "ok \U0001e4d1z"]


@pytest.mark.parametrize("text", LENGTH)
def test_a_bytes_counted_length_cap_is_a_length_rule(tokenize: Op, text: str) -> None:
    """Planted before the rule: the op's character rules took it (a capital sigma or a Cyrillic letter replaced
    by an ASCII stand-in shortens the token below 12 bytes): final_sigma, case_mapping."""
    cause, detail, why = _classify(text)
    assert (cause, detail) == ("length_rule", None), why


@pytest.mark.parametrize("text", MARKS)
def test_marks_kept_inside_tokens_are_a_rule_difference_the_oracle_acted_in(tokenize: Op, text: str) -> None:
    cause, detail, why = _classify(text)
    assert (cause, detail) == ("rule_difference", ORACLE_ONLY), why


@pytest.mark.parametrize("text", NEW_LETTERS)
def test_letters_unknown_to_the_box_are_a_rule_difference_the_box_acted_in(tokenize: Op, text: str) -> None:
    cause, detail, why = _classify(text)
    assert (cause, detail) == ("rule_difference", DIVERGENT_ONLY), why


def test_a_stand_in_that_brings_another_difference_does_not_keep_it(tokenize: Op,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A new letter at the head of a 12 code point token: the box splits it off. Its same-category stand-in (a
    letter the box knows) makes the token too long in bytes for the box, which then drops it: another difference
    (the outcome's shape changes from changes-item to loses-item), so the length rule does not fire (planted:
    Probe.keeps as "still divergent" named it length_rule). The op declares no General_Category step here, so
    no skew is peeled off first (with one, the peeled input is the length rule's: the box would drop the token
    even if it knew the letter, harness/differential/counterfactual/skew.py)."""
    from dataclasses import replace

    monkeypatch.setitem(registry.OPS, OP, replace(tokenize, unicode_steps=("case_mapping",)))
    assert _classify("\U0001e4d0" + TWELVE)[:2] == ("rule_difference", DIVERGENT_ONLY)


def test_a_list_rule_difference_names_the_characters_one_side_kept(tokenize: Op) -> None:
    assert _share("cafe\u0301 bar").found.chars == ("\u0301",)
    assert _share("a\U0001e4d0b").found.chars == ("\U0001e4d0",)


def test_the_three_differences_are_three_classes(tokenize: Op) -> None:
    found = {_classify(text)[:2] for text in (*LENGTH, *MARKS, *NEW_LETTERS)}
    assert found == {("length_rule", None), ("rule_difference", ORACLE_ONLY), ("rule_difference", DIVERGENT_ONLY)}


def test_a_cap_in_code_points_against_one_in_code_points_is_no_length_rule(tokenize: Op) -> None:
    """Without the bytes bug, a long token of two-byte letters agrees: nothing to name; a mark kept in it is
    the marks' class, not a length rule (the same-length stand-in mark keeps the difference, no shorter mark
    exists)."""
    impls = tokens_box.pair("h4", oracle, box({"marks"}), OP)
    assert not divergent(OP, observe(impls, OP, {"text": "жжжжжжж"}))
    assert _classify("жжжж\u0301", {"marks"})[:2] == ("rule_difference", ORACLE_ONLY)


def test_a_rule_about_no_characters_is_no_length_rule(tokenize: Op, monkeypatch: pytest.MonkeyPatch) -> None:
    """A box that takes No characters (² ½) for no token characters: a two-byte No has no stand-in of its own
    category, so the length rule keeps the difference with one of its role (a two-byte Nd digit); the box
    knows that digit, the difference goes, and the rule does not fire (planted: the role stand-in skipped when
    the same-shape pool is empty, and the difference taken as kept: length_rule)."""
    def no_is_no_letter(text: str) -> str:
        return _tokens(text, lambda ch: _oracle_letter(ch) and unicodedata2.category(ch) != "No",
                       lambda token: len(token) > CAP)

    impls = tokens_box.pair("h4", oracle, no_is_no_letter, OP)
    for text in ("\u00b2" + TWELVE, "\u00bd" + TWELVE):
        args = {"text": text}
        (share,) = explain.name_shares(impls, OP, args, observe(impls, OP, args), {})
        assert share.found.cause != "length_rule", (text, share.found.explanation)


def _drops(oracle_drops: Callable[[str], bool], box_drops: Callable[[str], bool]) -> dict[str, Box]:
    return tokens_box.pair("h4", lambda text: _tokens(text, _oracle_letter, oracle_drops),
                           lambda text: _tokens(text, _oracle_letter, box_drops), OP)


@pytest.mark.parametrize("impls", [
    # Both drop tokens under two units, the oracle counting UTF-8 bytes and the box code points.
    _drops(lambda token: len(token.encode("utf-8")) < 2, lambda token: len(token) < 2),
    # Both drop one-letter tokens of ASCII (stop words), the box every one-letter token.
    _drops(lambda token: len(token) == 1 and token.isascii(), lambda token: len(token) == 1),
], ids=["min-length", "stop-letters"])
def test_a_stand_in_that_makes_the_token_vanish_on_both_sides_names_no_character_rule(
        tokenize: Op, impls: dict[str, Box]) -> None:
    """A one-letter token of a two-byte letter is dropped by the box alone. The case-mapping stand-in (an ASCII
    letter) makes it vanish on both sides: that agreement is no evidence for case_mapping, nor is the shorter
    stand-in's for a length rule (planted: Probe.explains in place of Probe.settles named the first case_mapping,
    then length_rule, and the second length_rule, an ASCII rule). What is left is the box's own side."""
    args = {"text": "\u00f0"}
    responses = observe(impls, OP, args)
    assert divergent(OP, responses) == ["h4-box"]
    (share,) = explain.name_shares(impls, OP, args, responses, {})
    assert (share.found.cause, share.found.detail) == ("rule_difference", DIVERGENT_ONLY), share.found.explanation


def _ok(value: Any) -> dict[str, Any]:
    return {"ok": json.dumps(value, ensure_ascii=False)}


def test_lost_piece_reads_an_agreement_on_absence(tokenize: Op) -> None:
    before = {"h4-oracle": _ok(["ab", "c\u00e9"]), "h4-box": _ok(["ab"])}
    assert lost_piece(OP, before, {"h4-oracle": _ok(["ab"]), "h4-box": _ok(["ab"])})  # the token gone on both sides
    assert not lost_piece(OP, before, {"h4-oracle": _ok(["ab", "cx"]), "h4-box": _ok(["ab", "cx"])})
    assert lost_piece(OP, before, {"h4-oracle": _ok([]), "h4-box": _ok([])})  # empty where a side had something
    # An item count changed on both sides.
    assert lost_piece(OP, {"h4-oracle": _ok(["ab"]), "h4-box": _ok(["a", "b"])},
                      {"h4-oracle": _ok(["a", "b", "c"]), "h4-box": _ok(["a", "b", "c"])})
    assert not lost_piece(OP, {"h4-oracle": _ok(["ab"]), "h4-box": _ok(["a", "b"])},
                          {"h4-oracle": _ok(["axb"]), "h4-box": _ok(["axb"])})
    # The plain input's output, which no side gave before.
    assert lost_piece(OP, before, {"h4-oracle": _ok(["plain", "text"]), "h4-box": _ok(["plain", "text"])},
                      lambda: _ok(["plain", "text"]))


def test_outcome_shapes() -> None:
    assert value_shape(["a"], ["a", "b"]) == "gains-item"
    assert value_shape(["a", "b"], ["a"]) == "loses-item"
    assert value_shape(["a", "b"], ["a", "c"]) == "changes-item"
    assert value_shape(["ab"], ["a", "b"]) == "gains-changed"
    assert value_shape(["a", "b"], ["ab"]) == "loses-changed"
    assert value_shape("ab", "abc") == "longer" and value_shape("abc", "ab") == "shorter"
    assert value_shape("ab", "ac") == "changes-text" and value_shape({"a": 1}, {"a": 2}) == "changes-fields"
    assert value_shape(1, 2.5) == "changes-value" and value_shape(1, "1") == "changes-type"
    assert value_shape([1, {"a": [2]}], [1, {"a": [2]}]) == "same"


def test_outcome_shape_reads_responses(tokenize: Op) -> None:
    assert outcome_shape(OP, _ok(["a"]), _ok(["a", "b"])) == "gains-item"
    assert outcome_shape(OP, {"ok": '["a", "b"]'}, {"ok": '["a","b"]'}) == "same"  # JSON values, not texts
    error = {"error": {"code": "invalid_text", "message": "no"}}
    assert outcome_shape(OP, error, _ok([])) == "oracle-refuses"
    assert outcome_shape(OP, _ok([]), error) == "divergent-refuses"
    assert outcome_shape(OP, {"ok": "[1,"}, _ok([])) == "unparseable"
    with pytest.raises(ValueError, match="not a response"):
        outcome_shape(OP, ["a"], _ok([]))


def test_the_stand_ins_keep_category_class_and_lengths() -> None:
    for ch in ("ж", "Σ", "日", "\u0301", "𐀀", "\u20d0", "é"):
        same = length.same_shape(ch)
        assert same, f"U+{ord(ch):04X}"
        for stand_in in same:
            assert (unicodedata2.category(stand_in), unicodedata2.combining(stand_in)) == \
                (unicodedata2.category(ch), unicodedata2.combining(ch))
            assert (length.utf8_len(stand_in), length.utf16_len(stand_in)) == (length.utf8_len(ch),
                                                                              length.utf16_len(ch))
            assert unicodedata.category(stand_in) == unicodedata2.category(stand_in)  # stable across versions
            assert len(stand_in.lower()) == 1 and length.utf8_len(stand_in.lower()) == length.utf8_len(stand_in)
    assert all(length.utf8_len(s) == 1 for s in length.shorter("ж") + length.shorter("Σ"))
    assert length.shorter("\u0301") == ""  # no mark is shorter than two bytes
    assert all(length.utf8_len(s) == 2 for s in length.shorter("\u20d0"))
    assert all(length.utf16_len(s) == 1 for s in length.shorter("𐀀"))


def test_undoing_a_rule_reconciles_only_what_it_leaves_something_of(tokenize: Op) -> None:
    """``_reconciles`` (the tie-breaker between character rules that each explain a divergence): results equal
    once the rule is undone, item by item for a list, but never because undoing emptied the piece they differ in
    (planted: the old whole-text comparison; U+0085 alone against nothing reconciled under whitespace_definition)."""
    from harness.differential.counterfactual.characters import _reconciles

    def answers(a: Any, b: Any, op: str) -> dict[str, dict[str, Any]]:
        wrap = _ok if op == OP else (lambda value: {"ok": value})
        return {"h4-oracle": wrap(a), "h4-box": wrap(b)}

    text = "normalize_fact_text"
    assert _reconciles("whitespace_definition", text, answers("a\x85b", "ab", text))
    assert not _reconciles("whitespace_definition", text, answers("\x85", "", text))
    assert _reconciles("case_mapping", OP, answers(["\u03c3x"], ["\u03a3x"], OP))
    assert not _reconciles("case_mapping", OP, answers(["ab"], ["a", "b"], OP))
    assert not _reconciles("whitespace_definition", OP, answers(["a", "\x85"], ["a", ""], OP))


def _trace(text: str, tokens: list[str], kept: list[str]) -> dict[str, Any]:
    return {"op": OP, "steps": [{"step": "args", "value": {"text": text}}, {"step": "h4.text", "value": text},
                                {"step": "h4.split", "value": tokens}, {"step": "h4.length", "value": kept}],
            "outcome": {"ok": json.dumps(kept, ensure_ascii=False)}}


@pytest.mark.parametrize("tokens, oracle_kept, other_kept, cause", [
    (["abc", "жжжжжжж"], ["abc", "жжжжжжж"], ["abc"], "length_rule"),  # 7 code points, 14 bytes: cap 12
    (["abc", "\U00010000" * 7], ["abc", "\U00010000" * 7], ["abc"], "length_rule"),  # 14 UTF-16 units
    (["abc", "жж", "x"], ["abc", "жж"], ["abc"], "length_rule"),  # a minimum of 3: bytes against code points
    # Only ASCII: every measure is one, so a cap set differently (12 and 11) sorts by none of two measures.
    (["abc", "abcdefghijkl"], ["abc", "abcdefghijkl"], ["abc"], "rule_difference"),
    # A stop word dropped beside the long token: no one cap sorts what the other side kept.
    (["the", "жжжжжжж", "ab"], ["the", "жжжжжжж", "ab"], ["ab"], "rule_difference"),
    # Not a selection of the step's input (the other side changed a token): no filter.
    (["abc", "жж"], ["abc", "жж"], ["abc", "ж"], "rule_difference"),
])
def test_a_length_filter_where_the_traces_part(tokenize: Op, tokens: list[str], oracle_kept: list[str],
                                               other_kept: list[str], cause: str) -> None:
    """The trace rule ``length-filter`` (harness/differential/causes/length.py): both sides' values at the step
    are selections of its input, each sorted by one cap in another measure, and the counterfactual confirms it
    (here: said to; planted: the rule out of ORDER, every case rule_difference). Unconfirmed, or with no means
    to confirm, it never fires."""
    from harness.differential.causes import cause_from_traces

    text = " ".join(tokens)
    found = cause_from_traces(OP, _trace(text, tokens, oracle_kept), _trace(text, tokens, other_kept),
                              {"text": text}, {}, {}, confirm=lambda: True)
    assert found is not None and (found.cause, found.step) == (cause, "h4.length"), found
    for confirm in (None, lambda: False):
        found = cause_from_traces(OP, _trace(text, tokens, oracle_kept), _trace(text, tokens, other_kept),
                                  {"text": text}, {}, {}, confirm=confirm)
        assert found is not None and (found.cause, found.step) == ("rule_difference", "h4.length"), found


# Filters one observation cannot tell from a length cap in two measures (review of issue 51, item 5.2): a count
# cap set differently (the oracle keeps one token, the other two) and a stop word one side drops.
ONE_ITEM_FILTERS = [(["a", "\u00e9"], ["a"], ["a", "\u00e9"]),
                    (["ab", "\u00e9t\u00e9"], ["ab", "\u00e9t\u00e9"], ["ab"])]


@pytest.mark.parametrize("tokens, oracle_kept, other_kept", ONE_ITEM_FILTERS, ids=["count-cap", "stop-word"])
def test_a_filter_one_trace_cannot_tell_is_no_length_rule_unconfirmed(tokenize: Op, tokens: list[str],
                                                                      oracle_kept: list[str],
                                                                      other_kept: list[str]) -> None:
    """Each is sorted by one cap in two measures (1 UTF-8 byte against 1 code point; 3 code points against 3..4
    bytes), so the traces alone named length_rule (planted: CONFIRMED emptied, both length_rule)."""
    from harness.differential.causes import cause_from_traces

    text = " ".join(tokens)
    found = cause_from_traces(OP, _trace(text, tokens, oracle_kept), _trace(text, tokens, other_kept),
                              {"text": text}, {}, {})
    assert found is not None and (found.cause, found.step) == ("rule_difference", "h4.length"), found


def _split(text: str) -> list[str]:
    return json.loads(_tokens(text, _oracle_letter, lambda token: False))


class Traced(Box):
    """A testee in process that serves traces of the op: its tokens, then what its filter kept of them."""

    def __init__(self, name: str, keep: Callable[[list[str]], list[str]]) -> None:
        super().__init__(name, lambda text: json.dumps(keep(_split(text)), ensure_ascii=False), op=OP)
        self.keep = keep
        self.description = {"traces": [OP]}

    def call(self, op_name: str, args: dict[str, Any]) -> dict[str, Any]:
        if op_name != TRACE_OP:
            return super().call(op_name, args)
        text = args["args"]["text"]
        tokens = _split(text)
        trace = {**_trace(text, tokens, self.keep(tokens)), "schema": "trace-v1"}
        trace["outcome"] = {"result": json.dumps(self.keep(tokens), ensure_ascii=False)}
        return {"ok": json.dumps(trace, ensure_ascii=False)}


@pytest.mark.parametrize("oracle_keep, box_keep, text, cause", [
    (lambda ts: [t for t in ts if len(t) <= CAP], lambda ts: [t for t in ts if len(t.encode()) <= CAP],
     "abc жжжжжжж", "length_rule"),
    (lambda ts: ts[:1], lambda ts: ts[:2], "a \u00e9", "rule_difference"),  # a count cap set differently
    (lambda ts: ts, lambda ts: [t for t in ts if t != "\u00e9t\u00e9"], "ab \u00e9t\u00e9",  # a stop word
     "rule_difference"),
], ids=["bytes-cap", "count-cap", "stop-word"])
def test_the_counterfactual_confirms_a_length_filter_the_traces_show(
        tokenize: Op, oracle_keep: Callable[[list[str]], list[str]], box_keep: Callable[[list[str]], list[str]],
        text: str, cause: str) -> None:
    """Where both sides serve traces, explain confirms the trace rule with the counterfactual length rule on the
    same implementations: a bytes-counted cap is length_rule at the filtering step; a count cap and a stop word,
    sorted by one cap in two measures on this input too, are not (planted: the confirmer always yes, both
    length_rule; the confirmation dropped, all three rule_difference)."""
    impls = {"h4-oracle": Traced("h4-oracle", oracle_keep), "h4-box": Traced("h4-box", box_keep)}
    args = {"text": text}
    responses = observe(impls, OP, args)
    assert divergent(OP, responses) == ["h4-box"], responses
    (share,) = explain.name_shares(impls, OP, args, responses, {})
    found = share.found
    assert (found.cause, found.step) == (cause, "h4.length"), found.explanation
    assert found.rule == ("length-filter" if cause == "length_rule" else "rule-difference"), found.rule


def test_characters_changed_in_place_are_no_length_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text op whose contract lowercases A-Z only, against a box that lowercases every letter: a same-shape
    stand-in (Æ for Ж) keeps the difference and an ASCII one settles it, as for a length rule, but the texts
    differ in place (one length): the case mapping, not a length (planted: without _in_length, length_rule)."""
    text_op = "h4_tag"
    ascii_lower = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
    monkeypatch.setitem(registry.OPS, text_op, Op(
        name=text_op, js_name="h4Tag", params=(Param("text", "text", "invalid_text", "text"),),
        reference=lambda text: text.translate(ascii_lower), result_kind="text", fixture=None,
        char_rules=("case_mapping",), plain=(("text", "plain"),), family="h4-tags"))

    impls = {"h4-oracle": Box("h4-oracle", lambda text: text.translate(ascii_lower)),
             "h4-box": Box("h4-box", str.lower)}
    for text in ("\u0416a", "ab\u00c9"):
        args = {"text": text}
        responses = observe(impls, text_op, args)
        (share,) = explain.name_shares(impls, text_op, args, responses, {})
        assert share.found.cause == "case_mapping", (text, share.found.explanation)


def test_one_list_rule_without_a_side_is_one_class_whatever_the_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    """An op returning its tokens' lengths (a list of numbers: no side of characters to read), and a box that
    takes "_" for a letter: "a _" gains a token, "_a" changes one. One rule, so one class (the detail is the
    acting side, None here; planted: the shape as the detail, gains-item and changes-item, two classes)."""
    lengths_op = "h4_lengths"

    def lengths(letter: Callable[[str], bool]) -> Callable[[str], str]:
        return lambda text: json.dumps([len(token) for token in json.loads(_tokens(text, letter, lambda t: False))])

    monkeypatch.setitem(registry.OPS, lengths_op, Op(
        name=lengths_op, js_name="h4Lengths", params=(Param("text", "text", "invalid_text", "text"),),
        reference=lengths(_oracle_letter), result_kind="json", fixture=None, plain=(("text", "plain text"),),
        family="h4-tokens"))

    impls = {"h4-oracle": Box("h4-oracle", lengths(_oracle_letter)),
             "h4-box": Box("h4-box", lengths(lambda ch: _oracle_letter(ch) or ch == "_"))}
    found, shapes = set(), set()
    for text in ("a _", "_a"):
        args = {"text": text}
        responses = observe(impls, lengths_op, args)
        shapes.add(outcome_shape(lengths_op, responses["h4-oracle"], responses["h4-box"]))
        (share,) = explain.name_shares(impls, lengths_op, args, responses, {})
        found.add((share.found.cause, share.found.detail))
    assert shapes == {"gains-item", "changes-item"}  # the two faces of the rule
    assert found == {("rule_difference", None)}, found


@pytest.mark.parametrize("text", ["\u0436\u20d7\u0436\u0436\u0436\u0436\u0436", "\u0436\u0301" + "\u0436" * 6])
def test_a_mark_kept_that_makes_a_token_too_long_in_bytes_is_the_marks_class(tokenize: Op, text: str) -> None:
    """Two differences at once (review of issue 51, item 5.3; the tokens example's fuzz witness 'Å⃗ẞaaaaa'):
    the box keeps the mark inside the token, which makes it longer than 12 bytes, and drops it; the contract
    splits it in two. Stand-ins of the same length keep that, shorter ones leave the mark's difference alone: the
    input is classified by that one (rule_difference, oracle-only), and shrinking in that class sheds the
    length's part (planted: no peel, rule_difference divergent-only: a class of its own holding both)."""
    from harness.classes.shrink import shrink

    assert _classify(text)[:2] == ("rule_difference", ORACLE_ONLY)
    impls = tokens_box.pair("h4", oracle, box(ALL_BUGS), OP)
    small, _ = shrink(impls, OP, {"text": text}, {}, ("rule_difference", ORACLE_ONLY))
    assert box({"marks"})(small["text"]) == box(ALL_BUGS)(small["text"]) != oracle(small["text"]), small
