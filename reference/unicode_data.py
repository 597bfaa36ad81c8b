"""The Unicode data the reference uses, in one place.

* Normalization (NFC) comes from ``unicodedata2``, pinned in ``pyproject.toml`` to the Unicode
  version of the Rust core's normalization tables, never from the interpreter's ``unicodedata``.
* Case mapping is CPython's ``str.lower``: full default lowercase mapping, locale-independent, with
  the final-sigma rule, from the interpreter's own Unicode database (``unicodedata.unidata_version``).
* White_Space is the fixed set written in the contract, never ``str.isspace``/``split``/``strip``.
"""

from __future__ import annotations

import json
import re
import unicodedata

import unicodedata2

NORMALIZATION_VERSION: str = unicodedata2.unidata_version
CASE_MAPPING_VERSION: str = unicodedata.unidata_version
WHITE_SPACE_VERSION = "contract-v1"

# White_Space, exactly as listed in contract v1 (section normalize_fact_text, step 6).
WHITE_SPACE = frozenset(
    [chr(c) for c in range(0x0009, 0x000D + 1)]
    + ["\u0020", "\u0085", "\u00a0", "\u1680"]
    + [chr(c) for c in range(0x2000, 0x200A + 1)]
    + ["\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
)

# Characters removed from both ends by normalize step 7, besides White_Space.
EDGE_PUNCTUATION = frozenset(
    ". , ; : ! ? \" '".split(" ")
    + ["\u2026", "\u00a1", "\u00bf", "\u3001", "\u3002", "\uff01", "\uff0c", "\uff0e", "\uff1a", "\uff1b", "\uff1f"]
)

# Typographic quotes and dashes mapped to ASCII by normalize step 3.
_QUOTE_DASH_SOURCES = {
    "'": "\u2018 \u2019 \u201a \u201b \u2032 \u2039 \u203a \uff07",
    '"': "\u201c \u201d \u201e \u201f \u2033 \u00ab \u00bb \uff02",
    "-": "\u2010 \u2011 \u2012 \u2013 \u2014 \u2015 \u2212 \ufe58 \ufe63 \uff0d",
}
QUOTE_DASH_MAP = {
    ord(source): target
    for target, sources in _QUOTE_DASH_SOURCES.items()
    for source in sources.split(" ")
}

# Line breaks for the dedup-context collapse: U+000A-U+000D, U+0085, U+2028, U+2029.
LINE_BREAKS = frozenset(["\n", "\u000b", "\u000c", "\r", "\u0085", "\u2028", "\u2029"])

# The sets above as str.strip() arguments and regular expression classes (each character by itself).
WHITE_SPACE_CHARS = "".join(sorted(WHITE_SPACE))
EDGE_CHARS = "".join(sorted(WHITE_SPACE | EDGE_PUNCTUATION))
WHITE_SPACE_RUN = re.compile("[" + "".join(re.escape(ch) for ch in WHITE_SPACE_CHARS) + "]+")
LINE_BREAK = re.compile("[" + "".join(re.escape(ch) for ch in sorted(LINE_BREAKS)) + "]")

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    """True when ``text`` holds a surrogate code point (a Python str never holds a paired one)."""
    return _SURROGATE.search(text) is not None


def nfc(text: str) -> str:
    return unicodedata2.normalize("NFC", text)


def unicode_versions() -> str:
    """JSON naming the Unicode data each Unicode-dependent step uses."""
    return json.dumps(
        {
            "case_mapping": CASE_MAPPING_VERSION,
            "normalization": NORMALIZATION_VERSION,
            "white_space": WHITE_SPACE_VERSION,
        },
        sort_keys=True,
        separators=(",", ":"),
    )
