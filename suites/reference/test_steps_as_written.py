"""The reference's steps as the contract words them, character by character, against the reference's own code
(regular expressions, ``str.strip`` with a set of characters, checks skipped where they cannot fail): the same
result on every text Hypothesis finds, weighted to the characters each step reads."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from reference import dedup_context, normalize, strict_json
from reference.errors import ContractError
from reference.unicode_data import EDGE_PUNCTUATION, LINE_BREAKS, WHITE_SPACE

SPECIAL = sorted(WHITE_SPACE | EDGE_PUNCTUATION | LINE_BREAKS | {"\x1c", "\x1f", "\ufeff", "a", "\u00e9"})
TEXT = st.text(st.one_of(st.sampled_from(SPECIAL), st.characters(exclude_categories=("Cs",))), max_size=12)


def collapse_white_space_as_written(text: str) -> str:
    """norm.white_space: every maximal run of White_Space becomes one U+0020."""
    out: list[str] = []
    in_run = False
    for ch in text:
        if ch in WHITE_SPACE:
            if not in_run:
                out.append(" ")
            in_run = True
        else:
            out.append(ch)
            in_run = False
    return "".join(out)


def strip_edges_as_written(text: str) -> str:
    """norm.edges: drop leading and trailing White_Space and edge punctuation."""
    start, end = 0, len(text)
    while start < end and (text[start] in WHITE_SPACE or text[start] in EDGE_PUNCTUATION):
        start += 1
    while end > start and (text[end - 1] in WHITE_SPACE or text[end - 1] in EDGE_PUNCTUATION):
        end -= 1
    return text[start:end]


def collapse_as_written(value: str) -> str:
    """ctx.split, ctx.trim (White_Space only), ctx.join."""
    pieces, current = [], ""
    for ch in value:
        if ch in LINE_BREAKS:
            pieces.append(current)
            current = ""
        else:
            current += ch
    pieces.append(current)
    trimmed = []
    for piece in pieces:
        start, end = 0, len(piece)
        while start < end and piece[start] in WHITE_SPACE:
            start += 1
        while end > start and piece[end - 1] in WHITE_SPACE:
            end -= 1
        trimmed.append(piece[start:end])
    return " ".join(piece for piece in trimmed if piece)


def _same_steps(text: str) -> None:
    assert normalize.collapse_white_space(text) == collapse_white_space_as_written(text), ascii(text)
    assert normalize.strip_edges(text) == strip_edges_as_written(text), ascii(text)
    assert dedup_context.collapse(text) == collapse_as_written(text), ascii(text)


def test_each_character_of_the_sets_at_the_edges_in_runs_and_between_lines() -> None:
    for ch in SPECIAL:
        for text in (ch, f"{ch}a{ch}", f"a{ch}{ch}b", f"\n{ch}a\u2028{ch}", f" {ch}.{ch}x"):
            _same_steps(text)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_the_normalize_and_collapse_steps_are_those_of_the_contract(text: str) -> None:
    _same_steps(text)


def loads_as_written(text: str) -> object:
    """strict_json.loads with every check made on every text: the depth by its scan, each decoded string's
    surrogates by a walk."""
    if strict_json.has_lone_surrogate(text):
        raise ContractError("invalid_json", "raw", None)
    if strict_json._max_depth(text) > strict_json.MAX_DEPTH:
        raise ContractError("invalid_json", "depth", None)
    try:
        value = strict_json._DECODER.decode(text)
    except (strict_json._Reject, ValueError, RecursionError):
        raise ContractError("invalid_json", "syntax", None) from None
    if strict_json._find_lone_surrogate(value):
        raise ContractError("invalid_json", "escape", None)
    return value


def _outcome(function, text: str) -> tuple[str, object]:  # type: ignore[no-untyped-def]
    try:
        return "ok", function(text)
    except ContractError as error:
        return "error", error.code


NESTED = st.recursive(st.one_of(st.none(), st.sampled_from(["\\ud800", "\\udc00", "\\ud83d\\ude00", "\\\\u", "[", "{"]),
                                st.text(max_size=3)),
                      lambda inner: st.one_of(st.lists(inner, max_size=3),
                                              st.dictionaries(st.text(max_size=2), inner, max_size=2)),
                      max_leaves=8)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    """JSON texts near the limits the fast paths skip: nesting about MAX_DEPTH deep (brackets in strings too)
    and escapes that decode to lone surrogates, or look like escapes and are not."""
    depth = draw(st.integers(strict_json.MAX_DEPTH - 3, strict_json.MAX_DEPTH + 3))
    inner = json.dumps(draw(NESTED), ensure_ascii=draw(st.booleans())).replace("\\\\u", "\\u")
    opening = draw(st.sampled_from(["[", '{"k":']))
    return opening * depth + inner + ("]" if opening == "[" else "}") * depth if draw(st.booleans()) else inner


@settings(max_examples=300, deadline=None)
@given(json_texts())
def test_strict_json_refuses_what_every_check_made_in_full_refuses(text: str) -> None:
    assert _outcome(lambda t: strict_json.loads(t, "x"), text) == _outcome(loads_as_written, text)
