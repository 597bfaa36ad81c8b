"""Numbers by grammar, to their edges (issue 53): every width boundary an implementation may read an integer
through, and binary32's and binary64's extremes, are drawn by the JSON grammar, the Hypothesis strategies and the
fuzzer's pool, and pinned once each by the fixture; a reader wrong at any of them disagrees with the pins."""

from __future__ import annotations

import json
import random
import struct
from fractions import Fraction
from pathlib import Path

from hypothesis import given, settings

from harness.differential.strategies import number_text
from harness.model import json_grammar
from harness.model.json_texts import F32_MAX, NUMBER_TEXTS, WIDTHS

ROOT = Path(__file__).resolve().parents[2]
TEXTS = dict(NUMBER_TEXTS)


def test_every_width_boundary_and_its_neighbours_is_a_number_text_of_either_sign() -> None:
    values = {int(text) for text in TEXTS.values() if text.lstrip("-").isdigit()}
    for width in WIDTHS:
        for offset in (-1, 0, 1):
            assert {2**width + offset, -(2**width + offset)} <= values, (width, offset)
    assert len(NUMBER_TEXTS) == len(TEXTS)  # one slug each


def test_the_binary32_max_midpoint_texts_are_exact() -> None:
    middle = Fraction(2**128 - 2**103)
    assert Fraction(TEXTS["binary32-max-midpoint-tie"]) == middle
    assert Fraction(F32_MAX) < Fraction(TEXTS["binary32-max-midpoint-below"]) < middle
    assert Fraction(TEXTS["binary32-max-midpoint-above"]) > middle
    assert Fraction(TEXTS["binary32-half-min-subnormal-tie"]) == Fraction(1, 2**150)
    assert struct.unpack("<f", struct.pack("<f", float(TEXTS["binary32-max-midpoint-below"])))[0] == F32_MAX


def _draws(count: int) -> list[int]:
    out = []
    for seed in range(count):
        text = json_grammar._number(random.Random(seed), random.Random(-seed - 1))
        if text.lstrip("-").isdigit():
            out.append(int(text))
    return out


def test_the_grammar_draws_integers_past_every_width_either_sign() -> None:
    draws = _draws(3000)
    for width in WIDTHS:  # a signed reader of that width wraps these; an unsigned one saturates the negatives
        assert any(2 ** (width) <= abs(n) < 2 ** (width + 1) for n in draws), width
    assert any(2**63 <= n < 2**64 for n in draws) and any(n <= -(2**63) for n in draws)


def test_the_strategies_draw_the_unsigned_64_bit_range_often_enough() -> None:
    found: list[str] = []

    @settings(max_examples=400, derandomize=True, database=None)
    @given(number_text())
    def draw(text: str) -> None:
        found.append(text)

    draw()
    assert sum(1 for text in found if text.isdigit() and 2**63 <= int(text) < 2**64) >= 5, len(found)


def test_the_fixture_pins_each_edge_once_and_a_signed_reader_disagrees() -> None:
    cases = {case["id"]: case for case in json.loads((ROOT / "fixtures" / "write-gate-v1.json").read_text())["tests"]}
    for slug, _text in NUMBER_TEXTS:
        assert f"gate-number-{slug}" in cases, slug
    # a reader that takes 2^63..2^64-1 through the signed path turns each into a negative number: the pins in
    # that range (the similarity's sign against [1, 0]) say a skip where that reader would store
    wrapped = [slug for slug, text in NUMBER_TEXTS if text.isdigit() and 2**63 <= int(text) < 2**64]
    assert wrapped and all(cases[f"gate-number-{slug}"]["expect"]["result"]["action"] == "skip" for slug in wrapped)
    assert cases["gate-number-binary32-max-midpoint-below"]["expect"].get("result"), "rounds to f32::MAX: a result"
    assert cases["gate-number-binary32-max-midpoint-above"]["expect"] == {"error": "invalid_embedding"}
