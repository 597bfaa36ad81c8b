"""Counterfactual causes in characters: a Unicode version skew, and the contract's character rules.

A skew holds when replacing every character whose Unicode data differs between the versions in play removes
the divergence and every divergent implementation's own share is one (``own_details``); else, with just the
characters whose data differs between the disagreeing sides replaced, a divergence that remains is the one the
input is reported under (``Again``). A character rule of the op (``Op.char_rules``, in its order) holds when
replacing the characters it names removes the divergence: ``line_breaks``, ``quote_dash_map``, ``final_sigma``
(capital sigma), ``case_mapping`` (cased letters), ``normalization`` (characters NFC changes),
``edge_punctuation``, ``whitespace_definition`` (White_Space and its near misses). Characters explain
differences of results (and the empty_text a normalized text gives), never of argument validation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import unicodedata2

from harness.differential.causes.facts import acting_side
from harness.differential.counterfactual.probe import Again, Probe
from harness.differential.counterfactual.rewrite import (
    SYMBOLS,
    all_strings,
    collapse_lines,
    plain_role,
    replace_chars,
)
from harness.differential.counterfactual.skew import (
    UNEXPLAINED,
    changed_alike,
    nfc_relevant,
    own_details,
    peels,
    sensitive_between,
    skew_steps,
    skewed_between,
)
from harness.differential.outcomes import Responses, divergent, observe, oracle_of, outcome
from harness.differential.rule import Rule, Verdict
from harness.model.contract_sets import EDGE_PUNCTUATION, LINE_BREAKS, QUOTE_DASH, WHITE_SPACE, white_space_like
from harness.model.registry import get_op


def _white_space_like(ch: str) -> bool:
    """White_Space, its near misses, and what Python or JavaScript calls space; plain U+0020 is kept
    (it is structure)."""
    return ch != " " and white_space_like(ch)


_CASED = {"Lu", "Ll", "Lt"}

# The contract's character rules: (which characters it names, their stand-in, the explanation). Each
# op tries those its registry entry lists (Op.char_rules), in that order.
CHARACTER_RULES: dict[str, tuple[Callable[[str], bool], Callable[[str], str] | None, str]] = {
    "line_breaks": (lambda ch: ch in LINE_BREAKS, lambda ch: "_" + SYMBOLS,
                    "the line breaks ids and texts are split on are treated differently"),
    "quote_dash_map": (lambda ch: ch in QUOTE_DASH, None, "the typographic quote and dash map is applied differently"),
    "final_sigma": (lambda ch: ch == "\u03a3", None, "capital sigma (final or not) is lowercased differently"),
    "case_mapping": (lambda ch: unicodedata2.category(ch) in _CASED or ch.lower() != ch or ch.casefold() != ch, None,
                     "cased letters are lowercased differently (the case mapping rule, not its Unicode data)"),
    "normalization": (nfc_relevant, plain_role, "NFC (composition, decomposition or ordering) is applied differently"),
    "edge_punctuation": (lambda ch: ch in EDGE_PUNCTUATION, None, "edge punctuation is stripped differently"),
    "whitespace_definition": (_white_space_like, None, "White_Space (or a near miss) is treated differently"),
}


# Among character rules that all explain a divergence and whose undoing reconciles the results: the
# most specific statement first (canonical equivalence is stronger than equality after casefolding).
_SPECIFICITY = ["normalization", "final_sigma", "quote_dash_map", "line_breaks", "edge_punctuation",
                "whitespace_definition", "case_mapping"]


def _texts(value: Any) -> bool:
    """A text result, or a list result of texts (a tokenizer's)."""
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(item, str) for item in value))


def _undone(value: str | list[str], undo: Callable[[str], str]) -> tuple[str, ...] | None:
    """A text result, or each text of a list result, with ``undo`` applied; None where undoing empties a piece
    that held something (the piece lost, not reconciled: a token that is all the rule's characters)."""
    pieces = [value] if isinstance(value, str) else value
    done = tuple(undo(piece) for piece in pieces)
    if any(piece and not after for piece, after in zip(pieces, done, strict=True)):
        return None
    return done


