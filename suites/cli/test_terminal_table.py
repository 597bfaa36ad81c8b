"""Issue 49, item 9: terminal safety by category. harness/model/printable.py escapes every code point of the
General_Category values Cc, Cf, Cs, Co, Zl, Zp and Cn, decided by the harness's own table
(harness/model/terminal_table.py, made by harness/tools/make_terminal_table.py from the pinned unicodedata2), never
by the running interpreter's unicodedata. The soft hyphen, the BOM and the zero-width space reached the terminal raw.

Every code point, 0 to U+10FFFF, is walked here against the table's categories, read from the table itself (not from
the escaping code); the table is checked against its source and against an independent one."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from harness.model import printable as printable_module
from harness.model import terminal_table
from harness.model.printable import ESCAPED, escape_char, printable, printable_block, unsafe
from harness.tools import make_terminal_table

ROOT = Path(__file__).resolve().parents[2]
LAST = 0x10FFFF


def _flags() -> bytearray:
    """1 for each code point of an escaped category, by the table's ranges."""
    flags = bytearray(LAST + 1)
    for name in ESCAPED:
        for first, last in terminal_table.RANGES[name]:
            flags[first:last + 1] = b"\x01" * (last - first + 1)
    return flags


def test_every_code_point_is_escaped_exactly_when_its_category_is() -> None:
    flags = _flags()
    wrong = [f"U+{point:04X}" for point in range(LAST + 1)
             if unsafe(chr(point)) != bool(flags[point]) or (printable(chr(point)) != chr(point)) != bool(flags[point])]
    assert wrong == [], wrong[:20]
    # And in one text (the regex and its astral path at once): each code point escaped or itself.
    text = "".join(map(chr, range(LAST + 1)))
    expected = "".join(escape_char(chr(point)) if flags[point] else chr(point) for point in range(LAST + 1))
    assert printable(text) == expected


def test_the_characters_found_raw_are_escaped() -> None:
    assert printable("soft\u00adhyphen \ufeffbom zero\u200bwidth") == "soft\\u00ADhyphen \\uFEFFbom zero\\u200Bwidth"
    assert printable("\u200d\u2060\U000e0041\ue000\U000f0000\ufffe\U0010ffff") == (
        "\\u200D\\u2060\\U+E0041\\uE000\\U+F0000\\uFFFE\\U+10FFFF")
    assert printable("Stra\u00dfe \u03c3 \u6771 \U0001f600 \u00a0 \U0001d11e") == (
        "Stra\u00dfe \u03c3 \u6771 \U0001f600 \u00a0 \U0001d11e")  # letters, symbols, spaces: as they are


def test_the_harness_own_line_breaks_stay_line_breaks() -> None:
    assert printable_block("one\u00ad\ntwo\r\nthree\u2028x", "  ") == "one\\u00AD\n  two\n  three\\u2028x"


def test_the_decision_is_the_tables_not_the_interpreters() -> None:
    """Characters this interpreter's unicodedata calls unassigned (Cn) that the table knows as letters or
    symbols are left as they are; characters it knows that the table escapes are escaped."""
    flags = _flags()
    newer = [point for point in range(LAST + 1) if not flags[point] and unicodedata.category(chr(point)) == "Cn"]
    if unicodedata.unidata_version != terminal_table.UNICODE_VERSION:
        assert newer, "the table's Unicode is newer than this Python's: it assigns characters this one does not"
    assert all(printable(chr(point)) == chr(point) for point in newer), [f"U+{p:04X}" for p in newer[:10]]


def test_the_table_is_what_its_source_makes() -> None:
    unicodedata2 = pytest.importorskip("unicodedata2")
    assert unicodedata2.unidata_version == terminal_table.UNICODE_VERSION, (
        "unicodedata2 moved: run `python -m harness.tools.make_terminal_table` and commit the table")
    assert make_terminal_table.OUT.read_text(encoding="utf-8") == make_terminal_table.made()
    assert make_terminal_table.main(["--check"]) == 0
    assert tuple(terminal_table.RANGES) == ESCAPED == make_terminal_table.ESCAPED


def test_the_tables_ranges_are_sorted_and_apart() -> None:
    seen: list[tuple[int, int]] = sorted(pair for ranges in terminal_table.RANGES.values() for pair in ranges)
    assert all(first <= last for first, last in seen)
    assert all(a[1] < b[0] for a, b in zip(seen, seen[1:], strict=False)), "two categories share a code point"
    assert terminal_table.RANGES["Cs"] == ((0xD800, 0xDFFF),)
    assert terminal_table.RANGES["Zl"] == ((0x2028, 0x2028),) and terminal_table.RANGES["Zp"] == ((0x2029, 0x2029),)


def test_unassigned_agrees_with_the_unicode_tables_of_data() -> None:
    """Cn, from unicodedata2, is what data/unicode-tables/ (from the npm registry's @unicode package) leaves
    unassigned for the same version, surrogates apart."""
    path = ROOT / "data" / "unicode-tables" / f"{terminal_table.UNICODE_VERSION}.json"
    assigned = bytearray(LAST + 1)
    for first, last in json.loads(path.read_text(encoding="utf-8"))["assigned"]:
        assigned[first:last + 1] = b"\x01" * (last - first + 1)
    unassigned = bytearray(LAST + 1)
    for first, last in terminal_table.RANGES["Cn"]:
        unassigned[first:last + 1] = b"\x01" * (last - first + 1)
    wrong = [f"U+{point:04X}" for point in range(LAST + 1)
             if not 0xD800 <= point <= 0xDFFF and bool(unassigned[point]) == bool(assigned[point])]
    assert wrong == [], wrong[:20]


def test_the_module_reads_no_unicodedata() -> None:
    source = Path(printable_module.__file__).read_text(encoding="utf-8")
    assert "import unicodedata" not in source and "from unicodedata" not in source
