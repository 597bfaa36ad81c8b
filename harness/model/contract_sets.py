"""The character sets contract v1 names, as the harness's own data (written from docs/contract.md).

The search (strategies, sweep templates, cause classifier) must not take what it looks for from the
implementation it tests: a reference that loses an edge-punctuation character would otherwise stop
generating that character too, and the bug would never be found. So these sets are copied from the
contract here, independently of ``reference/unicode_data.py``; ``suites/model/test_harness.py`` checks that
the two copies agree on the unplanted reference.
"""

from __future__ import annotations

# normalize_fact_text step 6: the White_Space property.
WHITE_SPACE = frozenset(
    [chr(c) for c in range(0x09, 0x0E)] + ["\u0020", "\u0085", "\u00a0", "\u1680"]
    + [chr(c) for c in range(0x2000, 0x200B)] + ["\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
)

# Characters the contract names as NOT White_Space, and others that some library treats as space
# (Python's str.isspace/strip: U+001C-U+001F; JavaScript's trim and \s: U+FEFF; old Unicode: U+180E).
NEAR_WHITE_SPACE = frozenset(["\u001c", "\u001d", "\u001e", "\u001f", "\ufeff", "\u180e", "\u200b", "\u200c",
                              "\u200d", "\u2060"])

# normalize_fact_text step 7: stripped from both ends, besides White_Space.
EDGE_PUNCTUATION = frozenset(list(".,;:!?\"'") + ["\u2026", "\u00a1", "\u00bf", "\u3001", "\u3002", "\uff01",
                                                  "\uff0c", "\uff0e", "\uff1a", "\uff1b", "\uff1f"])

# normalize_fact_text step 3: typographic quotes and dashes -> ASCII.
QUOTE_DASH = {
    **{ch: "'" for ch in "\u2018\u2019\u201a\u201b\u2032\u2039\u203a\uff07"},
    **{ch: '"' for ch in "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb\uff02"},
    **{ch: "-" for ch in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"},
}

# build_dedup_context: the line breaks ids and texts are split on.
LINE_BREAKS = frozenset(["\n", "\u000b", "\u000c", "\r", "\u0085", "\u2028", "\u2029"])

# RFC 8259: the only whitespace between JSON tokens.
JSON_WHITE_SPACE = frozenset(["\t", "\n", "\r", " "])


def white_space_like(ch: str) -> bool:
    """White_Space, a near miss, or what Python or JavaScript calls space (U+0020 included)."""
    return ch in WHITE_SPACE or ch in NEAR_WHITE_SPACE or ch.isspace()
