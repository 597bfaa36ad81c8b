"""The coverage verdict (harness/tools/coverage.py; the measuring itself runs in `nox -s coverage`): a branch
never taken and not listed fails, a listed one passes with its reason, a threshold must be taken both ways
even when listed, an entry no branch needs is stale, and a bad reasons file is a usage error naming it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.model.status import UsageError
from harness.tools import coverage
from harness.tools.coverage import Branch, judge, load_reasons, table

SCAN = "if seen.is_none() && members.len() >= SCAN_KEYS {"


def _reasons(reasons: list[dict[str, str]] | None = None, thresholds: list[dict[str, str]] | None = None) -> dict:
    return {"schema": "coverage-reasons-v1", "reasons": reasons or [], "thresholds": thresholds or []}


def _threshold() -> dict[str, str]:
    return {"implementation": "pyo3", "file": "rust_core/core/src/json.rs", "line": SCAN, "what": "scan to set"}


def test_an_untaken_branch_must_be_listed() -> None:
    guard = Branch("reference", "reference/errors.py", 27, "if code not in CODES:", (0,), "27->28")
    taken = Branch("reference", "reference/errors.py", 27, "if code not in CODES:", (5,), "27->29")
    verdict = judge([guard, taken], _reasons())
    assert verdict["unexplained"] == 1 and verdict["implementations"]["reference"]["taken"] == 1
    assert "NOT LISTED" in table(verdict, {})
    listed = judge([guard, taken], _reasons([{"implementation": "reference", "file": "reference/errors.py",
                                              "line": "if code not in CODES:", "why": "a guard, never taken"}]))
    assert listed["unexplained"] == 0 and listed["implementations"]["reference"]["untaken"][0]["why"]


def test_a_threshold_is_taken_both_ways_listed_or_not() -> None:
    one_way = Branch("pyo3", "rust_core/core/src/json.rs", 163, SCAN, (2717, 0), "true/false")
    entry = {"implementation": "pyo3", "file": "rust_core/core/src/json.rs", "line": SCAN, "why": "listed anyway"}
    verdict = judge([one_way], _reasons([entry], [_threshold()]))
    assert verdict["unexplained"] == 0 and len(verdict["thresholdsMissed"]) == 1
    assert "THRESHOLD NOT TAKEN BOTH WAYS" in table(verdict, {})
    both = Branch("pyo3", "rust_core/core/src/json.rs", 163, SCAN, (8, 2709), "true/false")
    assert judge([both], _reasons(thresholds=[_threshold()]))["thresholdsMissed"] == []
    # A threshold whose line is gone (renamed, moved into another file) is missed too, never passed silently.
    gone = judge([], _reasons(thresholds=[_threshold()]))["thresholdsMissed"]
    assert gone and gone[0]["found"] is False


def test_an_entry_no_branch_needs_is_stale_for_a_measured_side_only() -> None:
    entry = {"implementation": "reference", "file": "reference/errors.py", "line": "if x:", "why": "once untaken"}
    rust = {"implementation": "pyo3", "file": "rust_core/core/src/json.rs", "line": "if y {", "why": "not measured"}
    taken = Branch("reference", "reference/errors.py", 3, "if x:", (1,), "3->4")
    verdict = judge([taken], _reasons([entry, rust]))
    assert verdict["stale"] == [entry]  # the Rust side was not measured: its entries are not judged


def test_the_project_reasons_file_is_valid_and_every_entry_names_a_line_that_exists() -> None:
    document = load_reasons()
    for entry in document["reasons"] + document["thresholds"]:
        source = coverage.ROOT / entry["file"]
        if not source.is_file() and entry["file"].startswith("wasm_host/pkg/"):
            continue  # the wasm-bindgen glue, a build output (nox -s build-wasm): checked where it is built
        lines = [line.strip() for line in source.read_text(encoding="utf-8").splitlines()]
        wanted = entry["line"].split("\n")  # a JavaScript block's line with the ones after it (_unique_text)
        assert any(lines[at:at + len(wanted)] == wanted for at in range(len(lines))), entry


@pytest.mark.parametrize("text, named", [
    ("{", "not json"), (json.dumps(_reasons() | {"extra": 1}), "extra"),
    (json.dumps({"schema": "coverage-reasons-v1", "reasons": [{"file": "x"}], "thresholds": []}), "required"),
])
def test_a_bad_reasons_file_is_a_usage_error_naming_it(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "reasons.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as raised:
        load_reasons(path)
    assert str(path) in str(raised.value) and named in str(raised.value).lower(), str(raised.value)


def test_without_llvm_tools_of_rustcs_major_the_rust_side_says_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                                                             tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no rustc at all
    found = coverage.llvm_tools()
    assert isinstance(found, str) and "rustc" in found


SCRIPT = """\
'use strict';
function side(which) {
  if (which === 'left') {
    return 'went left';
  } else {
    return 'went right';
  }
}
function never() {
  return 'not called';
}
console.log(side(process.argv[2]));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_a_javascript_block_is_taken_when_any_process_ran_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """V8's block coverage as Node writes it, one file per process: a side one process never took is taken when
    another process took it; a function no process called is one untaken block, named by its line."""
    host = tmp_path / "wasm_host"
    host.mkdir()
    (host / "t.js").write_text(SCRIPT, encoding="utf-8")
    monkeypatch.setattr(coverage, "ROOT", tmp_path)
    monkeypatch.setattr(coverage, "WASM_HOST", host)
    v8 = tmp_path / "v8"

    def run(*sides: str) -> dict[int, bool]:
        for which in sides:
            subprocess.run(["node", str(host / "t.js"), which], env={**os.environ, "NODE_V8_COVERAGE": str(v8)},
                           check=True, capture_output=True)
        found = coverage.js_branches(v8)
        assert {b.file for b in found} == {"wasm_host/t.js"}
        return {b.line: not b.untaken for b in found}

    left = run("left")
    assert left.get(4) is None or left[4]  # inside the taken function: counted with it
    assert left[5] is False and left[9] is False  # the else side; the function never called
    both = run("right")
    assert both[5] is True and both[9] is False
    never = [b for b in coverage.js_branches(v8) if b.untaken]
    assert [(b.line, b.text) for b in never] == [(9, "function never() {")]


def test_a_broken_v8_coverage_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "coverage-1.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(RuntimeError, match="coverage-1.json: not a V8 coverage file"):
        coverage.js_branches(tmp_path)
