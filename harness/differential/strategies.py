"""Hypothesis strategies made for this domain, one per parameter kind (``Param.kind`` in the registry).

Plain ``st.text()`` almost never produces what breaks these implementations, so the generators here
are built from the traps: White_Space and its near misses, the quote/dash map, edge punctuation,
final-sigma contexts, length-changing case mappings, stacked combining marks, characters new since
Unicode 14, lone surrogates; vectors whose similarity sits exactly on or one ulp around the
threshold; numbers at their boundaries; and every kind of malformed JSON the contract names.
"""

from __future__ import annotations

import json
import math
import random
import struct
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import unicodedata2
from hypothesis import strategies as st

from harness.model import json_grammar
from harness.model.contract_sets import EDGE_PUNCTUATION, NEAR_WHITE_SPACE, QUOTE_DASH, WHITE_SPACE
from harness.model.json_texts import NUMBER_TEXTS, RESTYLES, WIDTHS, edge_integer, midpoint_neighbour, restyle
from harness.model.registry import OPS, Op
from harness.model.unicode_info import is_surrogate

# The pools come from the harness's own copy of the contract's sets, never from the reference: a
# reference that loses a character must not stop the search from generating it.
LINE_BREAKS = ["\n", "\r", "\r\n", "\u000b", "\u000c", "\u0085", "\u2028", "\u2029"]
QUOTES_DASHES = sorted(QUOTE_DASH)
SIGMA_CONTEXTS = ["\u03a3", "\u0391\u03a3", "\u03a3\u0391", "\u0391\u03a3\u02b0", "\u0391\u03a3'",
                  "\u0391\u03a3\u2032\u0392",
                  "\u0391\u03a3.", "\u0391\u0345\u03a3", "\u1f88\u03a3", "A\u03a3", "\u03a3\u0301"]
# Case mappings that change the UTF-8 length, and other case oddities.
CASE_ODDITIES = ["\u0130", "\u212a", "\u2126", "\u212b", "\u023a", "\u023e", "\u2c6f", "\u1e9e", "\u00df", "\ufb00",
                 "\u0149", "\u01c5", "\u1f88", "\u0345", "\u03f4", "\u2c7e", "\ua7ae", "\U00010400", "\u0049\u0307"]
COMBINING = [chr(cp) for cp in (0x0300, 0x0301, 0x0302, 0x0303, 0x0308, 0x030A, 0x030C, 0x0323, 0x0327, 0x0328,
                                0x0331, 0x0345, 0x0316, 0x031B, 0x0338, 0x05B0, 0x093C, 0x094D, 0x1DC0, 0x20D7,
                                0x302A, 0x3099, 0x309A)]
BASES = list("aAeEiIoOuUnNcCsSjJhHtTwWyYkK") + ["\u0391", "\u03a9", "\u0399", "\u0130", "\u00c5", "\u1100", "\u304b",
                                                 "\u0915"]


@lru_cache(maxsize=1)
def recent_characters() -> list[str]:
    """Characters assigned after Unicode 14.0 (the reference's case data) up to the NFC data's version."""
    found = []
    for cp in range(0x110000):
        if is_surrogate(cp):
            continue
        ch = chr(cp)
        if unicodedata.category(ch) == "Cn" and unicodedata2.category(ch) != "Cn":
            found.append(ch)
    return found


@lru_cache(maxsize=1)
def recent_cased_characters() -> list[str]:
    return [ch for ch in recent_characters() if unicodedata2.category(ch) in ("Lu", "Ll", "Lt")]


@lru_cache(maxsize=1)
def recent_nfc_sequences() -> list[str]:
    """Sequences whose NFC differs between Unicode 14.0 data and the newest: decomposed forms of
    characters added since 14.0, and recent combining marks next to old ones (canonical reordering)."""
    out = []
    for ch in recent_characters():
        decomposition = unicodedata2.decomposition(ch)
        if decomposition and not decomposition.startswith("<"):
            out.append(unicodedata2.normalize("NFD", ch))
        if unicodedata2.combining(ch):
            out.append("a" + ch + "\u0323")
            out.append("a\u0301" + ch)
    return out


def _pick(items: list[str]) -> st.SearchStrategy[str]:
    """Like sampled_from, without carrying a 28,000-element list in every repr."""
    return st.integers(0, len(items) - 1).map(lambda index: items[index])


def _stacked_marks() -> st.SearchStrategy[str]:
    return st.builds(lambda base, marks: base + "".join(marks), st.sampled_from(BASES),
                     st.lists(st.sampled_from(COMBINING), min_size=1, max_size=4))


