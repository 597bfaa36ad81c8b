"""The fuzzer, cause classification, reports, expected lists and promotion, on planted test doubles
(no Rust build needed): each check must see the bug it exists for."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import reference
from generators import FIXTURES, framework
from generators.framework import GeneratorError
from generators.promote import promote
from harness.classes.examine import examine
from harness.classes.expected import Entry, ExpectedSet, cover, load, recheck
from harness.classes.report import document, update_from_report, validate
from harness.cli.reports.divergences import classes_view
from harness.differential.counterfactual.skew import UNEXPLAINED, own_details
from harness.differential.explain import unicode_versions_of
from harness.fuzzing.fuzz import fuzz
from harness.model import hostvalues
from harness.testees.impls import InProcess, get_impl

ROOT = Path(__file__).resolve().parents[2]


def _impl(name: str, **overrides: Any) -> InProcess:
    return InProcess(name, lambda op: overrides.get(op.name, op.reference))


def strip_normalize(text: object) -> str:
    return reference.normalize_fact_text(text.strip() if isinstance(text, str) else text)


def wrapping_cap(topical_json: object, pinned_json: object, recent_json: object, cap: object = 30) -> str:
    if isinstance(cap, int) and not isinstance(cap, bool):
        cap = cap % 2**32  # the `>>> 0` of a JavaScript binding
    return reference.build_dedup_context(topical_json, pinned_json, recent_json, cap)


def float32_decide(text, embedding_json, candidates_json, threshold=0.85, mode="auto", force=False):  # type: ignore[no-untyped-def]
    import reference.write_gate as gate

    original = gate.plain_sum_of_products

    def f32_sums(a, b):  # type: ignore[no-untyped-def]
        total = 0.0
        for x, y in zip(a, b, strict=True):
            total = gate.to_binary32(total + gate.to_binary32(x * y))
        return total

    gate.plain_sum_of_products = f32_sums
    try:
        return reference.decide_write(text, embedding_json, candidates_json, threshold, mode, force)
    finally:
        gate.plain_sum_of_products = original


def leaking(text: object) -> str:
    if isinstance(text, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise UnicodeEncodeError("utf-8", text, 0, 1, "surrogates not allowed")
    return reference.normalize_fact_text(text)


def lenient_json_context(topical_json, pinned_json, recent_json, cap=30):  # type: ignore[no-untyped-def]
    import json as stdlib_json

    return reference.build_dedup_context(stdlib_json.dumps(stdlib_json.loads(topical_json)), pinned_json, recent_json,
                                         cap)


def without_quote_map(text: object) -> str:
    return _normalize_without(text, quote=True)


def _normalize_without(text: object, quote: bool = False, ellipsis: bool = False, sigma: bool = False,
                       nfc: bool = False) -> str:
    import reference.normalize as normalize
    from reference import unicode_data

    saved = (normalize.QUOTE_DASH_MAP, normalize.EDGE_CHARS, normalize.nfc)
    try:
        if quote:
            normalize.QUOTE_DASH_MAP = {k: v for k, v in unicode_data.QUOTE_DASH_MAP.items() if k != 0x2018}
        if ellipsis:
            normalize.EDGE_CHARS = unicode_data.EDGE_CHARS.replace("\u2026", "")
        if nfc:
            normalize.nfc = lambda t: t
        result = normalize.normalize_fact_text(text)
    finally:
        normalize.QUOTE_DASH_MAP, normalize.EDGE_CHARS, normalize.nfc = saved
    return result.replace("\u03c2", "\u03c3") if sigma else result


def keeping_ellipsis(text: object) -> str:
    return _normalize_without(text, ellipsis=True)


def sigma_never_final(text: object) -> str:
    return _normalize_without(text, sigma=True)


def without_nfc(text: object) -> str:
    return _normalize_without(text, nfc=True)


def no_split_on_u2028(topical_json, pinned_json, recent_json, cap=30):  # type: ignore[no-untyped-def]
    import reference.dedup_context as dedup

    saved = dedup.LINE_BREAK
    dedup.LINE_BREAK = re.compile(saved.pattern.replace("\u2028", ""))
    try:
        return reference.build_dedup_context(topical_json, pinned_json, recent_json, cap)
    finally:
        dedup.LINE_BREAK = saved


def candidates_checked_first(text, embedding_json, candidates_json, threshold=0.85, mode="auto", force=False):  # type: ignore[no-untyped-def]
    reference.decide_write(text, "null", candidates_json, threshold, mode, force)
    return reference.decide_write(text, embedding_json, candidates_json, threshold, mode, force)


def impls_with(**overrides: Any) -> dict[str, Any]:
    return {"reference": get_impl("reference"), "bugged": _impl("bugged", **overrides)}


@pytest.mark.parametrize(
    "overrides, op, args, cause",
    [
        ({"normalize_fact_text": strip_normalize}, "normalize_fact_text", {"text": "a\u001c"}, "whitespace_definition"),
        ({"build_dedup_context": wrapping_cap}, "build_dedup_context",
         {"topical_json": '[{"id":"a","text":"b"}]', "pinned_json": "null", "recent_json": "null", "cap": -1},
         "boundary_coercion"),
        ({"decide_write": float32_decide}, "decide_write",
         {"text": "n", "embedding_json": "[0.1,0.2,0.3]",
          "candidates_json": '[{"id":"a","text":"b","embedding":[0.3,0.2,0.1]}]',
          "threshold": 0.0}, "float_rounding"),
        ({"normalize_fact_text": leaking}, "normalize_fact_text", {"text": "\ud800"}, "boundary_coercion"),
        ({"normalize_fact_text": lambda text: "x"}, "normalize_fact_text", {"text": ""}, "rule_difference"),
        ({"build_dedup_context": lenient_json_context}, "build_dedup_context",
         {"topical_json": '[{"id":"a","id":"b","text":"t"}]', "pinned_json": "null", "recent_json": "null"},
         "json_strictness"),
        ({"normalize_fact_text": without_quote_map}, "normalize_fact_text", {"text": "a\u2018b"}, "quote_dash_map"),
        ({"normalize_fact_text": keeping_ellipsis}, "normalize_fact_text", {"text": "ab\u2026"}, "edge_punctuation"),
        ({"normalize_fact_text": sigma_never_final}, "normalize_fact_text", {"text": "\u0391\u03a3"}, "final_sigma"),
        ({"normalize_fact_text": without_nfc}, "normalize_fact_text", {"text": "e\u0301"}, "normalization"),
        ({"build_dedup_context": no_split_on_u2028}, "build_dedup_context",
         {"topical_json": '[{"id":"a","text":"x\u2028y"}]', "pinned_json": "null", "recent_json": "null"},
         "line_breaks"),
        ({"decide_write": candidates_checked_first}, "decide_write",
         {"text": "t", "embedding_json": "[1,", "candidates_json": "[1]"}, "validation_order"),
        ({"normalize_fact_text": lambda text: 1 / 0}, "normalize_fact_text", {"text": "abc"}, "error_versus_result"),
    ],
)
def test_classification(overrides: dict[str, Any], op: str, args: dict[str, Any], cause: str) -> None:
    impls = impls_with(**overrides)
    divergence = examine(impls, op, args, unicode_versions_of(impls))
    assert divergence is not None and divergence.cause == cause, divergence and divergence.to_json()


def test_fuzzer_finds_and_shrinks() -> None:
    impls = impls_with(normalize_fact_text=strip_normalize)
    stream = io.StringIO()
    result = fuzz(impls, ExpectedSet([], []), seconds=8, seed=3, ops=["normalize_fact_text"], stream=stream)
    assert result.new, "the planted whitespace bug was not found"
    found = result.new[0]
    assert found.cause == "whitespace_definition" and found.divergent == ("bugged",)
    text = hostvalues.decode_args(found.witness.args)["text"]
    assert len(text) <= 2, f"not shrunk: {text!r}"
    assert "[fuzz]" in stream.getvalue() and "examples" in stream.getvalue()
    report = document("fuzz", result.versions, result.divergences, result.examples, result.seconds, [])
    assert validate(report) == [] and report["ok"] is False
    assert "whitespace_definition" in classes_view(report)
    stripped = {f"U+{ord(ch):04X}" for ch in text if ch.isspace()}
    assert stripped and stripped <= {cp.code_point for cp in found.witness.code_points}, found.witness.code_points


def test_fuzzer_skips_expected() -> None:
    impls = impls_with(normalize_fact_text=strip_normalize)
    entry = Entry("bugged", "strip", "normalize_fact_text", "whitespace_definition", {"text": "a\u001c"}, "known")
    result = fuzz(impls, ExpectedSet([entry], []), seconds=4, seed=3, ops=["normalize_fact_text"],
                  stream=io.StringIO())
    assert not result.new and result.divergences and result.divergences[0].status == "expected"
    assert result.expected_problems == []


def _lowercase_16(text: object) -> str:
    """Case data of 15.0-17.0: U+1C89 (new in 16.0) lowercases to U+1C8A."""
    return reference.normalize_fact_text(text.replace("\u1c89", "\u1c8a") if isinstance(text, str) else text)


def _nfc_16(normalize: Any) -> Any:
    """NFC data of 16.0: U+05C8 (new in 18.0) is unassigned there, class 0, so it blocks reordering."""
    def run(text: object) -> str:
        if not isinstance(text, str):
            return normalize(text)
        return normalize(text.replace("\u05c8", "\ue000")).replace("\ue000", "\u05c8")
    return run


def test_a_skew_in_two_steps_is_covered_per_implementation_and_step() -> None:
    """With the reference at 14.0/18.0, Rust at 17.0/18.0 and Pyodide at 16.0/16.0, one input can skew
    Pyodide in case mapping and normalization, and Rust in case mapping only: each is covered by its
    own entries, one per step it differs in, and by nothing less. A bug of Rust's own on a character
    that only Pyodide's versions explain is not covered by Rust's case-mapping entry."""
    versions = {"reference": {"case_mapping": "14.0.0", "normalization": "18.0.0"},
                "pyo3": {"case_mapping": "17.0.0", "normalization": "18.0.0"},
                "pyodide": {"case_mapping": "16.0.0", "normalization": "16.0.0"}}
    faithful = {"reference": _impl("reference"), "pyo3": _impl("pyo3", normalize_fact_text=_lowercase_16),
                "pyodide": _impl("pyodide", normalize_fact_text=_nfc_16(_lowercase_16))}
    args = {"text": "\u1c89a\u05c8\u0323"}  # a capital new in 16.0; a mark new in 18.0 that reorders
    skew = "unicode_version_skew"
    divergence = examine(faithful, "normalize_fact_text", args, versions)
    assert divergence is not None and divergence.cause == skew and divergence.detail == "case_mapping+normalization"
    own = own_details(faithful, "normalize_fact_text", args, skew, ["pyo3", "pyodide"], versions)
    assert own == {"pyo3": "case_mapping", "pyodide": "case_mapping+normalization"}

    def entry(impl: str, detail: str) -> Entry:
        return Entry(impl, f"{impl}-{detail}", "normalize_fact_text", skew, args, "n", detail)

    every = [entry("pyo3", "case_mapping"), entry("pyodide", "case_mapping"), entry("pyodide", "normalization")]
    covering = ExpectedSet(every, [])
    assert covering.covers(["pyo3", "pyodide"], "normalize_fact_text", skew, "case_mapping+normalization", own)
    # Covering a record gives its coverage, a value; the record is as it was (new until its coverage is put in it).
    assert cover(covering, divergence).status == "expected" and divergence.status == "new"
    assert cover(covering, divergence).entries == tuple(f"{e.impl}/{e.id}" for e in every)
    # Without the per-implementation details the class's detail matches no single entry.
    assert not covering.covers(["pyo3", "pyodide"], "normalize_fact_text", skew, "case_mapping+normalization")
    # A step an implementation does not list is not covered by its other step's entry.
    assert not ExpectedSet(every[:2], []).covers(["pyo3", "pyodide"], "normalize_fact_text", skew,
                                                 "case_mapping+normalization", own)
    # Rust with an NFC bug of its own on U+05C8: its versions only explain U+1C89, so its share is
    # unexplained, and no entry (not even one per step) covers it.
    # The classifier does not call the whole divergence a skew then, so it is reported new.
    buggy = {**faithful, "pyo3": _impl("pyo3", normalize_fact_text=_nfc_16(_lowercase_16))}
    divergence = examine(buggy, "normalize_fact_text", args, versions)
    assert divergence is not None and divergence.cause != skew
    assert own_details(buggy, "normalize_fact_text", args, skew, ["pyo3", "pyodide"], versions)["pyo3"] == UNEXPLAINED
    both_steps = ExpectedSet(every + [entry("pyo3", "normalization")], [])
    assert not both_steps.covers(["pyo3", "pyodide"], "normalize_fact_text", skew, "case_mapping+normalization",
                                 own_details(buggy, "normalize_fact_text", args, skew, ["pyo3", "pyodide"], versions))
    assert cover(both_steps, divergence).status == "new" and not cover(both_steps, divergence).entries
    # Only a version skew is split into steps.
    json_entries = [Entry("pyo3", f"j-{d}", "build_dedup_context", "json_strictness", {}, "n", d)
                    for d in ("duplicate_keys", "nan")]
    assert not ExpectedSet(json_entries, []).covers(["pyo3"], "build_dedup_context", "json_strictness",
                                                     "duplicate_keys+nan")
    assert own_details(faithful, "normalize_fact_text", args, "whitespace_definition", ["pyo3"], versions) == {}


def test_recheck_reports_unexpected_pass_and_changed_cause() -> None:
    impls = impls_with(normalize_fact_text=strip_normalize)
    versions = unicode_versions_of(impls)
    ok = Entry("bugged", "ok", "normalize_fact_text", "whitespace_definition", {"text": "a\u001c"}, "n")
    passing = Entry("bugged", "gone", "normalize_fact_text", "whitespace_definition", {"text": "abc"}, "n")
    changed = Entry("bugged", "changed", "normalize_fact_text", "float_rounding", {"text": "a\u001c"}, "n")
    problems = recheck(ExpectedSet([ok, passing, changed], []), impls, versions)
    assert len(problems) == 2
    assert "bugged/gone: unexpected pass" in problems[0]
    assert "bugged/changed: the witness now diverges for whitespace_definition" in problems[1]


def test_recheck_never_advises_removing_an_entry_it_could_not_check() -> None:
    """A witness its implementation gave no answer to (taken out of the run) is not an unexpected pass."""
    impls = impls_with(normalize_fact_text=strip_normalize)
    versions = unicode_versions_of(impls)
    entry = Entry("bugged", "ok", "normalize_fact_text", "whitespace_definition", {"text": "a\u001c"}, "n")
    assert recheck(ExpectedSet([entry], []), impls, versions) == []
    impls["bugged"].call = lambda op, args: {"error": {"code": "protocol_fault", "message": "taken out"}}  # type: ignore[method-assign]
    problems = recheck(ExpectedSet([entry], []), impls, versions)
    assert problems == ["bugged/ok: not checked: it gave no answer to the witness (taken out of the run, or a fault: "
                        "see the findings); the entry is kept"]


def test_stale_entries_are_problems_of_the_run(tmp_path: Path) -> None:
    (tmp_path / "bugged.json").write_text(json.dumps({"schema": "expected-divergences-v1", "implementation": "bugged",
        "entries": [{"id": "old", "op": "removed_op", "cause": "other", "args": {}, "note": "n"},
                    {"id": "kept", "op": "normalize_fact_text", "cause": "other", "args": {}, "note": "n"}]}))
    loaded = load(["bugged"], tmp_path)
    assert any("stale entry 'old': unknown op 'removed_op'" in p for p in loaded.problems)
    assert [entry.id for entry in loaded.entries] == ["kept"]


def _list(impl: str = "bugged", **changes: Any) -> dict[str, Any]:
    entry = {"id": "skew", "op": "normalize_fact_text", "cause": "unicode_version_skew", "detail": "case_mapping",
             "step": "norm.lowercase", "characters": ["U+1C89"], "args": {"text": "\u1c89"}, "note": "n"}
    return {"schema": "expected-divergences-v2", "implementation": impl, "entries": [entry], **changes}


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


WHOLE = json.dumps(_list(), indent=2)
MALFORMED = {  # kind -> (the file's bytes, what the error says)
    "truncated": (WHOLE[:len(WHOLE) // 2].encode(), "not JSON"),
    "wrong schema": (json.dumps(_list(schema="divergence-report-v2")).encode(),
                     "its schema is \"divergence-report-v2\""),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "nesting deeper than the parser's limit"),
    "deep object": (json.dumps(_list(entries=[{"id": "x", "args": {"text": _deep(150)}}])).encode(),
                    "more than 100 levels"),
    "NaN": (WHOLE.replace('"note": "n"', '"note": NaN').encode(), "the token NaN"),
    "not UTF-8": (WHOLE.replace("skew", "sk\xe9w").encode("latin-1"), "not UTF-8"),
    "a BOM": (("\ufeff" + WHOLE).encode(), "byte order mark"),
    "a key twice": (WHOLE.replace('"note": "n"', '"note": "n", "note": "m"').encode(), "the key \"note\" twice"),
    "an array": (b"[]", "an array where an object is due"),
    "a broken entry": (json.dumps(_list(entries=[{"id": "x"}])).encode(), "at entries/0: "),
    "no schema": (json.dumps({"entries": []}).encode(), "its schema is missing"),
    "another implementation": (json.dumps(_list("pyo3")).encode(), "it names implementation 'pyo3', not 'bugged'"),
    "an id twice": (json.dumps(_list(entries=_list()["entries"] * 2)).encode(), "the entry id 'skew' twice"),
    "bad characters": (json.dumps(_list(entries=[{**_list()["entries"][0], "characters": ["U+0041..U+0020"]}])
                       ).encode(), "entry 'skew': characters: "),
    "bad witness": (json.dumps(_list(entries=[{**_list()["entries"][0], "args": {"text": {"$what": 1}}}])).encode(),
                    "entry 'skew': args: "),
}


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_a_malformed_expected_list_is_a_configuration_error_naming_the_file(tmp_path: Path, kind: str) -> None:
    """Never a problem of the run (status 1, the list's divergences then reported new): BadDocument, status 2,
    the file and the problem named, for load, migrate and update_from_report alike; nothing written."""
    from harness.classes.expected import migrate
    from harness.model.status import USAGE
    from harness.model.untrusted import BadDocument

    data, said = MALFORMED[kind]
    path = tmp_path / "bugged.json"
    path.write_bytes(data)
    for reads in (lambda: load(["bugged"], tmp_path), lambda: migrate({"bugged": _impl("bugged")}, {}, tmp_path),
                  lambda: update_from_report(document("fuzz", {"reference": {}, "bugged": {}}, [], 1, 1.0, []),
                                             tmp_path)):
        with pytest.raises(BadDocument) as refused:
            reads()
        assert refused.value.status == USAGE and str(refused.value).startswith(f"{path}: ")
        assert said in str(refused.value), str(refused.value)
    assert path.read_bytes() == data and sorted(p.name for p in tmp_path.iterdir()) == ["bugged.json"]


def test_update_from_report(tmp_path: Path) -> None:
    impls = impls_with(normalize_fact_text=strip_normalize)
    divergence = examine(impls, "normalize_fact_text", {"text": "a\u001c"}, unicode_versions_of(impls))
    assert divergence is not None
    report = document("fuzz", {"reference": {}, "bugged": {}}, [divergence], 1, 1.0, [])
    # limited by cause: a real difference is not made expected beside the skews asked for
    assert update_from_report(report, tmp_path, causes=frozenset({"unicode_version_skew"})) == []
    assert not (tmp_path / "bugged.json").exists() or not json.loads((tmp_path / "bugged.json").read_text())["entries"]
    changes = update_from_report(report, tmp_path, causes=frozenset({"whitespace_definition"}))
    assert len(changes) == 1 and "added" in changes[0]
    (tmp_path / "bugged.json").unlink()
    changes = update_from_report(report, tmp_path)  # every cause
    assert len(changes) == 1 and "added" in changes[0]
    entries = json.loads((tmp_path / "bugged.json").read_text())["entries"]
    assert entries[0]["cause"] == "whitespace_definition" and entries[0]["note"].startswith("TODO")
    assert update_from_report(report, tmp_path) == []  # idempotent
    report["divergences"] = []
    report["expectedCheck"]["unexpectedPasses"] = [{"impl": "bugged", "id": entries[0]["id"]}]
    assert "removed" in update_from_report(report, tmp_path)[0]
    assert json.loads((tmp_path / "bugged.json").read_text())["entries"] == []


def test_update_and_recheck_write_and_read_one_entry_per_skew_step(tmp_path: Path) -> None:
    """`expected update` writes a two-step skew as one entry per step of each implementation's own share
    (and none for an unexplained share); the recheck accepts each of those entries on that witness."""
    versions = {"reference": {"case_mapping": "14.0.0", "normalization": "18.0.0"},
                "pyo3": {"case_mapping": "17.0.0", "normalization": "18.0.0"},
                "pyodide": {"case_mapping": "16.0.0", "normalization": "16.0.0"}}
    impls = {"reference": _impl("reference"), "pyo3": _impl("pyo3", normalize_fact_text=_lowercase_16),
             "pyodide": _impl("pyodide", normalize_fact_text=_nfc_16(_lowercase_16))}
    divergence = examine(impls, "normalize_fact_text", {"text": "\u1c89a\u05c8\u0323"}, versions)
    assert divergence is not None
    report = document("fuzz", versions, [divergence], 1, 1.0, [])
    validate(report)
    assert report["divergences"][0]["ownDetails"] == {"pyo3": "case_mapping", "pyodide": "case_mapping+normalization"}
    changes = update_from_report(report, tmp_path)
    assert len(changes) == 3, changes
    written = {impl: sorted(e["detail"] for e in json.loads((tmp_path / f"{impl}.json").read_text())["entries"])
               for impl in ("pyo3", "pyodide")}
    assert written == {"pyo3": ["case_mapping"], "pyodide": ["case_mapping", "normalization"]}
    assert recheck(load(["pyo3", "pyodide"], tmp_path), impls, versions) == []
    assert update_from_report(report, tmp_path) == []  # idempotent
    report["divergences"][0]["ownDetails"]["pyo3"] = UNEXPLAINED
    (tmp_path / "pyo3.json").unlink()
    assert "not added" in update_from_report(report, tmp_path)[0]


@pytest.fixture
def scratch_fixtures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    fixtures = tmp_path / "fixtures"
    shutil.copytree(framework.FIXTURES_DIR, fixtures)
    monkeypatch.setattr(framework, "FIXTURES_DIR", fixtures)
    monkeypatch.setattr(framework, "PROMOTED_DIR", tmp_path / "promoted")
    return tmp_path


def _report(op: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"divergences": [{"op": op, "args": hostvalues.encode_args(args), "cause": "whitespace_definition",
                             "explanation": "planted", "divergent": ["bugged"], "status": "new"}]}


def test_promote_adds_a_case_through_the_generator(scratch_fixtures: Path) -> None:
    before = (scratch_fixtures / "fixtures" / "write-gate-v1.json").read_bytes()
    with pytest.raises(GeneratorError, match="norm-promoted-u001c: pins no step of normalize_fact_text"):
        promote(_report("normalize_fact_text", {"text": "A\u001cb "}), 1, "norm-promoted-u001c")
    assert (scratch_fixtures / "fixtures" / "write-gate-v1.json").read_bytes() == before
    with pytest.raises(GeneratorError, match="'norm.nope' is not a step of normalize_fact_text"):
        promote(_report("normalize_fact_text", {"text": "A\u001cb "}), 1, "norm-promoted-u001c", steps=("norm.nope",))
    message = promote(_report("normalize_fact_text", {"text": "A\u001cb "}), 1, "norm-promoted-u001c",
                      steps=("norm.edges", "norm.white_space"))
    assert "norm-promoted-u001c added" in message
    document_ = json.loads((scratch_fixtures / "fixtures" / "write-gate-v1.json").read_text())
    case = [t for t in document_["tests"] if t["id"] == "norm-promoted-u001c"][0]
    assert case["expect"] == {"result": "a\u001cb"} and case["flags"] == ["promoted"]
    assert case["steps"] == ["norm.white_space", "norm.edges"]  # in the op's order
    promote(_report("normalize_fact_text", {"text": "\ud800"}), 1, "norm-promoted-surrogate")  # an error: derived
    document_ = json.loads((scratch_fixtures / "fixtures" / "write-gate-v1.json").read_text())
    assert [t["steps"] for t in document_["tests"] if t["id"] == "norm-promoted-surrogate"] == [["norm.text"]]
    assert document_["numberOfTests"] == (
        json.loads((ROOT / "fixtures" / "write-gate-v1.json").read_text())["numberOfTests"] + 2)
    with pytest.raises(GeneratorError, match="already has a case"):
        promote(_report("normalize_fact_text", {"text": "x"}), 1, "norm-promoted-u001c")


def test_promote_refuses_released(scratch_fixtures: Path) -> None:
    framework.release(FIXTURES["dedup-context-v1"])  # in the scratch copy of fixtures/
    with pytest.raises(GeneratorError, match="dedup-context-v1 is released.*dedup-context-v2"):
        promote(_report("build_dedup_context", {"topical_json": "null", "pinned_json": "null",
                                                "recent_json": "null"}), 1, "ctx-promoted")
    assert not (scratch_fixtures / "promoted").exists()


def test_promote_refuses_version_skew_and_rolls_back(scratch_fixtures: Path) -> None:
    before = (scratch_fixtures / "fixtures" / "write-gate-v1.json").read_bytes()
    with pytest.raises(GeneratorError, match="U\\+1C89"):
        promote(_report("normalize_fact_text", {"text": "\u1c89"}), 1, "norm-promoted-skew")
    assert (scratch_fixtures / "fixtures" / "write-gate-v1.json").read_bytes() == before
    assert not (scratch_fixtures / "promoted" / "write-gate-v1.json").exists()


def test_diff_cli_exit_codes() -> None:
    run = [sys.executable, "-m", "harness", "diff", "--impls", "reference"]
    agree = subprocess.run([*run, "normalize_fact_text", "A\\x1cb"], cwd=ROOT, capture_output=True, text=True,
                           check=False)
    assert agree.returncode == 0 and "agree" in agree.stdout and "a\\u001cb" in agree.stdout
    bad = subprocess.run([*run, "nope"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert bad.returncode != 0 and "unknown op" in bad.stderr
    typed = subprocess.run([*run, "build_dedup_context", "null", "null", "null", "--arg", "cap=-1"], cwd=ROOT,
                           capture_output=True, text=True, check=False)
    assert typed.returncode == 0 and "invalid_cap" in typed.stdout


def test_unescape() -> None:
    from harness.cli.tools import unescape

    assert unescape("A\\x1cb\\u00e9\\U0001f600\\n\\\\") == "A\u001cb\u00e9\U0001f600\n\\"
    assert unescape("\\ud800") == "\ud800"


def test_generated_inputs_are_reproducible_and_fit_the_registry() -> None:
    from harness.fuzzing.generate import Inputs
    from harness.model.registry import OPS, check_args

    for op in ("normalize_fact_text", "decide_write", "build_dedup_context", "unicode_nfc"):
        first, again = Inputs(7).batch(op, 300), Inputs(7).batch(op, 300)
        assert first == again or json.dumps(hostvalues.encode(first)) == json.dumps(hostvalues.encode(again))
        for args in first:
            check_args(OPS[op], args)
        assert Inputs(8).batch(op, 50) != first[:50]


def test_witnesses_are_local_minima() -> None:
    """No single step of the shrinker keeps the same divergence of the shrunk witness."""
    from harness.classes import shrink as shrinking
    from harness.differential.counterfactual import classify
    from harness.differential.outcomes import divergent, observe
    from harness.fuzzing.classes import outcome_kinds

    impls = impls_with(decide_write=lambda text, embedding_json, candidates_json, threshold=0.85, mode="auto",
                       force=False: reference.decide_write(text.strip() if isinstance(text, str) else text,
                                                           embedding_json, candidates_json, threshold, mode, force))
    versions = unicode_versions_of(impls)
    args = {"text": "user likes tea\u001c", "embedding_json": "[0.5,1.0,2.0]",
            "candidates_json": '[{"id":"z","text":"other"},{"id":"m","text":"User likes TEA","embedding":[1,2,3]}]',
            "threshold": 0.5, "mode": "auto"}
    divergence = examine(impls, "decide_write", args, versions)
    # normalize_fact_text itself agrees on every string, so the gate's own rule is the cause (Op.via).
    assert divergence is not None and divergence.cause == "rule_difference"
    cause = (divergence.cause, divergence.detail)
    small, responses = shrinking.shrink(impls, "decide_write", args, versions, cause)
    assert shrinking.size(small) < shrinking.size(args) * 0.6, small
    kinds, names = outcome_kinds(responses), divergent("decide_write", responses)
    for phase in (shrinking._structure_steps, shrinking._paired_steps, shrinking._global_steps, shrinking._fine_steps):
        for candidate in phase(small):
            if not shrinking._order(candidate) < shrinking._order(small):  # only steps down the order count
                continue
            got = observe(impls, "decide_write", candidate)
            found = classify(impls, "decide_write", candidate, got, versions)
            same = outcome_kinds(got) == kinds and divergent("decide_write", got) == names and \
                (found[0], found[2]) == cause
            assert not same, f"{candidate!r} is smaller and keeps the divergence of {small!r}"


def _raw_exact_decide_write(text: object, embedding_json: object, candidates_json: object, threshold: object = 0.85,
                            mode: object = "auto", force: object = False) -> str:
    """The reference with issue 18's masked bug: the exact-match rule compares raw texts."""
    from reference import strict_json, write_gate

    result = json.loads(reference.decide_write(text, embedding_json, candidates_json, threshold, mode, force))
    parsed = strict_json.loads(candidates_json, "candidates_json") or []
    raw = next((c for c in parsed if c.get("text") == text), None)
    if raw is not None:
        (action, reason), _ = write_gate.outcomes(mode, force)  # type: ignore[arg-type]
        match = {"id": raw["id"], "text": raw["text"], "similarity": None, "pinned": bool(raw.get("pinned"))}
        result = {"action": action, "reason": reason, "match": match}
    elif result["match"] is not None and result["match"]["similarity"] is None:  # a normalized exact match
        result = {"action": "store", "reason": "new", "match": None}
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("step, other_versions, other_normalize, skew_char", [
    ("case_mapping", {"case_mapping": "17.0.0", "normalization": "18.0.0"}, _lowercase_16, "\u1c89"),
    ("normalization", {"case_mapping": "14.0.0", "normalization": "16.0.0"}, _nfc_16(reference.normalize_fact_text),
     "a\u05c8\u0323"),
])
def test_no_skew_entry_covers_a_bug_placed_next_to_its_skew(step: str, other_versions: dict[str, str],
                                                            other_normalize: Any, skew_char: str) -> None:
    """Issue 18's masked bug: the reference's exact match compares raw texts, on an input that also holds a
    character of a real skew, a Hangul syllable and a capital sigma (which the coarse classes took for
    version-sensitive and case-relevant). The other implementation's expected entry for that skew must not
    cover it: the report is new, and its cause is not the skew."""
    versions = {"reference": {"case_mapping": "14.0.0", "normalization": "18.0.0"}, "other": other_versions}
    impls = {"reference": _impl("reference", decide_write=_raw_exact_decide_write),
             "other": _impl("other", normalize_fact_text=other_normalize,
                            decide_write=lambda *a, **k: _with_normalize(other_normalize, *a, **k))}
    args = {"text": f"{skew_char}\u03a3\ud55c X", "embedding_json": "null",
            "candidates_json": json.dumps([{"id": "c", "text": f"{skew_char}\u03c3\ud55c x"}])}
    divergence = examine(impls, "decide_write", args, versions)
    assert divergence is not None
    entry = Entry("other", f"other-{step}", "decide_write", "unicode_version_skew", args, "n", step)
    assert cover(ExpectedSet([entry], []), divergence).status == "new"
    assert divergence.cause != "unicode_version_skew", divergence.cause


def _with_normalize(normalize: Any, *args: Any, **kwargs: Any) -> str:
    """decide_write of the reference with another normalize_fact_text (its skewed Unicode data)."""
    from reference import write_gate

    original = write_gate.normalize_valid
    write_gate.normalize_valid = normalize  # type: ignore[assignment]
    try:
        return reference.decide_write(*args, **kwargs)
    finally:
        write_gate.normalize_valid = original


def test_a_v1_list_is_read_with_a_problem_and_migrated_to_v2_with_steps_and_characters(tmp_path: Path) -> None:
    import jsonschema

    from harness.classes.expected import SCHEMA, migrate
    from harness.model.paths import SCHEMAS

    impls = impls_with(normalize_fact_text=strip_normalize)
    versions = unicode_versions_of(impls)
    v1 = {"schema": "expected-divergences-v1", "implementation": "bugged", "entries": [
        {"id": "strip", "op": "normalize_fact_text", "cause": "whitespace_definition", "args": {"text": "a\u001c"},
         "note": "n"}]}
    jsonschema.validate(v1, json.loads((SCHEMAS / "expected-divergences-v1.schema.json").read_text()))
    (tmp_path / "bugged.json").write_text(json.dumps(v1))
    loaded = load(["bugged"], tmp_path)
    assert loaded.entries and any("migrate it with `python -m harness expected update`" in p for p in loaded.problems)
    changes = migrate(impls, versions, tmp_path)
    assert changes == ["bugged: strip now names step None and 1 code point range(s)"], changes
    written = json.loads((tmp_path / "bugged.json").read_text())
    jsonschema.validate(written, json.loads(SCHEMA.read_text()))
    assert written["schema"] == "expected-divergences-v2"
    assert (written["entries"][0]["step"], written["entries"][0]["characters"]) == (None, ["U+001C"])
    migrated = load(["bugged"], tmp_path)
    assert migrated.problems == [] and recheck(migrated, impls, versions) == []
    assert migrate(impls, versions, tmp_path) == []  # nothing left to migrate


def test_an_implementation_that_agrees_through_a_skew_does_not_split_a_class() -> None:
    """Pyodide's 16.0 data can make it agree with a buggy oracle (a reordered candidate unequal to the text, as
    a raw comparison would find it): its agreement is no evidence, so the sighting joins the class seen on
    all three (a plant run had two classes of one reference bug)."""
    from harness.classes.book import ClassBook
    from harness.classes.key import ClassKey
    from harness.differential.counterfactual.skew import masked

    versions = {"reference": {"case_mapping": "14.0.0", "normalization": "18.0.0"},
                "pyo3": {"case_mapping": "17.0.0", "normalization": "18.0.0"},
                "pyodide": {"case_mapping": "16.0.0", "normalization": "16.0.0"}}
    present = ["reference", "pyo3", "pyodide"]
    assert masked("normalize_fact_text", {"text": "a\u05c8\u0323"}, present, ["pyo3"], versions) == {"pyodide"}
    assert masked("normalize_fact_text", {"text": "abc"}, present, ["pyo3"], versions) == frozenset()
    assert masked("normalize_fact_text", {"text": "a\u05c8\u0323"}, present, ["pyo3", "pyodide"], versions) == \
        frozenset()
    # A skew share: an implementation whose data for that step is another version than the oracle's agrees
    # only because its data has these characters as the oracle's does (a reference NFC of 14.0: a mark new in
    # 17.0 skews Rust's 18.0 alone, Pyodide's 16.0 agrees).
    old_nfc = {**versions, "reference": {"case_mapping": "14.0.0", "normalization": "14.0.0"}}
    assert masked("normalize_fact_text", {"text": "x"}, present, ["pyo3"], old_nfc, "normalization") == {"pyodide"}
    same_nfc = {**versions, "pyodide": {"case_mapping": "14.0.0", "normalization": "18.0.0"}}
    assert masked("normalize_fact_text", {"text": "x"}, present, ["pyo3"], same_nfc, "normalization") == frozenset()
    book = ClassBook(["pyo3", "pyodide"])
    every = ClassKey.of("decide_write", ("pyo3", "pyodide"), "rule_difference", None, "gate.exact")
    assert book.place(every, frozenset()) == (every, None)
    fewer = ClassKey.of("decide_write", ("pyo3",), "rule_difference", None, "gate.exact")
    args = {"text": "a\u05c8\u0323", "embedding_json": "null", "candidates_json": "null"}
    assert book.place(fewer, masked("decide_write", args, present, ["pyo3"], versions)) == (every, None)
    assert book.place(fewer, frozenset()) == (fewer, None)  # without the skew: another class


def test_a_pool_whose_terminate_hangs_is_ended_within_its_grace() -> None:
    """harness/fuzzing/pools.py: a terminate that never returns (a worker waiting for ever on a lock) is
    cut short: every child left is killed and the call returns."""
    import multiprocessing
    import time

    from harness.fuzzing import pools

    # spawn: this test's process has threads (pytest-xdist's), and fork from a threaded process warns from 3.12
    child = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(60,))
    child.start()

    class Stuck:
        def terminate(self) -> None:
            child.join()  # returns only once the child is gone

    started = time.monotonic()
    pools.end(Stuck(), grace=0.5)
    assert time.monotonic() - started < 5 and not child.is_alive()


