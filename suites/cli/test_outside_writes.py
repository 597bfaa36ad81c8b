"""Nothing of an outside family's run is written into the harness's own tree (issue 51, item 7): the example family
(docs/examples/tags) copied out of the tree as a user keeps one, run through ``diff``, ``expected update`` (its
oracle's ``"expected": null`` included, and the oracle made divergent with ``--oracle``), ``sweep`` (its default
report and checkpoint) and ``report html --history`` from a folder of the user's: every file goes to that folder
or to the path the family's declarations name, and the harness's own folders (expected/, reports/, fixtures/,
generators/, implementations/, the example itself) are as they were, file for file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "tags"
WATCHED = ("expected", "reports", "fixtures", "generators", "implementations", "docs/examples/tags")


def _snapshot() -> dict[str, tuple[int, int]]:
    """Every file of the harness's watched folders: (size, mtime in ns), by path (caches left out)."""
    found = {}
    for name in WATCHED:
        for path in (ROOT / name).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                stat = path.stat()
                found[str(path.relative_to(ROOT))] = (stat.st_size, stat.st_mtime_ns)
    return found


def _porcelain() -> str:
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", *WATCHED], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    return done.stdout if done.returncode == 0 else ""


def test_an_outside_familys_run_writes_nothing_into_the_harness_tree(tmp_path: Path) -> None:
    family = tmp_path / "tags"
    shutil.copytree(EXAMPLE, family)
    (family / "implementations" / "expected" / "py-toy.json").unlink()  # its difference is new: a list is made
    work = tmp_path / "work"  # the user's own folder (no project: the harness finds its checkout's)
    work.mkdir()
    env = dict(os.environ, PARITY_FAMILIES=str(family / "families"),
               PARITY_IMPLEMENTATIONS=str(family / "implementations"),
               PYTHONPATH=os.pathsep.join([str(family / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    for name in ("PARITY_ORACLE", "PARITY_CONTEXT", "PARITY_PROJECT"):
        env.pop(name, None)

    def harness(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "harness", *command], cwd=work, env=env, capture_output=True,
                              text=True, timeout=300, check=False)

    before, status_before = _snapshot(), _porcelain()

    def untouched(after: str) -> None:
        now = _snapshot()
        changed = sorted(path for path in before.keys() | now.keys() if before.get(path) != now.get(path))
        assert changed == [], f"after {after}: {changed}"

    done = harness("diff", "--impls", "tags-ref,py-toy", "--json", "tag_normalize", "a\x1eb")
    assert done.returncode == 1, done.stderr  # py-toy's str.split() difference, new: its list was removed
    (work / "diff.json").write_text(done.stdout, encoding="utf-8")
    done = harness("expected", "update", "--impls", "tags-ref,py-toy", "--report", "diff.json")
    assert done.returncode == 0 and "py-toy: added" in done.stdout, done.stdout + done.stderr
    written = json.loads((family / "implementations" / "expected" / "py-toy.json").read_text(encoding="utf-8"))
    assert [entry["cause"] for entry in written["entries"]] == ["whitespace_definition"]  # where it declares it
    assert not (family / "implementations" / "expected" / "tags-ref.json").exists()  # the oracle: no list
    untouched("expected update")  # (it wrote an empty expected/tags-ref.json into the harness's own expected/)

    # The toy as the oracle: the reference is the one that differs, and its declaration names no list.
    done = harness("--oracle", "py-toy", "diff", "--impls", "tags-ref,py-toy", "--json", "tag_normalize", "a\x1eb")
    (work / "turned.json").write_text(done.stdout, encoding="utf-8")
    assert [c["divergent"] for c in json.loads(done.stdout)["divergences"]] == [["tags-ref"]]
    done = harness("--oracle", "py-toy", "expected", "update", "--impls", "tags-ref,py-toy", "--report", "turned.json")
    assert done.returncode == 0 and "tags-ref: not added" in done.stdout and '"expected": null' in done.stdout, \
        done.stdout + done.stderr

    # A sweep with its default report and checkpoint (reports/ of the working directory), then the page of it
    # with a history folder: all in the user's folder.
    done = harness("sweep", "--impls", "tags-ref,py-toy", "--ops", "tag_normalize", "--range", "U+0000..U+00FF")
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]
    assert (work / "reports" / "sweep-report.json").is_file() and (work / "reports" / "sweep").is_dir()
    untouched("sweep")
    done = harness("report", "html", "diff.json", "reports/sweep-report.json", "--history", "history")
    assert done.returncode in (0, 1) and (work / "reports" / "site" / "index.html").is_file(), done.stdout + done.stderr
    assert any((work / "history").iterdir())

    untouched("report html")
    assert _porcelain() == status_before


def test_in_a_project_of_its_own_an_outside_declaration_without_a_list_gets_the_projects(tmp_path: Path) -> None:
    """``"expected": null`` keeps its meaning (the project's ``expected/<name>.json``) where the project is the
    user's own, not the harness's checkout: with the oracle turned, the family's reference gets its list there."""
    family, project = tmp_path / "tags", tmp_path / "project"
    shutil.copytree(EXAMPLE, family)
    (project / "implementations").mkdir(parents=True)
    (project / "expected").mkdir()
    env = dict(os.environ, PARITY_FAMILIES=str(family / "families"),
               PARITY_IMPLEMENTATIONS=str(family / "implementations"),
               PYTHONPATH=os.pathsep.join([str(family / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    for name in ("PARITY_ORACLE", "PARITY_CONTEXT", "PARITY_PROJECT"):
        env.pop(name, None)
    before = _snapshot()
    first = ("--project", str(project), "--oracle", "py-toy")
    done = subprocess.run([sys.executable, "-m", "harness", *first, "diff", "--impls", "tags-ref,py-toy", "--json",
                           "tag_normalize", "a\x1eb"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    (tmp_path / "turned.json").write_text(done.stdout, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "harness", *first, "expected", "update", "--impls", "tags-ref,py-toy",
                           "--report", "turned.json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0 and "tags-ref: added" in done.stdout, done.stdout + done.stderr
    listed = json.loads((project / "expected" / "tags-ref.json").read_text(encoding="utf-8"))
    assert [entry["cause"] for entry in listed["entries"]] == ["whitespace_definition"]
    assert _snapshot() == before
