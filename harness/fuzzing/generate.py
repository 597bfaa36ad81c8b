"""Fast random inputs for every op, in batches, from the domain's pools (no per-example Hypothesis cost).

One generator per parameter kind (``Param.kind`` in the registry), like the Hypothesis strategies of
harness/differential/strategies.py and built from the same pools: White_Space and its near misses,
the quote/dash map, edge punctuation, final-sigma contexts, case oddities, stacked combining marks,
characters new since Unicode 14, line breaks, lone surrogates, binary32 extremes, malformed JSON and
host values of the wrong type. The pools are the harness's own (harness/model/contract_sets.py), never
the reference's. A ``random.Random`` seeded by the caller makes every batch reproducible.
"""

from __future__ import annotations

import json
import math
import random
import struct
from collections.abc import Callable
from typing import Any

import unicodedata2

from harness.differential.strategies import (
    BASES,
    BOUNDARY_INTS,
    CASE_ODDITIES,
    COMBINING,
    LINE_BREAKS,
    LOOKALIKE_IDS,
    MALFORMED_JSON,
    MALFORMED_KEYS,
    QUOTES_DASHES,
    SIGMA_CONTEXTS,
    _similarity,
    recent_cased_characters,
    recent_characters,
    recent_nfc_sequences,
)
from harness.model import json_grammar
from harness.model.contract_sets import EDGE_PUNCTUATION, NEAR_WHITE_SPACE, WHITE_SPACE
from harness.model.hostvalues import EQUAL_BY_VALUE, orders, type_twins
from harness.model.json_texts import EDGE_NUMBER_TEXTS, NUMBER_TEXTS, RESTYLES, midpoint_neighbour, restyle
from harness.model.registry import OPS, plain_args

WORDS = ["user", "likes", "tea", "Coffee", "LISBON", "porto", "dark mode", "30", "-5%", "#x", "ΟΔΟΣ", "İstanbul"]
_WHITE = sorted(WHITE_SPACE)
_NEAR = sorted(NEAR_WHITE_SPACE)
_EDGE = sorted(EDGE_PUNCTUATION)
_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d"]
_NOT_TEXT = [42, None, 1.5, True, [], {}]
_NUMBER_TEXTS = [text for _, text in NUMBER_TEXTS[:len(NUMBER_TEXTS) - len(EDGE_NUMBER_TEXTS)]]
_EDGE_NUMBERS = [text for _, text in EDGE_NUMBER_TEXTS]
EDGE_RATE = 0.5  # number texts replaced by an edge one (json_texts.EDGE_NUMBER_TEXTS)
LOOKALIKE_RATE = 0.3  # plain ids replaced by an id equal to another but for case, normalization or width
TWIN_RATE = 0.01  # inputs followed by their type twins (Inputs.batch)


