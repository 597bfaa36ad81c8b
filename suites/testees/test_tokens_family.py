"""The second example op family (docs/examples/tokens), joined from outside the tree as a user would: its family
file in PARITY_FAMILIES, its two implementations (the reference in process, the black box as a command) in
PARITY_IMPLEMENTATIONS, its Python on PYTHONPATH, and its reference's requirement (the family's ``requires``:
``regex``, which the harness does not depend on) installed beside it, never into the harness's environment.

The black box differs from the contract in three planted ways, and every command must report each as exactly one
class, rightly named: its length rule counts UTF-8 bytes (``length_rule``); it keeps a combining mark (Mn) inside
the token it follows (a rule of its own: ``MARK_CAUSE``); it reads General_Category from its Python's Unicode
(3.11: 14.0.0, 3.12: 15.0.0, 3.13: 15.1.0), older than the reference's (18.0.0), so letters new since then are no
letters to it (``unicode_version_skew``, detail ``general_category``, step ``tok.split``). Which characters fall
in which class is computed here from the two sides' General_Category (``regex`` and this Python's
``unicodedata``, the box's: it runs on this interpreter), so the tests hold on any of those Pythons; one test runs
the box on each other CPython it finds, too. docs/implementers.md walks through the same lines."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Iterable
from glob import glob
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "tokens"
IMPLS = "tokens-ref,tokens-box"
BOX_UNICODE = unicodedata.unidata_version  # the box runs on this interpreter ({python} in its declaration)
MARK_CAUSE = "rule_difference"  # a rule of its own, no character set of the harness's: the Mn one
# the side whose rule acted on a list result (harness/differential/counterfactual, b01d6e5): the Mn class is the
# oracle's (its rule ends the token at the mark), the others carry no side
DETAILS = {"length_rule": None, MARK_CAUSE: "oracle-only", "unicode_version_skew": "general_category"}
# The fixture cases (docs/examples/tokens/fixtures/tokens-v1.json) the box fails: its length rule's (a token of
# at most 12 code points but more than 12 UTF-8 bytes) and its Mn rule's. No case holds a character whose
# General_Category differs between the versions in play (the generator refuses one), so no case is the skew's.
BOX_CASES = {"length-latin1-twelve", "length-cjk-twelve", "length-astral-twelve", "marks-mn-acute",
             "marks-mn-after-last-letter"}
SWEPT = (0x0000, 0x05FF)  # Latin-1 (the length rule), combining marks (Mn), U+0558, U+058B..U+058C (new letters)


@pytest.fixture(scope="module")
def requirement(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The folders to put on PYTHONPATH for the family's ``requires``: none where this interpreter has them, else
    a folder they are installed into (pip --target): the harness's own environment never gains them."""
    family = json.loads((EXAMPLE / "families" / "tokens.json").read_text(encoding="utf-8"))
    (pinned,) = family["requires"]  # regex==<version>
    name, version = pinned.split("==")
    probe = f"import {name}, sys; sys.exit({name}.__version__ != {version!r})"
    if subprocess.run([sys.executable, "-c", probe], capture_output=True, check=False).returncode == 0:
        return []
    site = tmp_path_factory.mktemp("requires")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           "--target", str(site), pinned], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"cannot install the tokens family's requirement {pinned}: {done.stderr[-1500:]}"
    return [str(site)]


def _environment(folder: Path, requirement: list[str]) -> dict[str, str]:
    env = dict(os.environ, PARITY_FAMILIES=str(folder / "families"),
               PARITY_IMPLEMENTATIONS=str(folder / "implementations"),
               PYTHONPATH=os.pathsep.join([str(folder / "src"), *requirement,
                                           *filter(None, [os.environ.get("PYTHONPATH")])]),
               HYPOTHESIS_PROFILE="ci")
    env.pop("PARITY_ORACLE", None)
    env.pop("PARITY_CONTEXT", None)
    return env


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory, requirement: list[str]) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("outside") / "tokens"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder, _environment(folder, requirement)


def _harness(env: dict[str, str], *command: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *command], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def reference_letters(outside: tuple[Path, dict[str, str]]) -> dict[str, Any]:
    """The reference's side, computed by its own library in a child (regex may be only on its PYTHONPATH): its
    Unicode version, and the code points of SWEPT that are letters or numbers to it."""
    _, env = outside
    script = ("import json, regex, tokens_ref\n"
              "token = regex.compile(r'[\\p{L}\\p{N}]')\n"
              f"print(json.dumps({{'versions': tokens_ref.UNICODE_VERSIONS, 'letters': [c for c in range({SWEPT[0]}, "
              f"{SWEPT[1] + 1}) if token.match(chr(c))]}}))")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _box_letter(cp: int) -> bool:
    return unicodedata.category(chr(cp))[0] in "LN"


