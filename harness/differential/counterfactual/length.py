"""A counterfactual cause of its own for a length or count rule (``length_rule``): one side counts a text's
length in UTF-8 bytes where the other counts code points or UTF-16 units (or caps it elsewhere).

The rule, for a black box as for any side: the difference follows the *encoded length* of the input's
characters, not the characters themselves. Two rewrites of the input decide it, each replacing every
character outside ASCII (the only characters whose length is the same in every encoding) one for one, a
distinct stand-in per distinct character and none already in the input (``rewrite.replace_chars``):

1. *same shape*: a stand-in of the same General_Category and canonical combining class, with the same UTF-8
   length and the same UTF-16 length (so the same code point count too); where that category has no stable
   stand-in of those lengths (the two-byte No characters ² ³ ¹ ¼ ½ ¾ all have decompositions), one of the
   category its shorter stand-ins come from (``role``: an Nd digit of two bytes for ²). The sides must still
   disagree, the same ones with the same outcome shape (``Probe.keeps``: not another difference the rewrite
   brought): the difference does not follow which character it is (a letter new in a Unicode version, a mark
   one side keeps: those stand-ins take the difference away, and this rule does not fire).
2. *shorter*, else *longer*: a stand-in of the same General_Category and combining class whose UTF-8 length
   is the nearest such one below the character's (an ASCII letter, digit, symbol or punctuation where the
   category has one; a two-byte mark for a three-byte one; a BMP letter for an astral one, one UTF-16 unit
   for two; where the category has none shorter, one of its class's ``_FALLBACK`` category, an ASCII lowercase
   letter for a Lo letter, and then a stand-in of that category and the character's own length must keep the
   difference as in 1), else the nearest above it (where a shorter one makes the piece vanish on both sides: a
   minimum length). The sides must agree, on an outcome kind some side had before, and not by losing the
   piece (``Probe.settles``, ``outcomes.lost_piece``: an item count changed on both sides, a token gone on
   both, both outputs empty or equal to the plain input's output).

Where the shorter stand-ins neither settle it nor keep it but turn it into a difference of another shape between
the same implementations (a mark one side keeps inside a token makes the token too long in bytes for it: it drops
the token, where the contract splits it at the mark; the shorter stand-ins keep the token, and the mark's
difference is left), the input holds two differences, and is classified again by the one left (``Again``), so
that its class holds one difference and its shrinking sheds the other's part.

The difference itself must be one of length or presence (``_in_length``): a text longer or shorter on one side,
a list that gains or loses an item or holds items of other lengths, a result against an error; characters
changed in place (a lowercase of A-Z only against a full one: an ASCII stand-in settles that too) are not.

Both rewrites draw from one pool of neutral stand-ins, so between the two rewritten inputs only the encoded
lengths differ; everything they hold the same (the code point count, each character's category and combining
class, the number and order of the pieces) is then not what differs; what differs between them is the
encoded length, and only that moves the difference. The stand-ins come from the Unicode data the harness
reads as stable: assigned with the same category and combining class in this Python's ``unicodedata`` (the
oldest data the harness runs with) and in ``unicodedata2`` (the newest), with no decomposition, never a
part NFC joins to what comes before it (a mark of a composition, a second vowel, a conjoining jamo; every
character outside ASCII is replaced, so a letter stand-in is never followed by a mark it could compose with:
the two rewrites are alike to NFC), outside
every character set the contract names, and with a case mapping that keeps their length (a cased letter
lowercases to one of the same encoded length), lowest code points first (the oldest assignments).

A limit: a rule about ASCII itself (one side takes only ASCII letters as letters) looks the same to a black
box (one byte is ASCII), and is named a length rule; a rule that a one-byte stand-in makes vanish on both
sides (a minimum length in code points against one in bytes) is named by the rules after this one.

Ordered before the version skew and the character rules (``ORDER``): their stand-ins are chosen by role,
not by length (an ASCII letter for a two-byte one), so a length rule would look like whichever character
set the input happened to hold (``case_mapping``, ``final_sigma``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

import unicodedata2

from harness.differential.counterfactual.probe import Again, Probe
from harness.differential.counterfactual.rewrite import all_strings, composing_parts, replace_chars
from harness.differential.outcomes import divergent, oracle_of, outcome_shape
from harness.differential.rule import Rule, Verdict
from harness.model.contract_sets import EDGE_PUNCTUATION, LINE_BREAKS, QUOTE_DASH, white_space_like

CAUSE = "length_rule"
# The conjoining jamo NFC composes into Hangul syllables by rule, not by a listed decomposition.
_JAMO = re.compile("[\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff]").fullmatch
# Stand-ins are looked for in the first three planes (every category and length the harness needs is there;
# the planes above hold few assigned characters, none a canonical decomposition names).
_SCANNED = 0x30000
_PER_KEY = 12  # stand-ins kept per (category, combining class, UTF-8 length, UTF-16 length)


def utf8_len(ch: str) -> int:
    return len(ch.encode("utf-8", "surrogatepass"))


def utf16_len(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


def _shape(ch: str) -> tuple[str, int]:
    return unicodedata2.category(ch), unicodedata2.combining(ch)


def _keeps_length_when_cased(ch: str) -> bool:
    """Its case mappings are each one character of its own encoded lengths (or itself)."""
    for mapped in (ch.lower(), ch.upper(), ch.casefold()):
        if len(mapped) != 1 or utf8_len(mapped) != utf8_len(ch) or utf16_len(mapped) != utf16_len(ch):
            return False
    return True


def _stable(ch: str) -> bool:
    category = unicodedata2.category(ch)
    if category in ("Cn", "Cs", "Co", "Cc", "Zl", "Zp") or unicodedata.category(ch) != category:
        return False
    if unicodedata.combining(ch) != unicodedata2.combining(ch) or unicodedata2.decomposition(ch) or \
            ord(ch) in _joining() or _JAMO(ch):
        return False  # NFC joins it to nothing before it (and every mark beside it is a stand-in too)
    if ch in QUOTE_DASH or ch in EDGE_PUNCTUATION or ch in LINE_BREAKS or white_space_like(ch) or ch in "'\"-":
        return False
    return ch.isprintable() and _keeps_length_when_cased(ch)


@lru_cache(maxsize=1)
def _joining() -> frozenset[int]:
    """Code points NFC can join to a character before them: every part of a canonical decomposition but its
    first (a mark, a second vowel), and the marks among first parts."""
    found: set[int] = set()
    for cp in range(_SCANNED):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        decomposition = unicodedata2.decomposition(chr(cp))
        if decomposition and not decomposition.startswith("<"):
            parts = [int(part, 16) for part in decomposition.split()]
            found.update(parts[1:])
    return frozenset(found | {cp for cp in composing_parts() if unicodedata2.category(chr(cp))[0] == "M"})


@lru_cache(maxsize=1)
def _pools() -> dict[tuple[str, int, int, int], str]:
    """Stable stand-ins by (category, combining class, UTF-8 length, UTF-16 length), lowest first."""
    found: dict[tuple[str, int, int, int], list[str]] = {}
    for cp in range(_SCANNED):
        ch = chr(cp)
        if 0xD800 <= cp <= 0xDFFF or unicodedata.category(ch) == "Cn":
            continue
        key = (*_shape(ch), utf8_len(ch), utf16_len(ch))
        pool = found.setdefault(key, [])
        if len(pool) < _PER_KEY and _stable(ch):
            pool.append(ch)
    return {key: "".join(pool) for key, pool in found.items() if pool}


def _pool(shape: tuple[str, int], length: int) -> str:
    """Stand-ins of that (category, combining class) and UTF-8 length (four bytes: two UTF-16 units)."""
    return _pools().get((*shape, length, 2 if length == 4 else 1), "")


# Where a category has no shorter stand-in (no Lo, So or Pi in ASCII), the stand-ins of both rewrites come from
# one category of its class that has: a lowercase letter for a letter, a digit for a number, a math symbol for a
# symbol, other punctuation for punctuation (only for characters of combining class 0).
_FALLBACK = {"L": "Ll", "N": "Nd", "S": "Sm", "P": "Po"}


def role(ch: str) -> tuple[str, int]:
    """The (category, combining class) both rewrites draw ``ch``'s stand-ins from: its class's fallback
    (``_FALLBACK``) where that has one of ``ch``'s length and a shorter one than its own category has (a one-byte
    letter for a three-byte Lo, where Lo's shortest is two bytes); else its own."""
    own = _shape(ch)

    def least(shape: tuple[str, int]) -> int:
        return next((length for length in range(1, utf8_len(ch)) if _pool(shape, length)), 5)

    fallback = (_FALLBACK.get(own[0][0], ""), 0)
    if own[1] == 0 and fallback[0] and _pool(fallback, utf8_len(ch)) and least(fallback) < least(own):
        return fallback
    return own


