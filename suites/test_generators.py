"""The generators: deterministic, atomic, drift-detecting, and never rewriting a released fixture."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import reference.write_gate
from generators import FIXTURES, framework
from generators.framework import Case, FixtureSpec, GeneratorError, diff, read_pins, release, render, write
from harness.model import files
from reference import ContractError

ROOT = Path(__file__).resolve().parent.parent


def _render_in_subprocess(name: str, seed: str) -> str:
    code = (
        "import sys; from generators import FIXTURES; from generators.framework import render; "
        f"sys.stdout.write(render(FIXTURES[{name!r}]))"
    )
    env = dict(os.environ, PYTHONHASHSEED=seed)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True,
                          text=True).stdout


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_deterministic_across_hash_seeds(name: str) -> None:
    first, second = _render_in_subprocess(name, "0"), _render_in_subprocess(name, "4242")
    assert first == second
    assert first == FIXTURES[name].path.read_text(encoding="utf-8"), "committed fixture differs from regeneration"


def _tiny_spec(tmp_cases: list[Case], version: int = 1, **kwargs: object) -> FixtureSpec:
    return FixtureSpec(family="tiny", version=version, generator_version="0.0.1", module="generators.tiny",
                       notes={"f": "a flag"}, cases=lambda: list(tmp_cases), flag_steps={"f": ("norm.lowercase",)},
                       **kwargs)  # type: ignore[arg-type]


CASE_A = Case("a", "normalize_fact_text", "first", ("f",), {"text": "A"})
CASE_B = Case("b", "normalize_fact_text", "second", ("f",), {"text": "B."})


def test_write_then_unchanged(tmp_path: Path) -> None:
    spec, path = _tiny_spec([CASE_A]), tmp_path / "tiny-v1.json"
    assert write(spec, path) == "written"
    assert write(spec, path) == "unchanged"
    assert path.read_text() == render(spec)


def test_released_fixture_is_pinned_and_never_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "tiny-v1.json"
    assert write(_tiny_spec([CASE_A]), path) == "written"
    assert release(_tiny_spec([CASE_A]), path).startswith("released: tiny-v1.json pinned")
    before = path.read_bytes()
    assert json.loads(before)["status"] == "released"
    assert read_pins(tmp_path)["tiny-v1"] == {"sha256": hashlib.sha256(before).hexdigest(), "numberOfTests": 1}
    with pytest.raises(GeneratorError, match="already released"):
        release(_tiny_spec([CASE_A]), path)
    # The generator now lists other cases (or the reference behaves otherwise): the file stays as released.
    assert write(_tiny_spec([CASE_A, CASE_B]), path).startswith("released (pinned")
    assert diff(_tiny_spec([CASE_A, CASE_B]), path) == ""
    assert path.read_bytes() == before
    # Released bytes edited by hand: write, check and the lint refuse, naming the pin.
    path.write_bytes(before.replace(b'"first"', b'"edited"'))
    with pytest.raises(GeneratorError, match="its bytes changed"):
        write(_tiny_spec([CASE_A]), path)
    assert "its bytes changed" in diff(_tiny_spec([CASE_A]), path)


@pytest.mark.parametrize("fail_at", ["fsync", "replace"])
def test_interrupted_write_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: str) -> None:
    path = tmp_path / "tiny-v1.json"
    write(_tiny_spec([CASE_A]), path)
    before = path.read_bytes()

    def interrupt(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, fail_at, interrupt)
    with pytest.raises(KeyboardInterrupt):
        write(_tiny_spec([CASE_A, CASE_B]), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["tiny-v1.json"], "temporary file left behind"


def test_check_detects_drift(tmp_path: Path) -> None:
    spec = FIXTURES["dedup-context-v1"]
    copy = tmp_path / "dedup-context-v1.json"
    text = spec.path.read_text()
    copy.write_text(text)
    assert diff(spec, copy) == ""
    copy.write_text(text.replace('"error": "invalid_cap"', '"error": "invalid_shape"', 1))
    shown = diff(spec, copy)
    assert '-        "error": "invalid_shape"' in shown and '+        "error": "invalid_cap"' in shown


def test_check_cli_exit_codes(tmp_path: Path) -> None:
    for name, spec in FIXTURES.items():
        (tmp_path / f"{name}.json").write_text(spec.path.read_text())
    run = [sys.executable, "-m", "generators", "check", "--dir", str(tmp_path)]
    assert subprocess.run(run, cwd=ROOT, capture_output=True, check=False).returncode == 0
    target = tmp_path / "write-gate-v1.json"
    target.write_text(target.read_text().replace('"result": "user is vegetarian"', '"result": "user is vegan"', 1))
    proc = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert "user is vegan" in proc.stdout and "write-gate-v1: DIFFERS" in proc.stdout


def test_unicode_skew_input_refused() -> None:
    # U+1C89 CYRILLIC CAPITAL LETTER TJE is new in Unicode 16: Python 3.11 (14.0) and Rust std (17.0)
    # lowercase it differently, so a fixture must never pin it.
    spec = _tiny_spec([Case("new-char", "normalize_fact_text", "skew", ("f",), {"text": "\u1c89"})])
    with pytest.raises(GeneratorError, match="U\\+1C89 is unassigned in Unicode 14.0.0"):
        render(spec)


def test_unicode_skew_inside_json_args_refused() -> None:
    case = Case("j", "build_dedup_context", "skew", ("f",),
                {"topical_json": '[{"id":"a","text":"\\ud83e\\udee9"}]', "pinned_json": "null", "recent_json": "null"})
    with pytest.raises(GeneratorError, match="U\\+1FAE9"):
        render(_tiny_spec([case]))


@pytest.mark.parametrize(
    "cases, message",
    [
        ([CASE_A, dataclasses.replace(CASE_B, id="a")], "duplicate case id 'a'"),
        ([dataclasses.replace(CASE_A, flags=("nope",))], "flags without a note: nope"),
        ([dataclasses.replace(CASE_A, comment="")], "no comment"),
        ([dataclasses.replace(CASE_A, args={"txt": "x"})], "unknown argument"),
        ([dataclasses.replace(CASE_A, op="decide_write", args={"text": "x"})], "missing required argument"),
        ([dataclasses.replace(CASE_A, flags=())], "a: pins no step of normalize_fact_text"),
        ([dataclasses.replace(CASE_A, steps=("gate.exact",))], "'gate.exact' is not a step of normalize_fact_text"),
        ([dataclasses.replace(CASE_A, steps=("json.bom",))], "'json.bom' is not a step of normalize_fact_text"),
    ],
)
def test_bad_case_lists_refused(cases: list[Case], message: str) -> None:
    with pytest.raises(GeneratorError, match=message):
        render(_tiny_spec(cases))


def test_steps_a_case_pins() -> None:
    """A result case pins its flags' steps and its own, in the op's order; an error case the step the
    reference says failed and, for invalid_json, the rules the harness's own scan finds in that argument."""
    cases = [
        dataclasses.replace(CASE_A, steps=("norm.edges", "norm.nfc")),
        Case("err-json", "decide_write", "bad", ("f",),
             {"text": "t", "embedding_json": "null", "candidates_json": '\ufeff[{"id":"a","id":"b"}]'}),
        Case("err-mode", "decide_write", "bad", (), {"text": "t", "embedding_json": "null", "candidates_json": "null",
                                                      "mode": "x"}),
        Case("err-host", "build_dedup_context", "bad", (), {"topical_json": None, "pinned_json": "null",
                                                             "recent_json": "null"}),
    ]
    tests = {t["id"]: t["steps"] for t in framework.build_document(_tiny_spec(cases))["tests"]}
    assert tests == {"a": ["norm.nfc", "norm.lowercase", "norm.edges"],
                     "err-json": ["gate.candidates_json", "json.bom"],  # a BOM hides the rest from the scan
                     "err-mode": ["gate.mode"], "err-host": ["ctx.topical_json"]}


def test_an_error_without_its_step_stops_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    import reference.host

    def unnamed(mode: object) -> str:
        raise ContractError("invalid_mode", "no step named")

    monkeypatch.setattr(reference.write_gate, "require_mode", unnamed)
    with pytest.raises(GeneratorError, match="raised invalid_mode without naming its step"):
        framework.outcome("decide_write", {"text": "x", "embedding_json": "null", "candidates_json": "null"})
    assert reference.host.require_mode("auto") == "auto"


def test_minimum_case_counts() -> None:
    assert render(FIXTURES["write-gate-v1"]).count('"op": "') >= 120
    with pytest.raises(GeneratorError, match="at least 5 cases"):
        render(_tiny_spec([CASE_A], min_cases=5))


def test_reference_bug_is_not_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception that is not a contract error is a reference bug: the generator stops, it writes no 'expectation'."""
    def broken(text: object) -> str:
        raise RuntimeError("bug")


    monkeypatch.setattr(reference.write_gate, "normalize_valid", broken)
    with pytest.raises(RuntimeError, match="bug"):
        framework.expectation("decide_write", {"text": "x", "embedding_json": "null", "candidates_json": "null"})
