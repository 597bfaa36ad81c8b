"""The oracle chosen per run (``--oracle NAME``) or per op family (the implementation declared the oracle
that serves it), implementations shown for context only (``--context NAMES``), and the pairwise view (a
class of several implementations says whether they agree with each other)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.classes.record import Witness
from harness.differential.causes.facts import DIVERGENT_ONLY, ORACLE_ONLY
from suites.fake_impl import declare, run


def _diff(folder: Path, *lead: str, impls: str, text: str) -> dict[str, Any]:
    done = run(folder, "-m", "harness", *lead, "diff", "--impls", impls, "--json", "normalize_fact_text", text)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_run_names_its_oracle(tmp_path: Path) -> None:
    declare(tmp_path, name="twin", bug="whitespace")
    (found,) = _diff(tmp_path, impls="reference,twin", text="a\x85b")["divergences"]
    assert (found["divergent"], found["detail"]) == (["twin"], ORACLE_ONLY)
    (found,) = _diff(tmp_path, "--oracle", "twin", impls="reference,twin", text="a\x85b")["divergences"]
    # The same difference seen from the other side: the reference is the one that differs, and its rule acts.
    assert (found["divergent"], found["detail"], found["step"]) == (["reference"], DIVERGENT_ONLY, "norm.white_space")


def test_an_unknown_oracle_or_context_is_a_usage_error(tmp_path: Path) -> None:
    declare(tmp_path, name="twin", bug="whitespace")
    for lead in (["--oracle", "twim"], ["--context=refrence"]):
        done = run(tmp_path, "-m", "harness", *lead, "diff", "--impls", "reference,twin", "normalize_fact_text", "x")
        assert done.returncode == 2, (lead, done.stdout, done.stderr)
        assert "unknown implementation" in done.stderr and "did you mean" in done.stderr
        assert "Traceback" not in done.stderr


def test_two_named_implementations_compared_with_the_reference_as_context(tmp_path: Path) -> None:
    declare(tmp_path, name="twin", bug="whitespace")
    declare(tmp_path, name="copy")  # a faithful copy of the reference
    report = _diff(tmp_path, "--oracle", "copy", "--context", "reference", impls="copy,twin,reference", text="a\x85b")
    (found,) = report["divergences"]
    assert found["divergent"] == ["twin"] and set(found["outputs"]) == {"copy", "twin", "reference"}
    # The reference differing alone is no divergence: it is context.
    declare(tmp_path, name="capital", bug="capitalize")
    report = _diff(tmp_path, "--oracle", "capital", "--context", "reference", impls="capital,reference", text="ab")
    assert report["divergences"] == []


def test_two_oracles_of_one_op_are_a_broken_set_of_declarations(tmp_path: Path) -> None:
    declare(tmp_path, name="other", oracle=True, ops=["normalize_fact_text"])
    done = run(tmp_path, "-m", "harness", "impls")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "op normalize_fact_text has 2 oracles (reference, other)" in done.stderr and "Traceback" not in done.stderr


def test_the_pairwise_view_groups_the_divergent_sides_by_their_answer() -> None:
    outputs = {"reference": {"ok": "a b"}, "x": {"ok": "a\x85b"}, "y": {"ok": "a\x85b"}, "z": {"ok": "ab"},
               "w": {"error": {"code": "invalid_text", "message": "m"}}}
    witness = Witness({"text": "a\x85b"}, outputs, "")
    assert witness.sides("normalize_fact_text", ["x", "y"]) == [["x", "y"]]
    assert witness.sides("normalize_fact_text", ["x", "z", "y", "w"]) == [["x", "y"], ["z"], ["w"]]
    # A JSON result is compared as JSON: the same object with its keys in another order is one answer.
    json_outputs = {"a": {"ok": '{"action":"add","reason":"r"}'}, "b": {"ok": '{"reason":"r","action":"add"}'}}
    assert Witness({}, json_outputs, "").sides("decide_write", ["a", "b"]) == [["a", "b"]]


def test_a_class_of_two_implementations_says_they_agree(tmp_path: Path) -> None:
    declare(tmp_path, name="twin", bug="whitespace")
    declare(tmp_path, name="twin2", bug="whitespace")
    done = run(tmp_path, "-m", "harness", "diff", "--impls", "reference,twin,twin2", "normalize_fact_text", "a\x85b")
    assert done.returncode == 1, done.stderr
    assert "the divergent sides agree with each other" in done.stdout
    (found,) = _diff(tmp_path, impls="reference,twin,twin2", text="a\x85b")["divergences"]
    assert found["divergentSides"] == [["twin", "twin2"]]