def _reconciles(rule: str, op_name: str, responses: Responses) -> bool:
    """Whether undoing what ``rule`` does makes every text result (or every list of texts, item by item) equal (a
    tie-breaker between rules). Results that come out equal only because undoing emptied the piece they differ
    in reconcile nothing: the rule's characters were all there was, and their removal is no evidence that the
    rule is what differs."""
    values = [outcome(op_name, r) for r in responses.values()]
    if any(kind != "ok" or not _texts(value) for kind, value in values):
        return False
    undo: dict[str, Callable[[str], str]] = {
        "normalization": lambda t: unicodedata2.normalize("NFD", t),
        "case_mapping": lambda t: t.casefold(),
        "final_sigma": lambda t: t.replace("\u03c2", "\u03c3"),
        "quote_dash_map": lambda t: "".join(QUOTE_DASH.get(ch, ch) for ch in t),
        "edge_punctuation": lambda t: t.strip("".join(EDGE_PUNCTUATION | WHITE_SPACE)),
        "whitespace_definition": lambda t: "".join(ch for ch in t if not white_space_like(ch)),
        "line_breaks": collapse_lines,
    }
    if rule not in undo:
        return False
    done = {_undone(value, undo[rule]) for _, value in values}
    return len(done) == 1 and None not in done


def _text_level(probe: Probe) -> bool:
    return all(found == "ok" or code == "empty_text" for found, code in probe.codes.values())


def _sensitive(probe: Probe) -> Callable[[str], bool] | None:
    """The characters whose data differs between the versions in play, when the input holds one and the
    outcomes are results; None otherwise."""
    def compute() -> Callable[[str], bool] | None:
        in_play = sensitive_between(probe.versions)
        held = any(in_play(ch) for text in all_strings(probe.args) for ch in text)
        return in_play if _text_level(probe) and held else None
    found: Callable[[str], bool] | None = probe.memo("sensitive", compute)
    return found


def _skew(probe: Probe) -> Verdict | None:
    in_play = _sensitive(probe)
    if in_play is None:
        return None
    steps = skew_steps(probe.args, probe.versions, probe.op_name)
    # A skew only when every disagreeing implementation's share is one: its own versions differ from the
    # oracle's on characters of the input, and replacing just those settles it (own_details). Replacing every
    # version-sensitive character can remove a trigger that has nothing to do with versions (a letter of 18.0
    # next to a capital sigma that one side lowercases wrongly).
    # A peel may also change the difference rather than remove it (changed_alike): the character's own
    # difference, beside one its template shows for characters every side knows, is the skew.
    if steps == "properties" or \
            not all(_accounted(probe, peeled, in_play) for peeled in peels(probe.args, in_play, probe.versions)):
        return None
    shares = own_details(probe.impls, probe.op_name, probe.args, "unicode_version_skew",
                         divergent(probe.op_name, probe.responses), probe.versions, probe.responses)
    if UNEXPLAINED in shares.values():
        return None
    return Verdict("unicode_version_skew", steps,
                   f"characters whose Unicode data differs between the versions in play ({steps})")


def _accounted(probe: Probe, peeled: dict[str, Any], skewed: Callable[[str], bool]) -> bool:
    """Whether a peel settles the divergence (``Probe.explains``: an agreement on an outcome kind some side had
    before) or changes it into the one characters every side knows give there (``changed_alike``)."""
    after = probe.observe(peeled)
    if probe.explains(peeled, after=after):
        return True
    return bool(divergent(probe.op_name, after)) and \
        changed_alike(probe.impls, probe.op_name, probe.args, probe.responses, skewed, peeled, after)


def _peel(probe: Probe) -> Again | None:
    """Two differences at once (a version skew and something else): the one left once the characters whose
    data differs between the disagreeing implementations' versions (and only those) are replaced."""
    if not probe.deeper or _sensitive(probe) is None:
        return None
    names = divergent(probe.op_name, probe.responses)
    for peeled in peels(probe.args, skewed_between(probe.op_name, probe.args, names, probe.versions), probe.versions):
        after = probe.observe(peeled)
        if divergent(probe.op_name, after):
            return Again(peeled, after)
    return None


