"""A character step's values are compared only where both sides read one input there (issue 35's last failing
plant, "gate: empty_text before the other arguments"). The planted reference normalizes the text at once to
check it is not empty; clean code normalizes it later, after the candidates' JSON. Their traces part at the
reference's early norm.nfc, where the other side's next norm.nfc is another string's: compared, the two made
a `normalization` report of a witness whose only output difference is Pyodide's NFC of Unicode 16.0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.classes.examine import examine
from harness.differential.causes import cause_from_traces
from harness.differential.counterfactual.skew import by_input, unicode_steps_only
from harness.differential.explain import unicode_versions_of
from harness.testees.impls import ImplementationUnavailable, get_impl
from harness.tools.plants import PLANTS
from suites.fake_impl import planted_reference

EMPTY_FIRST = next(p.mutation for p in PLANTS if p.mutation and p.mutation.name == "empty-text-first")
# U+1D127 (a mark new in 18.0 after U+0301): the reference's NFC of 18.0 composes the l with the acute past it,
# so the candidate, written with a space before it, is the text's exact duplicate once both are normalized;
# Pyodide's NFC of 16.0 does not know the mark, keeps the acute apart and stores. Both strings have the ASCII
# letters "il"; only the space tells them apart.
TEXT, CANDIDATE = "\u0130l\u0301\U0001d127", " \u0130l\U0001d127\u0301"
TEXT_NFC, CANDIDATE_NFC_18, CANDIDATE_NFC_16 = "\u0130\u013a\U0001d127", " \u0130\u013a\U0001d127", CANDIDATE
VERSIONS = {"normalization": "18.0.0", "case_mapping": "14.0.0"}, {"normalization": "16.0.0", "case_mapping": "16.0.0"}


def _entry(step: str, value: Any) -> dict[str, Any]:
    return {"step": step, "value": value}


def _normalized(nfc: str) -> list[dict[str, Any]]:
    return [_entry("norm.nfc", nfc), _entry("norm.lowercase", nfc.lower()), _entry("norm.nfc_again", nfc.lower())]


def _trace(steps: list[dict[str, Any]], ok: str) -> dict[str, Any]:
    return {"op": "decide_write", "steps": [_entry("args", {"text": TEXT}), *steps], "outcome": {"ok": ok}}


# The reference normalizes the text first (the plant), the other side the text after the JSON; then both the
# candidate.
PLANTED = _trace([_entry("gate.text", TEXT), *_normalized(TEXT_NFC), _entry("gate.embedding_json", None),
                  *_normalized(TEXT_NFC), *_normalized(CANDIDATE_NFC_18)], "skip")
CLEAN = _trace([_entry("gate.text", TEXT), _entry("gate.embedding_json", None), *_normalized(TEXT_NFC),
                *_normalized(CANDIDATE_NFC_16)], "store")


def test_a_step_found_further_on_is_not_compared_as_this_ones_value() -> None:
    """The traces part at the planted early norm.nfc; the other side's first norm.nfc is a later string's.
    Read as one step's outputs, the combining marks made it `normalization`; they are not one input's."""
    found = cause_from_traces("decide_write", PLANTED, CLEAN, {"text": TEXT}, *VERSIONS)
    assert found is not None and found.step == "norm.nfc"
    assert found.cause not in ("normalization", "unicode_version_skew"), found


def test_unicode_steps_are_paired_by_the_string_they_read() -> None:
    """By place, the reference's second text normalization meets Pyodide's candidate one (both hold the letters
    "il"), and the difference looks like a rule's. By the string read, the extra one is left out."""
    by_place = cause_from_traces("decide_write", unicode_steps_only(PLANTED), unicode_steps_only(CLEAN),
                                 {"text": TEXT}, *VERSIONS)
    assert by_place is not None and by_place.cause != "unicode_version_skew"
    a, b = by_input(unicode_steps_only(PLANTED), unicode_steps_only(CLEAN))
    assert [e["step"] for e in a["steps"]] == [e["step"] for e in b["steps"]]
    assert [e["value"] for e in a["steps"] if e["step"] == "norm.nfc"] == [TEXT_NFC, CANDIDATE_NFC_18]
    assert [e["value"] for e in b["steps"] if e["step"] == "norm.nfc"] == [TEXT_NFC, CANDIDATE_NFC_16]
    found = cause_from_traces("decide_write", a, b, {"text": TEXT}, *VERSIONS)
    assert found is not None and (found.step, found.cause) == ("norm.nfc", "unicode_version_skew"), found


@pytest.fixture(scope="module")
def pyodide() -> Any:
    try:
        impl = get_impl("pyodide")
    except ImplementationUnavailable as exc:
        pytest.skip(str(exc))
    yield impl
    impl.close()


def test_the_witness_is_pyodides_skew_not_a_normalization_bug(tmp_path: Path, pyodide: Any) -> None:
    impls = {"reference": planted_reference(tmp_path, EMPTY_FIRST), "pyodide": pyodide}
    versions = unicode_versions_of(impls)
    if versions["reference"].get("normalization") == versions["pyodide"].get("normalization"):
        pytest.skip("Pyodide's NFC data is this Python's: no skew on the witness")
    args = {"text": TEXT, "embedding_json": "null",
            "candidates_json": json.dumps([{"id": "\u0301", "text": CANDIDATE}])}
    found = examine(impls, "decide_write", args, versions)
    assert found is not None and found.divergent == ("pyodide",)
    assert (found.cause, found.detail) == ("unicode_version_skew", "normalization"), (found.cause, found.witness.rule)
