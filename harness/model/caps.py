"""Caps on what a testee sends that the harness keeps (issue 49, item 5): an answer's value, an error message,
each string of a self-description. A value over its cap is kept as an ``Oversized``: a string (so every report
schema, every printer and every rule that reads strings takes it) made of the value's first ``PREFIX_CHARS``
characters and a note with its length and the SHA-256 of its UTF-8 text; beside it, out of sight, the digest it
is compared by. Comparisons stay exact: two oversized answers are equal when their digests are, and an answer
compared with an oversized one is digested the same way first (``comparison_key``).

What is digested: a text result its UTF-8 bytes (lone surrogates kept, ``surrogatepass``); a JSON result (an op
whose ``result_kind`` is ``json``) the canonical form of its parsed value (``canonical_digest``), which is equal
for two values exactly when ``compare.same_json`` says they are equal (numbers as binary64 bit patterns, so
``1`` and ``1.0`` agree and ``-0.0`` and ``0.0`` do not; an object's keys in sorted order); a JSON result that does
not parse, its text, as ``unparseable``; an oversized JSON result with more than MAX_CONTAINERS '[' and '{' (the
one exception to exactness: two spellings of such a value differ), its text, as ``dense``, never parsed.

The caps, in characters (``len`` of the decoded string: the fast path's check is one ``len``):

* ``ANSWER_CAP``, 64 KiB: the contract's outputs are small. The largest output of any fixture case is 959
  characters (``ctx-production-shape``), the generators' inputs are a few hundred characters, and an output
  is at most a small multiple of its input (NFKC maps one character to at most 18); 64 KiB is 68 times the
  largest legitimate output. Legitimate or not, an answer over it is still compared exactly.
* ``MESSAGE_CAP``, 4 KiB: an error message is "code: detail", a line for people.
* ``DESCRIPTION_CAP``, 1 KiB: a name, a version, a language, a Unicode version, an op's name.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any

ANSWER_CAP = 64 * 1024
MESSAGE_CAP = 4 * 1024
DESCRIPTION_CAP = 1024
PREFIX_CHARS = 256  # of an oversized value, kept
# '[' and '{' in a text, at most, for it to be parsed: Python's parser takes about 64 bytes per array or object, so
# 16 MiB of "[[],[],..." (5.6 million) took 420 MiB; a million is 64 MiB. No legitimate line comes near it: a batch
# line holds at most 1,000 answers, each a string of at most ANSWER_CAP characters.
MAX_CONTAINERS = 1_000_000


def dense(text: str | bytes) -> bool:
    """Whether ``text`` holds more '[' and '{' than MAX_CONTAINERS (counted anywhere, strings included)."""
    if isinstance(text, bytes):
        return text.count(b"[") + text.count(b"{") > MAX_CONTAINERS
    return text.count("[") + text.count("{") > MAX_CONTAINERS


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def canonical_digest(value: Any) -> str:
    """The SHA-256 of a parsed JSON value's canonical form: equal for two values exactly when ``same_json`` says
    so. Iterative (any depth), streamed into the hash."""
    digest = hashlib.sha256()
    stack: list[Any] = [value]
    close = object()
    while stack:
        item = stack.pop()
        if item is close:
            digest.update(b")")
        elif item is None:
            digest.update(b"n")
        elif item is True or item is False:
            digest.update(b"t" if item else b"f")
        elif isinstance(item, (int, float)):
            try:
                digest.update(b"d" + struct.pack("<d", float(item)))
            except OverflowError:  # an int past binary64: same_json compares it exactly
                digest.update(b"i" + str(item).encode("ascii") + b";")
        elif isinstance(item, str):
            data = item.encode("utf-8", "surrogatepass")
            digest.update(b"s" + str(len(data)).encode("ascii") + b":" + data)
        elif isinstance(item, list):
            digest.update(b"[")
            stack.append(close)
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            digest.update(b"{")
            stack.append(close)
            for key in sorted(item, reverse=True):
                stack.append(item[key])
                stack.append(key)
        else:  # not a JSON value (a test's stand-in): its type and repr
            digest.update(b"?" + type(item).__name__.encode() + repr(item).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class Oversized(str):
    """A value over its cap, as kept: the string ``<its first characters>... [oversized: N characters, sha256
    X]``, compared (``==``, ``hash``) by ``key``: what the value is compared by (its kind, "text", "json" or
    "unparseable", and its digest). Pickles with its key (fuzz workers ship answers to the parent)."""

    length: int
    sha256: str
    key: tuple[str, str]

    def __new__(cls, shown: str, length: int, sha256: str, key: tuple[str, str]) -> Oversized:
        made = super().__new__(cls, shown)
        made.length, made.sha256, made.key = length, sha256, key
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return Oversized, (str(self), self.length, self.sha256, self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Oversized) and self.key == other.key

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self.key)


def _shown(text: str, sha256: str) -> str:
    return f"{text[:PREFIX_CHARS]}... [oversized: {len(text):,} characters, sha256 {sha256}]"


def oversized(text: str, json_result: bool = False) -> Oversized:
    """``text`` as an Oversized, whatever its length; ``json_result``: it is an op's JSON text, compared by its
    parsed value."""
    sha256 = text_digest(text)
    return Oversized(_shown(text, sha256), len(text), sha256, value_key(text, json_result, sha256))


def value_key(text: str, json_result: bool, sha256: str | None = None) -> tuple[str, str]:
    """What an answer's value is compared by when one side of a comparison is oversized."""
    if isinstance(text, Oversized):
        return text.key
    if not json_result:
        return "text", sha256 or text_digest(text)
    if dense(text):  # too many arrays and objects to parse in bounded memory: compared by its text
        return "dense", sha256 or text_digest(text)
    from harness.model.compare import parse_result_text

    parsed, value = parse_result_text(text)
    return ("json", canonical_digest(value)) if parsed else ("unparseable", sha256 or text_digest(text))


def cap(text: str, limit: int, json_result: bool = False) -> str:
    """``text`` itself when it is at most ``limit`` characters, else its Oversized form."""
    return text if len(text) <= limit else oversized(text, json_result)


def cap_description(description: Any) -> tuple[Any, list[tuple[str, int]]]:
    """A self-description with every string (keys too) over DESCRIPTION_CAP in its Oversized form, and what was
    capped: (where, its length). Iterative; containers are copied, the rest kept."""
    found: list[tuple[str, int]] = []

    def one(text: str, where: str) -> str:
        if len(text) <= DESCRIPTION_CAP:
            return text
        found.append((where, len(text)))
        return oversized(text)

    def walk(value: Any, where: str) -> Any:
        work: list[tuple[Any, Any, str]] = []
        root: list[Any] = [None]

        def place(holder: Any, slot: Any, item: Any, at: str) -> None:
            if isinstance(item, str):
                holder[slot] = one(item, at)
            elif isinstance(item, dict):
                holder[slot] = {}
                work.append((holder[slot], item, at))
            elif isinstance(item, list):
                holder[slot] = [None] * len(item)
                work.append((holder[slot], item, at))
            else:
                holder[slot] = item

        place(root, 0, value, where)
        while work:
            target, source, at = work.pop()
            if isinstance(source, dict):
                for key, item in source.items():
                    shown = one(key, f"{at}/(a key)") if isinstance(key, str) else key
                    place(target, shown, item, f"{at}/{str(shown)[:40]}")
            else:
                for position, item in enumerate(source):
                    place(target, position, item, f"{at}/{position}")
        return root[0]

    return walk(description, ""), found