def test_merged_fuzz_shards_find_the_classes_of_one_run(tmp_path: Path) -> None:
    """fuzz --shard K/N --seed S --max-examples M, one worker: N merged shards equal one run with S and M,
    class for class, over the same examples (a fake with a traced planted bug at norm.edges beside the
    reference); shards of two campaigns, or overlapping ones, are refused; a missing one is said."""
    from harness.classes import rundiff
    from harness.model.schemas import problems
    from suites.fake_impl import declare, run

    declare(tmp_path / "impls", bug="edges")
    common = ("--impls", "fake", "--seed", "11", "--max-examples", "4000", "--workers", "1", "--seconds", "300")
    reports = {}
    for name, extra in (("whole", ()), ("1-of-2", ("--shard", "1/2")), ("2-of-2", ("--shard", "2/2"))):
        reports[name] = tmp_path / f"{name}.json"
        done = run(tmp_path / "impls", "-m", "harness", "fuzz", *common, *extra, "--report", str(reports[name]))
        assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]  # the planted bug is new
    merged = tmp_path / "merged.json"
    done = run(tmp_path / "impls", "-m", "harness", "fuzz", "--merge", str(reports["1-of-2"]), str(reports["2-of-2"]),
               "--report", str(merged))
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    whole, joined = (json.loads(path.read_text()) for path in (reports["whole"], merged))
    assert problems(joined) == [] and joined["fuzz"]["shards"] == ["1/2", "2/2"]
    halves = [json.loads(reports[name].read_text())["examples"] for name in ("1-of-2", "2-of-2")]
    assert halves == [2000, 2000] and joined["examples"] == whole["examples"] == 4000
    assert {rundiff.identity(d) for d in joined["divergences"]} == {rundiff.identity(d) for d in whole["divergences"]}
    assert whole["divergences"]
    assert joined["run"]["seed"] == 11 and joined["fuzz"]["ops"] == whole["fuzz"]["ops"]
    quarter = tmp_path / "1-of-4.json"
    done = run(tmp_path / "impls", "-m", "harness", "fuzz", *common, "--shard", "1/4", "--report", str(quarter))
    other_ops = tmp_path / "ops.json"
    done = run(tmp_path / "impls", "-m", "harness", "fuzz", *common, "--shard", "2/2", "--ops", "decide_write",
               "--report", str(other_ops))
    for pair, said in (((reports["1-of-2"], reports["1-of-2"]), "a shard is given twice"),
                       ((reports["1-of-2"], quarter), "different numbers of shares"),
                       ((reports["1-of-2"], other_ops), "different ops")):
        refused = run(tmp_path / "impls", "-m", "harness", "fuzz", "--merge", *map(str, pair),
                      "--report", str(tmp_path / "refused.json"))
        assert refused.returncode == 2 and said in refused.stderr, refused.stderr
    alone = tmp_path / "alone.json"
    run(tmp_path / "impls", "-m", "harness", "fuzz", "--merge", str(reports["1-of-2"]), "--report", str(alone))
    assert "shards 2/2 of the campaign are not in this merge" in json.loads(alone.read_text())["cut"]