class Inputs:
    """Random arguments for the ops; every method draws from ``self.rng``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        # The draws added after a seed's inputs were first made (type twins, lookalike ids, edge numbers, keys):
        # a generator of their own, so that the main one's draws, and the seed's other inputs, stay as they were.
        self.twin_rng = random.Random(seed * 31 + 7)
        self.recent = recent_characters()
        self.recent_cased = recent_cased_characters()
        self.recent_nfc = recent_nfc_sequences()
        r = self.rng
        self._fragments: list[Callable[[], str]] = [
            lambda: r.choice(WORDS), lambda: r.choice(WORDS),
            lambda: r.choice(_WHITE), lambda: r.choice(_NEAR), lambda: r.choice(QUOTES_DASHES),
            lambda: r.choice(_EDGE) * r.randint(1, 3), lambda: r.choice(SIGMA_CONTEXTS),
            lambda: r.choice(CASE_ODDITIES),
            lambda: r.choice(BASES) + "".join(r.choice(COMBINING) for _ in range(r.randint(1, 4))),
            lambda: r.choice(LINE_BREAKS), lambda: r.choice(self.recent_cased), lambda: r.choice(self.recent),
            lambda: r.choice(self.recent_nfc) if self.recent_nfc else "a",
            self.any_character, lambda: chr(r.randint(0, 0x7F)),
        ]

    def any_character(self) -> str:
        while True:
            cp = self.rng.randint(0, 0x10FFFF) if self.rng.random() < 0.5 else self.rng.randint(0, 0xFFFF)
            if not 0xD800 <= cp <= 0xDFFF:
                return chr(cp)

    def text(self, surrogates: bool = True) -> str:
        r = self.rng
        out = "".join(r.choice(self._fragments)() for _ in range(r.randint(0, 8)))
        if surrogates and r.random() < 0.08:
            at = r.randint(0, len(out))
            # A quarter of these: a high lone half directly followed by a low one, two code points that a
            # UTF-16 host (or a boundary that goes through one) would merge into one valid pair.
            lone = r.choice(_SURROGATES) if r.random() < 0.75 else \
                chr(r.randint(0xD800, 0xDBFF)) + chr(r.randint(0xDC00, 0xDFFF))
            out = out[:at] + lone + out[at:]
        return out

    def text_arg(self) -> Any:
        return self.rng.choice(_NOT_TEXT) if self.rng.random() < 0.04 else self.text()

    # ---- numbers and vectors ----------------------------------------------------------------------

    def binary32(self) -> float:
        r = self.rng
        pick = r.random()
        if pick < 0.4:  # any finite binary32, subnormals included
            bits = r.getrandbits(32)
            if (bits >> 23) & 0xFF == 0xFF:
                bits ^= 1 << 30
            return struct.unpack("<f", struct.pack("<I", bits))[0]
        if pick < 0.6:
            return float(r.randint(-20, 20))
        if pick < 0.9:
            return r.uniform(-1, 1)
        return r.choice([0.0, -0.0, 1e-45, 3.4028234663852886e38, 1.0000000596046448, 0.1, 1e-50])

    def vector(self, dim: int) -> list[float]:
        return [self.binary32() for _ in range(dim)]

    def number_text(self, x: float) -> str:
        r = self.rng.random()
        if r < 0.5:
            return repr(x) if not x.is_integer() or abs(x) >= 1e16 else str(int(x))
        if r < 0.85:
            return f"{x:.17g}"
        if r < 0.89:  # texts that expose a wrong float reader (harness/model/json_texts.py)
            return self.edge_number(self.rng.choice(_NUMBER_TEXTS))
        if r < 0.93:  # next to a random binary32 rounding midpoint: one binary64 ulp decides
            return midpoint_neighbour(self.rng.getrandbits(31), self.rng.choice((-1, 1)))
        return self.rng.choice(["1e-400", "3.4028235e38", "3.4028236e38", "36893488147419103232", "-0", "0.0", "1E0"])

    def vector_json(self, values: list[float]) -> str:
        return self.restyled("[" + ",".join(self.number_text(x) for x in values) + "]")

    def restyled(self, text: str) -> str:
        """Now and then the same JSON written another way (whitespace, escapes) or with one fault of
        style (a whitespace near miss, a nested duplicate key): harness/model/json_texts.py."""
        if self.rng.random() >= 0.15:
            return text
        return restyle(text, self.rng.choice(RESTYLES), self.rng.getrandbits(20))

    # ---- JSON arguments ---------------------------------------------------------------------------

    def embedding_json(self) -> Any:
        r = self.rng.random()
        if r < 0.2:
            return "null"
        if r < 0.75:
            return self.vector_json(self.vector(self.rng.randint(1, 6)))
        if r < 0.84:
            return self.malformed(self.rng.choice(MALFORMED_JSON))
        if r < 0.88:
            return json_grammar.text(self.rng)
        if r < 0.97:
            return self.rng.choice(["[]", "{}", "[true]", '["1"]', "[null]", "3", '"x"'])
        return self.rng.choice([None, 7, True])

    def edge_number(self, text: str) -> str:
        """``text``, or now and then a number at a width's or a float format's edge (from the twins' generator)."""
        return self.twin_rng.choice(_EDGE_NUMBERS) if self.twin_rng.random() < EDGE_RATE else text

    def malformed(self, text: str) -> str:
        """``text``, or now and then a lone surrogate escaped in an object key (from the twins' generator)."""
        return self.twin_rng.choice(MALFORMED_KEYS) if self.twin_rng.random() < 0.1 else text

    def lookalike(self, plain: str) -> str:
        """``plain``, or now and then an id equal to another but for case, normalization form or width
        (strategies.LOOKALIKE_IDS), drawn from the twins' generator: the seed's other draws stay as they were."""
        return self.twin_rng.choice(LOOKALIKE_IDS) if self.twin_rng.random() < LOOKALIKE_RATE else plain

    def candidate(self, text: Callable[[], str], dim: int) -> dict[str, Any]:
        """A candidate object; now and then one or more fields of the wrong shape, so that the order in
        which a candidate's fields are checked shows."""
        r = self.rng
        item: dict[str, Any] = {"id": self.lookalike(r.choice(["a", "b", "c", "m1", " "]))
                                if r.random() < 0.7 else self.text(False)}
        if r.random() < 0.9:
            item["text"] = text()
        if r.random() < 0.6:
            item["embedding"] = None if r.random() < 0.2 else self.vector(dim)
        if r.random() < 0.3:
            item["pinned"] = r.choice([True, False, None])
        if r.random() < 0.1:
            item["extra"] = {"k": [1, None]}
        if r.random() < 0.06:
            for field, wrong in (("id", ["", 5, None, []]), ("text", [5, None, {}]), ("pinned", [1, "true", []]),
                                 ("embedding", ["x", [], [True], ["1"], {}, 7])):
                if r.random() < 0.5:
                    item[field] = r.choice(wrong)
        return item

    def candidates_json(self, text: Callable[[], str] | None = None, dim: int | None = None) -> Any:
        r = self.rng.random()
        if r < 0.75 or text is not None:
            dim = dim or self.rng.randint(1, 6)
            return self.restyled(dumps([self.candidate(text or (lambda: self.text(False)), dim)
                                        for _ in range(self.rng.randint(0, 4))]))
        if r < 0.85:
            return self.rng.choice(["null", "[]"])
        if r < 0.89:
            return self.malformed(self.rng.choice(MALFORMED_JSON))
        if r < 0.93:
            return json_grammar.text(self.rng)  # the grammar's shapes: escapes before deep nesting, wide objects
        return self.rng.choice(["{}", "[1]", "[null]", '[{"id":"","text":"a"}]', '[{"id":"a","text":5}]',
                                '[{"id":"a","text":"b","pinned":1}]', '[{"id":"a","text":"b","embedding":[]}]'])

    def section_json(self) -> Any:
        r = self.rng
        pick = r.random()
        if pick < 0.75:
            items = []
            for _ in range(r.randint(0, 6)):
                item: dict[str, Any] = {}
                if r.random() < 0.9:
                    item["id"] = self.lookalike(r.choice(["a", "b", "a ", "x]", "[y", " "])) if r.random() < 0.5 else \
                        (self.text(False) if r.random() < 0.9 else None)
                if r.random() < 0.9:
                    item["text"] = self.text(False) if r.random() < 0.95 else None
                if r.random() < 0.1:
                    item["score"] = 0.5
                items.append(item)
            return self.restyled(dumps(items))
        if pick < 0.85:
            return "null"
        if pick < 0.89:
            return self.malformed(r.choice(MALFORMED_JSON))
        if pick < 0.92:
            return json_grammar.text(r)
        if pick < 0.98:
            return r.choice(["{}", '"x"', "1", "[null]", '[{"id":5}]', '[{"text":true}]'])
        return r.choice([None, 3])

    # ---- host numbers and flags -------------------------------------------------------------------

    def cap(self) -> Any:
        r = self.rng.random()
        if r < 0.3:
            return self.rng.choice(BOUNDARY_INTS)
        if r < 0.7:
            return self.rng.randint(0, 40)
        if r < 0.9:
            return self.rng.choice([0.0, -0.0, 0.5, 2.5, 30.0, 4294967295.0, 4294967296.0, 9007199254740992.0,
                                    math.nan, math.inf, -math.inf, -1.0, 1e300])
        return self.rng.choice([True, False, None, "30"])

    def threshold(self) -> Any:
        if self.rng.random() < 0.6:
            return self.rng.uniform(0, 1)
        return self.rng.choice([0, 1, 0.85, -0.0, math.nextafter(0.85, 1), math.nextafter(0.85, 0), 0.8500000238418579,
                                math.nextafter(1, 2), -1e-300, math.nan, math.inf, 2, True, False, None, "0.85",
                                10**400])

    def mode(self) -> Any:
        if self.rng.random() < 0.85:
            return self.rng.choice(["auto", "explicit", "mirror", "reconcile"])
        return self.rng.choice(["AUTO", "", "auto ", "auto\ud800", None, 1])

    def force(self) -> Any:
        return self.rng.choice([True, False]) if self.rng.random() < 0.85 else self.rng.choice([0, 1, "true", None])

    # ---- whole argument sets ----------------------------------------------------------------------

    def generic(self, op_name: str) -> dict[str, Any]:
        args = {}
        for param in OPS[op_name].params:
            if param.required or self.rng.random() < 0.5:
                args[param.name] = self.kinds[param.kind]()
        return args

    @property
    def kinds(self) -> dict[str, Callable[[], Any]]:
        return {"text": self.text_arg, "embedding_json": self.embedding_json, "candidates_json": self.candidates_json,
                "section_json": self.section_json, "threshold": self.threshold, "mode": self.mode,
                "force": self.force, "cap": self.cap}

    def near_threshold(self) -> dict[str, Any]:
        """decide_write whose similarity sits on the threshold or one ulp either side of it."""
        r = self.rng
        dim = r.randint(1, 24)
        new = self.vector(dim)
        others = [self.vector(dim) for _ in range(r.randint(1, 3))]
        sims = [s for s in (_similarity(new, o) for o in others) if s is not None and 0.0 <= s <= 1.0]
        base = r.choice(sims) if sims else r.uniform(0, 1)
        nudge = r.choice([0, 0, -1, 1])
        value = base if nudge == 0 else math.nextafter(base, 2.0 if nudge > 0 else -1.0)
        candidates = [{"id": f"c{i}", "text": f"stored fact {i}", "embedding": o, "pinned": r.random() < 0.5}
                      for i, o in enumerate(others)]
        embedding = self.vector_json(new) if r.random() < 0.5 else dumps(new)
        return {"text": "new fact", "embedding_json": embedding, "candidates_json": dumps(candidates),
                "threshold": min(max(value, 0.0), 1.0), "mode": r.choice(["auto", "explicit", "mirror", "reconcile"])}

    def related(self) -> dict[str, Any]:
        """decide_write whose candidates are variations of the new text (exact matches, near misses)."""
        text = self.text(False)
        variants = [text, text.upper(), text + ".", " " + text + "\u001c", unicodedata2.normalize("NFD", text)]
        dim = self.rng.randint(1, 4)

        def pick() -> str:
            return self.rng.choice(variants) if self.rng.random() < 0.8 else self.text(False)

        return {"text": text, "embedding_json": dumps(self.vector(dim)),
                "candidates_json": self.candidates_json(pick, dim),
                "threshold": self.threshold(), "mode": self.mode(), "force": self.force()}

    def args(self, op_name: str) -> dict[str, Any]:
        if op_name == "decide_write":
            pick = self.rng.random()
            if pick < 0.2:
                return self.near_threshold()
            if pick < 0.4:
                return self.related()
        return self.generic(op_name)

    def batch(self, op_name: str, size: int) -> list[dict[str, Any]]:
        """``size`` inputs; now and then an input is followed by its type twins (a parameter's value replaced by
        the values equal to it under == but of another host type: True, 1, 1.0), and the batch ends with a few
        of the op's plain arguments with one parameter set to such values in some order, part of the order in
        this batch and the rest left to the batches after it (the plain arguments recur): a host that memoizes
        by == answers a later twin with an earlier one's answer. The twins are drawn from a generator of their
        own, so the other inputs are the ones the seed always gave, in the same places, until a twin takes one."""
        out: list[dict[str, Any]] = []
        while len(out) < size:
            args = self.args(op_name)
            out.append(args)
            if self.twin_rng.random() < TWIN_RATE:
                out.extend(self._twins(args))
        plain = self._plain_twins(op_name)
        return out[:size - len(plain)] + plain if len(plain) < size else out[:size]

    def _twins(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        names = [name for name, value in args.items() if type_twins(value)]
        if not names:
            return []
        name = self.twin_rng.choice(names)
        return [{**args, name: value} for value in type_twins(args[name])]

    def _plain_twins(self, op_name: str) -> list[dict[str, Any]]:
        base = plain_args(OPS[op_name])
        if base is None or not base:
            return []
        r = self.twin_rng
        name = r.choice(sorted(base))
        order = r.choice(orders(r.choice(EQUAL_BY_VALUE)))
        return [{**base, name: value} for value in order[:r.randint(1, len(order))]]


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
