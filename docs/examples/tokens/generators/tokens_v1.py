"""Generator of the second example family's fixture tokens-v1 (docs/examples/tokens): the inputs of ``tokenize``.

Only inputs live here; every expectation is the reference's (``tokens_ref``: the JSON list, parsed, since the op's
result is ``json``), computed by the harness's generator framework. The family file names this file
(``"fixtures"``) and the folder the fixture goes in; ``python -m generators write tokens-v1`` writes it, ``check``
and the fixture lint hold it to the reference. Every character here has one General_Category in every Unicode
version in play (generators/unicode_stability.py refuses one that does not), so the fixture is the same whichever
version an implementation reads: a version skew is the sweep's to find, never a fixture case's.
Case ids are stable: never rename or reuse one; add new ones.
"""

from __future__ import annotations

from generators.framework import Case, FixtureSpec

OP = "tokenize"
NOTES = {
    "plain": "ASCII words, spaces and punctuation: every step on the obvious input.",
    "letters-numbers": "Letters and numbers of every General_Category L* and N*, in several scripts: one token a run.",
    "separators": "Punctuation, symbols, spaces, controls, lone surrogates: each ends a token, in none (step 2).",
    "marks": "A combining mark (Mn, Mc, Me) is no letter: it ends the token it follows and is in none (step 2).",
    "length": "A token of 12 code points is kept, of 13 dropped, whatever its UTF-8 or UTF-16 length (step 3).",
    "host-type": "A host value that is not a string: invalid_text (step 1).",
}
FLAG_STEPS = {
    "plain": ("tok.split", "tok.length"),
    "letters-numbers": ("tok.split",),
    "separators": ("tok.split",),
    "marks": ("tok.split",),
    "length": ("tok.length",),
}
LETTERS_NUMBERS = {
    "greek": "\u0395\u03bb\u03bb\u03ac\u03b4\u03b1",  # Lu, Ll (12 UTF-8 bytes)
    "cyrillic-digits": "\u043a\u0438\u0440 42",
    "titlecase-modifier": "\u01c5\u02b0x",  # Lt, Lm
    "cjk": "\u65e5\u672c\u8a9e \u3042",  # Lo
    "arabic-indic-digits": "\u0663\u0664\u0665",  # Nd
    "roman-numeral-fraction": "\u216b \u00bd\u00b2",  # Nl, No
}
SEPARATORS = {
    "hyphen-underscore": "x-y_z",
    "symbols": "a+b=c\u00a9d\u20ace",  # Sm, So, Sc
    "no-break-space": "a\u00a0b",
    "ideographic-full-stop": "\u65e5\u3002\u672c",
    "control": "a\tb\x00c",
    "lone-surrogate": "a\ud800b\udfffc",
}
MARKS = {
    "mn-acute": "a\u0301b",
    "mn-after-last-letter": "e\u0301",
    "mn-alone": "\u0301",
    "mc-devanagari": "\u0915\u093e\u0916",
    "me-enclosing-circle": "a\u20ddb",
}
LENGTH = {
    "ascii-twelve": ("abcdefghijkl", "12 ASCII letters: kept"),
    "ascii-thirteen": ("abcdefghijklm", "13 ASCII letters: dropped"),
    "latin1-twelve": ("abcdefghijk\u00e9", "12 code points, 13 UTF-8 bytes: kept"),
    "cjk-twelve": ("\u65e5" * 12, "12 CJK ideographs, 36 UTF-8 bytes: kept"),
    "cjk-thirteen": ("\u65e5" * 13, "13 CJK ideographs: dropped"),
    "astral-twelve": ("\U0001d400" * 12, "12 astral letters, 24 UTF-16 units, 48 UTF-8 bytes: kept"),
    "between-kept-tokens": ("ab abcdefghijklm cd", "the long token alone dropped, the others kept in order"),
}


def build_cases() -> list[Case]:
    cases = [
        Case("plain-words-and-number", OP, "three tokens: punctuation and spaces end them", ("plain",),
             {"text": "Hello, world 42"}),
        Case("plain-empty", OP, "the empty text: no token", ("plain",), {"text": ""}),
        Case("plain-only-spaces", OP, "spaces only: no token", ("plain",), {"text": "   "}),
    ]
    for name, text in LETTERS_NUMBERS.items():
        cases.append(Case(f"letters-numbers-{name}", OP, "letters and numbers are tokens", ("letters-numbers",),
                          {"text": text}))
    for name, text in SEPARATORS.items():
        cases.append(Case(f"separators-{name}", OP, "a separator ends a token and is in none", ("separators",),
                          {"text": text}))
    for name, text in MARKS.items():
        cases.append(Case(f"marks-{name}", OP, "a mark ends a token and is in none", ("marks",), {"text": text}))
    for name, (text, comment) in LENGTH.items():
        cases.append(Case(f"length-{name}", OP, comment, ("length",), {"text": text}))
    for value, name in ((None, "null"), (7, "integer"), (True, "boolean")):
        cases.append(Case(f"host-type-{name}", OP, f"text is {name}, not a string", ("host-type",), {"text": value}))
    return cases


SPEC = FixtureSpec(family="tokens", version=1, generator_version="1.0.0", module="tokens_v1", notes=NOTES,
                   cases=build_cases, min_cases=20, ops=(OP,), flag_steps=FLAG_STEPS)