def fragments() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(["user", "likes", "tea", "Coffee", "LISBON", "porto", "dark mode", "30", "-5%", "#x"]),
        st.sampled_from(sorted(WHITE_SPACE)),
        st.sampled_from(sorted(NEAR_WHITE_SPACE)),
        st.sampled_from(QUOTES_DASHES),
        st.sampled_from(sorted(EDGE_PUNCTUATION)).flatmap(lambda ch: st.integers(1, 3).map(lambda n: ch * n)),
        st.sampled_from(SIGMA_CONTEXTS),
        st.sampled_from(CASE_ODDITIES),
        _stacked_marks(),
        st.sampled_from(LINE_BREAKS),
        _pick(recent_cased_characters()),
        _pick(recent_characters()),
        _pick(recent_nfc_sequences()),
        st.characters(codec="utf-8"),
        st.characters(min_codepoint=0, max_codepoint=0x7F),
    )


def texts(allow_surrogates: bool = True) -> st.SearchStrategy[str]:
    joined = st.lists(fragments(), max_size=8).map("".join)
    if not allow_surrogates:
        return joined
    lone = st.tuples(joined, st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff"]), joined).map("".join)
    return st.one_of(joined, joined, joined, joined, joined, joined, joined, joined, joined, lone)


# ---- numbers and vectors ---------------------------------------------------------------------

def _json_number(x: float) -> str:
    return repr(float(x)) if not float(x).is_integer() or abs(x) >= 1e16 else str(int(x))


def binary32_values() -> st.SearchStrategy[float]:
    return st.one_of(
        st.floats(width=32, allow_nan=False, allow_infinity=False),
        st.integers(-20, 20).map(float),
        st.floats(-1, 1, allow_nan=False),
        st.sampled_from([0.0, -0.0, 1e-45, 3.4028234663852886e38, 1.0000000596046448, 0.1, 1e-50]),
    )


def vectors(dim: int) -> st.SearchStrategy[list[float]]:
    return st.lists(binary32_values(), min_size=dim, max_size=dim)


def number_text() -> st.SearchStrategy[str]:
    """Decimal texts as callers write them: shortest repr, 17 significant digits, exponents, integers (at, beside
    and around every width boundary: 2^31, 2^32, 2^53, 2^63, 2^64, either sign), and the texts that expose a wrong
    float reader (harness/model/json_texts.py)."""
    return st.one_of(
        binary32_values().map(_json_number),
        st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17g}"),
        st.sampled_from(["1e-400", "3.4028235e38", "3.4028236e38", "36893488147419103232", "-0", "0.0", "1E0"]),
        st.sampled_from([text for _, text in NUMBER_TEXTS]),
        st.builds(midpoint_neighbour, st.integers(0, 2**31 - 1), st.sampled_from((-1, 1))),
        st.builds(edge_integer, st.sampled_from(WIDTHS), st.one_of(st.integers(-2, 2), st.integers(-(2**40), 2**40)),
                  st.booleans()),
    )


# ---- JSON texts --------------------------------------------------------------------------------

def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


MALFORMED_JSON = [
        "", "[", "[1,]", "NaN", "[NaN]", "[Infinity]", "[-Infinity]", "\ufeff[1]", "[1e400]", "[-1e400]",
        "[" + "9" * 400 + "]", "[01]", "[.5]", "[+1]", "[1]\u00a0", '[{"a":1,"a":2}]', '[{"a":1,"\\u0061":2}]',
        '["\\ud800"]', '["\\udc00\\ud800"]', '["x\ty"]', "[" * 101 + "]" * 101, "[" * 100 + "]" * 100,
        "'x'", "[1] [2]", "[\u0661]", '["\ud800"]', "tru", "nul",
    ]
# Lone surrogates escaped in object keys, not only in values: a reader that walks only values accepts them (a list
# of their own: the fuzzer draws them from its second generator, the seed's other draws as they were).
MALFORMED_KEYS = ['[{"id":"a","text":"b","\\ud800":1}]', '[{"\\udc00":null}]', '[{"id":"a","m":{"x\\udbff":1}}]']


def malformed_json() -> st.SearchStrategy[str]:
    """Texts a strict reader refuses, or nearly: the listed ones, and the JSON grammar's combinations
    (harness/model/json_grammar.py: escapes before deep nesting, wide objects with a late duplicate key)."""
    return st.one_of(st.sampled_from(MALFORMED_JSON), st.sampled_from(MALFORMED_KEYS),
                     st.integers(0, 2**32 - 1).map(lambda seed: json_grammar.text(random.Random(seed))))


