"""JSON texts that a wrong reader gets wrong: number texts next to rounding midpoints, every escape, the
four whitespace characters and their near misses at every position, duplicate keys at every depth.

Only inputs, the harness's own (never an implementation's parser): the fixture generators
(write_gate_v1, dedup_context_v1) pin cases built from these tables, and the fuzzer's generator and the
Hypothesis strategies send the same kinds of input (``NUMBER_TEXTS``, and ``restyle`` on the JSON texts
they build), so what the fixtures pin is also what the search tools look for.
"""

from __future__ import annotations

import decimal
import json
import math
import struct

from harness.model.json_features import token_gaps

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")

# Characters that are whitespace somewhere (Unicode, Python's str.isspace, JavaScript's \s, a BOM) but
# not JSON whitespace (docs/contract.md §4, json.whitespace), by the slug of their case ids.
NEAR_MISS_WHITE_SPACE = {
    "u000b": "\u000b", "u000c": "\u000c", "u001c": "\u001c", "u0085": "\u0085", "u00a0": "\u00a0",
    "u2028": "\u2028", "u3000": "\u3000", "ufeff": "\ufeff",
}
JSON_WHITE_SPACE = " \t\n\r"

# Every escape RFC 8259 allows, and what it decodes to.
ESCAPES = [("\\\"", '"'), ("\\\\", "\\"), ("\\/", "/"), ("\\b", "\b"), ("\\f", "\f"), ("\\n", "\n"),
           ("\\r", "\r"), ("\\t", "\t"), ("\\u0041", "A"), ("\\u00e9", "\u00e9"), ("\\u00E9", "\u00e9"),
           ("\\u20AC", "\u20ac"), ("\\ud83d\\ude00", "\U0001f600")]


def _f32(value: float) -> float:
    return _F32.unpack(_F32.pack(value))[0]


def _next_f32(value: float) -> float:
    """The binary32 value after the (positive, binary32) `value`."""
    return _F32.unpack(_U32.pack(_U32.unpack(_F32.pack(value))[0] + 1))[0]


def midpoint_neighbour(low_bits: int, side: int) -> str:
    """The shortest decimal text of the binary64 value one ulp above (side > 0) or below the midpoint
    between the positive binary32 value with bits `low_bits` (mod the finite range) and the next one: a
    reader one binary64 ulp off rounds it to the other binary32 value. For random and Hypothesis inputs."""
    bits = low_bits % 0x7F7FFFFF  # finite, and the next value is finite too
    low = _F32.unpack(_U32.pack(bits))[0]
    middle = (low + _next_f32(low)) / 2
    return repr(math.nextafter(middle, math.inf if side > 0 else -math.inf))


def binary32_midpoint_texts(near: float) -> list[tuple[str, str]]:
    """(slug, decimal text) around the midpoint of the binary32 value nearest `near` and the next one: the
    midpoint's exact decimal (a tie: to even), the shortest texts of the binary64 values just above and
    just below it (one binary64 ulp decides the binary32), and the exact decimal with one more digit."""
    low = _f32(near)
    middle = (low + _next_f32(low)) / 2  # exact in binary64: 25 significant bits
    exact = format(decimal.Decimal(middle), "f")
    return [
        ("tie", exact),
        ("above", repr(math.nextafter(middle, math.inf))),
        ("below", repr(math.nextafter(middle, -math.inf))),
        ("tie-plus-digit", exact + "1" if "." in exact else exact + ".1"),
    ]


# Number texts a correctly rounding reader reads one way and a naive one may not: (slug, text). Each is
# finite in binary64 and in binary32 unless its slug says overflow.
NUMBER_TEXTS = [
    ("binary64-midpoint-tie", "1.00000000000000011102230246251565404236316680908203125"),  # 1 + 2^-53: to even
    ("binary64-midpoint-above",
     "1.000000000000000111022302462515654042363166809082031250000000000000000000000000000000001"),
    ("long-mantissa-one", "1." + "0" * 400 + "1"),
    ("long-mantissa-integer", "1" + "0" * 300 + "e-300"),
    ("non-shortest-point-three", "0.299999999999999988897769753748434595763683319091796875"),
    ("shortest-point-three", "0.3"),
    ("zero-huge-exponent", "0e999999999"),
    ("zero-fraction-huge-negative-exponent", "0.000e-999999999"),
    ("tiny-huge-negative-exponent", "1e-999999999"),
    ("scaled-by-exponent", "0.0000000001e10"),
    ("integer-two-pow-53-plus-one", "9007199254740993"),
    ("integer-two-pow-64-plus-one", "18446744073709551617"),
    ("integer-binary32-tie", "16777217"),  # 2^24 + 1: halfway, to even 2^24
    ("integer-binary32-tie-odd", "16777219"),  # halfway between 2^24+2 and 2^24+4: to even 2^24+4
    ("negative-zero-exponent", "-0.0e0"),
    ("issue-seventeen-digits", "1.1450646910816431e-2"),  # a naive reader rounds it to another binary32
]
for _near, _slug in ((1.0, "one"), (0.011450646910816431, "hundredth"), (3.0e38, "large"), (1e-40, "subnormal")):
    NUMBER_TEXTS += [(f"binary32-{_slug}-{kind}", text) for kind, text in binary32_midpoint_texts(_near)]