def same_shape(ch: str) -> str:
    """Stand-ins of ``ch``'s category and combining class with its UTF-8 and UTF-16 lengths ("" if none)."""
    return _pool(_shape(ch), utf8_len(ch))


def same_role(ch: str) -> str:
    """Stand-ins of ``ch``'s ``role`` with its UTF-8 and UTF-16 lengths ("" if none)."""
    return _pool(role(ch), utf8_len(ch))


def kept_by(ch: str) -> str:
    """The stand-ins the first rewrite draws ``ch``'s from: ``same_shape``, else (no stable character of its
    category and lengths: every two-byte No, ² ³ ¹ ¼ ½ ¾, has a decomposition) ``same_role``, which the rule
    asks to keep the difference anyway where the shorter stand-ins come from another category of the class."""
    return same_shape(ch) or same_role(ch)


def shorter(ch: str) -> str:
    """Stand-ins of ``ch``'s ``role`` of the least UTF-8 length below its own ("" if none); their UTF-16 length is
    never above its own."""
    return next((pool for length in range(1, utf8_len(ch)) if (pool := _pool(role(ch), length))), "")


def longer(ch: str) -> str:
    """Stand-ins of ``ch``'s category and combining class of the least UTF-8 length above its own ("" if none);
    their UTF-16 length is never below its own."""
    return next((pool for length in range(utf8_len(ch) + 1, 5) if (pool := _pool(_shape(ch), length))), "")


