"""Strings where they hide (issue 53 item 2): the strategies put ids equal but for case, normalization form or width
into one list, and lone-surrogate escapes into object keys, so that a reader folding ids or walking only values
disagrees with the reference on generated inputs, not only on one fixture case."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

from hypothesis import given, settings

from harness.differential.strategies import LOOKALIKE_IDS, MALFORMED_KEYS, section_json

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from reference.dedup_context import build_dedup_context


def _folded(item_id: str) -> str:
    return unicodedata.normalize("NFKC", item_id).casefold()


def _lists(count: int) -> list[list[str]]:
    found: list[list[str]] = []

    @settings(max_examples=count, derandomize=True, database=None)
    @given(section_json())
    def draw(text: object) -> None:
        if isinstance(text, str):
            try:
                items = json.loads(text)
            except ValueError:
                return
            if isinstance(items, list):
                found.append([item["id"] for item in items
                              if isinstance(item, dict) and isinstance(item.get("id"), str)])

    draw()
    return found


def test_one_list_often_holds_two_ids_equal_but_for_case_normalization_or_width() -> None:
    lists = _lists(600)
    alike = [ids for ids in lists if len({_folded(i) for i in ids}) < len(set(ids))]
    assert len(alike) >= 10, len(alike)
    assert {"a", "A", "\u00e1", "a\u0301", "\uff41", "K", "\u212a"} <= set(LOOKALIKE_IDS)


def test_a_reader_that_folds_ids_disagrees_with_the_reference_on_a_generated_list() -> None:
    lists = _lists(600)
    differing = 0
    for ids in lists:
        section = json.dumps([{"id": i, "text": f"t{n}"} for n, i in enumerate(ids)])
        try:
            kept = build_dedup_context(topical_json=section, pinned_json="null", recent_json="null", cap=30)
        except Exception:  # noqa: BLE001 - an id the contract refuses: not this test's subject
            continue
        folded = len({_folded(i) for i in ids if i.strip() and "[" not in i and "]" not in i})
        differing += kept.count("[ID: ") != folded
    assert differing >= 5, differing


def test_lone_surrogate_escapes_stand_in_keys_as_well_as_values() -> None:
    in_keys = [text for text in MALFORMED_KEYS if '"\\ud8' in text.split(":")[0] or any(
        part.rstrip().endswith(('\\ud800"', '\\udc00"', 'x\\udbff"')) for part in text.split(":")[:-1])]
    assert len(in_keys) >= 3, in_keys
    for text in in_keys:
        try:
            build_dedup_context(topical_json=text, pinned_json="null", recent_json="null", cap=30)
        except Exception as exc:  # noqa: BLE001
            assert "invalid_json" in str(exc), (text, exc)
        else:
            raise AssertionError(f"the reference accepts {text}")