# ---- numbers at the edges of the widths an implementation may read them through -------------------------

WIDTHS = (31, 32, 53, 63, 64)  # i32, u32, the last binary64 integer step of one, i64, u64
F32_MAX = _F32.unpack(_U32.pack(0x7F7FFFFF))[0]
F32_MIN_SUBNORMAL = _F32.unpack(_U32.pack(1))[0]
F32_MIN_NORMAL = _F32.unpack(_U32.pack(0x00800000))[0]


def _exact(value: decimal.Decimal) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def edge_integer(width: int, offset: int, negative: bool = False) -> str:
    """The decimal text of ``±(2**width + offset)``: an integer at a width boundary (WIDTHS) or beside it, which a
    reader through a signed, unsigned or binary64 path of that width wraps, saturates or rounds. For random and
    Hypothesis inputs as well as the fixture's pins."""
    value = 2**width + offset
    return str(-value if negative else value)


def _integer_edges() -> list[tuple[str, str]]:
    out = []
    for width in WIDTHS:
        for offset, tag in ((-1, "-minus-one"), (0, ""), (1, "-plus-one")):
            out.append((f"integer-two-pow-{width}{tag}", edge_integer(width, offset)))
            out.append((f"integer-minus-two-pow-{width}{tag}", edge_integer(width, offset, negative=True)))
    out += [("integer-u64-max-exponent-form", "1.8446744073709551615e19"),
            ("integer-i64-past-max-exponent-form", "9.223372036854775808E+18"),
            ("integer-i64-past-max-fraction-form", "92233720368547758.08e2"),
            ("integer-twenty-nines", "9" * 20), ("integer-minus-twenty-nines", "-" + "9" * 20),
            ("integer-leading-digit-then-forty-zeros", "1" + "0" * 40)]
    return out


def _float_edges() -> list[tuple[str, str]]:
    """binary32's and binary64's extremes and the rounding boundaries beside them: f32::MAX and the midpoint to
    2^128 (below it: f32::MAX; at it: a tie to even, 2^128, infinite; above: infinite), the smallest subnormal and
    half of it, the smallest normal, binary64's largest and its overflow, its smallest subnormal and half of it."""
    with decimal.localcontext() as ctx:
        ctx.prec = 1200  # every value here exact
        f32_overflow = (decimal.Decimal(F32_MAX) + decimal.Decimal(2) ** 128) / 2  # 2^128 - 2^103
        half_min = decimal.Decimal(F32_MIN_SUBNORMAL) / 2  # 2^-150
        f64_half_min = decimal.Decimal(5e-324) / 2  # 2^-1075
    mid = float(f32_overflow)  # the binary64 value 2^128 - 2^103, exact
    return [
        ("binary32-max", repr(F32_MAX)), ("binary32-max-shortest", "3.4028235e38"),
        ("binary32-minus-max-shortest", "-3.4028235e38"),
        ("binary32-max-midpoint-tie", _exact(f32_overflow)),
        ("binary32-max-midpoint-below", repr(math.nextafter(mid, 0.0))),
        ("binary32-max-midpoint-above", repr(math.nextafter(mid, math.inf))),
        ("binary32-max-nine-digits-below-midpoint", "3.40282356e38"),
        ("binary32-min-subnormal", repr(F32_MIN_SUBNORMAL)),
        ("binary32-half-min-subnormal-tie", _exact(half_min)),
        ("binary32-half-min-subnormal-above", repr(math.nextafter(float(half_min), 1.0))),
        ("binary32-half-min-subnormal-below", repr(math.nextafter(float(half_min), 0.0))),
        ("binary32-min-normal", repr(F32_MIN_NORMAL)),
        ("binary32-max-subnormal", repr(_F32.unpack(_U32.pack(0x007FFFFF))[0])),
        ("binary64-max", repr(1.7976931348623157e308)), ("binary64-max-overflow", "1.7976931348623159e308"),
        ("binary64-min-subnormal", "5e-324"),
        ("binary64-half-min-subnormal-above", "2.4703282292062328e-324"),
        ("binary64-half-min-subnormal-below", "2.4703282292062327e-324"),
        ("binary64-half-min-subnormal-tie", _exact(f64_half_min)),
        ("negative-zero", "-0"), ("negative-zero-fraction-exponent", "-0.0E-0"), ("exponent-upper-plus", "1E+2"),
        ("exponent-lower-minus", "25e-1"),
    ]