def _expected_sets(letters: Iterable[int]) -> dict[str, set[int]]:
    """SWEPT's code points by the planted difference the sweep's templates show them in (docs/examples/tokens/
    families/tokens.json): letters to one side only (the skew: every template); letters to both that take more
    than one UTF-8 byte (the length rule: "{c}bcdefghijkl", 12 code points); Mn to the box (the mark rule:
    "a{c}b")."""
    ref = set(letters)
    swept = range(SWEPT[0], SWEPT[1] + 1)
    return {"unicode_version_skew": {cp for cp in swept if (cp in ref) != _box_letter(cp)},
            "length_rule": {cp for cp in swept if cp in ref and _box_letter(cp) and len(chr(cp).encode()) > 1},
            MARK_CAUSE: {cp for cp in swept if unicodedata.category(chr(cp)) == "Mn"}}


def _code_points(found: dict[str, Any]) -> set[int]:
    return {cp for first, last in found["ranges"] for cp in range(first, last + 1)}


def _by_cause(report: Path) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for found in json.loads(report.read_text(encoding="utf-8"))["divergences"]:
        assert found["divergent"] == ["tokens-box"] and found["op"] == "tokenize", found
        out.setdefault(found["cause"], []).append(found)
    return out


def _one_class_each(report: Path) -> dict[str, dict[str, Any]]:
    """The report's classes, one per planted difference and rightly named, by cause."""
    classes = _by_cause(report)
    shown = {cause: [(c["detail"], c["step"], c["args"]) for c in found] for cause, found in classes.items()}
    assert sorted(classes) == sorted({"length_rule", MARK_CAUSE, "unicode_version_skew"}), shown
    assert all(len(found) == 1 for found in classes.values()), shown
    assert {cause: found[0]["detail"] for cause, found in classes.items()} == DETAILS, shown
    (skew,) = classes["unicode_version_skew"]
    assert skew["step"] == "tok.split", shown
    return {cause: found[0] for cause, found in classes.items()}


def test_it_joins_with_no_edit_of_the_harness(outside: tuple[Path, dict[str, str]]) -> None:
    _, env = outside
    done = _harness(env, "impls")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for name, version in (("tokens-ref", "18.0.0"), ("tokens-box", BOX_UNICODE)):
        at = next(i for i, line in enumerate(lines) if line.split()[:1] == [name])
        row = " ".join(lines[at:at + 3])  # a row wraps over its next lines
        assert "yes" in row and "general_category" in row and version in row, row
    done = _harness(env, "selftest", "--impl", "tokens-box")
    assert done.returncode == 0 and "selftest tokens-box: passed" in done.stdout, done.stdout + done.stderr


def test_without_its_requirement_the_family_says_which_and_how(tmp_path: Path) -> None:
    folder = tmp_path / "tokens"  # regex missing: status 2, the requirement and its install named, no traceback
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    missing = tmp_path / "missing" / "regex"  # first on the path, whether or not this environment has regex
    missing.mkdir(parents=True)
    (missing / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'regex'\", name='regex')\n",
                                         encoding="utf-8")
    done = _harness(_environment(folder, [str(missing.parent)]), "impls")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert "regex==2026.11.15" in done.stderr and "pip install" in done.stderr, done.stderr


def test_the_references_unicode_version_is_what_its_regex_implements(outside: tuple[Path, dict[str, str]]) -> None:
    _, env = outside  # UNICODE_VERSIONS is a stated fact of the pinned release: its \p{Assigned} is that version's
    script = ("import json, sys, regex, tokens_ref\n"
              "assigned = regex.compile(r'\\p{Assigned}')\n"
              "print(json.dumps({'version': tokens_ref.UNICODE_VERSIONS['general_category'], 'assigned': "
              "[c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and assigned.match(chr(c))]}))")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    table = ROOT / "data" / "unicode-tables" / f"{answer['version']}.json"
    assert table.is_file(), f"no table for {answer['version']}"  # a version the harness has data for
    ranges = json.loads(table.read_text(encoding="utf-8"))["assigned"]
    assigned = {cp for first, last in ranges for cp in range(first, last + 1) if not 0xD800 <= cp <= 0xDFFF}
    assert set(answer["assigned"]) == assigned


