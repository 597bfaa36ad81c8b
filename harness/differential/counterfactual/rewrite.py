"""The rewrites of an input a counterfactual runs: characters replaced by stand-ins of their role, JSON texts
rewritten (an element less, strict, rescaled, rounded to binary32, a flag cleared).

Nothing here asks the reference how to read an input: JSON is parsed with the standard library and the
contract's character sets come from harness/model/contract_sets.py.
"""

from __future__ import annotations

import json
import math
import re
import struct
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import unicodedata2

from harness.model import hostvalues, unicode_tables
from harness.model.contract_sets import EDGE_PUNCTUATION, LINE_BREAKS, WHITE_SPACE
from harness.testees.impls import oracle as oracle_name


def parse_json(value: str) -> Any:
    """The value of a JSON text by the standard library (never an implementation's parser, so a JSON bug
    in the reference cannot bend the explanation); None when it is not JSON."""
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return None


def map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """Apply ``fn`` to a host string. A JSON text (one the standard library reads) is parsed and only its
    string values change (keys and structure stay; the text is rewritten compactly when something
    changed), so a replacement never breaks the JSON around the characters it names."""
    if not isinstance(value, str):
        return value
    parsed = parse_json(value)
    if not isinstance(parsed, (list, dict)):
        return fn(value)

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return fn(item)
        if isinstance(item, list):
            return [walk(x) for x in item]
        if isinstance(item, dict):
            return {k: walk(v) for k, v in item.items()}
        return item

    walked = walk(parsed)
    return value if walked == parsed else json.dumps(walked, ensure_ascii=False, separators=(",", ":"))


# Stand-ins of the same role for replaced characters: the same case (cased or not), still a mark, a
# digit, punctuation or a format character, so that a counterfactual removes what the cause names and
# not the context around it (a final-sigma context, an edge character, the text itself). Each stand-in
# is stable across every Unicode version in play and in no set the contract names.
UPPER = "XYZQJKVWBDFGHLMNPRST"
LOWER = UPPER.lower()
SYMBOLS = "#%&*+<=>@^|~$"
_POOLS = {"Lu": UPPER, "Lt": UPPER, "Ll": LOWER, "Lm": "".join(map(chr, range(0x05D0, 0x05EB))),
          "Lo": "".join(map(chr, range(0x05D0, 0x05EB))), "Mn": "\u0334\u0335\u0336\u0337\u0338",
          "Mc": "\u0334\u0335\u0336\u0337\u0338", "Me": "\u0334\u0335\u0336\u0337\u0338", "Nd": "0123456789",
          "Nl": "0123456789", "No": "0123456789", "Cf": "\u00ad\u200e\u200f"}


def role(ch: str) -> str:
    """The pool of stand-ins for ``ch``: same case, still a mark, a digit, punctuation or format."""
    category = unicodedata2.category(ch)
    return _POOLS.get(category, SYMBOLS if category[0] in "PS" else "_" + SYMBOLS)


# Case_Ignorable and not Cased in every version in play, no NFC data, in no rule's set (Lm, U+02B9..U+02BC).
_IGNORABLE = "\u02b9\u02ba\u02bb\u02bc"
# Neither Cased nor Case_Ignorable, no NFC data, no punctuation or space (Hebrew letters, Lo): a stand-in an
# edge-stripping or trimming bug leaves alone, so replacing a character never adds a trigger of its own.
_UNCASED = "".join(map(chr, range(0x05D0, 0x05EB)))


def oracle_role(versions: dict[str, dict[str, str]]) -> Callable[[str], str]:
    """Stand-ins for characters whose Unicode data differs between versions: never combining (NFC leaves
    them alone in every version), with the case role each has in the oracle's own case data
    (data/unicode-tables/): a letter of the same case if it is Cased there, a case-ignorable modifier if it
    is Case_Ignorable there (the final-sigma context), else an uncased letter. So replacing it takes the version
    difference away without changing what a capital sigma next to it sees. Without the oracle's table:
    `role` (the newest data)."""
    mine = versions.get(oracle_name(), {})
    try:
        case = unicode_tables.table(mine["case_mapping"])
    except (KeyError, unicode_tables.MissingTable):
        return role

    def pool(ch: str) -> str:
        cp = ord(ch)
        lower, cased, ignorable = case.data(cp, "case_mapping")
        if cased:
            return UPPER if lower != (cp,) else LOWER
        return _IGNORABLE if ignorable else _UNCASED

    return pool