@pytest.mark.parametrize("kind", ["truncated", "wrong schema", "deep", "NaN"])
def test_a_malformed_expected_list_stops_every_command_with_status_2(tmp_path: Path, kind: str) -> None:
    """fuzz, diff, expected check and expected update (with and without a report) on a fake whose list (in its
    declaration's folder) is malformed: status 2, the file named, no traceback, no report, the list untouched."""
    from suites.fake_impl import declare, run

    folder = tmp_path / "impls"
    declare(folder, expected="lists/fake.json")
    listed = folder / "lists" / "fake.json"
    listed.parent.mkdir()
    listed.write_bytes(MALFORMED[kind][0])
    stamp = listed.stat().st_mtime_ns
    report = tmp_path / "report.json"
    report.write_text(json.dumps(document("fuzz", {"reference": {}, "fake": {}}, [], 1, 1.0, [])))
    written = tmp_path / "fuzz.json"
    impls = ("--impls", "reference,fake")
    for command in (("fuzz", *impls, "--seconds", "1", "--workers", "1", "--report", str(written)),
                    ("diff", "normalize_fact_text", "Abc", *impls, "--json"),
                    ("expected", "check", *impls), ("expected", "update", *impls),
                    ("expected", "update", "--report", str(report), *impls)):
        done = run(folder, "-m", "harness", *command)
        assert done.returncode == 2, (command, done.stdout[-2000:], done.stderr[-2000:])
        assert f"error: {listed}: not a " in done.stderr and MALFORMED[kind][1] in done.stderr, done.stderr
        assert "Traceback" not in done.stderr + done.stdout and not done.stdout.strip(), done.stdout[-2000:]
        assert listed.read_bytes() == MALFORMED[kind][0] and listed.stat().st_mtime_ns == stamp
        assert sorted(p.name for p in listed.parent.iterdir()) == ["fake.json"] and not written.exists()