def test_its_fixture_is_the_references_and_lints_clean(outside: tuple[Path, dict[str, str]]) -> None:
    _, env = outside
    done = subprocess.run([sys.executable, "-m", "generators", "check"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0 and "tokens-v1: up to date" in done.stdout, done.stdout + done.stderr
    done = _harness(env, "lint")
    assert done.returncode == 0 and "fixture lint: clean" in done.stdout, done.stdout + done.stderr


def test_check_fails_the_box_on_exactly_its_known_cases(outside: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    _, env = outside
    for name, cases in (("tokens-ref", set()), ("tokens-box", BOX_CASES)):
        done = _harness(env, "check", "--impl", name, "--results", str(tmp_path / f"{name}.json"))
        assert done.returncode == (1 if cases else 0), done.stdout + done.stderr
        results = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))["results"]
        assert {row["case"] for row in results if row["state"] == "fail"} == cases, name
        assert sum(row["fixture"] == "tokens-v1" for row in results) == 30  # every case of the family's fixture


def test_diff_names_each_planted_difference(outside: tuple[Path, dict[str, str]],
                                            reference_letters: dict[str, Any]) -> None:
    _, env = outside
    new_letter = min(_expected_sets(reference_letters["letters"])["unicode_version_skew"])
    inputs = {"length_rule": "\u00e9bcdefghijkl", MARK_CAUSE: "a\u0301b",
              "unicode_version_skew": f"a{chr(new_letter)}b"}
    for cause, text in inputs.items():
        done = _harness(env, "diff", "--impls", IMPLS, "--json", "tokenize", text)
        assert done.returncode == 1, done.stderr  # new: the box has no expected list
        (found,) = json.loads(done.stdout)["divergences"]
        assert (found["divergent"], found["cause"]) == (["tokens-box"], cause), (text, found)
    done = _harness(env, "diff", "--impls", IMPLS, "--json", "tokenize", "Hello, world 42")
    assert done.returncode == 0 and json.loads(done.stdout)["divergences"] == [], done.stdout  # one JSON value


def test_fuzz_finds_one_class_per_planted_difference(outside: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    _, env = outside
    report = tmp_path / "fuzz.json"
    done = _harness(env, "fuzz", "--impls", IMPLS, "--ops", "tokenize", "--max-examples", "30000", "--workers", "1",
                    "--seed", "1", "--report", str(report))
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]  # new classes: no expected list
    classes = _one_class_each(report)
    for cause, found in classes.items():  # each witness shows its own difference, and no other
        ref, box = (json.loads(found["outputs"][name]["ok"]) for name in ("tokens-ref", "tokens-box"))
        if cause == "length_rule":  # a token the box drops for its bytes: no letter it does not know
            assert all(_box_letter(ord(ch)) for token in ref for ch in token), found
            assert [t for t in ref if len(t.encode()) <= 12] == box, found
        elif cause == MARK_CAUSE:
            assert any(unicodedata.category(ch) == "Mn" for ch in "".join(box)), found
        else:  # a letter or number of the reference's tokens that is none to the box
            assert any(not _box_letter(ord(ch)) for ch in "".join(ref)), found


def _sweep(env: dict[str, str], folder: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    report = folder / "sweep.json"
    done = _harness(env, "sweep", "--impls", IMPLS, "--ops", "tokenize",
                    "--range", f"U+{SWEPT[0]:04X}..U+{SWEPT[1]:04X}", "--workers", "1",
                    "--checkpoint", str(folder / "checkpoint.jsonl"), "--report", str(report))
    return done, report


def _holds_each_set(report: Path, letters: Iterable[int]) -> None:
    classes = _one_class_each(report)
    wanted = _expected_sets(letters)
    for cause, found in classes.items():
        assert _code_points(found) == wanted[cause], (cause, sorted(_code_points(found) ^ wanted[cause])[:20])


def test_sweep_finds_exactly_the_planted_characters(outside: tuple[Path, dict[str, str]], tmp_path: Path,
                                                   reference_letters: dict[str, Any]) -> None:
    _, env = outside
    done, report = _sweep(env, tmp_path)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "warning" not in done.stderr
    _holds_each_set(report, reference_letters["letters"])


def _other_pythons() -> dict[str, str]:
    """Another CPython 3.11+ for each Unicode version this one's unicodedata is not: its path by version."""
    found: dict[str, str] = {}
    candidates = [shutil.which(f"python3.{minor}") for minor in range(11, 15)]
    candidates += sorted(glob(os.path.expanduser("~/.pyenv/versions/3.1[1-4]*/bin/python3")))
    for candidate in filter(None, candidates):
        done = subprocess.run([candidate, "-c", "import sys, unicodedata; assert sys.version_info >= (3, 11); "
                               "print(unicodedata.unidata_version)"], capture_output=True, text=True, check=False)
        version = done.stdout.strip()
        if done.returncode == 0 and version != BOX_UNICODE:
            found.setdefault(version, candidate)
    return found


OTHER_PYTHONS = _other_pythons()


@pytest.mark.slow  # a sweep per other Python (about 20 s each)
@pytest.mark.parametrize("version", sorted(OTHER_PYTHONS) or [pytest.param("none", marks=pytest.mark.skip(
    reason="no other CPython 3.11+ with another unicodedata here"))])
def test_the_box_on_another_python_is_still_one_class_each(version: str, outside: tuple[Path, dict[str, str]],
                                                            tmp_path: Path, reference_letters: dict[str, Any]) -> None:
    python = OTHER_PYTHONS[version]
    folder, env = outside
    declarations = tmp_path / "implementations"  # the box started by that Python; the rest as it is
    declarations.mkdir()
    shutil.copy(folder / "implementations" / "tokens-ref.json", declarations)
    box = json.loads((folder / "implementations" / "tokens-box.json").read_text(encoding="utf-8"))
    box["start"]["command"] = [python, str(folder / "src" / "tokens_box.py")]
    (declarations / "tokens-box.json").write_text(json.dumps(box), encoding="utf-8")
    env = dict(env, PARITY_IMPLEMENTATIONS=str(declarations))
    done = _harness(env, "impls")
    assert f"general_category {version}" in " ".join(done.stdout.split()), done.stdout
    done, report = _sweep(env, tmp_path)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    script = (f"import json, unicodedata; print(json.dumps([c for c in range({SWEPT[0]}, {SWEPT[1] + 1}) "
              "if unicodedata.category(chr(c))[0] in 'LN' or unicodedata.category(chr(c)) == 'Mn']))")
    theirs = json.loads(subprocess.run([python, "-c", script], capture_output=True, text=True, check=True).stdout)
    ours = [cp for cp in range(SWEPT[0], SWEPT[1] + 1) if _box_letter(cp) or unicodedata.category(chr(cp)) == "Mn"]
    if theirs == ours:  # the same letters and marks in this range on that Python: the same classes
        _holds_each_set(report, reference_letters["letters"])
    else:
        _one_class_each(report)


@pytest.mark.slow  # the parity suites in a child pytest (about 90 s)
def test_the_parity_suites_run_on_it(outside: tuple[Path, dict[str, str]]) -> None:
    _, env = outside
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "suites/parity",
                           "--impl", "tokens-ref", "--impl", "tokens-box"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    failed = {line.split()[1] for line in done.stdout.splitlines() if line.startswith("FAILED ")}
    assert done.returncode == 1 and " passed" in done.stdout, done.stdout[-3000:]
    # every failure is a fixture case of the box's length or mark rule, or the differential suite's (the box has
    # no expected list: each of its differences is new there), and each of those fails
    cases = {f"suites/parity/test_fixtures.py::test_case[tokens-box-tokens-v1/{case}]" for case in BOX_CASES}
    differential = {f"suites/parity/test_differential.py::{test}[tokenize]"
                    for test in ("test_implementations_agree", "test_implementations_agree_on_batches")}
    assert failed == cases | differential, done.stdout[-3000:]


def _listed() -> list[str]:
    """The example's files as docs/implementers.md's table under its section on the tokens example lists them."""
    text = (ROOT / "docs" / "implementers.md").read_text(encoding="utf-8")
    section = text.split("## The second example family", 1)[1].split("\n## ", 1)[0]
    return [line.split("`")[1] for line in section.splitlines() if line.startswith("| `")]


def test_the_implementers_guide_lists_the_examples_files() -> None:
    listed = _listed()
    present = sorted(str(path.relative_to(EXAMPLE)) for path in EXAMPLE.rglob("*")
                     if path.is_file() and "__pycache__" not in path.parts)
    assert len(listed) == len(set(listed)) and sorted(listed) == present, (listed, present)
    assert "families/tokens.json" in listed and "src/tokens_box.py" in listed  # not vacuous