def _character_rule(probe: Probe) -> Verdict | None:
    op, args = probe.op, probe.args
    strings = all_strings(args)
    text_level = _text_level(probe)
    if text_level and op.via is not None:
        # e.g. decide_write: its texts are normalized; if normalizing every string of the input gives the
        # same everywhere, characters cannot explain the difference (a decision rule does).
        via = get_op(op.via)
        text_level = any(divergent(via.name, observe(probe.impls, via.name, {via.params[0].name: text}))
                         for text in dict.fromkeys(strings))
    if not text_level:
        return None
    explaining = [rule for rule in op.char_rules
                  if any(CHARACTER_RULES[rule][0](ch) for text in strings for ch in text) and
                  probe.settles(replace_chars(args, CHARACTER_RULES[rule][0], CHARACTER_RULES[rule][1]))]
    if not explaining:
        return None
    # Sets overlap (U+0345 is a combining mark and has a case mapping): prefer a rule whose undoing makes the
    # results themselves equal, the most specific first; else the op's order.
    reconciled = sorted((r for r in explaining if _reconciles(r, probe.op_name, probe.responses)),
                        key=_SPECIFICITY.index)
    rule = reconciled[0] if reconciled else explaining[0]
    return Verdict(rule, _side(probe), CHARACTER_RULES[rule][2])


def _side(probe: Probe) -> str | None:
    return acted_on(probe.op_name, probe.args, probe.responses)[0]


def acted_on(op_name: str, args: dict[str, Any], responses: Responses) -> tuple[str | None, list[str]]:
    """For one implementation against the oracle, both with text results or both with lists of texts (a
    tokenizer's): the side whose rule acted where the results differ and the characters the other side kept
    (``causes.facts.acting_side``, the input being the call's strings), as a traced class says them; (None, [])
    otherwise. Lists are read as their items joined by a character neither holds nor the input (an item one side
    keeps whole and the other splits or drops is then a run of characters one side kept), against the input and
    its lowercase (a tokenizer may lowercase first)."""
    names = divergent(op_name, responses)
    oracle = oracle_of(op_name, responses)
    if len(names) != 1:
        return None, []
    (kind_a, a), (kind_b, b) = outcome(op_name, responses[oracle]), outcome(op_name, responses[names[0]])
    if kind_a != "ok" or kind_b != "ok" or not _texts(a) or not _texts(b) or type(a) is not type(b):
        return None, []
    inputs = all_strings(args)
    if isinstance(a, list):
        taken = {ch for text in (*inputs, *a, *b) for ch in text}
        joint = next((ch for ch in "\x00\x1f\ufffe\U0010fffe" if ch not in taken), "\x00")
        a, b = joint.join(a), joint.join(b)
        inputs = [*inputs, *(text.lower() for text in inputs)]
    return acting_side(inputs, a, b)


def named_characters(cause: str, args: dict[str, Any], versions: dict[str, dict[str, str]],
                     kept: Any = ()) -> tuple[str, ...]:
    """The characters of the input a counterfactual cause names (those it replaces): for a version skew, those
    whose data differs between the versions in play; for a character rule, those of its set (only those one
    side kept, ``kept``, where the rule acted on one side: ``acted_on``); for another cause with a side (a list
    result's rule difference), the characters one side kept; none else."""
    if cause == "unicode_version_skew":
        named: Callable[[str], bool] = sensitive_between(versions)
    elif cause in CHARACTER_RULES:
        named = CHARACTER_RULES[cause][0]
    else:
        return tuple(dict.fromkeys(kept))
    found = tuple(dict.fromkeys(ch for text in all_strings(args) for ch in text if named(ch)))
    return tuple(ch for ch in found if ch in kept) or found if kept else found


RULES: list[Rule[Probe]] = [
    Rule("version-skew", ("unicode_version_skew",), _skew,
         "replacing every character whose Unicode data differs between the versions in play settles it, and "
         "every divergent side's own share is a skew"),
    Rule("skew-peel", (), _peel,
         "with the skewed characters replaced the sides still disagree: that input again"),
    Rule("character-rule", tuple(CHARACTER_RULES), _character_rule,
         "replacing the characters one of the op's character rules names settles it"),
]