def _encoded(ch: str) -> bool:
    """A character whose length is not the same in every encoding (outside ASCII)."""
    return ord(ch) > 0x7F


def _rewrite(probe: Probe, pool: Callable[[str], str]) -> dict | None:
    """The input with every character outside ASCII replaced from ``pool``; None when one has no stand-in
    there (the rewrite would not hold the rest the same)."""
    chars = {ch for text in all_strings(probe.args) for ch in text if _encoded(ch)}
    if not chars or any(not pool(ch) for ch in chars):
        return None
    return replace_chars(probe.args, _encoded, pool)


# The shapes of a difference in length or presence (outcomes.outcome_shape): a piece one side has and the other
# lacks, a text or list longer on one side, a result against an error. Characters changed in place (a text of one
# length, items of one length) are no length rule's doing, whatever stand-ins settle them.
_PRESENCE = frozenset({"gains-item", "loses-item", "gains-changed", "loses-changed", "longer", "shorter",
                       "oracle-refuses", "divergent-refuses"})


def _in_length(probe: Probe) -> bool:
    """Whether every divergent side differs from the oracle in length or presence (``_PRESENCE``), or in items
    of other lengths (a token cut short)."""
    oracle = oracle_of(probe.op_name, probe.responses)
    for name in divergent(probe.op_name, probe.responses):
        shape = outcome_shape(probe.op_name, probe.responses[oracle], probe.responses[name])
        if shape == "changes-item":
            (_, a), (_, b) = probe.codes[oracle], probe.codes[name]
            if sum(len(str(item)) for item in a) == sum(len(str(item)) for item in b):
                return False
        elif shape not in _PRESENCE:
            return False
    return True


