"""Generator of fixture write-gate-v1: normalize_fact_text and decide_write.

Only inputs live here. Every expected result is computed by the reference (generators.framework).
Case ids are stable: never rename or reuse one; add new ones.
"""

from __future__ import annotations

import random

from harness.model import json_grammar
from harness.model.json_texts import (
    ARRAY_POSITIONS,
    ESCAPES,
    NEAR_MISS_WHITE_SPACE,
    NESTED_DUPLICATES,
    NUMBER_TEXTS,
    OBJECT_POSITIONS,
    at,
    every_slot,
)

from .cases import CaseList, cand, js, unit_at
from .framework import Case, FixtureSpec

NOTES = {
    "nfc": "Exercises canonical composition (normalize steps 2 and 5).",
    "quote-dash-map": "A typographic quote or dash mapped to ASCII (normalize step 3).",
    "case-mapping": "Full default lowercase mapping, including length-changing mappings (step 4).",
    "final-sigma": "Capital sigma lowercased to final or non-final form by context (step 4).",
    "white-space": "A character of the contract's White_Space set (steps 6 and 7).",
    "not-white-space": ("U+001C-U+001F, U+FEFF, U+180E or U+200B: whitespace to some platforms, "
                        "not to the contract; kept."),
    "edge-punctuation": "Punctuation stripped (or not) at the ends (step 7).",
    "host-type": "A host value of the wrong type for its parameter.",
    "lone-surrogate": "A host string holding a lone surrogate (not Unicode scalar values).",
    "utf16-inexpressible": "A high lone surrogate directly followed by a low one: two code points in a code-point "
                           "host (Python), but one valid pair in a UTF-16 host (JavaScript), which cannot hold the "
                           "input; implementations declared with UTF-16 host strings skip the case, counted.",
    "strict-json": "A JSON text that RFC 8259 or the contract's strict rules reject or accept at the edge.",
    "validation-order": "Several arguments are invalid: the first in signature order decides the code.",
    "mode-table": "A row of the decide_write mode table.",
    "pinned": "Pinned candidates: kept out of near matching in auto mode only.",
    "threshold-boundary": "Similarity exactly at the threshold, or one ulp away from it.",
    "binary32-rounding": "Embedding values rounded to binary32 (ties to even, from binary64).",
    "summation-order": ("Plain left-to-right binary64 sums; compensated, pairwise, numpy or binary32 sums "
                        "give other bits."),
    "not-compared": "A candidate left out of similarity: no embedding, other dimension, or a zero vector.",
    "tie": "Equal similarities: the earliest candidate wins.",
    "measured-pair": "A pair whose cosine was measured with a production embedding model.",
    "project-decision": "Pins a decision of docs/contract.md (D1-D16, indexed in its section 10).",
    "empty-result": "The input normalizes to the empty string.",
}

NORM = "normalize_fact_text"
GATE = "decide_write"

