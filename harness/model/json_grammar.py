"""JSON texts generated from the JSON grammar (RFC 8259) and the contract's strictness rules, combining their
features rather than listing cases: every escape (``\\"`` and ``\\/`` too) in strings set before, inside and after
deep nesting; strings holding long runs of brackets; JSON whitespace and its near misses at any token gap; numbers
of every form (integers at and beside every width boundary, floats at binary32's and binary64's edges: json_texts);
objects and arrays of 0 to several hundred members with a duplicate key at any position, at any depth. Sizes are
drawn towards the limits the contract names (100 levels) and the thresholds an implementation may use inside (a
duplicate-key scan that switches to a set at 16 or 32 members, a fast path for short strings).

``Feature`` records what a text combines, so that a fixture generator can pin one case per combination and name
it, and the fuzzer and the Hypothesis strategies draw from the same grammar (``text(rng)``). Only inputs, the
harness's own: no implementation's parser is asked what a text means.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass

from harness.model.json_features import token_gaps
from harness.model.json_texts import (
    EDGE_NUMBER_TEXTS,
    JSON_WHITE_SPACE,
    NEAR_MISS_WHITE_SPACE,
    NUMBER_TEXTS,
    WIDTHS,
    edge_integer,
)

LIMIT = 100  # json.depth: the deepest nesting the contract allows
DEPTHS = (1, 2, 15, 16, 17, 63, 64, 65, 99, LIMIT, LIMIT + 1, LIMIT + 2, 150)
SIZES = (0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 300)
ESCAPED = ('\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0022", "\\u005c", "\\u005B", "\\u007d",
           "\\u0000", "\\u001f", "\\ud83d\\ude00", "\\u00e9")
_LONG_INTEGER = "123456789012345678901234567890"
_PLAIN_NUMBERS = ["0", "-0", "1", "-1.5e-3", "1E+2", "0.1", _LONG_INTEGER] + [text for _, text in NUMBER_TEXTS[:6]]
_EDGES = [text for _, text in EDGE_NUMBER_TEXTS if math.isfinite(float(text))]  # a valid text: no binary64 overflow
BRACKET_RUNS = ("[", "]", "{", "}", "[[[[", "]]]]", "{{{{", "}}}}", "[{" * 20, "]}" * 20, "[" * 120, "]" * 120)


@dataclass(frozen=True)
class Feature:
    """What one generated text combines (its name in a fixture case id: ``slug``)."""

    depth: int  # how deep the nesting goes (0: a scalar)
    members: int  # members of the widest object or array
    duplicate_at: int | None  # where a repeated key stands in that object (None: no duplicate)
    string: str  # what the strings hold: "plain", "escapes", "brackets", "escaped-quote-then-brackets"
    gap: str  # what stands between tokens: "none", "json-space", "near-miss"

    @property
    def slug(self) -> str:
        dup = f"-dup{self.duplicate_at}" if self.duplicate_at is not None else ""
        return f"depth{self.depth}-members{self.members}{dup}-{self.string}-{self.gap}"

    @property
    def valid(self) -> bool:
        """Whether the contract's strict reader accepts the text (its own rules: the grammar, no duplicate key,
        at most LIMIT levels, JSON whitespace only; every escape here is valid)."""
        return self.depth <= LIMIT and self.duplicate_at is None and self.gap != "near-miss"


def _string(kind: str, rng: random.Random) -> str:
    if kind == "plain":
        return '"' + rng.choice(["a", "id", "text", "x y", ""]) + '"'
    if kind == "escapes":
        return '"' + "".join(rng.choice(ESCAPED) for _ in range(rng.randint(1, 6))) + '"'
    if kind == "brackets":
        return '"' + rng.choice(BRACKET_RUNS) + '"'
    # an escaped quote, then brackets: a scan that ends the string at the escaped quote counts them as nesting
    return '"' + '\\"' + rng.choice(BRACKET_RUNS) + rng.choice(["", '\\"', "\\\\"]) + '"'


def _number(rng: random.Random, side: random.Random) -> str:
    """A number of any form: a plain one or a text a wrong float reader misreads (``rng``: the same draws as
    before the edges were added, so a seed's texts stay what they were), or in place of the long integer an
    integer at or beside a width boundary (json_texts.WIDTHS), of either sign or at a random offset, or another
    edge text (``side``: a generator of the text's own)."""
    text = rng.choice(_PLAIN_NUMBERS)
    if text != _LONG_INTEGER:
        return text
    if side.random() < 0.5:
        return side.choice(_EDGES)
    offset = side.choice([-1, 0, 1, side.randint(-(2**20), 2**20)])
    return edge_integer(side.choice(WIDTHS), offset, side.random() < 0.3)


def _object(members: int, duplicate_at: int | None, value: str, string: str, rng: random.Random,
            side: random.Random) -> str:
    keys = [f"k{i}" for i in range(members)]
    if duplicate_at is not None and members >= 2:
        at = min(max(duplicate_at, 1), members - 1)
        # a key seen earlier (the one just before, the first, the 16th, any): the duplicate stands at `at`
        keys[at] = keys[rng.choice([at - 1, 0, min(15, at - 1), rng.randrange(at)])]
    parts = []
    for i, key in enumerate(keys):
        inner = value if i == members - 1 else (_string(string, rng) if i % 3 == 0 else _number(rng, side))
        parts.append(f'"{key}":{inner}')
    return "{" + ",".join(parts) + "}"


def build(feature: Feature, rng: random.Random) -> str:
    """One text with ``feature``'s combination; ``rng`` picks what the feature leaves open."""
    # The strings first, then the nesting: an escaped quote or a run of brackets before deep nesting is where a
    # depth scan that misreads strings goes wrong.
    lead = _string(feature.string, rng)
    side = random.Random(feature.slug)  # the edge numbers' draws: none taken from ``rng``
    core = lead if feature.depth == 0 else _string(feature.string, rng)
    wide_at = rng.randint(1, max(1, feature.depth)) if feature.depth else 0
    for level in range(feature.depth, 0, -1):
        if level == wide_at:
            if feature.duplicate_at is not None or rng.random() < 0.5:
                core = _object(max(feature.members, 1), feature.duplicate_at, core, feature.string, rng, side)
            else:
                core = "[" + ",".join([_string(feature.string, rng)] * max(feature.members - 1, 0) + [core]) + "]"
        elif rng.random() < 0.5:
            core = "[" + lead + "," + core + "]"
        else:
            core = '{"s":' + lead + ',"n":' + core + "}"
    return _spaced(core, feature.gap, rng)


def _spaced(text: str, gap: str, rng: random.Random) -> str:
    """Whitespace at token gaps outside strings (json_features.token_gaps): JSON whitespace, or one near miss."""
    if gap == "none":
        return text
    gaps = token_gaps(text)
    if gap == "json-space":
        chosen = sorted(rng.sample(gaps, min(len(gaps), 8)), reverse=True)
        fillers = ["".join(rng.choice(JSON_WHITE_SPACE) for _ in range(rng.randint(1, 3))) for _ in chosen]
    else:
        chosen, fillers = [rng.choice(gaps)], [rng.choice(list(NEAR_MISS_WHITE_SPACE.values()))]
    for at, filler in zip(chosen, fillers, strict=True):
        text = text[:at] + filler + text[at:]
    return text


def feature(rng: random.Random) -> Feature:
    """A combination, drawn towards the limits and thresholds (DEPTHS, SIZES)."""
    members = rng.choice(SIZES)
    duplicate = None
    if members >= 2 and rng.random() < 0.35:
        duplicate = rng.choice([1, members - 1, members // 2, min(16, members - 1), min(17, members - 1),
                                min(32, members - 1), rng.randrange(1, members)])
    return Feature(depth=rng.choice(DEPTHS), members=members, duplicate_at=duplicate,
                   string=rng.choice(["plain", "escapes", "brackets", "escaped-quote-then-brackets"]),
                   gap=rng.choice(["none", "none", "json-space", "near-miss"]))


def text(rng: random.Random) -> str:
    """One JSON text from the grammar (the fuzzer's and the strategies' draw)."""
    return build(feature(rng), rng)


def combinations() -> list[Feature]:
    """The combinations a fixture pins, one case each: the depth limit with every kind of string before it, the
    duplicate-key thresholds at and past 16 and 32 members, at depth 1 and deep."""
    out = [Feature(depth, 1, None, string, "none") for depth in (LIMIT, LIMIT + 1)
           for string in ("escapes", "brackets", "escaped-quote-then-brackets")]
    out += [Feature(depth, members, at, "plain", "none") for depth in (1, 50)
            for members, at in ((16, 15), (17, 16), (33, 32), (257, 256), (17, None), (257, None))]
    out += [Feature(3, 20, None, "escaped-quote-then-brackets", "json-space"),
            Feature(3, 20, None, "plain", "near-miss")]
    return out


def check(feature_: Feature, text_: str) -> None:
    """A sanity check of the generator against Python's own reader where it can judge (grammar, duplicates);
    depth and near misses are the contract's rules, read by the harness's strict reader elsewhere."""
    if feature_.gap == "near-miss" or feature_.depth > 900:
        return
    pairs: list[list[str]] = []

    def hook(items: list[tuple[str, object]]) -> dict[str, object]:
        pairs.append([key for key, _ in items])
        return dict(items)

    json.loads(text_, object_pairs_hook=hook)
    has_duplicate = any(len(keys) != len(set(keys)) for keys in pairs)
    if has_duplicate != (feature_.duplicate_at is not None):
        raise AssertionError(f"{feature_.slug}: duplicate {has_duplicate}: {text_[:200]}")
