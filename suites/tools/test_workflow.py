"""The GitHub Actions workflow (.github/workflows/parity.yml): it passes its checker, the checker fails on
errors planted in a copy of it, and it says what the README and the nox sessions say (the same set-up
commands, one shard job per shard, merges that fail only on a new class)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.tools import actionlint

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "parity.yml"


def _planted(tmp_path: Path, old: str, new: str) -> Path:
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    text = WORKFLOW.read_text(encoding="utf-8")
    assert old in text, old
    (folder / "parity.yml").write_text(text.replace(old, new, 1), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # actionlint finds a project by its .git
    return folder


@pytest.fixture(scope="module")
def linter() -> Path:
    found = actionlint.actionlint()
    if found is None:
        why = "no actionlint: Go is missing, or `go install` failed (harness/tools/actionlint.py says which)"
        if os.environ.get("CI") == "true" and shutil.which("go"):
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    return found


def test_the_workflow_passes_actionlint(linter: Path) -> None:
    assert actionlint.main([str(WORKFLOW.parent)]) == 0


@pytest.mark.parametrize("old, new", [
    ("${{ matrix.shard }}/${{ env.SWEEP_SHARDS }}", "${{ matrix.shardd }}/${{ env.SWEEP_SHARDS }}"),  # no such key
    ("needs: sweep", "needs: sweeps"),  # no such job
    ("uses: actions/upload-artifact@v4", "uses: actions/upload-artifact@v4\n        with2: {}"),  # no such key
])
def test_actionlint_fails_a_planted_error(linter: Path, tmp_path: Path, old: str, new: str) -> None:
    assert actionlint.main([str(_planted(tmp_path, old, new))]) == 1


def test_the_fallback_schema_check_passes_the_workflow_and_fails_a_broken_shape(tmp_path: Path) -> None:
    import sys

    if shutil.which("check-jsonschema") is None and not (Path(sys.executable).parent / "check-jsonschema").is_file():
        pytest.skip("no check-jsonschema (the test extra installs it)")
    assert actionlint.main([str(WORKFLOW.parent)], use_actionlint=False) == 0
    broken = _planted(tmp_path, "    container: debian:bookworm\n    timeout-minutes: 60\n",
                      "    timeout-minutes: sixty\n")
    assert actionlint.main([str(broken)], use_actionlint=False) == 1


def _readme_block(heading: str) -> list[str]:
    done = subprocess.run(["bash", str(ROOT / ".ci" / "readme-commands"), heading], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip().splitlines()


def test_the_workflow_sets_up_and_tests_as_the_readme_says() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    for line in _readme_block("Set up"):
        assert f"          {line}\n" in text, line
    assert "run: .tools/bin/nox -s parity" in text and "run: .tools/bin/nox -s tests" in text
    assert ".tools/bin/nox -s lint" in text


def test_one_shard_job_per_shard_and_merges_that_fail_only_on_a_new_class() -> None:
    import re

    text = WORKFLOW.read_text(encoding="utf-8")
    for kind, env in (("sweep", "SWEEP_SHARDS"), ("fuzz", "FUZZ_SHARDS")):
        count = int(re.search(rf'{env}: "(\d+)"', text).group(1))
        block = text[text.index(f"\n  {kind}:\n"):]
        shards = re.search(r"shard: \[([0-9, ]+)\]", block).group(1)
        assert [int(s) for s in shards.split(",")] == list(range(1, count + 1)), kind
        assert f"--merge shards/{kind}-report-*.json" in text
    # A shard's own status 1 (something new) is left to the merge, any other status fails the shard; the
    # merge's status fails its job.
    assert text.count("|| status=$?") == 2 and text.count('[ "$status" -le 1 ] || exit "$status"') == 2
