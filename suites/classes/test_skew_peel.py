"""A version skew explains only what it explains (issue 35, build 4): with the skewed characters made equal in
every way the harness has, the implementations must agree, or the divergence left is the one reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.classes.examine import examine
from harness.differential.counterfactual.rewrite import marks_kept, oracle_role, replace_chars
from harness.differential.counterfactual.skew import peels
from harness.differential.explain import unicode_versions_of
from harness.differential.outcomes import divergent, observe
from harness.testees.impls import get_impl
from harness.tools.plants import BASELINE_PLANTS
from suites.fake_impl import planted_reference

RAW_EXACT = next(p.mutation for p in BASELINE_PLANTS if p.mutation and p.mutation.name == "exact-raw")
# U+A7CC (a capital letter of 16.0: its case data differs between the reference's 14.0 and the core's 17.0) beside
# U+1ACF (a mark of class 230 whose case data differs too) before U+0323 (class 220): NFC puts U+0323 first and
# composes it with the a, so the candidate, written composed, is the text once normalized, not before.
TEXT, CANDIDATE = "a\u1acf\u0323\ua7cc", "\u1ea1\u1acf\ua7cc"


def _args() -> dict[str, Any]:
    return {"text": TEXT, "embedding_json": "null", "candidates_json": json.dumps([{"id": "c", "text": CANDIDATE}])}


def test_a_mark_keeps_its_place_in_the_canonical_order_in_one_peel() -> None:
    versions = {"reference": {"case_mapping": "14.0.0", "normalization": "18.0.0"}}
    skewed = {"\u1acf", "\ua7cc"}
    plain = replace_chars({"text": TEXT}, skewed.__contains__, oracle_role(versions))["text"]
    kept = replace_chars({"text": TEXT}, skewed.__contains__, marks_kept(oracle_role(versions)))["text"]
    import unicodedata2

    assert unicodedata2.combining(plain[1]) == 0  # a stand-in that blocks the reordering
    assert unicodedata2.combining(kept[1]) == 230 and kept[2:3] == "\u0323" and kept[0] == "a"
    assert [p["text"] for p in peels({"text": TEXT}, skewed.__contains__, versions)] == [plain, kept]
    assert peels({"text": "abc"}, skewed.__contains__, versions) == []


def test_clean_code_agrees_on_the_witness(core: Any) -> None:
    impls = {"reference": get_impl("reference"), "pyo3": core}
    assert not divergent("decide_write", observe(impls, "decide_write", _args()))


def test_a_raw_exact_match_beside_a_case_skew_is_not_the_skew(tmp_path: Path, core: Any) -> None:
    """Issue 35's masked plant: the reference's exact match on raw texts parts from the core first at
    norm.lowercase, on a letter whose case data differs between 14.0 and 17.0. Peeled with non-combining
    stand-ins alone the bug vanished with the skew (the mark no longer reordered), and the skew's expected entry
    covered it; with the mark kept in order the raw comparison still differs, and that is the report."""
    impls = {"reference": planted_reference(tmp_path, RAW_EXACT), "pyo3": core}
    versions = unicode_versions_of(impls)
    if versions["reference"].get("case_mapping") == versions["pyo3"].get("case_mapping"):
        pytest.skip("this Python's case data is the core's: no skew to ride along")
    found = examine(impls, "decide_write", _args(), versions)
    assert found is not None
    assert (found.cause, found.step) == ("rule_difference", "gate.exact"), (found.cause, found.step, found.witness.rule)