def restyled(texts_: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Each JSON text as it is, or written another way (whitespace, escapes) or with one fault of style
    (a whitespace near miss, a nested duplicate key): harness/model/json_texts.py."""
    return st.one_of(texts_, st.tuples(texts_, st.sampled_from(RESTYLES), st.integers(0, 2**20))
                     .map(lambda t: restyle(*t)))


def embedding_json() -> st.SearchStrategy[str | None]:
    return st.one_of(
        st.just("null"),
        restyled(st.integers(1, 6).flatmap(vectors).map(dumps)),
        st.lists(number_text(), min_size=1, max_size=6).map(lambda xs: "[" + ",".join(xs) + "]"),
        malformed_json(),
        st.sampled_from(["[]", "{}", "[true]", '["1"]', "[null]", "3", '"x"']),
        st.sampled_from([None, 7, True]),
    )


# Ids equal but for case, normalization form or width (and compatibility): distinct ids to the contract; a reader
# that folds case, normalizes or compares by NFKC makes them one. Drawn with the other ids of a list.
LOOKALIKE_IDS = ["a", "A", "\u00e1", "a\u0301", "\uff41", "K", "k", "\u212a", "\ufb01", "fi", "\u1e9e", "\u00df"]


def candidate_objects(text_strategy: st.SearchStrategy[str], dims: st.SearchStrategy[int]) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries(
        {"id": st.one_of(st.sampled_from(["a", "b", "c", "m1", " "]), st.sampled_from(LOOKALIKE_IDS),
                         texts(allow_surrogates=False))},
        optional={
            "text": text_strategy,
            "embedding": st.one_of(st.none(), dims.flatmap(vectors)),
            "pinned": st.one_of(st.booleans(), st.none()),
            "extra": st.just({"k": [1, None]}),
            "\u00e9\u2028\"k": st.just(1),  # a key of odd characters: escaped by restyle, walked by the reader
        },
    )


def candidates_json() -> st.SearchStrategy[Any]:
    valid = restyled(st.lists(candidate_objects(texts(allow_surrogates=False), st.integers(1, 6)),
                              max_size=4).map(dumps))
    return st.one_of(valid, valid, valid, st.just("null"), st.just("[]"), malformed_json(),
                     st.sampled_from(["{}", "[1]", "[null]", '[{"id":"","text":"a"}]', '[{"id":"a","text":5}]',
                                      '[{"id":"a","text":"b","pinned":1}]', '[{"id":"a","text":"b","embedding":[]}]']))


def section_json() -> st.SearchStrategy[Any]:
    item = st.fixed_dictionaries({}, optional={
        "id": st.one_of(st.sampled_from(["a", "b", "a ", "x]", "[y", " "]), st.sampled_from(LOOKALIKE_IDS),
                        texts(allow_surrogates=False), st.none()),
        "text": st.one_of(texts(allow_surrogates=False), st.none()),
        "score": st.just(0.5),
    })
    valid = restyled(st.lists(item, max_size=6).map(dumps))
    lookalikes = st.lists(st.sampled_from(LOOKALIKE_IDS), min_size=2, max_size=6).map(
        lambda ids: dumps([{"id": item_id, "text": f"t{n}"} for n, item_id in enumerate(ids)]))
    return st.one_of(valid, valid, valid, lookalikes, st.just("null"), malformed_json(),
                     st.sampled_from(["{}", '"x"', "1", "[null]", '[{"id":5}]', '[{"text":true}]']),
                     st.sampled_from([None, 3]))


# ---- host numbers --------------------------------------------------------------------------------

BOUNDARY_INTS = [0, 1, -1, 2, 29, 30, 31, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**53, 2**53 + 1, 2**64, -(2**63)]


def cap() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.sampled_from(BOUNDARY_INTS),
        st.integers(0, 40),
        st.sampled_from([0.0, -0.0, 0.5, 2.5, 30.0, 4294967295.0, 4294967296.0, 9007199254740992.0, math.nan,
                         math.inf, -math.inf, -1.0, 1e300]),
        st.sampled_from([True, False, None, "30"]),
    )


def threshold() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.floats(0, 1),
        st.sampled_from([0, 1, 0.85, -0.0, math.nextafter(0.85, 1), math.nextafter(0.85, 0), 0.8500000238418579,
                         math.nextafter(1, 2), -1e-300, math.nan, math.inf, 2, True, False, None, "0.85", 10**400]),
    )


def mode() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(["auto", "explicit", "mirror", "reconcile"]),
                     st.sampled_from(["AUTO", "", "auto ", "auto\ud800", None, 1]))


def force() -> st.SearchStrategy[Any]:
    return st.one_of(st.booleans(), st.booleans(), st.sampled_from([0, 1, "true", None]))


KINDS: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
    "text": lambda: st.one_of(texts(), texts(), texts(), st.sampled_from([42, None, 1.5, True])),
    "embedding_json": embedding_json,
    "candidates_json": candidates_json,
    "section_json": section_json,
    "threshold": threshold,
    "mode": mode,
    "force": force,
    "cap": cap,
}


# ---- whole argument sets -------------------------------------------------------------------------

def generic_args(op: Op) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments for any op from its parameter kinds; parameters with a default may be omitted."""
    required = {p.name: KINDS[p.kind]() for p in op.params if p.required}
    optional = {p.name: KINDS[p.kind]() for p in op.params if not p.required}
    return st.fixed_dictionaries(required, optional=optional)


def _binary32(x: float) -> float | None:
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return None


def _similarity(a: list[float], b: list[float]) -> float | None:
    """The contract's similarity, computed here (not by the reference): binary32 values widened to
    binary64, plain left-to-right sums, dot / sqrt(na * nb); None when not compared."""
    xs, ys = [_binary32(x) for x in a], [_binary32(y) for y in b]
    if None in xs or None in ys or len(xs) != len(ys):
        return None
    dot = na = nb = 0.0
    for x, y in zip(xs, ys, strict=True):
        dot += x * y  # type: ignore[operator]
        na += x * x  # type: ignore[operator]
        nb += y * y  # type: ignore[operator]
    if na == 0.0 or nb == 0.0:
        return None
    value = dot / math.sqrt(na * nb)
    return value if math.isfinite(value) else None


@st.composite
def near_threshold_decide_write(draw: st.DrawFn) -> dict[str, Any]:
    """decide_write where the similarity sits exactly on the threshold or one ulp either side of it.

    The threshold is the reference's similarity for a drawn pair, nudged by -1, 0 or +1 ulp, so a
    different summation order, binary32 arithmetic or a different rounding flips the decision.
    """
    dim = draw(st.integers(1, 24))
    new = draw(vectors(dim))
    others = draw(st.lists(vectors(dim), min_size=1, max_size=3))
    sims = [_similarity(new, o) for o in others]
    usable = [s for s in sims if s is not None and 0.0 <= s <= 1.0]
    base = draw(st.sampled_from(usable)) if usable else draw(st.floats(0, 1))
    nudge = draw(st.sampled_from([0, 0, -1, 1]))
    value = base if nudge == 0 else math.nextafter(base, 2.0 if nudge > 0 else -1.0)
    value = min(max(value, 0.0), 1.0)
    mode_value = draw(st.sampled_from(["auto", "explicit", "mirror", "reconcile"]))
    pinned = draw(st.lists(st.booleans(), min_size=len(others), max_size=len(others)))
    candidates = [{"id": f"c{i}", "text": f"stored fact {i}", "embedding": o, "pinned": p}
                  for i, (o, p) in enumerate(zip(others, pinned, strict=True))]
    digits = draw(st.booleans())
    fmt = (lambda xs: "[" + ",".join(f"{x:.17g}" for x in xs) + "]") if digits else dumps
    return {"text": "new fact", "embedding_json": fmt(new), "candidates_json": dumps(candidates),
            "threshold": value, "mode": mode_value}


@st.composite
def related_decide_write(draw: st.DrawFn) -> dict[str, Any]:
    """decide_write where candidates are variations of the new text (exact matches, near misses)."""
    text = draw(texts(allow_surrogates=False))
    variants = st.one_of(
        st.just(text), st.just(text.upper()), st.just(text + "."), st.just(" " + text + "\u001c"),
        st.just(unicodedata2.normalize("NFD", text)), texts(allow_surrogates=False),
    )
    dim = draw(st.integers(1, 4))
    candidates = draw(st.lists(candidate_objects(variants, st.just(dim)), max_size=4))
    return {"text": text, "embedding_json": dumps(draw(vectors(dim))), "candidates_json": dumps(candidates),
            "threshold": draw(threshold()), "mode": draw(mode()), "force": draw(force())}


OP_EXTRAS: dict[str, list[Callable[[], st.SearchStrategy[dict[str, Any]]]]] = {
    "decide_write": [near_threshold_decide_write, related_decide_write],
}


def args_for(op_name: str) -> st.SearchStrategy[dict[str, Any]]:
    op = OPS[op_name]
    return st.one_of(generic_args(op), *(extra() for extra in OP_EXTRAS.get(op_name, [])))


def comparable_ops() -> list[str]:
    return [name for name, op in OPS.items() if op.differential]
