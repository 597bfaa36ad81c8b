"""data/unicode-tables/ (harness/tools/make_unicode_tables.py): what each Unicode-dependent step reads, per version
in play, character by character; checked against the host's own data where the host has that version."""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import unicodedata2

from harness.model import unicode_tables
from harness.model.unicode_tables import MissingTable, differing, differs, table

ROOT = Path(__file__).resolve().parents[2]

# The versions the implementations report (docs/contract.md §9): case mapping 14.0, 15.0, 15.1 (CPython 3.11,
# 3.12, 3.13), 16.0 (Pyodide), 17.0 (Rust std); normalization 16.0 (Pyodide), 18.0 (unicodedata2,
# unicode-normalization).
IN_PLAY = {"case_mapping": ("14.0.0", "15.0.0", "15.1.0", "16.0.0", "17.0.0"), "normalization": ("16.0.0", "18.0.0")}


def test_a_table_for_every_version_in_play() -> None:
    for step, versions in IN_PLAY.items():
        for version in versions:
            document = json.loads((unicode_tables.TABLES / f"{version}.json").read_text(encoding="ascii"))
            assert document["schema"] == "unicode-tables-v2" and document["unicode"] == version
            assert document[step] is not None and document["sources"][step]
            table(version).data(0x41, step)


def _lower_mismatches(t: unicode_tables.Table) -> list[int]:
    """Code points whose lowercase mapping in `t` is not what this CPython's str.lower does."""
    return [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF
            and chr(cp).lower() != "".join(map(chr, t.lower.get(cp, (cp,))))]


def _normalization_mismatches(t: unicode_tables.Table, data: Any = unicodedata2) -> list[int]:
    """Code points whose NFC data in `t` is not that of ``data`` (the installed unicodedata2, or CPython's own
    unicodedata)."""
    wrong = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF or 0xAC00 <= cp <= 0xD7A3:
            continue
        ch = chr(cp)
        decomposition = data.decomposition(ch)
        canonical = tuple(int(h, 16) for h in decomposition.split()) if decomposition and \
            not decomposition.startswith("<") else None
        if (t.ccc.get(cp, 0), t.canonical.get(cp)) != (data.combining(ch), canonical):  # type: ignore[union-attr]
            wrong.append(cp)
        elif canonical and (cp in t.excluded) != (data.normalize("NFC", ch) != ch):  # type: ignore[operator]
            wrong.append(cp)
    return wrong


def test_the_14_0_case_table_is_what_cpython_3_11_does() -> None:
    if unicodedata.unidata_version != "14.0.0":
        pytest.skip(f"the host's unicodedata is {unicodedata.unidata_version}, not 14.0.0")
    t = table("14.0.0")
    assert _lower_mismatches(t) == []
    planted = dataclasses.replace(t, lower={cp: to for cp, to in t.lower.items() if cp != 0x130})
    assert _lower_mismatches(planted) == [0x130]  # the check sees one mapping gone


def test_the_14_0_normalization_table_is_cpython_3_11s() -> None:
    if unicodedata.unidata_version != "14.0.0":
        pytest.skip(f"the host's unicodedata is {unicodedata.unidata_version}, not 14.0.0")
    t = table("14.0.0")
    assert _normalization_mismatches(t, unicodedata) == []
    planted = dataclasses.replace(t, excluded=t.excluded - {0x0958})  # type: ignore[operator]
    assert _normalization_mismatches(planted, unicodedata) == [0x0958]


def test_the_18_0_normalization_table_is_unicodedata2s() -> None:
    assert unicodedata2.unidata_version == "18.0.0"
    t = table("18.0.0")
    assert _normalization_mismatches(t) == []
    planted = dataclasses.replace(t, ccc={cp: c for cp, c in t.ccc.items() if cp != 0x301})  # type: ignore[union-attr]
    assert _normalization_mismatches(planted) == [0x301]


def _category_mismatches(t: unicode_tables.Table, data: Any) -> list[int]:
    """Code points whose General_Category in `t` is not that of ``data`` (CPython's unicodedata, unicodedata2)."""
    return [cp for cp in range(0x110000) if t.category(cp) != data.category(chr(cp))]


def _white_space_mismatches(t: unicode_tables.Table, data: Any) -> list[int]:
    """Code points whose White_Space in `t` is not what ``data`` says: White_Space is every separator (Zs, Zl, Zp)
    and every code point of bidi class WS, B or S except the four information separators U+001C..U+001F (the
    definition CPython's str.isspace differs from by those four)."""
    def white(cp: int) -> bool:
        ch = chr(cp)
        return not 0x1C <= cp <= 0x1F and (data.category(ch) in ("Zs", "Zl", "Zp") or
                                           data.bidirectional(ch) in ("WS", "B", "S"))
    return [cp for cp in range(0x110000) if t.data(cp, "white_space") != (white(cp),)]


