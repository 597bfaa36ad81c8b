"""The fixture lint: clean on the committed files, and each planted problem is reported."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generators.framework import canonical
from harness.fixtures.lint import lint, unpinned_steps
from harness.fixtures.load import FIXTURES_DIR
from harness.model.paths import SCHEMAS

ROOT = Path(__file__).resolve().parent.parent


def test_committed_fixtures_are_clean() -> None:
    assert lint() == []


def test_every_step_is_pinned_by_a_case() -> None:
    assert unpinned_steps() == []


def test_lint_cli_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "harness", "lint"], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout
    assert "fixture lint: clean" in proc.stdout
    assert "every step of every op with a fixture is pinned" in proc.stdout


def test_unpinned_step_listed(tree: Path) -> None:
    """Take ctx.skip_bracket out of every case that pins it: the lint names exactly that step."""
    _edit(tree, lambda d: [t["steps"].remove("ctx.skip_bracket") for t in d["tests"]
                           if "ctx.skip_bracket" in t["steps"]])
    assert unpinned_steps(tree) == [("build_dedup_context", "ctx.skip_bracket")]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES_DIR, tmp_path / "fixtures")
    shutil.copytree(SCHEMAS, tmp_path / "schemas")  # fixtures name their schema as ../schemas/...
    return tmp_path / "fixtures"


def _edit(directory: Path, change: Callable[[dict[str, Any]], None], name: str = "dedup-context-v1") -> None:
    path = directory / f"{name}.json"
    document = json.loads(path.read_text())
    change(document)
    path.write_text(canonical(document))


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d.__setitem__(key, value)


PLANTED: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("duplicate-id", lambda d: d["tests"][1].__setitem__("id", d["tests"][0]["id"]), "duplicate test id"),
    ("count", _set("numberOfTests", 1), "numberOfTests is 1"),
    ("schema-missing-expect", lambda d: d["tests"][0].pop("expect"), "schema: at tests/0"),
    ("schema-bad-code", lambda d: d["tests"][-1]["expect"].__setitem__("error", "oops"), "schema: at tests/"),
    ("schema-bad-arg", lambda d: d["tests"][0]["args"].__setitem__("limit", 3), "schema: at tests/0/args"),
    ("unknown-flag", lambda d: d["tests"][0]["flags"].append("mystery"), "flag 'mystery' has no note"),
    ("unused-note", lambda d: d["notes"].__setitem__("spare", "x"), "note for flag 'spare'"),
    ("name", _set("fixture", "dedup-context-v2"), "names itself"),
    ("expectation", lambda d: d["tests"][2]["expect"].__setitem__("result", "forged"), "fresh regeneration"),
    ("surrogate", lambda d: d["tests"][0]["args"].__setitem__("cap", {"$utf16": "x"}), "schema"),
    ("unknown-step", lambda d: d["tests"][0]["steps"].append("ctx.nope"), "step 'ctx.nope' is not a step of"),
    ("foreign-step", lambda d: d["tests"][0]["steps"].append("gate.exact"), "step 'gate.exact' is not a step of"),
    ("no-steps", lambda d: d["tests"][0].__setitem__("steps", []), "schema: at tests/0/steps"),
]


@pytest.mark.parametrize("change, message", [(c, m) for _, c, m in PLANTED], ids=[n for n, _, _ in PLANTED])
def test_planted_problem_reported(tree: Path, change: Callable[[dict[str, Any]], None], message: str) -> None:
    _edit(tree, change)
    problems = lint(tree)
    assert any(message in p for p in problems), problems


def test_non_canonical_formatting_reported(tree: Path) -> None:
    path = tree / "write-gate-v1.json"
    path.write_text(json.dumps(json.loads(path.read_text()), indent=4) + "\n")
    assert any("not in canonical form" in p for p in lint(tree))


def test_non_ascii_reported(tree: Path) -> None:
    path = tree / "write-gate-v1.json"
    path.write_text(json.dumps(json.loads(path.read_text()), indent=2, ensure_ascii=False) + "\n")
    problems = lint(tree)
    assert any("not ASCII-only" in p for p in problems), problems


def test_strict_json_reported(tree: Path) -> None:
    path = tree / "dedup-context-v1.json"
    path.write_text(path.read_text().replace('"version": 1,', '"version": 1, "version": 1,', 1))
    assert any('the key "version" twice' in p for p in lint(tree))


@pytest.mark.parametrize(("text", "said"), [("[" * 100_000, "levels"), ('{"version": NaN}', "NaN"),
                                            ("\ufeff{}", "byte order mark"), ('{"version": 1', "not JSON")])
def test_a_fixture_the_untrusted_reader_refuses_is_reported_not_raised(tree: Path, text: str, said: str) -> None:
    path = tree / "dedup-context-v1.json"
    path.write_text(text, encoding="utf-8")
    problems = lint(tree)
    assert any(str(path) in p and said in p for p in problems), problems


def test_empty_directory_reported(tmp_path: Path) -> None:
    assert lint(tmp_path) == [f"no fixture files in {tmp_path}"]
