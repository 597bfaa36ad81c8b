"""The exhaustive sweep: its plan and shards, its classes (one per bug, the right cause, a minimal
witness, the code points as ranges), checkpoints and resume, shard merging, and inputs a host cannot
express. A fake implementation (suites/fakes/fake_testee.py, FAKE_BUG=strip) carries the planted bug."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from harness.classes.key import ClassKey
from harness.classes.report import validate
from harness.fuzzing import sweep, sweep_report
from harness.fuzzing.templates import BY_NAME, TEMPLATES, select
from harness.model.registry import OPS
from suites.fake_impl import declare, run

NARROW = ["--templates", "alone,leading-edge,trailing-edge,between-letters", "--range", "U+0000..U+00FF"]


def test_shards_partition_the_plan() -> None:
    settings = sweep.Settings(("a", "b"), tuple(t.name for t in TEMPLATES), 0, 0x10FFFF, (1, 1))
    whole = {chunk.key for chunk in sweep.plan(settings)}
    parts = [{c.key for c in sweep.plan(sweep.Settings(("a", "b"), settings.templates, 0, 0x10FFFF, (k, 3)))}
             for k in (1, 2, 3)]
    assert set().union(*parts) == whole and sum(map(len, parts)) == len(whole)
    values = sum(c.stop - c.start for c in sweep.plan(settings))
    assert values == sum(t.size for t in TEMPLATES)


@pytest.mark.parametrize("text, problem", [("U+110000", "up to U+10FFFF"), ("U+00FF..U+0000", "after the last"),
                                           ("zz", "expected U+XXXX")])
def test_bad_ranges_are_named(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match="--range") as error:
        sweep.parse_range(text)
    assert problem in str(error.value)


def test_bad_filters_are_named() -> None:
    with pytest.raises(ValueError, match="unknown template 'nope'"):
        select(names=["nope"])
    with pytest.raises(ValueError, match="no sweep templates"):
        select(ops=["unicode_versions"])
    with pytest.raises(ValueError, match="K must be"):
        sweep.parse_shard("3/2")


def test_every_template_builds_its_ops_arguments() -> None:
    for template in TEMPLATES:
        args = template.args(0x1C)
        assert set(args) <= {p.name for p in OPS[template.op].params}
    assert BY_NAME["surrogate-pair"].value(0) == "\ud800\udc00"
    assert BY_NAME["surrogate-pair"].value(1024 * 1024 - 1) == "\udbff\udfff"


def _sweep(folder: Path, *extra: str) -> tuple[int, dict, str]:
    """Sweep with the fake declared in ``folder / "impls"``; outputs in ``folder``."""
    report = folder / "report.json"
    proc = run(folder / "impls", "-m", "harness", "sweep", "--impls", "fake", "--report", str(report),
               "--checkpoint", str(folder / "checkpoint.jsonl"), *extra)
    assert report.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.returncode, json.loads(report.read_text()), proc.stdout + proc.stderr


def test_a_planted_bug_is_one_class_with_its_cause_and_a_minimal_witness(tmp_path: Path) -> None:
    declare(tmp_path / "impls", bug="strip")
    status, report, output = _sweep(tmp_path, *NARROW, "--workers", "2")
    assert status == 1, output
    assert validate(report) == []
    assert [(d["op"], d["cause"], d["status"]) for d in report["divergences"]] == \
        [("normalize_fact_text", "whitespace_definition", "new")], output
    found = report["divergences"][0]
    assert found["ranges"] == [[0x1C, 0x1F]]
    assert found["templates"] == {"alone": 4, "leading-edge": 4, "trailing-edge": 4}
    assert found["args"] == {"text": "\u001c"}  # one character: nothing left to remove
    assert "python -m harness diff normalize_fact_text" in found["replay"]
    assert "U+001C..U+001F (4)" in output


def test_a_faithful_implementation_sweeps_clean(tmp_path: Path) -> None:
    declare(tmp_path / "impls")
    status, report, output = _sweep(tmp_path, *NARROW)
    assert status == 0 and report["divergences"] == [] and report["sweep"]["compared"] == 4 * 256, output


def test_checkpoints_resume_and_refuse_other_settings(tmp_path: Path) -> None:
    declare(tmp_path / "impls", bug="strip")
    first = _sweep(tmp_path, *NARROW)
    again = _sweep(tmp_path, *NARROW)
    assert "resuming" in again[2] and again[1]["divergences"] == first[1]["divergences"]
    other = run(tmp_path / "impls", "-m", "harness", "sweep", "--impls", "fake", "--templates", "alone",
                "--range", "U+0000..U+00FF",
                "--checkpoint", str(tmp_path / "checkpoint.jsonl"), "--report", str(tmp_path / "other.json"))
    assert other.returncode != 0 and "other settings (templates differ" in other.stderr and "--fresh" in other.stderr


def test_shard_reports_merge_into_the_unsharded_classes(tmp_path: Path) -> None:
    declare(tmp_path / "impls", bug="strip")
    wide = NARROW[:3] + ["U+0000..U+3FFF"]
    _, whole, _ = _sweep(tmp_path, *wide, "--checkpoint", str(tmp_path / "whole.jsonl"))
    shards = []
    for k in (1, 2):
        path = tmp_path / f"shard{k}.json"
        proc = run(tmp_path / "impls", "-m", "harness", "sweep", "--impls", "fake", *wide, "--shard", f"{k}/2",
                   "--report", str(path), "--checkpoint", str(tmp_path / f"c{k}.jsonl"))
        assert path.exists(), proc.stderr
        shards.append(path)
    merged_path = tmp_path / "merged.json"
    proc = run(tmp_path / "impls", "-m", "harness", "sweep", "--merge", *map(str, shards), "--report", str(merged_path))
    merged = json.loads(merged_path.read_text())
    assert proc.returncode == 1 and validate(merged) == []
    key = lambda d: (d["op"], d["cause"], d["inputs"], str(d["ranges"]), d["args"])  # noqa: E731
    assert sorted(map(key, merged["divergences"])) == sorted(map(key, whole["divergences"]))
    assert merged["sweep"]["values"] == whole["sweep"]["values"] and merged["sweep"]["shards"] == ["1/2", "2/2"]


def test_inputs_a_utf16_host_cannot_hold_are_counted_not_sent(tmp_path: Path) -> None:
    declare(tmp_path / "impls", host_strings="utf-16")
    status, report, output = _sweep(tmp_path, "--templates", "surrogate-pair,alone", "--range", "U+D800..U+D801")
    assert status == 0, output
    assert report["sweep"]["inexpressible"] == {"fake": {"surrogate-pair": 2048}}
    assert report["sweep"]["compared"] == 2  # the two lone surrogates alone; no pair reached the fake
    assert "not expressible in fake's host" in output


def test_merge_refuses_different_sweeps() -> None:
    base = {"profile": "sweep", "implementations": {"a": {}},
            "sweep": {"templates": ["alone"], "range": ["U+0000", "U+00FF"]},
            "divergences": []}
    other = json.loads(json.dumps(base))
    other["sweep"]["templates"] = ["doubled"]
    with pytest.raises(ValueError, match="different templates"):
        sweep_report.merge([base, other])


def test_an_input_not_sent_everywhere_does_not_make_another_class() -> None:
    """The same bug on an input WASM's host cannot hold (a high and a low lone half) names fewer
    implementations: it is the same class, named by every implementation it was seen in, whichever
    sighting comes first; an implementation that was sent the input and agreed is a different class."""
    from harness.classes.book import ClassBook
    from harness.classes.key import ClassKey

    op, cause, detail, step = "normalize_fact_text", "boundary_coercion", "text", "norm.nfc"
    both, pyo3_only = ClassKey.of(op, ("pyo3", "wasm"), cause, detail, step), ClassKey.of(op, ("pyo3",), cause,
                                                                                          detail, step)
    book: ClassBook[Held] = ClassBook(["reference", "pyo3", "wasm"])
    assert book.place(both, frozenset()) == (both, None)
    assert book.place(pyo3_only, frozenset({"wasm"})) == (both, None)  # wasm was not sent this one
    other: ClassBook[Held] = ClassBook(["reference", "pyo3", "wasm"])
    assert other.place(pyo3_only, frozenset({"wasm"})) == (pyo3_only, None)
    assert other.place(both, frozenset()) == (both, pyo3_only)  # the class grows; callers move it
    assert other.place(pyo3_only, frozenset({"wasm"})) == (both, None)
    # wasm was sent the input and agreed with the reference: not the class where it disagrees.
    agreeing: ClassBook[Held] = ClassBook(["reference", "pyo3", "wasm"])
    agreeing.place(both, frozenset())
    assert agreeing.place(pyo3_only, frozenset()) == (pyo3_only, None)
    # Another cause, detail or step is another class.
    cap = ClassKey.of(op, ("pyo3",), cause, "cap", step)
    assert agreeing.place(cap, frozenset({"wasm"})) == (cap, None)
    elsewhere = ClassKey.of(op, ("pyo3",), cause, detail, "norm.edges")
    assert agreeing.place(elsewhere, frozenset({"wasm"})) == (elsewhere, None)


@dataclasses.dataclass(frozen=True)
class Held:
    """A record a ClassBook holds, for its tests: what was filed into it, in order."""

    key: ClassKey
    labels: tuple[str, ...]

    def merge(self, other: Held) -> Held:
        return Held(self.key, self.labels + other.labels)

    def named_by(self, key: ClassKey, witness_from: Held) -> Held:
        return Held(key, (*self.labels, f"grown to {','.join(key.impls)} by {witness_from.labels[0]}"))


def test_a_class_whose_key_grows_is_moved_once_and_joined_into_one_already_held() -> None:
    """The one grow-and-move (ClassBook.file): a class filed under fewer implementations is moved under the
    grown key (named by it, shown by the sighting that made it grow), or joined into the class held under it
    (merge); the caller hears of the move (Filed.grew_from) and joins a later sighting itself (join)."""
    from harness.classes.book import ClassBook, Filed

    def key(*impls: str) -> ClassKey:
        return ClassKey.of("normalize_fact_text", impls, "boundary_coercion", "text", "norm.nfc")

    book: ClassBook[Held] = ClassBook(["reference", "pyo3", "wasm"])
    assert book.file(Held(key("pyo3"), ("a",)), frozenset({"wasm"})) == Filed(key("pyo3"), Held(key("pyo3"), ("a",)),
                                                                               True, None)
    grown = Held(key("pyo3", "wasm"), ("a", "grown to pyo3,wasm by b"))
    b = Held(key("pyo3", "wasm"), ("b",))
    assert book.file(b, frozenset()) == Filed(key("pyo3", "wasm"), grown, False, key("pyo3"))
    assert list(book.held.values()) == [grown]  # the record filed is not held: the caller joins it, or not
    assert book.join(key("pyo3", "wasm"), b).labels == ("a", "grown to pyo3,wasm by b", "b") == \
        book.held[key("pyo3", "wasm")].labels
    assert book.file(Held(key("pyo3", "wasm"), ("c",)), frozenset()).grew_from is None  # grown once
    # A class grown to a key already held: one class, the moved one joined into it.
    other: ClassBook[Held] = ClassBook(["reference", "pyo3", "wasm"])
    other.file(Held(key("pyo3"), ("pyo3 alone",)), frozenset({"wasm"}))
    other.held[key("pyo3", "wasm")] = Held(key("pyo3", "wasm"), ("held",))  # a sighting the book could not relate
    found = other.file(Held(key("pyo3", "wasm"), ("new",)), frozenset())
    assert found == Filed(key("pyo3", "wasm"), Held(key("pyo3", "wasm"), ("held", "pyo3 alone")), False, key("pyo3"))
    assert list(other.held) == [key("pyo3", "wasm")]


def test_shard_merge_keeps_one_class_when_a_shard_could_not_send_everywhere() -> None:
    """Shard 1 saw the bug only on high-low pairs (not sent to wasm), shard 2 on lone surrogates too:
    the merged report has one class, named by both implementations, with a witness that reached both."""
    def divergence(divergent: list[str], outputs: list[str], args: dict, ranges: list, template: str) -> dict:
        count = sum(last - first + 1 for first, last in ranges)
        return {"op": "normalize_fact_text", "args": args, "outputs": {n: {"ok": "x"} for n in outputs},
                "divergent": divergent, "cause": "boundary_coercion", "detail": "text", "explanation": "e",
                "codePoints": [], "status": "new", "expectedEntry": None, "replay": "r", "inputs": count,
                "surrogatePairs": 0, "ranges": ranges, "codePointRanges": [], "codePointRangeCount": len(ranges),
                "codePointCount": count, "templates": {template: count}}

    def report(shard: str, found: dict) -> dict:
        return {"profile": "sweep", "implementations": {"reference": {}, "pyo3": {}, "wasm": {}},
                "divergences": [found], "examples": 1, "seconds": 1.0,
                "sweep": {"templates": ["alone", "surrogate-pair"], "range": ["U+0000", "U+10FFFF"], "shards": [shard],
                          "values": 1, "compared": 1, "inexpressible": {}, "interrupted": False}}

    pairs = divergence(["pyo3"], ["reference", "pyo3"], {"text": {"$codepoints": [55296, 56320]}}, [[5, 5]],
                       "surrogate-pair")
    lone = divergence(["pyo3", "wasm"], ["reference", "pyo3", "wasm"], {"text": {"$utf16": [55296]}},
                      [[55296, 55296]], "alone")
    for order in ([report("1/2", pairs), report("2/2", lone)], [report("2/2", lone), report("1/2", pairs)]):
        merged = sweep_report.merge(json.loads(json.dumps(order)))
        (only,) = merged["divergences"]
        assert only["divergent"] == ["pyo3", "wasm"] and only["args"] == {"text": {"$utf16": [55296]}}
        assert only["inputs"] == 2 and only["templates"] == {"surrogate-pair": 1, "alone": 1}


def test_every_cause_has_the_sweep_templates_it_needs() -> None:
    from harness.fuzzing.templates import TEMPLATES, missing_templates

    assert missing_templates() == []
    # A sweep that lost its two Final_Sigma templates (issue 18's planted harness bug) is named.
    lost = tuple(t for t in TEMPLATES if t.name not in ("after-capital-sigma", "before-capital-sigma"))
    assert missing_templates(lost) == [
        "cause final_sigma needs sweep template 'after-capital-sigma', which the sweep lacks",
        "cause final_sigma needs sweep template 'before-capital-sigma', which the sweep lacks"]


def test_the_gate_knows_a_disagreement_by_its_implementations_not_their_order() -> None:
    """Two implementations that disagree, opened out of alphabetical order (as pyodide before wasm): the
    sweep's gate must see the shape its batch saw come again. It once compared ordered tuples, said "not
    reproduced" with nobody to blame, and the sweep dropped the class without a finding."""
    from harness.differential.outcomes import observe
    from harness.differential.verdict import gate_shape, shape
    from harness.testees.findings import Findings
    from harness.testees.inprocess import InProcess

    def upper(op):  # type: ignore[no-untyped-def]
        return (lambda text: text.upper()) if op.name == "normalize_fact_text" else op.reference

    opened = {"reference": InProcess("reference", lambda op: op.reference), "zeta": InProcess("zeta", upper),
              "alpha": InProcess("alpha", upper)}
    args = {"text": "abc"}
    seen = shape("normalize_fact_text", observe(opened, "normalize_fact_text", args))
    assert seen[0] == ("zeta", "alpha")
    findings = Findings()
    assert gate_shape(opened, "normalize_fact_text", args, seen, findings).reproduced
    assert gate_shape(opened, "normalize_fact_text", args, (("alpha", "zeta"), seen[1]), findings).reproduced
    assert findings.to_json() == []


