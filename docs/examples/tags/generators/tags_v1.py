"""Generator of the example family's fixture tags-v1 (docs/examples/tags): the inputs of ``tag_normalize``.

Only inputs live here; every expectation is the reference's (``tags_ref``), computed by the harness's
generator framework. The family file names this file (``"fixtures"``) and the folder the fixture goes in;
``python -m generators write tags-v1`` writes it, ``check`` and the fixture lint hold it to the reference.
Case ids are stable: never rename or reuse one; add new ones.
"""

from __future__ import annotations

from generators.framework import Case, FixtureSpec

OP = "tag_normalize"
NOTES = {
    "plain": "ASCII letters and spaces: every step on the obvious input.",
    "white-space": "A White_Space character (the reference's set of 25): one - for each run (step 2).",
    "not-white-space": "Whitespace to some platforms (U+001C..U+001F, U+FEFF, U+180E, U+200B), not White_Space: kept.",
    "edges": "A - at an end, from the text or from White_Space there: stripped (step 3).",
    "ascii-lowercase": "A-Z lowercased, and nothing else: non-ASCII capitals kept (step 4).",
    "host-type": "A host value that is not a string: invalid_text (step 1).",
}
FLAG_STEPS = {
    "plain": ("tags.white_space", "tags.lowercase"),
    "white-space": ("tags.white_space",),
    "not-white-space": ("tags.white_space",),
    "edges": ("tags.edges",),
    "ascii-lowercase": ("tags.lowercase",),
}
WHITE_SPACE = {"\t": "tab", "\x85": "u0085-next-line", "\xa0": "u00a0-no-break-space", "\u1680": "u1680-ogham",
               "\u2028": "u2028-line-separator", "\u3000": "u3000-ideographic-space"}
NOT_WHITE_SPACE = {"\x1c": "u001c-file-separator", "\x1d": "u001d-group-separator",
                   "\x1e": "u001e-record-separator", "\x1f": "u001f-unit-separator", "\ufeff": "ufeff-bom",
                   "\u180e": "u180e-mongolian-vowel-separator", "\u200b": "u200b-zero-width-space"}


def build_cases() -> list[Case]:
    cases = [
        Case("plain-two-words", OP, "two words", ("plain",), {"text": "Plain Tag"}),
        Case("plain-empty", OP, "the empty text", ("plain",), {"text": ""}),
        Case("edges-spaces-around", OP, "White_Space at both ends becomes - and is stripped",
             ("white-space", "edges"), {"text": "  tea  "}),
        Case("edges-hyphens-kept-inside", OP, "- inside is kept, at the ends stripped", ("edges",),
             {"text": "-a-b-"}),
        Case("lowercase-ascii-only", OP, "A-Z lowercased, capital sigma and A-ring kept", ("ascii-lowercase",),
             {"text": "Tea\u03a3\u00c5"}),
    ]
    for char, name in WHITE_SPACE.items():
        cases.append(Case(f"white-space-{name}", OP, f"U+{ord(char):04X} between letters is one -",
                          ("white-space",), {"text": f"a{char}{char}b"}))
    for char, name in NOT_WHITE_SPACE.items():
        cases.append(Case(f"not-white-space-{name}", OP, f"U+{ord(char):04X} between letters is kept",
                          ("not-white-space",), {"text": f"a{char}b"}))
    for value, name in ((None, "null"), (7, "integer"), (True, "boolean")):
        cases.append(Case(f"host-type-{name}", OP, f"text is {name}, not a string", ("host-type",), {"text": value}))
    return cases


SPEC = FixtureSpec(family="tags", version=1, generator_version="1.0.0", module="tags_v1", notes=NOTES,
                   cases=build_cases, min_cases=10, ops=(OP,), flag_steps=FLAG_STEPS)