EDGE_PUNCT = [
    (".", "full-stop"), (",", "comma"), (";", "semicolon"), (":", "colon"), ("!", "exclamation"),
    ("?", "question"), ('"', "quotation-mark"), ("'", "apostrophe"), ("\u2026", "u2026-ellipsis"),
    ("\u00a1", "u00a1-inverted-exclamation"), ("\u00bf", "u00bf-inverted-question"),
    ("\u3001", "u3001-ideographic-comma"), ("\u3002", "u3002-ideographic-full-stop"),
    ("\uff01", "uff01-fullwidth-exclamation"), ("\uff0c", "uff0c-fullwidth-comma"),
    ("\uff0e", "uff0e-fullwidth-full-stop"), ("\uff1a", "uff1a-fullwidth-colon"),
    ("\uff1b", "uff1b-fullwidth-semicolon"), ("\uff1f", "uff1f-fullwidth-question"),
]
SINGLE_QUOTES = "\u2018 \u2019 \u201a \u201b \u2032 \u2039 \u203a \uff07".split()
DOUBLE_QUOTES = "\u201c \u201d \u201e \u201f \u2033 \u00ab \u00bb \uff02".split()
DASHES = "\u2010 \u2011 \u2012 \u2013 \u2014 \u2015 \u2212 \ufe58 \ufe63 \uff0d".split()
WHITE_SPACE = (
    [chr(c) for c in range(0x09, 0x0E)] + [" ", "\u0085", "\u00a0", "\u1680"]
    + [chr(c) for c in range(0x2000, 0x200B)] + ["\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
)
NOT_WHITE_SPACE = ["\u001c", "\u001d", "\u001e", "\u001f", "\ufeff", "\u180e", "\u200b"]

# Vectors found offline (see docs/contract.md, section 6.3): 16 binary32 values whose similarity
# differs in the last bits between plain left-to-right sums, math.fsum, numpy's dot and binary32
# accumulation.
ORDER_A = [-0.352334, -0.698302, 0.301869, -0.855127, 0.071764, -0.268622, -0.884002, 0.014871,
           -0.925009, -0.132709, -0.860289, -0.818574, -0.150962, 0.653704, -0.752396, -0.553522]
ORDER_B = [-0.254866, -0.895418, -0.154206, 0.206639, -0.95251, 0.906835, -0.716937, 0.420781,
           0.71149, 0.764416, 0.383036, -0.632253, 0.638547, -0.1632, -0.277827, 0.255205]

E2 = [1.0, 0.0]
AT_085 = [17, 10, 3, 1, 1]  # cosine with [1,0,0,0,0] is 17/20: exactly binary64 0.85
E5 = [1, 0, 0, 0, 0]
ULP_ABOVE_085 = 0.8500000000000001  # math.nextafter(0.85, 1)
ULP_BELOW_085 = 0.8499999999999999  # math.nextafter(0.85, 0)

MEASURED = [
    # (slug, new text, stored text, measured cosine)
    ("vegetarian", "User is vegetarian", "User is vegetarian.", 0.938),
    ("black-coffee", "User drinks black coffee", "User takes their coffee black", 0.944),
    ("lisbon-porto", "User lives in Lisbon", "User lives in Porto", 0.898),
    ("pin-lock", "Pin lock timeout is 30 minutes", "Pin lock timeout is 60 minutes", 0.959),
    ("tuesdays", "User has yoga on Tuesdays", "User has yoga on Thursdays", 0.924),
    ("dark-light", "User prefers dark mode", "User prefers light mode", 0.901),
]


def _normalize_cases(c: CaseList) -> None:
    c.add("norm-ascii-lowercase", NORM, "Plain ASCII is lowercased.", "case-mapping", text="User Is Vegetarian")
    c.add("norm-trailing-full-stop", NORM, "A trailing full stop is stripped.", "edge-punctuation",
          text="User is vegetarian.")
    for ch, slug in EDGE_PUNCT:
        c.add(f"norm-edge-{slug}", NORM, f"U+{ord(ch):04X} is stripped at both ends, kept inside.",
              "edge-punctuation", text=f"{ch}{ch}tea{ch}time{ch}{ch}")
    c.add("norm-edge-mixed-run", NORM, "A mixed run of edge punctuation and White_Space at both ends.",
          "edge-punctuation white-space", text=' \u00bf\u00a1..."Hello"?! \u2026\u3002 ')
    for text, slug in [("-5%", "hyphen-percent"), ("#tag+", "hash-plus"), ("(note)", "parentheses"),
                       ("[x]", "brackets"), ("*bold*", "asterisks"), ("\u00b7dot\u00b7", "middle-dot")]:
        c.add(f"norm-edge-kept-{slug}", NORM, "Characters outside the edge-punctuation list are not stripped.",
              "edge-punctuation", text=text)
    for ch in SINGLE_QUOTES:
        c.add(f"norm-quote-u{ord(ch):04x}", NORM, f"U+{ord(ch):04X} maps to an apostrophe.", "quote-dash-map",
              text=f"It{ch}s {ch}late{ch} now")
    for ch in DOUBLE_QUOTES:
        c.add(f"norm-dquote-u{ord(ch):04x}", NORM, f"U+{ord(ch):04X} maps to a quotation mark.", "quote-dash-map",
              text=f"Say {ch}hi{ch} now")
    for ch in DASHES:
        c.add(f"norm-dash-u{ord(ch):04x}", NORM, f"U+{ord(ch):04X} maps to a hyphen-minus.", "quote-dash-map",
              text=f"A{ch}B {ch}5")
    c.add("norm-quotes-at-edges", NORM, "Mapped quotes at the ends become edge punctuation and are stripped.",
          "quote-dash-map edge-punctuation", text="\u201cQuoted\u201d \u2018x\u2019")
    c.add("norm-map-before-lower-prime", NORM,
          "U+2032 is mapped before lowercasing, so the sigma sees an apostrophe (Case_Ignorable) and a cased "
          "letter after it: non-final.", "quote-dash-map final-sigma", text="\u0391\u03a3\u2032\u0392")
    c.add("norm-map-before-lower-apostrophe", NORM, "The ASCII form of the previous case normalizes alike.",
          "final-sigma", text="\u0391\u03a3'\u0392")
    for ch in WHITE_SPACE:
        c.add(f"norm-ws-inside-u{ord(ch):04x}", NORM, f"U+{ord(ch):04X} is White_Space: a run becomes one space.",
              "white-space", text=f"a{ch}{ch}b c{ch}d")
    for ch in ["\u0085", "\u00a0", "\u3000", "\u2028", "\t"]:
        c.add(f"norm-ws-edges-u{ord(ch):04x}", NORM, f"U+{ord(ch):04X} is stripped at both ends.", "white-space",
              steps="norm.edges", text=f"{ch}{ch}fact{ch}")
    for ch in NOT_WHITE_SPACE:
        c.add(f"norm-not-ws-u{ord(ch):04x}", NORM,
              f"U+{ord(ch):04X} is not White_Space: kept inside and at both ends (str.strip would drop U+001C-U+001F).",
              "not-white-space", text=f"{ch}A{ch}b {ch}")
    c.add("norm-ws-mixed-run", NORM, "A run mixing several White_Space characters becomes one space.", "white-space",
          text="a \t\n\u00a0\u3000\u2003b")
    c.add("norm-ws-unit-separator-next-to-space", NORM, "U+001F between spaces splits the run in two.",
          "white-space not-white-space", text="a \u001f b")
    c.add("norm-nfc-decomposed", NORM, "Decomposed e + U+0301 composes to U+00E9.", "nfc", text="Cafe\u0301")
    c.add("norm-nfc-precomposed", NORM, "Precomposed U+00C9 lowercases to U+00E9; same result as decomposed.",
          "nfc case-mapping", text="CAF\u00c9")
    c.add("norm-nfc-reorder-marks", NORM, "Combining marks in non-canonical order are reordered and composed.",
          "nfc", text="a\u0323\u0302 A\u0302\u0323")
    c.add("norm-nfc-after-lower-h-macron-below", NORM,
          "H + U+0331 has no precomposed capital; lowercased it composes to U+1E96 (needs step 5).",
          "nfc case-mapping", steps="norm.nfc_again", text="H\u0331ello")
    c.add("norm-nfc-after-lower-j-caron", NORM, "J + U+030C lowercases to j + U+030C, which composes to U+01F0.",
          "nfc case-mapping", steps="norm.nfc_again", text="J\u030cob")
    c.add("norm-nfc-after-lower-dotted-i-mark", NORM,
          "U+0130 + U+0316 lowercases to i U+0307 U+0316, which NFC reorders (ccc 220 before 230).",
          "nfc case-mapping", steps="norm.nfc_again", text="\u0130\u0316x")
    c.add("norm-nfc-singletons", NORM, "Kelvin, ohm and angstrom signs are canonical singletons: NFC replaces them.",
          "nfc case-mapping", text="\u212a \u2126 \u212b")
    c.add("norm-no-compatibility", NORM, "Fullwidth letters and ligatures are kept: NFC, not NFKC.", "nfc",
          text="\uff28\uff45\uff4c\uff4c\uff4f \ufb01")
    c.add("norm-final-sigma-end", NORM, "Sigma at the end of a word is final.", "final-sigma",
          text="\u039f\u0394\u039f\u03a3")
    c.add("norm-final-sigma-words", NORM, "Sigma before a space is final, inside a word it is not.", "final-sigma",
          text="\u039f\u0394\u039f\u03a3 \u039a\u0391\u0399 \u0391\u03a3\u0391")
    c.add("norm-final-sigma-alone", NORM, "A lone sigma has no cased letter before it: not final.", "final-sigma",
          text="\u03a3")
    c.add("norm-final-sigma-before-full-stop", NORM,
          "Lowercasing happens before stripping: the full stop is Case_Ignorable, sigma is final.", "final-sigma",
          text="\u0391\u03a3.")
    c.add("norm-final-sigma-cased-and-ignorable", NORM,
          "U+02B0 is both Cased and Case_Ignorable: skipped when scanning, so sigma is final (contract example).",
          "final-sigma", text="\u0391\u03a3\u02b0")
    c.add("norm-dotted-capital-i", NORM, "U+0130 lowercases to i + U+0307 (length changes).", "case-mapping",
          text="\u0130stanbul")
    c.add("norm-sharp-s-kept", NORM, "Lowercase mapping, not case folding: U+00DF stays.", "case-mapping",
          text="Stra\u00dfe \u1e9e")
    c.add("norm-unicode-preserved", NORM, "CJK text is kept; the ideographic full stop is stripped.",
          "edge-punctuation",
          text="\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3002")
    c.add("norm-emoji-preserved", NORM, "Emoji, a variation selector and a ZWJ sequence are kept.", (),
          steps="norm.nfc norm.lowercase", text="I \u2764\ufe0f tea \U0001f375 \U0001f469\u200d\U0001f4bb")
    c.add("norm-idempotent-input", NORM, "Already normalized text is unchanged.", (),
          steps="norm.nfc norm.quote_dash norm.lowercase norm.nfc_again norm.white_space norm.edges",
          text="user likes tea")
    c.add("norm-empty-string", NORM, "The empty string stays empty.", "empty-result", steps="norm.edges", text="")
    c.add("norm-only-white-space", NORM, "Only White_Space normalizes to the empty string.", "empty-result white-space",
          steps="norm.edges", text=" \t\u3000 ")
    c.add("norm-only-punctuation", NORM, "Only edge punctuation normalizes to the empty string.",
          "empty-result edge-punctuation", text="...!?\u3002")
    c.add("norm-error-lone-high-surrogate", NORM, "A lone high surrogate is not text.", "lone-surrogate",
          text="a\ud800b")
    c.add("norm-error-lone-low-surrogate", NORM, "A lone low surrogate is not text.", "lone-surrogate", text="\udc00")
    c.add("norm-error-reversed-pair", NORM, "A low then a high surrogate are two lone surrogates.", "lone-surrogate",
          text="x\udc00\ud800")
    c.add("norm-error-adjacent-high-low-surrogates", NORM,
          "A high then a low lone surrogate in a Python str are two lone surrogates, never paired into U+10000 "
          "(the sweep found the PyO3 binding pairing them through UTF-16).", "lone-surrogate utf16-inexpressible",
          text="x\ud800\udc00")
    for value, slug in [(42, "int"), (None, "null"), (True, "bool"), (1.5, "float")]:
        c.add(f"norm-error-host-{slug}", NORM, f"A {slug} is not a string.", "host-type", text=value)


def _mode_table_cases(c: CaseList) -> None:
    stored = [cand("m1", "User likes green tea", [1, 0, 0]), cand("m2", "User owns a cat", [0, 1, 0])]
    rows = [("auto", False), ("explicit", False), ("explicit", True), ("mirror", False), ("reconcile", False),
            ("auto", True), ("mirror", True), ("reconcile", True)]
    for mode, force in rows:
        tag = f"{mode}{'-force' if force else ''}"
        c.add(f"gate-{tag}-exact", GATE, f"Mode table, {tag}: exact match after normalization.", "mode-table",
              steps="gate.normalize gate.exact", text="  user LIKES green tea!", embedding_json=js([0, 0, 1]),
              candidates_json=js(stored),
              mode=mode, force=force)
        c.add(f"gate-{tag}-near", GATE, f"Mode table, {tag}: near match (similarity 0.96 >= 0.85).", "mode-table",
              steps="gate.near", text="User enjoys green tea", embedding_json=js([0.96, 0.28, 0]),
              candidates_json=js(stored),
              mode=mode, force=force)
        c.add(f"gate-{tag}-new", GATE, f"Mode table, {tag}: neither exact nor near.", "mode-table",
              text="User lives in Oslo", embedding_json=js([0, 0, 1]), candidates_json=js(stored),
              mode=mode, force=force)
    c.add("gate-defaults-omitted", GATE, "threshold, mode and force omitted take 0.85, auto, false.", "mode-table",
          steps="gate.threshold gate.mode gate.force", text="User enjoys green tea", embedding_json=js([0.96, 0.28, 0]),
          candidates_json=js(stored))


def _pinned_cases(c: CaseList) -> None:
    pinned_near = [cand("p1", "User likes green tea", [1, 0], pinned=True)]
    for mode in ("auto", "explicit", "mirror", "reconcile"):
        c.add(f"gate-pinned-near-{mode}", GATE,
              f"A pinned near candidate in {mode} mode: left out in auto only.", "pinned mode-table",
              text="User enjoys green tea", embedding_json=js([0.96, 0.28]), candidates_json=js(pinned_near),
              mode=mode)
    c.add("gate-pinned-exact-auto", GATE, "An exact match of a pinned candidate counts in auto mode.", "pinned",
          steps="gate.exact", text="User likes green tea", embedding_json=js([1, 0]), candidates_json=js(pinned_near))
    c.add("gate-pinned-exact-explicit", GATE, "An exact match of a pinned candidate in explicit mode.", "pinned",
          steps="gate.exact", text="user likes green tea", embedding_json="null", candidates_json=js(pinned_near),
          mode="explicit")
    mixed = [cand("p1", "Pinned fact", [1, 0], pinned=True), cand("u1", "Unpinned fact", [0.9, 0.43589])]
    c.add("gate-pinned-best-skipped-auto", GATE,
          "Auto: the pinned candidate has the higher similarity but is left out; the unpinned one matches.",
          "pinned", text="Something new", embedding_json=js([1, 0]), candidates_json=js(mixed))
    c.add("gate-pinned-best-kept-mirror", GATE, "Mirror: the pinned candidate with the higher similarity matches.",
          "pinned", text="Something new", embedding_json=js([1, 0]), candidates_json=js(mixed), mode="mirror")
    c.add("gate-pinned-null-is-false", GATE, "pinned: null counts as not pinned.", "pinned",
          steps="gate.candidate.pinned", text="Something new", embedding_json=js([1, 0]),
          candidates_json=js([{"id": "n1", "text": "Other", "embedding": [1, 0], "pinned": None}]))


def _rule_cases(c: CaseList) -> None:
    c.add("gate-exact-beats-near", GATE, "An exact match wins even when a near candidate comes first.", (),
          steps="gate.normalize_candidates gate.exact", text="User likes tea", embedding_json=js([1, 0]),
          candidates_json=js([cand("near", "Something", [1, 0]), cand("exact", "USER LIKES TEA.", [0, 1])]))
    c.add("gate-exact-first-of-two", GATE, "Two exact matches: the first in array order.", (),
          steps="gate.exact", text="user likes tea", embedding_json="null",
          candidates_json=js([cand("a", "User likes tea!"), cand("b", "user likes tea")]))
    c.add("gate-exact-match-text-as-given", GATE, "The match carries the candidate text as given, not normalized.", (),
          steps="gate.normalize_candidates gate.exact gate.decision", text="caf\u00e9", embedding_json="null",
          candidates_json=js([cand("a", "  \u201cCAFE\u0301\u201d ")]))
    c.add("gate-exact-empty-candidate-text", GATE, "A candidate text that normalizes to '' never matches exactly.",
          "project-decision", steps="gate.normalize_candidates gate.exact", text="tea", embedding_json="null",
          candidates_json=js([cand("a", "..."), cand("b", "")]))
    c.add("gate-near-later-strictly-greater", GATE,
          "A later candidate with a strictly greater similarity replaces the best.",
          (), steps="gate.near", text="New fact", embedding_json=js([1, 0]),
          candidates_json=js([cand("a", "A", [0.9, 0.43589]), cand("b", "B", [0.95, 0.31225])]))
    c.add("gate-tie-earliest", GATE, "Equal similarities: the earliest candidate wins.", "tie",
          text="New fact", embedding_json=js([1, 0]),
          candidates_json=js([cand("first", "A", [0.9, 0.43589]), cand("second", "B", [0.9, 0.43589])]))
    c.add("gate-tie-scaled-vectors", GATE, "Parallel vectors of different lengths tie at exactly 1.0.", "tie",
          text="New fact", embedding_json=js([3, 4]),
          candidates_json=js([cand("small", "A", [0.6, 0.8]), cand("large", "B", [30, 40])]))
    c.add("gate-identical-vectors-one", GATE, "Identical vectors give exactly 1.0.", "summation-order",
          text="New fact", embedding_json=js(ORDER_A), candidates_json=js([cand("same", "A", ORDER_A)]))
    c.add("gate-opposite-vectors", GATE, "Opposite vectors: similarity -1 is below threshold 0.", (),
          steps="gate.similarity gate.near", text="New fact", embedding_json=js([1, 2]),
          candidates_json=js([cand("opp", "A", [-1, -2])]), threshold=0)
    c.add("gate-orthogonal-threshold-zero", GATE, "Similarity 0 >= threshold 0 is a near match.", "threshold-boundary",
          text="New fact", embedding_json=js([1, 0]), candidates_json=js([cand("orth", "A", [0, 1])]), threshold=0)


def _threshold_cases(c: CaseList) -> None:
    at = js([cand("at", "Stored", AT_085)])
    c.add("gate-threshold-exactly-default", GATE, "Similarity 17/20 is exactly binary64 0.85: a near match (>=).",
          "threshold-boundary", text="New", embedding_json=js(E5), candidates_json=at)
    c.add("gate-threshold-ulp-above", GATE, "Threshold one ulp above the similarity: no match.", "threshold-boundary",
          text="New", embedding_json=js(E5), candidates_json=at, threshold=ULP_ABOVE_085)
    c.add("gate-threshold-ulp-below", GATE, "Threshold one ulp below the similarity: a match.", "threshold-boundary",
          text="New", embedding_json=js(E5), candidates_json=at, threshold=ULP_BELOW_085)
    c.add("gate-threshold-exact-3-4-5", GATE, "[1,0] vs [3,4]: similarity exactly 0.6 at threshold 0.6.",
          "threshold-boundary", text="New", embedding_json=js(E2), candidates_json=js([cand("t", "T", [3, 4])]),
          threshold=0.6)
    c.add("gate-threshold-one-int", GATE, "Threshold 1 (an integer) matches only similarity 1.0.",
          "threshold-boundary project-decision", text="New", embedding_json=js([2, 0]),
          candidates_json=js([cand("a", "A", [0.96, 0.28]), cand("b", "B", [5, 0])]), threshold=1)
    c.add("gate-threshold-zero-int", GATE, "Threshold 0 (an integer) is accepted.", "project-decision",
          steps="gate.threshold", text="New", embedding_json=js([1, 0]),
          candidates_json=js([cand("a", "A", [0.1, 0.9])]), threshold=0)
    c.add("gate-threshold-negative-zero", GATE, "Threshold -0.0 is in [0, 1].", "project-decision",
          steps="gate.threshold", text="New", embedding_json=js([1, 0]), candidates_json=js([cand("a", "A", [0, 1])]),
          threshold=-0.0)


def _arithmetic_cases(c: CaseList) -> None:
    c.add("gate-summation-order-16d", GATE,
          "16-D vectors: plain left-to-right sums give ...054; fsum, numpy dot and binary32 sums differ.",
          "summation-order", text="New", embedding_json=js(ORDER_A), candidates_json=js([cand("o", "O", ORDER_B)]),
          threshold=0)
    c.add("gate-summation-cancellation", GATE,
          "Large terms cancel: left to right, 1 is absorbed by 2^60 before -2^60 comes.", "summation-order",
          text="New", embedding_json=js([1, 1152921504606846976, 1152921504606846976, 1]),
          candidates_json=js([cand("c", "C", [1, 1, -1, 1])]), threshold=0)
    c.add("gate-binary32-tie-to-even", GATE,
          "1 + 2^-24 is halfway between two binary32 values and rounds to 1.0 (even): similarity exactly 1.",
          "binary32-rounding", text="New", embedding_json=js([1.0000000596046448, 1]),
          candidates_json=js([cand("e", "E", [1, 1])]))
    c.add("gate-binary32-double-rounding", GATE,
          "1 + 2^-24 + 2^-80 rounds to 1 + 2^-24 in binary64, then to 1.0 in binary32 (never directly up).",
          "binary32-rounding", text="New",
          embedding_json="[1.00000005960464477539062582718061255302767487140869206996285356581211090087890625,1]",
          candidates_json=js([cand("e", "E", [1, 1])]))
    c.add("gate-binary32-point-one", GATE, "0.1 is taken as binary32 0.100000001490116...", "binary32-rounding",
          text="New", embedding_json=js([0.1, 0.2, 0.3]), candidates_json=js([cand("p", "P", [0.3, 0.2, 0.1])]),
          threshold=0)
    c.add("gate-binary32-max", GATE, "3.4028235e38 rounds to the largest binary32 value: valid.", "binary32-rounding",
          text="New", embedding_json="[3.4028235e38,1]", candidates_json=js([cand("m", "M", [1, 1])]), threshold=0)
    c.add("gate-binary32-overflow", GATE, "3.4028236e38 rounds to binary32 infinity: invalid_embedding.",
          "binary32-rounding", text="New", embedding_json="[3.4028236e38,1]", candidates_json="null")
    c.add("gate-binary32-overflow-candidate", GATE, "A candidate value that overflows binary32.", "binary32-rounding",
          text="New", embedding_json="null", candidates_json='[{"id":"a","text":"A","embedding":[1e39]}]')
    c.add("gate-binary32-subnormal", GATE, "Binary32 subnormals are kept: tiny parallel vectors give 1.0.",
          "binary32-rounding", text="New", embedding_json="[1e-45,0]", candidates_json=js([cand("s", "S", [1, 0])]))
    c.add("gate-binary32-underflow-zero", GATE, "1e-50 rounds to binary32 zero: a zero vector, no near match.",
          "binary32-rounding not-compared", text="New", embedding_json="[1e-50,1e-50]",
          candidates_json=js([cand("s", "S", [1, 1])]))
    c.add("gate-seventeen-digits", GATE, "17-significant-digit decimals parse correctly rounded.", "binary32-rounding",
          text="New", embedding_json="[0.12345678901234568,0.98765432109876543]",
          candidates_json='[{"id":"a","text":"A","embedding":[0.98765432109876543,0.12345678901234568]}]', threshold=0)
    c.add("gate-big-integer-component", GATE, "An integer beyond 2^64 is a number; rounded to binary32.",
          "binary32-rounding strict-json project-decision", text="New",
          embedding_json="[36893488147419103232,36893488147419103232]", candidates_json=js([cand("a", "A", [1, 1])]))


def _not_compared_cases(c: CaseList) -> None:
    c.add("gate-dimension-mismatch", GATE, "A candidate with another dimension is not compared.", "not-compared",
          text="New", embedding_json=js([1, 0]), candidates_json=js([cand("d", "D", [1, 0, 0])]))
    c.add("gate-no-new-embedding", GATE, "No embedding for the new text: no near match at all.", "not-compared",
          text="New", embedding_json="null", candidates_json=js([cand("d", "D", [1, 0])]))
    c.add("gate-zero-new-embedding", GATE, "A zero new embedding: no near match at all.", "not-compared",
          text="New", embedding_json=js([0, 0]), candidates_json=js([cand("d", "D", [0, 0]), cand("e", "E", [1, 0])]),
          threshold=0)
    c.add("gate-zero-candidate-before-a-match", GATE, "A zero candidate vector first is not compared; the near "
          "match after it is found (no 0/0 similarity stands in its way).", "not-compared", steps="gate.near",
          text="New", embedding_json=js([1, 0]),
          candidates_json=js([cand("z", "Z", [0, 0]), cand("m", "M", [0.9, 0.43589])]))
    c.add("gate-zero-candidate-embedding", GATE, "A zero candidate vector is not compared (threshold 0).",
          "not-compared", text="New", embedding_json=js([1, 0]), candidates_json=js([cand("z", "Z", [0, -0.0])]),
          threshold=0)
    c.add("gate-candidate-without-embedding", GATE, "Candidates without an embedding, or with null, are not compared.",
          "not-compared", text="New", embedding_json=js([1, 0]),
          candidates_json=js([cand("a", "A"), {"id": "b", "text": "B", "embedding": None}]), threshold=0)
    c.add("gate-no-candidates-null", GATE, "candidates_json null: no candidates.", (),
          steps="gate.candidates", text="New", embedding_json=js([1, 0]), candidates_json="null")
    c.add("gate-no-candidates-empty", GATE, "candidates_json []: no candidates.", (),
          steps="gate.candidates", text="New", embedding_json=js([1, 0]), candidates_json="[]")
    c.add("gate-unknown-keys-ignored", GATE, "Unknown candidate keys are ignored (even nested ones).", (),
          steps="gate.candidate.object", text="New", embedding_json=js([1, 0]),
          candidates_json=js([cand("a", "A", [1, 0], score=0.5, meta={"x": [1, {"y": None}]})]))


def _measured_cases(c: CaseList) -> None:
    for slug, new, old, cosine in MEASURED:
        for mode in ("auto", "explicit", "mirror"):
            c.add(f"gate-measured-{slug}-{mode}", GATE,
                  f"Measured pair ({cosine}): {new!r} vs stored {old!r}, {mode} mode.", "measured-pair mode-table",
                  text=new, embedding_json=js(E2), candidates_json=js([cand("m1", old, unit_at(cosine))]), mode=mode)
    c.add("gate-measured-dark-light-high-threshold", GATE, "The dark/light pair (0.901) under threshold 0.92 is new.",
          "measured-pair", text="User prefers dark mode", embedding_json=js(E2),
          candidates_json=js([cand("m1", "User prefers light mode", unit_at(0.901))]), threshold=0.92)


def _error_cases(c: CaseList) -> None:
    ok = {"embedding_json": "null", "candidates_json": "null"}
    for value, slug in [(42, "int"), (None, "null"), (1.5, "float")]:
        c.add(f"gate-error-text-host-{slug}", GATE, f"text: a {slug} is not a string.", "host-type", text=value, **ok)
    c.add("gate-error-text-lone-surrogate", GATE, "text with a lone surrogate.", "lone-surrogate",
          text="tea\udfff", **ok)
    for text, slug in [("", "empty"), ("   ", "spaces"), ("\u201c...\u201d", "quotes-and-dots")]:
        c.add(f"gate-error-empty-text-{slug}", GATE, "Text that normalizes to '' is empty_text.", "empty-result",
              text=text, **ok)
    c.add("gate-error-empty-text-after-all-args", GATE, "empty_text is decided after every argument is valid.",
          "validation-order empty-result", text="", embedding_json="null", candidates_json="null", mode="bogus")
    bad_json = [
        ("", "empty-string", "The empty string is not JSON."),
        ("[1,", "truncated", "A truncated array."),
        ("NaN", "nan-literal", "NaN is not JSON."),
        ("[Infinity]", "infinity-literal", "Infinity is not JSON."),
        ("[-Infinity]", "minus-infinity-literal", "-Infinity is not JSON."),
        ("\ufeff[1]", "bom", "A leading byte order mark is a syntax error."),
        ("[1e400]", "overflow", "1e400 is infinite in binary64."),
        ("[-1e400]", "negative-overflow", "-1e400 is infinite in binary64."),
        ("[" + "9" * 400 + "]", "huge-integer", "A 400-digit integer is infinite in binary64."),
        ("[01]", "leading-zero", "Leading zeros are not JSON."),
        ("[.5]", "bare-fraction", "A number must start with a digit."),
        ("[1.]", "trailing-point", "A fraction needs digits."),
        ("[+1]", "plus-sign", "A leading plus is not JSON."),
        ("[0x10]", "hex", "Hex is not JSON."),
        ("[1,]", "trailing-comma", "A trailing comma is not JSON."),
        ("[1]\u00a0", "nbsp-after", "U+00A0 is not JSON whitespace."),
        ("[1] [2]", "two-values", "Two top-level values."),
        ("[\u0661]", "arabic-digit", "Only ASCII digits are JSON digits."),
        ("'x'", "single-quotes", "Single quotes are not JSON."),
        ("[1]\u0000", "nul-after", "A NUL after the value."),
    ]
    for text, slug, comment in bad_json:
        c.add(f"gate-error-json-embedding-{slug}", GATE, comment, "strict-json", text="t", embedding_json=text,
              candidates_json="null")
    c.add("gate-error-json-raw-control-in-string", GATE, "A raw tab inside a JSON string is a syntax error.",
          "strict-json project-decision", text="t", embedding_json="null",
          candidates_json='[{"id":"a","text":"x\ty"}]')
    c.add("gate-json-underflow-ok", GATE, "1e-400 underflows to zero: fine (a zero component).", "strict-json",
          steps="json.numbers", text="t", embedding_json="[1e-400,1]", candidates_json=js([cand("a", "A", [0, 1])]))
    c.add("gate-json-whitespace-ok", GATE, "The four JSON whitespace characters around tokens are fine.", "strict-json",
          steps="json.whitespace", text="t", embedding_json=" \t\n\r[ 1 ,\n0 ] \r\n", candidates_json=" null ")
    c.add("gate-json-exponent-forms", GATE, "1E0, 1e+0, 10e-1, -0 and 0.0 are all fine.", "strict-json",
          steps="json.syntax json.numbers", text="t", embedding_json="[1E0,1e+0,10e-1,-0,0.0]",
          candidates_json=js([cand("a", "A", [1, 1, 1, 0, 0])]))
    c.add("gate-error-json-raw-lone-surrogate", GATE, "A raw lone surrogate in the host string of a JSON argument.",
          "strict-json lone-surrogate", text="t", embedding_json="null",
          candidates_json='[{"id":"a","text":"x\ud800"}]')
    c.add("gate-error-json-raw-adjacent-high-low-surrogates", GATE,
          "A high then a low lone surrogate raw in the host string of a JSON argument: two lone surrogates.",
          "strict-json lone-surrogate utf16-inexpressible", text="t", embedding_json="null",
          candidates_json='[{"id":"a","text":"x\ud800\udc00"}]')
    c.add("gate-error-json-escaped-lone-surrogate", GATE, "An escape that decodes to a lone surrogate.",
          "strict-json", text="t", embedding_json="null", candidates_json='[{"id":"a","text":"x\\ud800"}]')
    c.add("gate-error-json-escaped-reversed-pair", GATE, "A low then a high surrogate escape: two lone surrogates.",
          "strict-json", text="t", embedding_json="null", candidates_json='[{"id":"a","text":"\\udc00\\ud800"}]')
    c.add("gate-error-json-lone-surrogate-in-ignored-key", GATE, "A lone surrogate escape in an ignored key.",
          "strict-json", text="t", embedding_json="null", candidates_json='[{"id":"a","text":"b","\\ud800":1}]')
    c.add("gate-json-escaped-pair-ok", GATE, "A valid surrogate pair escape decodes to U+1F600: fine.", "strict-json",
          steps="json.lone_surrogate", text="\U0001f600 tea", embedding_json="null",
          candidates_json='[{"id":"a","text":"\\ud83d\\ude00 TEA"}]')
    c.add("gate-error-json-duplicate-key", GATE, "Duplicate keys in a candidate.", "strict-json",
          text="t", embedding_json="null", candidates_json='[{"id":"a","text":"b","id":"c"}]')
    c.add("gate-error-json-duplicate-key-after-unescape", GATE, "Keys equal after unescaping are duplicates.",
          "strict-json", text="t", embedding_json="null", candidates_json='[{"id":"a","text":"b","\\u0069d":"c"}]')
    c.add("gate-error-json-duplicate-ignored-key", GATE, "Duplicates in an ignored key are still invalid.",
          "strict-json", text="t", embedding_json="null", candidates_json='[{"id":"a","text":"b","x":1,"x":1}]')
    c.add("gate-json-depth-100-ok", GATE, "100 nested levels (an ignored key included) are fine.", "strict-json",
          steps="json.depth", text="t", embedding_json="null",
          candidates_json='[{"id":"a","text":"b","x":' + "[" * 98 + "]" * 98 + "}]")
    c.add("gate-error-json-depth-101", GATE, "101 nested levels are invalid_json, even inside an ignored key.",
          "strict-json", text="t", embedding_json="null",
          candidates_json='[{"id":"a","text":"b","x":' + "[" * 99 + "]" * 99 + "}]")
    c.add("gate-error-json-deep-nesting", GATE, "20,000 nested arrays: invalid_json, no crash.", "strict-json",
          text="t", embedding_json="[" * 20000 + "]" * 20000, candidates_json="null")
    c.add("gate-json-brackets-in-strings-ok", GATE, "Brackets inside strings do not count as nesting.", "strict-json",
          steps="json.depth", text="t", embedding_json="null", candidates_json=js([cand("a", "[" * 150, x="{" * 150)]))
    for value, slug in [(None, "null"), (7, "int"), (True, "bool")]:
        c.add(f"gate-error-json-host-{slug}", GATE, f"embedding_json must be a string, not {slug}.", "host-type",
              text="t", embedding_json=value, candidates_json="null")
    bad_embeddings = [
        ("{}", "object"), ("[]", "empty-array"), ("[true]", "boolean"), ('["1"]', "string-element"),
        ("[null]", "null-element"), ("[1,[2]]", "nested-array"), ("3", "bare-number"), ('"x"', "string"),
    ]
    for text, slug in bad_embeddings:
        c.add(f"gate-error-embedding-{slug}", GATE, f"embedding_json {text}: not null or a non-empty number array.",
              "project-decision", text="t", embedding_json=text, candidates_json="null")
    bad_shapes = [
        ("{}", "object", "candidates_json must be null or an array."),
        ('"x"', "string", "candidates_json must be null or an array."),
        ("[1]", "number-element", "An element must be an object."),
        ("[null]", "null-element", "An element must be an object."),
        ('[{"text":"a"}]', "missing-id", "id is required."),
        ('[{"id":"","text":"a"}]', "empty-id", "id must be non-empty."),
        ('[{"id":5,"text":"a"}]', "int-id", "id must be a string."),
        ('[{"id":null,"text":"a"}]', "null-id", "id must be a string."),
        ('[{"id":"a"}]', "missing-text", "text is required."),
        ('[{"id":"a","text":null}]', "null-text", "text must be a string."),
        ('[{"id":"a","text":["x"]}]', "array-text", "text must be a string."),
        ('[{"id":"a","text":"b","pinned":"yes"}]', "string-pinned", "pinned must be a boolean or null."),
        ('[{"id":"a","text":"b","pinned":1}]', "int-pinned", "pinned must be a boolean or null."),
    ]
    for text, slug, comment in bad_shapes:
        c.add(f"gate-error-shape-{slug}", GATE, comment, (), text="t", embedding_json="null", candidates_json=text)
    c.add("gate-whitespace-id-accepted", GATE, "An id of one space is a non-empty string: accepted.",
          "project-decision",
          steps="gate.candidate.id", text="t", embedding_json="null", candidates_json=js([cand(" ", "T")]))
    c.add("gate-error-candidate-embedding-empty", GATE, "A candidate embedding [] is invalid_embedding.",
          "project-decision", text="t", embedding_json="null", candidates_json='[{"id":"a","text":"b","embedding":[]}]')
    c.add("gate-error-candidate-embedding-string", GATE, "A candidate embedding of strings.", (),
          text="t", embedding_json="null", candidates_json='[{"id":"a","text":"b","embedding":["1"]}]')
    c.add("gate-error-shape-before-embedding", GATE, "In one element, shape is checked before embedding.",
          "validation-order", text="t", embedding_json="null",
          candidates_json='[{"id":"a","text":5,"embedding":[]}]')
    c.add("gate-error-elements-in-order", GATE, "Element 0's bad embedding comes before element 1's bad shape.",
          "validation-order", text="t", embedding_json="null",
          candidates_json='[{"id":"a","text":"b","embedding":[]},{"id":""}]')
    c.add("gate-error-order-text-first", GATE, "Every argument is wrong: text decides.", "validation-order",
          text=None, embedding_json="[", candidates_json="{", threshold=2, mode="x", force="y")
    c.add("gate-error-order-embedding-before-candidates", GATE,
          "Bad embedding (valid JSON) before bad candidates JSON.",
          "validation-order", text="t", embedding_json="[]", candidates_json="{")
    c.add("gate-error-order-candidates-before-threshold", GATE, "Bad candidates shape before a bad threshold.",
          "validation-order", text="t", embedding_json="null", candidates_json="{}", threshold=-1)
    c.add("gate-error-order-threshold-before-mode", GATE, "Bad threshold before a bad mode.", "validation-order",
          text="t", embedding_json="null", candidates_json="null", threshold=1.5, mode="x")
    c.add("gate-error-order-mode-before-force", GATE, "Bad mode before a bad force.", "validation-order",
          text="t", embedding_json="null", candidates_json="null", mode="x", force=1)
    for value, slug in [(-0.1, "negative"), (1.0000000000000002, "ulp-above-one"), (float("nan"), "nan"),
                        (float("inf"), "infinity"), (True, "bool"), ("0.85", "string"), (None, "null"), (2, "int-two"),
                        (10**400, "huge-int")]:
        c.add(f"gate-error-threshold-{slug}", GATE, f"threshold {slug}: not a number in [0, 1].",
              "host-type" if slug in ("bool", "string", "null") else (), text="t", embedding_json="null",
              candidates_json="null", threshold=value)
    for value, slug in [("AUTO", "uppercase"), ("", "empty"), (None, "null"), (1, "int"), ("auto ", "trailing-space"),
                        ("auto\ud800", "lone-surrogate")]:
        c.add(f"gate-error-mode-{slug}", GATE, f"mode {slug}: not one of the four modes.",
              "lone-surrogate" if slug == "lone-surrogate" else ("host-type" if slug in ("null", "int") else ()),
              text="t", embedding_json="null", candidates_json="null", mode=value)
    for value, slug in [("true", "string"), (1, "int-one"), (0, "int-zero"), (None, "null")]:
        c.add(f"gate-error-force-{slug}", GATE, f"force {slug}: not a boolean.", "host-type", text="t",
              embedding_json="null", candidates_json="null", mode="explicit", force=value)
    c.add("gate-force-ignored-outside-explicit", GATE, "force must still be a boolean in auto mode; true is allowed.",
          "mode-table", steps="gate.force", text="t", embedding_json="null", candidates_json="null", mode="auto",
          force=True)


def _json_text_cases(c: CaseList) -> None:
    """What a wrong JSON reader gets wrong (generators/json_texts.py): each number text as the first
    component against [1, 0] at threshold 0, so its binary32 value shows in the similarity; every escape
    in a matched candidate's text; whitespace and its near misses at every position; nested duplicates."""
    against = js([cand("x", "X", [1, 0])])
    for slug, text in NUMBER_TEXTS:
        c.add(f"gate-number-{slug}", GATE, f"The number text {text[:40]}{'...' if len(text) > 40 else ''}: read "
              "correctly rounded to binary64, then to binary32.", "strict-json binary32-rounding",
              steps="json.numbers", text="New", embedding_json=f"[{text},1]", candidates_json=against, threshold=0)
    escaped = "".join(escape for escape, _ in ESCAPES)
    decoded = "".join(char for _, char in ESCAPES)
    c.add("gate-json-every-escape", GATE, "Every escape of RFC 8259, \\/ included, in a candidate text that matches "
          "exactly; the match carries the decoded text.", "strict-json", steps="json.syntax gate.exact",
          text=decoded, embedding_json="null", candidates_json='[{"id":"e\\/1","text":"' + escaped + '"}]')
    c.add("gate-json-white-space-everywhere", GATE, "Space, tab, line feed and carriage return before, between "
          "and after every token of both JSON arguments.", "strict-json", steps="json.whitespace",
          text="New", embedding_json=every_slot("[1,0]"),
          candidates_json=every_slot('[{"id":"a","text":"b","embedding":[1,0]}]'), threshold=0)
    for char_slug, char in NEAR_MISS_WHITE_SPACE.items():
        for where, template in ARRAY_POSITIONS.items():
            c.add(f"gate-error-json-{char_slug}-{where}", GATE, f"U+{ord(char):04X} is not JSON whitespace ({where}).",
                  "strict-json", text="New", embedding_json=at(template, char), candidates_json="null")
        for where, template in OBJECT_POSITIONS.items():
            c.add(f"gate-error-json-candidate-{char_slug}-{where}", GATE,
                  f"U+{ord(char):04X} is not JSON whitespace in a candidate object ({where}).", "strict-json",
                  text="New", embedding_json="null", candidates_json=at(template, char))
    for slug, text in NESTED_DUPLICATES:
        c.add(f"gate-error-json-duplicate-{slug}", GATE, "Duplicate keys below the top level are invalid_json.",
              "strict-json", text="New", embedding_json="null", candidates_json=text)
    c.add("gate-error-json-duplicate-in-embedding", GATE, "A duplicate key inside embedding_json is invalid_json, "
          "decided before its shape (invalid_embedding).", "strict-json validation-order", text="New",
          embedding_json='[1,{"a":1,"a":2}]', candidates_json="null")
    for feature in json_grammar.combinations():  # one case per feature combination the grammar pins
        text = json_grammar.build(feature, random.Random(feature.slug))
        pins = " ".join(step for step, pinned in (("json.depth", feature.depth >= json_grammar.LIMIT),
                                                  ("json.duplicate_key", feature.members > 8),
                                                  ("json.whitespace", feature.gap != "none")) if pinned)
        c.add(f"gate-json-grammar-{feature.slug}", GATE, f"From the JSON grammar ({feature.slug}): a candidates_json "
              f"that is {'strict JSON (of another shape)' if feature.valid else 'not strict JSON'}, its strings set "
              "before its nesting (harness/model/json_grammar.py).", "strict-json",
              steps=pins if feature.valid else (), text="New", embedding_json="null", candidates_json=text)


def build_cases() -> list[Case]:
    c = CaseList()
    _normalize_cases(c)
    _mode_table_cases(c)
    _pinned_cases(c)
    _rule_cases(c)
    _threshold_cases(c)
    _arithmetic_cases(c)
    _not_compared_cases(c)
    _measured_cases(c)
    _error_cases(c)
    _json_text_cases(c)
    return c.cases


# What a result case with each flag pins (generators/steps.py); error cases name the step that failed.
FLAG_STEPS = {
    "nfc": ("norm.nfc",),
    "quote-dash-map": ("norm.quote_dash",),
    "case-mapping": ("norm.lowercase",),
    "final-sigma": ("norm.lowercase",),
    "white-space": ("norm.white_space",),
    "not-white-space": ("norm.white_space", "norm.edges"),
    "edge-punctuation": ("norm.edges",),
    "mode-table": ("gate.decision",),
    "pinned": ("gate.near",),
    "threshold-boundary": ("gate.near",),
    "binary32-rounding": ("gate.binary32",),
    "summation-order": ("gate.similarity",),
    "not-compared": ("gate.similarity",),
    "tie": ("gate.near",),
    "measured-pair": ("gate.near",),
}

SPEC = FixtureSpec(
    family="write-gate",
    version=1,
    generator_version="1.1.0",
    module="generators.write_gate_v1",
    notes=NOTES,
    cases=build_cases,
    min_cases=120,
    ops=("normalize_fact_text", "decide_write"),
    flag_steps=FLAG_STEPS,
)