@lru_cache(maxsize=64)
def _stable_marks(ccc: int) -> str:
    """Non-spacing marks of combining class ``ccc`` with that class in the oldest data the harness runs with
    (this Python's ``unicodedata``) and the newest (``unicodedata2``), in no canonical decomposition (so they
    never compose with a base) and without one of their own: NFC orders them the same way in every version
    in play and changes nothing else. Empty when the BMP has none of that class."""
    found = []
    for cp in range(0x0300, 0x10000):
        ch = chr(cp)
        if 0xD800 <= cp <= 0xDFFF or unicodedata.combining(ch) != ccc or unicodedata2.combining(ch) != ccc:
            continue
        if unicodedata.category(ch) == "Mn" == unicodedata2.category(ch) and not unicodedata2.decomposition(ch) \
                and cp not in composing_parts():
            found.append(ch)
            if len(found) == 5:
                break
    return "".join(found)


@lru_cache(maxsize=1)
def composing_parts() -> frozenset[int]:
    """Code points some canonical decomposition (newest data) names: a mark among them can compose."""
    parts: set[int] = set()
    for cp in range(0x110000):
        if not 0xD800 <= cp <= 0xDFFF:
            decomposition = unicodedata2.decomposition(chr(cp))
            if decomposition and not decomposition.startswith("<"):
                parts.update(int(h, 16) for h in decomposition.split())
    return frozenset(parts)


def marks_kept(pool: Callable[[str], str]) -> Callable[[str], str]:
    """``pool`` except for combining marks (a nonzero class in the newest data), which get a stable mark of
    the same class: where a skewed mark's place in NFC's canonical order is what lets two texts normalize
    alike, a non-combining stand-in takes that away with the skew (a bug that shows only on texts equal after
    NFC, an exact match done on raw texts, vanishes with it), and this one keeps it."""

    def kept(ch: str) -> str:
        ccc = unicodedata2.combining(ch)
        return (_stable_marks(ccc) or pool(ch)) if ccc else pool(ch)

    return kept


def plain_role(ch: str) -> str:
    """Stand-ins that NFC leaves alone and that never combine, keeping the character's other roles: a
    space for White_Space, edge punctuation for edge punctuation, letters of the same case, else symbols."""
    if ch in WHITE_SPACE:
        return " \t\n"
    if ch in EDGE_PUNCTUATION:
        return ".,;:!?"
    category = unicodedata2.category(ch)
    return UPPER if category in ("Lu", "Lt") else (LOWER if category[0] == "L" else "_" + SYMBOLS)


def replace_chars(args: dict[str, Any], predicate: Callable[[str], bool],
                   pool: Callable[[str], str] | None = None) -> dict[str, Any]:
    """Every character ``predicate`` names replaced by a stand-in of its role (``pool``), one distinct
    stand-in per distinct character and none that already occurs in the input, so that replacing never
    makes two different texts equal (an exact match) or two equal ones different."""
    pool = pool or role
    present = {ch for text in all_strings(args) for ch in text}
    chosen: dict[str, str] = {}

    def substitute(ch: str) -> str:
        if ch not in chosen:
            used = set(chosen.values()) | present
            chosen[ch] = next((c for c in pool(ch) if c not in used), pool(ch)[0])
        return chosen[ch]

    def fn(text: str) -> str:
        return "".join(substitute(ch) if predicate(ch) else ch for ch in text)

    return {name: map_strings(value, fn) for name, value in args.items()}


def all_strings(args: dict[str, Any]) -> list[str]:
    """Every host string of the arguments that is not a JSON text, and every string value inside those
    that are (keys are structure, not text)."""
    found: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, list):
            for x in item:
                walk(x)
        elif isinstance(item, dict):
            for x in item.values():
                walk(x)

    for value in args.values():
        if isinstance(value, str):
            parsed = parse_json(value)
            if isinstance(parsed, (list, dict)):
                walk(parsed)
            else:
                found.append(value)
    return found