def test_two_shares_with_no_implementation_in_common_are_two_classes() -> None:
    """ClassBook: a share seen with the others out of its reach (masked: they read the input with other
    Unicode data) must not swallow a share of the other implementations: nothing in common, no match."""
    from harness.classes.book import ClassBook
    from harness.classes.key import ClassKey

    book: ClassBook[Held] = ClassBook(["reference", "pyo3", "wasm", "pyodide"])
    rest = ("unicode_version_skew", "case_mapping", "norm.lowercase")
    rust, _ = book.place(ClassKey.of("normalize_fact_text", ("pyo3", "wasm"), *rest), frozenset({"pyodide"}))
    pyodide, grew = book.place(ClassKey.of("normalize_fact_text", ("pyodide",), *rest), frozenset({"pyo3", "wasm"}))
    assert rust != pyodide and grew is None
    # the same bug where a UTF-16 host could not take the input: one class, named by the union
    same, _ = book.place(ClassKey.of("normalize_fact_text", ("pyo3",), *rest), frozenset({"wasm", "pyodide"}))
    assert same == rust


def test_a_skew_of_two_unicode_versions_is_two_shares() -> None:
    """U+1C89 (cased since Unicode 16.0): Rust's 17.0 tables and Pyodide's 16.0 both lowercase it, the
    reference's 14.0 does not. Two skews, each its implementations' own, never one share of three."""
    from harness.differential.explain import name_shares, unicode_versions_of
    from harness.differential.outcomes import observe
    from harness.testees import impls

    opened = {}
    try:
        for name in ("reference", "pyo3", "pyodide"):
            opened[name] = impls.get_impl(name)
    except impls.ImplementationUnavailable as exc:
        for impl in opened.values():
            impl.close()
        pytest.skip(f"needs pyo3 and pyodide built: {str(exc).splitlines()[0]}")
    try:
        versions = unicode_versions_of(opened)
        args = {"text": "\u1c89"}
        shares = name_shares(opened, "normalize_fact_text", args, observe(opened, "normalize_fact_text", args),
                             versions, fallback=False)
    finally:
        for impl in opened.values():
            impl.close()
    assert sorted(share.impls for share in shares) == [("pyo3",), ("pyodide",)]
    assert {share.found.cause for share in shares} == {"unicode_version_skew"}