def _kept_by_length(probe: Probe) -> list[str] | None:
    """The input's characters outside ASCII where stand-ins of their category (or role) and encoded lengths
    keep the difference (steps 1 of the rule); None where they do not, or it is no difference in length."""
    if "ok" not in probe.kinds or not _in_length(probe):
        return None  # all rejections (a validation rule), or characters changed in place (a mapping)
    kept = _rewrite(probe, kept_by)
    if kept is None or not probe.keeps(kept):
        return None
    chars = [ch for text in all_strings(probe.args) for ch in text if _encoded(ch)]
    if any(role(ch) != _shape(ch) and same_shape(ch) for ch in chars):
        # The shorter stand-ins are of another category of the class: one of that category and the same length
        # must keep the difference too (a rule about that category would move it otherwise).
        kept = _rewrite(probe, same_role)
        if kept is None or not probe.keeps(kept):
            return None
    return chars


def _shortened(probe: Probe, pool: Callable[[str], str]) -> dict | None:
    return replace_chars(probe.args, lambda ch: _encoded(ch) and bool(pool(ch)), pool) if any(
        pool(ch) for text in all_strings(probe.args) for ch in text if _encoded(ch)) else None


def _length_rule(probe: Probe) -> Verdict | Again | None:
    chars = _kept_by_length(probe)
    if chars is None:
        return None

    def settled(pool: Callable[[str], str]) -> bool:
        shortened = _shortened(probe, pool)
        return shortened is not None and probe.settles(shortened)

    way = next((way for way, pool in (("shorter", shorter), ("longer", longer)) if settled(pool)), None)
    if way is None:
        return _peeled(probe)
    lengths = sorted({utf8_len(ch) for ch in chars})
    return Verdict(CAUSE, None,
                   "the difference follows the encoded length of the input: characters replaced by stand-ins of "
                   f"the same category and length keep it, {way} ones in UTF-8 settle it (a length counted in "
                   f"bytes, code points or UTF-16 units, or a cap; the input's characters outside ASCII are "
                   f"{'/'.join(map(str, lengths))} bytes long)")


def _peeled(probe: Probe) -> Again | None:
    """Two differences at once, a length rule and another (a mark kept inside a token makes it too long in bytes:
    the box drops it, where the contract splits it in two): stand-ins of the same category and length keep the
    difference, as for a length rule, and shorter ones do not settle it but turn it into one of another shape
    (the token no longer dropped, the mark still kept), between the same implementations. The difference left
    there is the one the input is classified by (``Again``), whose witness the shrinker then keeps in that
    class, shedding the length's part: named by neither alone, the input was a class of its own
    (rule_difference, divergent-only) holding both."""
    shortened = _shortened(probe, shorter)
    if not probe.deeper or shortened is None or probe.keeps(shortened):
        return None
    after = probe.observe(shortened)
    if divergent(probe.op_name, after) != divergent(probe.op_name, probe.responses) or \
            oracle_of(probe.op_name, after) != oracle_of(probe.op_name, probe.responses):
        return None  # settled, or another set of implementations disagreeing: no difference left of this one
    return Again(shortened, after)


RULES: list[Rule[Probe]] = [
    Rule("length-rule", (CAUSE,), _length_rule,
         "the characters outside ASCII replaced by stand-ins of their category and encoded length keep it, and "
         "by shorter ones in UTF-8 settle it (not by losing the piece); where those turn it into another "
         "difference instead, that input again (a length rule and another difference at once)"),
]
