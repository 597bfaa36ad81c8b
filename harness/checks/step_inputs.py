"""Inputs that change every step of an op, for checking that a trace's steps follow one another (tracecheck, the
parity trace suite; harness/testees/traces.py ``unfollowed``).

A fuzz input mostly passes through most steps unchanged, and a step that changes nothing cannot show that the
value it received is not the value the step before it showed: a core that skips lowercasing a text with no
character ``is_uppercase()`` while its trace shows the lowercase value is seen only on a text whose lowercase
differs from it through a titlecase letter (General_Category Lt: U+01C5, U+1F88). So each text here is made of
pieces that each change one step of normalize_fact_text (and of the ops that normalize or collapse texts):

* ``nfc``: decomposed sequences and singletons NFC changes (``e`` U+0301, U+212B, U+2126);
* ``quote_dash``: the typographic quotes and dashes the contract maps (harness/model/contract_sets.py);
* ``lowercase``: capitals, titlecase letters (every Lt of the interpreter's Unicode below U+3000, where all of
  them are), the capital sigma in final and other position, U+0130;
* ``nfc_again``: a capital and a mark whose lowercase composes where the capital does not (``W`` U+030A to
  U+1E98: the lowercase is not NFC, so the step after the lowercase changes it);
* ``white_space`` and ``edges``: runs of White_Space, edge punctuation at both ends;
* ``line_breaks``: the contract's line breaks (build_dedup_context's split, trim and join);
* build_dedup_context's ids equal but for case, normalization form or width, and now and then a member whose key
  is escaped or odd (an escaped lone surrogate in a key: invalid_json).

Deterministic for a seed; no Hypothesis, so the same inputs run wherever the harness runs.
"""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

import unicodedata2

from harness.model.contract_sets import EDGE_PUNCTUATION, LINE_BREAKS, QUOTE_DASH, WHITE_SPACE
from harness.model.registry import OPS


@cache
def titlecase_letters() -> tuple[str, ...]:
    """Every titlecase letter (General_Category Lt) below U+3000 in the interpreter's Unicode data."""
    import unicodedata

    return tuple(chr(cp) for cp in range(0x3000) if unicodedata.category(chr(cp)) == "Lt")


@cache
def lowercase_not_nfc() -> tuple[str, ...]:
    """Capital-and-mark pairs in NFC whose lowercase is not NFC (``W`` U+030A: ``w`` U+030A composes to U+1E98)."""
    def nfc(text: str) -> str:
        return unicodedata2.normalize("NFC", text)

    found = []
    for base in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        for mark in range(0x300, 0x370):
            text = nfc(base + chr(mark))
            if nfc(text.lower()) != text.lower():
                found.append(text)
    return tuple(found)


def pools() -> dict[str, tuple[str, ...]]:
    """The pieces, by the step each one changes."""
    return {
        "nfc": ("e\u0301", "\u212b", "\u2126", "A\u030a", "a\u0328\u0301", "\u1e0b\u0323"),
        "quote_dash": tuple(sorted(QUOTE_DASH)),
        "lowercase": ("A", "Q", "\u0130", "\u03a3", "\u0391\u03a3", "\u03a3\u03b1", *titlecase_letters()),
        "nfc_again": lowercase_not_nfc(),
        "white_space": tuple(sorted(WHITE_SPACE)),
        "edges": tuple(sorted(EDGE_PUNCTUATION)),
        "line_breaks": tuple(sorted(LINE_BREAKS)),
    }


def text(rng: random.Random) -> str:
    """One text: a titlecase letter or a lowercase-not-NFC pair always (the steps a fuzz input least often
    changes), and two to six more pieces from any pool, between plain letters, edge punctuation or space at
    its ends now and then."""
    chosen = pools()
    pieces = [rng.choice(chosen["lowercase"][6:] if rng.random() < 0.5 else chosen["nfc_again"])]
    for _ in range(rng.randint(2, 6)):
        pieces.append(rng.choice(chosen[rng.choice(sorted(chosen))]))
        pieces.append(rng.choice(("", "b", "cd", " ", "x")))
    rng.shuffle(pieces)
    head = rng.choice(("", "", *chosen["edges"], *chosen["white_space"]))
    tail = rng.choice(("", "", *chosen["edges"], *chosen["white_space"]))
    return head + "".join(pieces) + tail


# Ids equal but for case, for normalization form, for width (issue 53 item 2): ctx.skip_duplicate compares them
# exactly, so each pair is two lines.
IDS = ("a", "A", "\u00e9", "e\u0301", "\uff41", "a\u2028b", "b")
# Members an item may carry beside id and text, the contract ignores them, but their keys are JSON strings all the
# same: an escaped lone surrogate in a key is invalid_json (the strict parser walks keys as well as values).
ODD_KEYS = ("\u00e9", "k\u0000y", "\u2028", "\ud800")


def _items(rng: random.Random, count: int) -> str:
    items: list[dict[str, Any]] = []
    odd = False
    for _ in range(count):
        item: dict[str, Any] = {"id": rng.choice(IDS), "text": text(rng)}
        if rng.random() < 0.1:
            item[rng.choice(ODD_KEYS)] = 1
            odd = True
        items.append(item)
    return json.dumps(items, ensure_ascii=odd or rng.random() < 0.5)  # a lone surrogate only as an escape


def example(op: str, rng: random.Random) -> dict[str, Any] | None:
    """Arguments of ``op`` whose texts are ``text``'s; None for an op with no text to vary (unicode_versions)."""
    if op == "decide_write":
        candidates = [{"id": f"c{n}", "text": text(rng), "embedding": [1.0, rng.choice((0.0, 0.5))]}
                      for n in range(rng.randint(0, 3))]
        return {"text": text(rng), "embedding_json": rng.choice(("[1,0]", "null", "[0.1,0.7]")),
                "candidates_json": json.dumps(candidates), "mode": rng.choice(("auto", "explicit"))}
    if op == "build_dedup_context":
        return {"topical_json": _items(rng, rng.randint(1, 3)), "pinned_json": _items(rng, rng.randint(0, 2)),
                "recent_json": rng.choice(("null", _items(rng, 1)))}
    spec = OPS.get(op)
    if spec is None:
        return None
    texts = [param.name for param in spec.params if param.kind == "text"]
    if not texts:
        return None
    args = dict(spec.plain)
    args.update((name, text(rng)) for name in texts)
    return args


def examples(op: str, count: int, seed: int = 1) -> list[dict[str, Any]]:
    """``count`` such arguments of ``op`` (none for an op ``example`` has none for)."""
    rng = random.Random(f"{seed}:{op}")
    out = []
    for _ in range(count):
        args = example(op, rng)
        if args is None:
            return []
        out.append(args)
    return out
