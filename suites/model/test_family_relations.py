"""A family-v2 step that says nothing of the step before it (no ``follows``, and a role with no relation of its own:
harness/model/step_relations.py) is refused when its family file loads (issue 53 item 4): a problem naming the
file, the place, the op and the step, and the fix; every command stops on it with status 2. Said by its role or by
``follows``, the same step loads; a family-v1 file, whose roles name causes only, loads as it always did."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.model import families

ROOT = Path(__file__).resolve().parents[2]

REFERENCE = "def rel_words(text):\n    return text.split()\n"


def _family(schema: str, third: dict[str, Any]) -> dict[str, Any]:
    """A one-op family (op rel_words): a host step, a lowercase step (its role's relation) and ``third``."""
    return {"schema": schema, "family": "relfam", "description": "a toy family (test double)",
            "reference": {"path": "relfam_ref.py"},
            "ops": [{"name": "rel_words", "js_name": "relWords", "result": "json", "fixture": None,
                     "params": [{"name": "text", "js_name": "text", "error_code": "invalid_text", "kind": "text"}],
                     "steps": [{"id": "rel.text", "title": "a string", "code": "invalid_text", "role": "host",
                                "param": "text"},
                               {"id": "rel.lower", "title": "lowercase", "role": "lowercase"},
                               {"id": "rel.split", "title": "the words between spaces", **third}]}]}


def _write(folder: Path, document: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "relfam_ref.py").write_text(REFERENCE, encoding="utf-8")
    path = folder / "relfam.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _load(monkeypatch: pytest.MonkeyPatch, path: Path) -> tuple[list[str], list[str]]:
    monkeypatch.setenv(families.ENV, str(path))
    found, problems = families.load()
    return [family.name for family in found], problems


def test_a_v2_step_that_says_nothing_of_the_step_before_is_refused_naming_file_op_step_and_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "fam", _family("family-v2", {}))
    names, problems = _load(monkeypatch, path)
    assert names == ["memgate"] and len(problems) == 1, problems
    said = problems[0]
    assert said.startswith(f"family file {path}: ops/0/steps/2: step rel.split of op rel_words says nothing of "
                           "the step before it"), said
    assert 'fix: give it "follows"' in said and '"independent"' in said, said
    with pytest.raises(families.FamilyError, match=r"ops/0/steps/2: step rel\.split of op rel_words"):
        families.read(path)


@pytest.mark.parametrize("third", [{"follows": {"step": "rel.lower", "as": "runs"}},
                                   {"follows": {"step": "rel.text", "as": "independent"}},
                                   {"role": "trim"}])  # a role with a relation of its own: checked by it
def test_the_same_step_said_by_follows_or_by_its_role_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            third: dict[str, Any]) -> None:
    names, problems = _load(monkeypatch, _write(tmp_path / "fam", _family("family-v2", third)))
    assert names == ["memgate", "relfam"] and problems == [], problems


def test_a_family_v1_file_loads_as_it_always_did(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names, problems = _load(monkeypatch, _write(tmp_path / "fam", _family("family-v1", {})))
    assert names == ["memgate", "relfam"] and problems == [], problems


def test_every_step_unsaid_is_counted_and_the_first_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    document = _family("family-v2", {})
    document["ops"][0]["steps"][1]["role"] = "rule"  # rel.lower now says nothing either
    names, problems = _load(monkeypatch, _write(tmp_path / "fam", document))
    assert len(problems) == 1 and "ops/0/steps/1: step rel.lower of op rel_words" in problems[0], problems
    assert "(1 more such step(s): rel.split)" in problems[0], problems


def test_a_command_stops_on_it_with_status_2_and_no_traceback(tmp_path: Path) -> None:
    path = _write(tmp_path / "fam", _family("family-v2", {}))
    results = tmp_path / "check-reference.json"  # were the family loaded, its results go here, not to reports/
    done = subprocess.run([sys.executable, "-m", "harness", "check", "--impl", "reference", "--results",
                           str(results)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False,
                          env=dict(os.environ, PARITY_FAMILIES=str(path)))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"error: family file {path}: ops/0/steps/2: step rel.split" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not results.exists()