_PINNED = {slug for slug, _ in NUMBER_TEXTS}
EDGE_NUMBER_TEXTS = [(slug, text) for slug, text in _integer_edges() + _float_edges() if slug not in _PINNED]
NUMBER_TEXTS += EDGE_NUMBER_TEXTS  # the fixture pins every one; random draws take the edges from a second generator

# Where whitespace can stand in an array of two numbers and in an array of one object: "@" marks the slot.
ARRAY_POSITIONS = {"before": "@[1,0]", "after-open": "[@1,0]", "before-comma": "[1@,0]",
                   "after-comma": "[1,@0]", "before-close": "[1,0@]", "after": "[1,0]@"}
OBJECT_POSITIONS = {"after-brace": '[{@"id":"a","text":"b"}]', "before-colon": '[{"id"@:"a","text":"b"}]',
                    "after-colon": '[{"id":@"a","text":"b"}]', "before-brace": '[{"id":"a","text":"b"@}]'}


def at(template: str, filler: str) -> str:
    """The template with its slot filled."""
    return template.replace("@", filler)


def every_slot(text: str, filler: str = JSON_WHITE_SPACE) -> str:
    """`text` (compact JSON without strings holding punctuation) with `filler` before, between and after
    every token."""
    return filler + "".join(filler + ch + filler if ch in "[]{},:" else ch for ch in text) + filler


# Duplicate keys below the top level: (slug, a candidates/section JSON text whose only fault is the
# duplicate). Depth counts objects and arrays from the outermost array (level 1).
NESTED_DUPLICATES = [
    ("depth-2", '[{"id":"a","text":"b","k":1,"k":1}]'),
    ("depth-3-object", '[{"id":"a","text":"b","meta":{"k":1,"k":2}}]'),
    ("depth-4-array-object", '[{"id":"a","text":"b","meta":[{"k":null,"k":null}]}]'),
    ("depth-5", '[{"id":"a","text":"b","m":{"n":[{"k":[],"k":{}}]}}]'),
    ("second-element", '[{"id":"a","text":"b"},{"id":"c","text":"d","x":{"y":1,"y":1}}]'),
]


# ---- restyling a compact JSON text: the same value (or one fault) written another way ----------------

RESTYLES = ("white_space", "near_miss", "escapes", "nested_duplicate")


def restyle(text: str, kind: str, pick: int) -> str:
    """`text` (a compact JSON text as json.dumps writes it) written another way; `pick` chooses where and
    what, so a random generator and a Hypothesis strategy both drive it:

    * ``white_space``: a run of JSON whitespace at one token gap (the same value);
    * ``near_miss``: one near miss of JSON whitespace at one token gap (``invalid_json``);
    * ``escapes``: every string re-escaped: non-ASCII as ``\\u`` escapes (pairs for astral characters),
      every ``/`` as ``\\/`` (the same value);
    * ``nested_duplicate``: a duplicate key in an object inside the first object (``invalid_json``); a
      text without an object is returned as it is.
    """
    if kind == "white_space":
        gaps = token_gaps(text)
        at = gaps[pick % len(gaps)]
        run = "".join(JSON_WHITE_SPACE[(pick >> (2 * k)) % 4] for k in range(1 + pick % 3))
        return text[:at] + run + text[at:]
    if kind == "near_miss":
        gaps = token_gaps(text)
        at = gaps[pick % len(gaps)]
        misses = list(NEAR_MISS_WHITE_SPACE.values())
        return text[:at] + misses[(pick // 7) % len(misses)] + text[at:]
    if kind == "escapes":
        try:
            value = json.loads(text)
        except ValueError:
            return text
        return json.dumps(value, ensure_ascii=True, separators=(",", ":")).replace("/", "\\/")
    if kind == "nested_duplicate":
        brace = text.find("{")
        if brace < 0 or text.find('"', 0, brace) >= 0:
            return text
        depth = 1 + pick % 3
        inner = '{"k":0,"k":1}'
        for _ in range(depth - 1):
            inner = '{"n":[' + inner + "]}"
        return text[:brace + 1] + '"dup":' + inner + ("," if text[brace + 1] != "}" else "") + text[brace + 1:]
    raise ValueError(f"unknown restyle {kind!r}; known: {', '.join(RESTYLES)}")