def test_expected_lists_are_written_only_over_expected_lists(tmp_path: Path) -> None:
    """The list writer (expected._write, behind migrate and update_from_report) replaces a list or makes a new
    one, never another file: NotADocument, status 2, the file as it was (files.check_replaceable)."""
    from harness.classes import expected as lists
    from harness.model.files import NotADocument

    fresh = tmp_path / "new" / "bugged.json"
    lists._write(fresh, lists._document("bugged", []))
    assert json.loads(fresh.read_text())["schema"] == "expected-divergences-v2"
    for name, data in (("notes.md", b"# my notes\n"), ("report.json", json.dumps({"schema": "divergence-report-v2"})
                                                                             .encode()), ("deep.json", b"[" * 10**5)):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(NotADocument, match=f"^{path}: .*list of expected divergences"):
            lists._write(path, lists._document("bugged", []))
        assert path.read_bytes() == data


def test_expected_update_writes_nothing_when_one_list_is_malformed(tmp_path: Path) -> None:
    """Every list is read whole before any is written: a v1 list that migrate would rewrite stays as it was when
    another implementation's list is malformed (and update_from_report likewise)."""
    from harness.classes.expected import migrate
    from harness.model.untrusted import BadDocument

    v1 = json.dumps({"schema": "expected-divergences-v1", "implementation": "bugged", "entries": [
        {"id": "strip", "op": "normalize_fact_text", "cause": "whitespace_definition", "args": {"text": "a\u001c"},
         "note": "n"}]})
    (tmp_path / "bugged.json").write_text(v1)
    (tmp_path / "zzz.json").write_bytes(MALFORMED["truncated"][0])
    impls = {**impls_with(normalize_fact_text=strip_normalize), "zzz": _impl("zzz")}
    with pytest.raises(BadDocument, match="zzz.json: not a list of expected divergences: not JSON"):
        migrate(impls, unicode_versions_of(impls), tmp_path)
    report = document("fuzz", {"reference": {}, "bugged": {}, "zzz": {}}, [], 1, 1.0, [],
                      unexpected_passes=[{"impl": "bugged", "id": "strip"}])
    with pytest.raises(BadDocument, match="zzz.json: "):
        update_from_report(report, tmp_path)
    assert (tmp_path / "bugged.json").read_text() == v1