def same_args(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal as host values: 0 is not False, 1 is not 1.0 (Python's == says they are)."""
    def key(args: dict[str, Any]) -> str:
        return json.dumps(hostvalues.encode_args(args), sort_keys=True, default=repr) + \
            repr(sorted((k, type(v).__name__) for k, v in args.items()))

    return key(a) == key(b)


KEEP = object()


def rewrite_json(text: str, replace: Callable[[Any], Any]) -> str:
    """The JSON text (read by the standard library) with ``replace`` applied to every value, outermost
    first: it returns a replacement (not visited further) or ``KEEP``. Rewritten compactly when
    something changed; unchanged when the text is not JSON."""
    def walk(value: Any) -> Any:
        replaced = replace(value)
        if replaced is not KEEP:
            return replaced
        if isinstance(value, list):
            return [walk(x) for x in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return text
    changed = walk(parsed)
    return text if changed == parsed else json.dumps(changed, separators=(",", ":"), ensure_ascii=False)


def one_less(text: str, limit: int = 40) -> list[str]:
    """The JSON text with one element of its top-level array, or one member of one of its objects, left
    out (at most ``limit`` variants)."""
    parsed = parse_json(text)
    out: list[Any] = []
    if isinstance(parsed, list):
        for i, item in enumerate(parsed):
            out.append(parsed[:i] + parsed[i + 1:])
            if isinstance(item, dict):
                out += [parsed[:i] + [{k: v for k, v in item.items() if k != key}] + parsed[i + 1:] for key in item]
    elif isinstance(parsed, dict):
        out += [{k: v for k, v in parsed.items() if k != key} for key in parsed]
    return [json.dumps(value, separators=(",", ":"), ensure_ascii=False) for value in out[:limit]]


def each_alone(text: str, limit: int = 10) -> list[str]:
    """The JSON text's top-level array reduced to each one of its elements."""
    parsed = parse_json(text)
    if not isinstance(parsed, list) or len(parsed) < 2:
        return []
    return [json.dumps([item], separators=(",", ":"), ensure_ascii=False) for item in parsed[:limit]]


def _number_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and \
        all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)


def unflagged(text: str, flag: str) -> str:
    """The JSON text with every ``"<flag>": true`` made false."""
    def replace(value: Any) -> Any:
        if isinstance(value, dict) and value.get(flag) is True:
            return {**value, flag: False}
        return KEEP

    return rewrite_json(text, replace)


def rescale(text: str) -> str:
    """The JSON text with every array of numbers divided by its largest absolute component (the same
    direction, so the same cosine similarity in exact arithmetic, with magnitudes near 1)."""
    def replace(value: Any) -> Any:
        if not _number_array(value):
            return KEEP
        largest = max(abs(float(x)) for x in value)
        return [float(x) / largest for x in value] if largest > 0 and math.isfinite(largest) else value

    return rewrite_json(text, replace)


def binary32_rewrite(text: str) -> str:
    """The JSON text with every number rounded to binary32 (overflow: the largest finite one, keeping
    the sign)."""
    largest = 3.4028234663852886e38

    def replace(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
            return KEEP
        try:
            return struct.unpack("<f", struct.pack("<f", float(value)))[0]
        except OverflowError:
            return math.copysign(largest, float(value))

    return rewrite_json(text, replace)


def strict_rewrite(text: str) -> str:
    """The JSON text as strict JSON where the standard library can read it (BOM dropped, duplicate keys
    merged, NaN/Infinity and overflowing numbers as 0, compact); unchanged where it cannot."""
    def replace(value: Any) -> Any:
        return 0 if isinstance(value, float) and not math.isfinite(value) else KEEP

    stripped = text.lstrip("\ufeff")
    rewritten = rewrite_json(stripped, replace)
    if rewritten == stripped and parse_json(stripped) is not None:
        rewritten = json.dumps(json.loads(stripped), separators=(",", ":"), ensure_ascii=False)
    return rewritten


def collapse_lines(text: str) -> str:
    """The contract's line collapse, the harness's own: split on line breaks, trim White_Space, drop
    empty pieces, join with one space."""
    pieces = re.split("[" + "".join(sorted(LINE_BREAKS)) + "]", text)
    return " ".join(kept for kept in (piece.strip("".join(WHITE_SPACE)) for piece in pieces) if kept)
