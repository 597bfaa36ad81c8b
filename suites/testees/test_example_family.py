"""The example op family (docs/examples/tags), declared from outside the tree as a user would: its family file
in PARITY_FAMILIES, its three implementations (the reference in process, a Node twin, a Python toy under its
own function name) in PARITY_IMPLEMENTATIONS, its Python on PYTHONPATH. Every command reports its known
differences, each its own class, and nothing else: U+0085 (White_Space the twin's \\s lacks), U+FEFF (one
its \\s has) and U+001C..U+001F (the toy's str.split()). docs/implementers.md walks through the same lines."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.differential.causes.facts import DIVERGENT_ONLY, ORACLE_ONLY

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "tags"
IMPLS = "tags-ref,js-twin,py-toy"
# (implementation, cause, the side whose rule acts, characters): the known differences, one class each.
KNOWN = {("js-twin", "whitespace_definition", ORACLE_ONLY, ("U+0085",)),
         ("js-twin", "whitespace_definition", DIVERGENT_ONLY, ("U+FEFF",)),
         ("py-toy", "whitespace_definition", DIVERGENT_ONLY, ("U+001C..U+001F",))}
# The fixture cases (docs/examples/tags/fixtures/tags-v1.json) each implementation fails: its known difference.
KNOWN_CASES = {
    "tags-ref": set(),
    "js-twin": {"white-space-u0085-next-line", "not-white-space-ufeff-bom"},
    "py-toy": {f"not-white-space-{name}" for name in ("u001c-file-separator", "u001d-group-separator",
                                                       "u001e-record-separator", "u001f-unit-separator")},
}


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH (the twin is a Node program)")
    folder = tmp_path_factory.mktemp("outside") / "tags"
    shutil.copytree(EXAMPLE, folder)
    env = dict(os.environ, PARITY_FAMILIES=str(folder / "families"),
               PARITY_IMPLEMENTATIONS=str(folder / "implementations"),
               PYTHONPATH=os.pathsep.join([str(folder / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]),
               HYPOTHESIS_PROFILE="ci")
    env.pop("PARITY_ORACLE", None)
    env.pop("PARITY_CONTEXT", None)
    return folder, env


def _harness(env: dict[str, str], *command: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *command], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


def _classes(path: Path) -> set[tuple[Any, ...]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return {(*c["divergent"], c["cause"], c["detail"], tuple(c["characters"])) for c in document["divergences"]}


def test_it_joins_with_no_edit_of_the_harness(outside: tuple[Path, dict[str, str]]) -> None:
    _, env = outside
    done = _harness(env, "impls")
    assert done.returncode == 0, done.stderr
    for name in IMPLS.split(","):
        line = next(line for line in done.stdout.splitlines() if line.split()[:1] == [name])
        assert "yes" in line, line
    done = _harness(env, "selftest", "--impl", "js-twin")
    assert done.returncode == 0 and "selftest js-twin: passed" in done.stdout, done.stdout + done.stderr


def test_its_fixture_is_the_references_and_lints_clean(outside: tuple[Path, dict[str, str]]) -> None:
    folder, env = outside
    done = subprocess.run([sys.executable, "-m", "generators", "check"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0 and "tags-v1: up to date" in done.stdout, done.stdout + done.stderr
    done = _harness(env, "lint")
    assert done.returncode == 0 and "fixture lint: clean" in done.stdout, done.stdout + done.stderr
    fixture = folder / "fixtures" / "tags-v1.json"  # a hand edit of the family's own fixture is caught
    fixture.write_text(fixture.read_text(encoding="utf-8").replace('"a-b"', '"a_b"', 1), encoding="utf-8")
    try:
        done = _harness(env, "lint")
        assert done.returncode == 1 and "tags-v1.json: differs from a fresh regeneration" in done.stdout, done.stdout
    finally:
        shutil.copy(EXAMPLE / "fixtures" / "tags-v1.json", fixture)
    contract = folder / "contract.md"  # its specification lists its steps as its family file declares them
    contract.write_text(contract.read_text(encoding="utf-8").replace("`tags.edges`", "`tags.ends`"), encoding="utf-8")
    try:
        done = _harness(env, "lint")
        assert done.returncode == 1 and "op family tags: its contract" in done.stdout, done.stdout
        assert "does not declare: tags.ends" in done.stdout, done.stdout
    finally:
        shutil.copy(EXAMPLE / "contract.md", contract)


def test_a_divergence_is_promoted_into_the_familys_own_fixture(outside: tuple[Path, dict[str, str]],
                                                               tmp_path: Path) -> None:
    _, shared = outside
    folder = tmp_path / "tags"  # a copy of its own: the case it adds changes the fixture
    shutil.copytree(EXAMPLE, folder)
    env = dict(shared, PARITY_FAMILIES=str(folder / "families"), PARITY_IMPLEMENTATIONS=str(folder / "implementations"))
    report = tmp_path / "diff.json"
    done = _harness(env, "diff", "--impls", "tags-ref,js-twin", "--json", "tag_normalize", "x\u2005\x85y")
    report.write_text(done.stdout, encoding="utf-8")
    done = _harness(env, "promote", "--report", str(report), "--index", "1", "--id", "run-u2005-u0085",
                    "--steps", "tags.white_space")
    assert done.returncode == 0, done.stdout + done.stderr
    promoted = json.loads((folder / "generators" / "promoted" / "tags-v1.json").read_text(encoding="utf-8"))
    assert [case["id"] for case in promoted["cases"]] == ["run-u2005-u0085"]
    fixture = json.loads((folder / "fixtures" / "tags-v1.json").read_text(encoding="utf-8"))
    assert fixture["tests"][-1]["id"] == "run-u2005-u0085" and fixture["tests"][-1]["expect"] == {"result": "x-y"}
    assert not (ROOT / "generators" / "promoted" / "tags-v1.json").exists()  # nothing outside its folders
    done = _harness(env, "lint")
    assert done.returncode == 0 and "fixture lint: clean" in done.stdout, done.stdout + done.stderr


def test_tracecheck_takes_the_familys_ops_by_default(outside: tuple[Path, dict[str, str]]) -> None:
    _, env = outside  # the reference passes lone surrogates through: each trace ends in its result as written
    done = _harness(env, "tracecheck", "--impls", IMPLS, "--examples", "1000")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tags-ref   tag_normalize" in done.stdout and "1,000 traced" in done.stdout and "PROBLEM" not in done.stdout


def test_check_fails_each_on_exactly_its_known_cases(outside: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    _, env = outside
    for name, count in (("tags-ref", 0), ("js-twin", 2), ("py-toy", 4)):
        done = _harness(env, "check", "--impl", name, "--results", str(tmp_path / f"{name}.json"))
        assert done.returncode == (1 if count else 0), done.stdout + done.stderr
        results = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))["results"]
        failed = {row["case"] for row in results if row["state"] == "fail"}
        assert failed == KNOWN_CASES[name], (name, failed)
        assert sum(row["fixture"] == "tags-v1" for row in results) == 21  # every case of the family's fixture


def test_diff_names_each_known_difference_with_its_direction(outside: tuple[Path, dict[str, str]]) -> None:
    _, env = outside
    seen = set()
    for text in ("a\x85b", "a\ufeffb", "a\x1eb", "Hello  World"):
        done = _harness(env, "diff", "--impls", IMPLS, "--json", "tag_normalize", text)
        assert done.returncode == 0, done.stderr  # each is expected (the example's expected lists)
        found = json.loads(done.stdout)["divergences"]
        assert all(c["status"] == "expected" for c in found)
        seen |= {(*c["divergent"], c["cause"], c["detail"]) for c in found}
    assert seen == {known[:3] for known in KNOWN}


def test_fuzz_finds_the_known_differences_and_nothing_else(outside: tuple[Path, dict[str, str]],
                                                           tmp_path: Path) -> None:
    _, env = outside
    report = tmp_path / "fuzz.json"
    done = _harness(env, "fuzz", "--impls", IMPLS, "--ops", "tag_normalize", "--max-examples", "100000",
                    "--workers", "1", "--seed", "1", "--report", str(report))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    found = _classes(report)
    assert {c[:3] for c in found} == {k[:3] for k in KNOWN}, found


def test_sweep_finds_exactly_the_known_characters(outside: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    _, env = outside
    report = tmp_path / "sweep.json"
    done = _harness(env, "sweep", "--impls", IMPLS, "--range", "U+0000..U+FFFF", "--ops", "tag_normalize",
                    "--checkpoint", str(tmp_path / "checkpoint.jsonl"), "--report", str(report))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "warning" not in done.stderr  # its templates reach every character step of the op
    assert _classes(report) == KNOWN
    page = tmp_path / "site"
    done = _harness(env, "report", "html", str(report), "--out", str(page))
    assert done.returncode == 0, done.stdout + done.stderr
    html = (page / "index.html").read_text(encoding="utf-8")
    assert html.count("tag_normalize") >= 3 and "U+001C..U+001F" in html


def test_the_other_side_as_oracle_turns_each_direction(outside: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    _, env = outside
    done = _harness(env, "--oracle", "js-twin", "diff", "--impls", "js-twin,tags-ref", "--json", "tag_normalize",
                    "a\x85b")
    report = json.loads(done.stdout)
    (found,) = report["divergences"]
    assert (found["divergent"], found["detail"], found["oracle"]) == (["tags-ref"], DIVERGENT_ONLY, "js-twin")
    saved = tmp_path / "diff.json"  # the page, made later without --oracle, names the run's oracle
    saved.write_text(json.dumps(report), encoding="utf-8")
    done = _harness(env, "report", "html", str(saved), "--out", str(tmp_path / "site"))
    assert done.returncode == 1 and "1 new divergence class" in done.stdout, done.stdout + done.stderr  # no entry
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "the oracle is <b>js-twin</b>" in html and "against the oracle js-twin" in html


def test_the_parity_suites_run_on_it(outside: tuple[Path, dict[str, str]]) -> None:
    _, env = outside
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "suites/parity",
                           "--impl", "tags-ref", "--impl", "js-twin", "--impl", "py-toy"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    failed = {line.split()[1] for line in done.stdout.splitlines() if line.startswith("FAILED ")}
    assert done.returncode == 1 and " passed" in done.stdout, done.stdout[-3000:]
    # every failure is a fixture case of an implementation's known difference, and each of those fails
    assert failed == {f"suites/parity/test_fixtures.py::test_case[{name}-tags-v1/{case}]"
                      for name, cases in KNOWN_CASES.items() for case in cases}, done.stdout[-3000:]


def _listed() -> list[str]:
    """The example's files as docs/implementers.md's two tables under 'Adding an op family' list them."""
    text = (ROOT / "docs" / "implementers.md").read_text(encoding="utf-8")
    section = text.split("## Adding an op family", 1)[1].split("\n## ", 1)[0]
    return [line.split("`")[1] for line in section.splitlines() if line.startswith("| `")]


def test_the_implementers_guide_lists_the_examples_files() -> None:
    listed = _listed()
    present = sorted(str(path.relative_to(EXAMPLE)) for path in EXAMPLE.rglob("*")
                     if path.is_file() and "__pycache__" not in path.parts)
    assert len(listed) == len(set(listed)) and sorted(listed) == present, (listed, present)
    assert "families/tags.json" in listed and "implementations/js-twin.json" in listed  # not vacuous