def test_the_14_0_general_category_and_white_space_tables_are_cpython_3_11s() -> None:
    if unicodedata.unidata_version != "14.0.0":
        pytest.skip(f"the host's unicodedata is {unicodedata.unidata_version}, not 14.0.0")
    t = table("14.0.0")
    assert _category_mismatches(t, unicodedata) == [] and _white_space_mismatches(t, unicodedata) == []
    assert t.categories is not None and t.white is not None
    # planted: U+0041 made Ll, U+00A0 left out of White_Space: each check sees exactly that one
    split = tuple(r for a, b, c in t.categories
                  for r in (((a, a, "Ll"), (a + 1, b, c)) if a == 0x41 else ((a, b, c),)))
    planted = dataclasses.replace(t, categories=split, category_starts=tuple(r[0] for r in split))
    assert _category_mismatches(planted, unicodedata) == [0x41]
    white = tuple(r for r in t.white if r != (0xA0, 0xA0))
    planted = dataclasses.replace(t, white=white, white_starts=tuple(r[0] for r in white))
    assert _white_space_mismatches(planted, unicodedata) == [0xA0]


def test_the_18_0_general_category_and_white_space_tables_are_unicodedata2s() -> None:
    assert unicodedata2.unidata_version == "18.0.0"
    t = table("18.0.0")
    assert _category_mismatches(t, unicodedata2) == [] and _white_space_mismatches(t, unicodedata2) == []


def test_general_category_differs_exactly_where_a_letter_came_or_a_category_changed() -> None:
    """15.0 -> 16.0: U+1C89 (Cn -> Lu) and the Garay letters (Cn -> Lo) differ, U+1171E (Mn -> Mc) too; an old
    letter and an old space do not; White_Space is the same in every version in play."""
    gc = differing("general_category", "15.0.0", "16.0.0")
    assert {0x1C89, 0x10D4A, 0x1171E} <= set(gc) and 0x41 not in gc and 0x4E00 not in gc
    assert all(table("15.0.0").category(cp) != table("16.0.0").category(cp) for cp in gc)
    assert differs(0x10D4A, "general_category", "15.0.0", "16.0.0")
    assert not differs(0x10D4A, "general_category", "16.0.0", "18.0.0")
    assert all(differing("white_space", a, b) == [] for a in unicode_tables.available()
               for b in unicode_tables.available())
    assert unicode_tables.PROPERTIES == ("normalization", "case_mapping", "general_category", "white_space")


def test_a_v1_table_has_no_general_category_and_a_version_reporting_it_needs_one(tmp_path: Path,
                                                                              monkeypatch: Any) -> None:
    """A table of schema v1 (no general_category, no white_space) holds no data for them: an implementation
    reporting general_category of that version is a NoTableForVersion (status 2), its case mapping is not."""
    document = json.loads((unicode_tables.TABLES / "16.0.0.json").read_text(encoding="ascii"))
    del document["general_category"], document["white_space"]
    document["schema"] = "unicode-tables-v1"
    (tmp_path / "16.0.0.json").write_text(json.dumps(document), encoding="ascii")
    monkeypatch.setattr(unicode_tables, "TABLES", tmp_path)
    unicode_tables.table.cache_clear()
    try:
        with pytest.raises(MissingTable, match="16.0.0: the table has no general_category data"):
            table("16.0.0").data(0x41, "general_category")
        unicode_tables.require({"box": {"case_mapping": "16.0.0"}})
        with pytest.raises(unicode_tables.NoTableForVersion, match=r"16.0.0 read by box \(general_category\)"):
            unicode_tables.require({"box": {"general_category": "16.0.0"}})
    finally:
        unicode_tables.table.cache_clear()


def test_exact_classes_not_whole_scripts() -> None:
    """Hangul syllables never differ (their decomposition is an algorithm); a letter that only became
    assigned, with no case or NFC data, does not differ; the real changes do."""
    assert not any(0xAC00 <= cp <= 0xD7A3 for cp in differing("normalization", "16.0.0", "18.0.0"))
    case_14_17 = differing("case_mapping", "14.0.0", "17.0.0")
    assert 0x1C89 in case_14_17 and 0x41 not in case_14_17 and len(case_14_17) < 1000
    assert differs(0x10ECF, "normalization", "16.0.0", "18.0.0")  # new in 18.0, ccc 230
    assert not differs(0x4E00, "case_mapping", "14.0.0", "17.0.0")  # a Lo letter, next to a sigma or not
    assert not differs(0x1C89, "case_mapping", "17.0.0", "17.0.0")


