"""A JSON refusal is about the depth rule only where the counterfactual says so (explain._depth_in_play): a
scan that ends strings at an escaped quote refuses a shallow text as too deep and takes a deep one, one class
(detail depth) either way; a text refused for a large integer beside a string of brackets is not about depth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.classes.examine import examine_all
from harness.differential.explain import unicode_versions_of
from harness.tools.plants import BASELINE_PLANTS, SHAPE_PLANTS
from suites.fake_impl import planted_reference

DEPTH_SCAN = next(p.mutation for p in SHAPE_PLANTS if p.mutation and p.mutation.name == "depth-scan-escaped-quote")
BIG_INTEGERS = next(p.mutation for p in BASELINE_PLANTS if p.mutation and p.mutation.name == "big-int-rejected")


def _gate(candidates: str) -> dict[str, Any]:
    return {"text": "New", "embedding_json": "null", "candidates_json": candidates}


def test_both_faces_of_a_depth_scan_that_ends_strings_at_an_escaped_quote_are_depth(tmp_path: Path,
                                                                                    core: Any) -> None:
    impls = {"reference": planted_reference(tmp_path, DEPTH_SCAN), "pyo3": core}
    versions = unicode_versions_of(impls)
    # A shallow text: after the escaped quote the scan counts the brackets of the next string.
    shallow = json.dumps([{"id": "a", "text": 'say "hi'}, {"id": "b", "text": "[" * 101}])
    # A text 101 levels deep: the scan blanks from the escaped quote on, its levels uncounted.
    deep = '[{"id":"a","text":"say \\"hi"},' + "[" * 100 + "]" * 100 + ',"\\"x"]'
    found = [examine_all(impls, "decide_write", _gate(text), versions) for text in (shallow, deep)]
    assert all(len(shares) == 1 for shares in found), found
    assert [(d[0].cause, d[0].detail) for d in found] == [("json_strictness", "depth")] * 2


def test_a_string_of_brackets_beside_a_large_integer_is_not_about_depth(tmp_path: Path, core: Any) -> None:
    impls = {"reference": planted_reference(tmp_path, BIG_INTEGERS), "pyo3": core}
    versions = unicode_versions_of(impls)
    text = json.dumps([{"id": "a", "text": "[" * 101, "n": 12345678901234567890}])
    (share,) = examine_all(impls, "decide_write", _gate(text), versions)
    assert (share.cause, share.detail) == ("json_strictness", None)
