"""The class book (harness/classes/book.py) with real class records: a class that grows onto a key already held
is joined with the record held there (``ClassRecord.merge``: the smaller witness, the earliest sighting, the
stricter coverage), not dropped beside it (planted: the held record kept untouched, seen failing)."""

from __future__ import annotations

from typing import Any

from harness.classes.book import ClassBook
from harness.classes.record import EXPECTED, ClassRecord, Coverage, Extent
from harness.differential.explain import Found, code_points

VERSIONS = {name: {"unicode": "15.1.0"} for name in ("reference", "pyo3", "wasm")}
FOUND = Found("whitespace_definition", "U+001C is whitespace to one side", None, "norm.edges", "edges-whitespace",
              ("whitespace_definition", None), ("\x1c",), {"pyo3": {"index": 2, "step": "norm.edges", "value": "a"}})


def _sighting(text: str, divergent: tuple[str, ...], found_after: float, **coverage: Any) -> ClassRecord:
    """A sighting of one bug on ``text``, answered by all three (an implementation that agreed only through a
    skew is in the outputs and yet not of the share) and divergent in ``divergent``."""
    args = {"text": text}
    responses = {"reference": {"ok": text.strip()},
                 **{name: {"ok": text if name in divergent else text.strip()} for name in ("pyo3", "wasm")}}
    return ClassRecord.of_sighting("normalize_fact_text", args, responses, divergent, FOUND,
                                   code_points(args, VERSIONS), extent=Extent(found_after),
                                   coverage=Coverage(**coverage))


def test_a_class_grown_onto_a_held_key_is_joined_with_the_record_held_there() -> None:
    """As a brute force over filing orders found: (pyo3, wasm absent), (wasm, pyo3 absent), then (pyo3, wasm)
    twice. The third grows pyo3's class to both; the fourth grows wasm's onto that key, already held: one
    class, whose record is the held one joined with wasm's (merge), wherever each part came from."""
    pyo3 = _sighting("a long text on pyo3\x1c", ("pyo3",), 5.0, status=EXPECTED, entries=("pyo3/e1",))
    wasm = _sighting("w\x1c", ("wasm",), 2.0)  # the smallest witness, the earliest sighting, new
    both = _sighting("both, long enough\x1c", ("pyo3", "wasm"), 6.0)
    again = _sighting("both, longer still than that\x1c", ("pyo3", "wasm"), 7.0)
    book: ClassBook[ClassRecord] = ClassBook(["reference", "pyo3", "wasm"])
    assert book.file(pyo3, frozenset({"wasm"})).created
    assert book.file(wasm, frozenset({"pyo3"})).created  # no implementation in common: two classes so far
    grown = book.file(both, frozenset())
    assert (grown.key, grown.created, grown.grew_from) == (both.key, False, pyo3.key)
    assert grown.record.witness == both.witness and grown.record.status == EXPECTED  # named by it, shown by it
    joined = book.file(again, frozenset())
    assert (joined.key, joined.created, joined.grew_from) == (both.key, False, wasm.key)
    assert list(book.held) == [both.key] and book.held[both.key] == joined.record
    record = joined.record
    assert record.divergent == ("pyo3", "wasm")
    # The stricter coverage: an expected class joined with a new sighting is new.
    assert record.status == "new" and record.coverage.entries == ()
    # The smaller witness (Witness.size) of the held class's and the joined one's, both reaching pyo3 and wasm.
    assert wasm.witness.size < both.witness.size
    assert record.witness == min((both.witness, wasm.witness), key=lambda witness: witness.size) == wasm.witness
    assert record.characters == wasm.characters
    # The earliest sighting of any part.
    assert record.extent.found_after == 2.0  # wasm's, not pyo3's (5.0) the held record had