def test_a_table_without_normalization_data_is_named() -> None:
    without = dataclasses.replace(table("14.0.0"), ccc=None)
    with pytest.raises(MissingTable, match="14.0.0: the table has no normalization data"):
        without.data(0x41, "normalization")
    with pytest.raises(MissingTable, match="no Unicode table for 9.0.0"):
        table("9.0.0")


def test_the_running_pythons_own_version_has_a_table_that_is_what_it_does() -> None:
    """Every Python the README names reads its own Unicode for case mapping (3.11: 14.0, 3.12: 15.0, 3.13:
    15.1): its table is there, and is what its str.lower does, code point by code point."""
    version = unicodedata.unidata_version
    assert unicode_tables.has(version, "case_mapping"), f"no table for this Python's Unicode {version}"
    assert _lower_mismatches(table(version)) == []
    assert _normalization_mismatches(table(version), unicodedata) == []


def test_a_version_with_no_table_is_a_configuration_error_naming_it_and_the_command() -> None:
    unicode_tables.require({"wasm": {"case_mapping": "17.0.0", "normalization": "18.0.0",
                                     "white_space": "contract-v1"}, "box": {"case_mapping": "not a version"}})
    with pytest.raises(unicode_tables.NoTableForVersion) as missing:
        unicode_tables.require({"wasm": {"case_mapping": "17.0.0"}, "new": {"normalization": "19.0.0"}})
    said = str(missing.value)
    assert "Unicode 19.0.0 read by new (normalization)" in said and "17.0.0 read" not in said
    assert "python -m harness.tools.make_unicode_tables --versions 19.0.0" in said
    assert missing.value.status == 2


def test_fuzz_with_a_platform_of_no_table_is_status_2_and_writes_nothing(tmp_path: Path) -> None:
    from suites.fake_impl import declare, run

    folder = tmp_path / "impls"
    declare(folder, start={"command": ["{python}", str(ROOT / "suites" / "fakes" / "fake_testee.py")],
                           "env": {"FAKE_UNICODE": json.dumps({"case_mapping": "19.0.0", "normalization": "18.0.0",
                                                                "white_space": "contract-v1"})}})
    report = tmp_path / "fuzz.json"
    done = run(folder, "-m", "harness", "fuzz", "--seconds", "5", "--impls", "reference,fake", "--report",
               str(report))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Unicode 19.0.0 read by fake (case_mapping)" in done.stderr and "Traceback" not in done.stderr
    assert "make_unicode_tables --versions 19.0.0" in done.stderr
    assert not report.exists()


@pytest.mark.parametrize("python_unicode", ["14.0.0", "15.0.0", "15.1.0"])
def test_an_expected_skew_entry_is_the_same_worked_out_on_every_python(python_unicode: str) -> None:
    """`expected update` on 3.11, 3.12 or 3.13 writes the same characters for the reference-vs-wasm case-mapping
    skew: the reference's side is every version its declaration names for its platforms, not only this one."""
    from harness.classes.expected import entry_characters

    def chars(reference: str) -> list[str]:
        versions = {"reference": {"case_mapping": reference, "normalization": "18.0.0"},
                    "wasm": {"case_mapping": "17.0.0", "normalization": "18.0.0"}}
        return entry_characters("wasm", "normalize_fact_text", "unicode_version_skew", "case_mapping", frozenset(),
                                versions)

    assert chars(python_unicode) == chars("14.0.0")
    union = set().union(*(differing("case_mapping", v, "17.0.0") for v in ("14.0.0", "15.0.0", "15.1.0")))
    from harness.differential.explain import parse_char_ranges
    assert parse_char_ranges(chars(python_unicode)) == union


def test_a_platform_the_oracle_does_not_declare_is_a_configuration_error() -> None:
    from harness.testees.impls import DeclarationError, check_platforms

    check_platforms({"reference": {"case_mapping": "15.1.0"}, "wasm": {"case_mapping": "17.0.0"}})
    with pytest.raises(DeclarationError) as refused:
        check_platforms({"reference": {"case_mapping": "16.0.0"}})
    said = str(refused.value)
    assert "reference reads Unicode 16.0.0 for case_mapping" in said and "CPython 3.13: 15.1.0" in said
    assert "reference.json" in said and refused.value.status == 2
