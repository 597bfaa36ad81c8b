"""A family's reference requirements (family-v2 "requires", issue 51 item 3): each a PEP 508 requirement pinned with
==, refused otherwise with the family file and the entry named (in the harness and in nox, status 2); the nox
sessions install every family's requirements before they plan (harness/tools/family_requires.py, noxfile.py); a
reference that still fails to import for want of one names it and the pip command, never a traceback."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.model import families, paths
from harness.model.registry import OPS
from harness.tools import family_requires

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = (ROOT / "constraints.txt").read_text(encoding="utf-8")


def _family(name: str, schema: str = "family-v2", requires: list[Any] | None = None,
            reference: str = "def {op}(text):\n    return text\n") -> dict[str, Any]:
    """A one-op family ``name`` (op ``<name>_echo``, step ``<name>.text``), its reference written beside it."""
    op = f"{name}_echo"
    document: dict[str, Any] = {
        "schema": schema, "family": name, "description": "a toy family (test double)",
        "reference": {"path": f"{name}_ref.py"},
        "ops": [{"name": op, "js_name": "echo", "result": "text", "fixture": None,
                 "params": [{"name": "text", "js_name": "text", "error_code": "invalid_text", "kind": "text"}],
                 "steps": [{"id": f"{name}.text", "title": "a string", "code": "invalid_text", "role": "host",
                            "param": "text"}]}],
        "_reference": reference.format(op=op)}
    if requires is not None:
        document["requires"] = requires
    return document


def _write(folder: Path, document: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    document = dict(document)
    (folder / f"{document['family']}_ref.py").write_text(document.pop("_reference"), encoding="utf-8")
    path = folder / f"{document['family']}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


GOOD = ["regex==2024.11.6", "Foo_Bar[x, y] == 1.0.post1 ; python_version < '3.12'", "a==1!2.0rc1+local.7",
        "b==0.1.dev3"]
BAD = ["regex", "regex>=2024.11.6", "regex==2024.*", "regex===2024.11.6", "regex==2024.11.6\n", "regex ~= 1.0",
       "regex==", "==1.0", "regex==1.0; ", "regex @ https://example.invalid/regex.whl"]


def test_the_schema_pattern_is_the_loaders_and_takes_only_pinned_requirements() -> None:
    schema = json.loads((paths.SCHEMAS / "family-v2.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["requirement"]["pattern"] == families.REQUIREMENT.pattern
    from harness.model import schemas

    def valid(entry: str) -> bool:
        document = {key: value for key, value in _family("squash", requires=[entry]).items() if key != "_reference"}
        return not schemas.problems(document, "family-v2")

    for entry in GOOD:
        assert families.requirement_problem(entry) is None and valid(entry), entry
    for entry in BAD:
        assert families.requirement_problem(entry), entry
        assert not valid(entry) or entry.endswith("\n"), entry  # the schema's $ takes a final line feed
    assert families.pin("Foo_Bar[x] == 1.0.post1 ; python_version < '3.12'") == ("foo-bar", "1.0.post1")


@pytest.mark.parametrize("entry", [*BAD, 7])
def test_an_unpinned_requirement_is_named_with_the_file_and_the_entry(tmp_path: Path, entry: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "fam", _family("squash", requires=["regex==2024.11.6", entry]))
    with pytest.raises(families.FamilyError) as raised:
        family_requires.collect([path], CONSTRAINTS)
    said = str(raised.value)
    assert said.startswith(f"family file {path}: requires/1: {entry!r}") and "fix:" in said, said
    monkeypatch.setenv(families.ENV, str(path))  # the harness refuses it alike, when it loads the family
    found, problems = families.load()
    assert [family.name for family in found] == ["memgate"] and len(problems) == 1, problems
    assert problems[0].startswith(f"family file {path}: requires/1: {entry!r}"), problems


def test_the_requirements_of_the_own_and_the_outside_families_in_order_each_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _write(tmp_path / "one", _family("alpha", requires=["parity-absent-one==1.0", "jsonschema==4.26.0"]))
    _write(tmp_path / "two", _family("beta", requires=["jsonschema==4.26.0", "parity-absent-two==2.0"]))
    # a family-v1 file declares none: a "requires" there is not read (the harness refuses the file: v1 has none)
    _write(tmp_path / "two", _family("gamma", schema="family-v1", requires=["parity-absent-three==3.0"]))
    monkeypatch.setenv(families.ENV, os.pathsep.join([str(first), str(tmp_path / "two")]))
    files = families.family_files()
    assert [path.name for path in files] == ["memgate.json", "alpha.json", "beta.json", "gamma.json"]
    assert family_requires.collect(files, CONSTRAINTS) == ["parity-absent-one==1.0", "jsonschema==4.26.0",
                                                           "parity-absent-two==2.0"]
    assert family_requires.collect(files[:1], CONSTRAINTS) == []  # the harness's own (family-v2) needs nothing
    found, problems = families.load()
    assert any("gamma.json" in problem and "requires" in problem for problem in problems), problems


def test_a_pin_constraints_txt_contradicts_is_refused_and_one_it_holds_is_kept(tmp_path: Path) -> None:
    constraints = "jsonschema==4.26.0        # via x\nnumpy==2.4.6 ; python_full_version < '3.12'\n" \
                  "numpy==2.5.5 ; python_full_version >= '3.12'\n"
    assert family_requires.constraint_pins(constraints) == {"jsonschema": {"4.26.0"}, "numpy": {"2.4.6", "2.5.5"}}
    held = _write(tmp_path / "a", _family("alpha", requires=["numpy==2.5.5", "JSONSchema==4.26.0"]))
    assert family_requires.collect([held], constraints) == ["numpy==2.5.5", "JSONSchema==4.26.0"]
    other = _write(tmp_path / "b", _family("beta", requires=["numpy==2.5.5", "json_schema==1.0"]))
    assert family_requires.collect([other], constraints) == ["numpy==2.5.5", "json_schema==1.0"]  # another name
    wrong = _write(tmp_path / "c", _family("gamma", requires=["jsonschema==4.0.0"]))
    with pytest.raises(families.FamilyError, match=r"gamma\.json: requires/0: 'jsonschema==4\.0\.0', but "
                       r"constraints\.txt pins jsonschema==4\.26\.0"):
        family_requires.collect([wrong], constraints)


def _nox(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The noxfile loaded with a stand-in `nox` (the test environment has none), then ``script`` run beside it."""
    stub = ("import runpy, sys, types\n"
            "nox = types.ModuleType('nox'); nox.options = types.SimpleNamespace(); nox.Session = object\n"
            "nox.session = lambda func=None, **_: func if func is not None else (lambda f: f)\n"
            "sys.modules['nox'] = nox\n"
            "noxfile = runpy.run_path(sys.argv[1])\n")
    return subprocess.run([sys.executable, "-c", stub + script, str(ROOT / "noxfile.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False, env={**os.environ, **env})


def test_nox_stops_on_an_unpinned_requirement_before_any_session(tmp_path: Path) -> None:
    path = _write(tmp_path / "fam", _family("squash", requires=["regex>=2024"]))
    done = _nox("", {families.ENV: str(path)})
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.strip().splitlines()[-1].startswith(
        f"noxfile.py: error: family file {path}: requires/0: 'regex>=2024' is not pinned"), done.stderr
    assert "Traceback" not in done.stderr


def test_each_session_installs_the_families_requirements_after_the_project(tmp_path: Path) -> None:
    path = _write(tmp_path / "fam", _family("squash", requires=["parity-absent-one==1.0"]))
    script = ("class Session:\n"
              "    def install(self, *args): print('install', *args)\n"
              "    def log(self, *args): pass\n"
              "noxfile['_install_project'](Session())\n"
              "noxfile['_install_project'](Session(), examples=True)\n"
              "print(noxfile['TEST_REQUIRES'] == noxfile['family_requires'].collect(\n"
              "    noxfile['families'].family_files() + noxfile['family_requires'].example_family_files(\n"
              "    noxfile['ROOT']), noxfile['CONSTRAINTS'].read_text()))\n")
    done = _nox(script, {families.ENV: str(path)})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"install -e {ROOT}[test]" and lines[1] == "install parity-absent-one==1.0", lines
    assert lines[2] == f"install -e {ROOT}[test]" and lines[3].startswith("install parity-absent-one==1.0"), lines
    assert lines[-1] == "True", lines


ABSENT = "import parity_absent_pkg\n\ndef {op}(text):\n    return text\n"


@pytest.mark.parametrize(("requires", "names"), [
    (["parity-absent-pkg==1.0"], ["parity-absent-pkg==1.0"]),  # the project's name is the module's
    (["parity-provides-it==2.0", "pytest==" + importlib.metadata.version("pytest")],
     ["parity-provides-it==2.0"]),  # another name: every requirement not installed may provide it
])
def test_a_reference_missing_a_required_package_names_it_and_the_pip_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, requires: list[str], names: list[str]) -> None:
    path = _write(tmp_path / "fam", _family("squash", requires=requires, reference=ABSENT))
    monkeypatch.setenv(families.ENV, str(path))
    found, problems = families.load()
    assert [family.name for family in found] == ["memgate"] and len(problems) == 1, problems
    said = problems[0]
    assert said.startswith(f"family file {path}: reference: ") and "No module named 'parity_absent_pkg'" in said
    assert f"it needs {', '.join(names)} (the family's \"requires\")" in said, said
    assert f"{sys.executable} -m pip install {' '.join(repr(name) for name in names)}" in said, said
    assert "pytest" not in said.split("fix:")[1], said  # installed at its pin: not what is missing


def test_a_missing_package_no_requirement_provides_is_said_plainly(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    installed = "pytest==" + importlib.metadata.version("pytest")
    path = _write(tmp_path / "fam", _family("squash", requires=[installed], reference=ABSENT))
    monkeypatch.setenv(families.ENV, str(path))
    _, problems = families.load()
    assert len(problems) == 1 and "does not import (ModuleNotFoundError: No module named 'parity_absent_pkg')" \
        in problems[0] and "pip install" not in problems[0] and "\"requires\"" in problems[0], problems


def test_every_command_says_which_requirement_is_missing_with_status_2(tmp_path: Path) -> None:
    path = _write(tmp_path / "fam", _family("squash", requires=["parity-absent-pkg==1.0"], reference=ABSENT))
    done = subprocess.run([sys.executable, "-m", "harness", "impls"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PARITY_FAMILIES=str(path)), check=False)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "parity-absent-pkg==1.0" in done.stderr and "-m pip install 'parity-absent-pkg==1.0'" in done.stderr
    assert "Traceback" not in done.stderr


# The memgate family's compared ops read the Unicode data they read before family-v2 (their file's unicode_steps
# then); unicode_versions, reported and never compared, declared both and now has no step that reads any.
BOTH = ("case_mapping", "normalization")
BEFORE_V2 = {"normalize_fact_text": BOTH, "decide_write": BOTH, "build_dedup_context": (), "unicode_versions": (),
             "unicode_nfc": ("normalization",)}


def test_the_memgate_unicode_steps_come_from_its_steps_as_they_were() -> None:
    assert {name: op.unicode_steps for name, op in OPS.items() if op.family == "memgate"} == BEFORE_V2
    assert {step.id: step.unicode for step in OPS["normalize_fact_text"].steps if step.unicode} == {
        "norm.nfc": "normalization", "norm.lowercase": "case_mapping", "norm.nfc_again": "normalization"}
    assert not OPS["unicode_versions"].differential


def test_an_ops_unicode_steps_are_its_steps_and_its_via_ops_and_a_v1_files_as_given(
        tmp_path: Path) -> None:
    v2 = _family("alpha")
    # a family-v2 step past the first says what it takes from the step before it (families.read refuses it else)
    v2["ops"][0]["steps"] += [{"id": "alpha.split", "title": "runs of L*", "unicode": "general_category",
                               "follows": {"step": "alpha.text", "as": "runs"}},
                              {"id": "alpha.lower", "title": "lowercase", "unicode": "case_mapping",
                               "follows": {"step": "alpha.text", "as": "lowercase"}},
                              {"id": "alpha.split_again", "title": "again", "unicode": "general_category",
                               "follows": {"step": "alpha.lower", "as": "runs"}}]
    via = _family("beta")
    via["ops"][0]["via"] = "alpha_echo"
    via["ops"][0]["steps"].append({"id": "beta.ws", "title": "White_Space", "unicode": "white_space",
                                   "follows": {"step": "beta.text", "as": "white_space_runs"}})
    v1 = _family("gamma", schema="family-v1")
    v1["ops"][0]["unicode_steps"] = ["normalization"]
    v1["ops"][0]["via"] = "alpha_echo"
    paths_ = [_write(tmp_path / name, document) for name, document in (("a", v2), ("b", via), ("c", v1))]
    probe = ("from harness.model.registry import OPS, family_problems\n"
             "print(family_problems(), [(n, OPS[n].unicode_steps) for n in ('alpha_echo', 'beta_echo', 'gamma_echo')],"
             " [s.unicode for s in OPS['alpha_echo'].steps])\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PARITY_FAMILIES=os.pathsep.join(map(str, paths_))), check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "() [('alpha_echo', ('case_mapping', 'general_category')), "
        "('beta_echo', ('case_mapping', 'general_category', 'white_space')), ('gamma_echo', ('normalization',))] "
        "[None, 'general_category', 'case_mapping', 'general_category']")


def test_the_parity_sessions_install_before_they_plan() -> None:
    """parity and parity-node install the project, and with it the requirements, before the harness's reader plans
    (read from the noxfile's syntax tree: the harness imports every family's reference when it reads)."""
    import ast

    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    installs = [node for node in ast.walk(functions["_install_project"]) if isinstance(node, ast.Call)
                and ast.unparse(node.func) == "session.install"]
    assert [ast.unparse(node) for node in installs][-1] == "session.install(*requirements)"
    for session in ("parity", "parity_node", "tests", "tests_slow"):
        calls = [ast.unparse(node.func) for node in sorted(
            (node for node in ast.walk(functions[session]) if isinstance(node, ast.Call)),
            key=lambda node: (node.lineno, node.col_offset))]
        planning = [calls.index(name) for name in ("_impls_from_posargs", "_declared", "_build_impls") if name in calls]
        assert "_install_project" in calls and all(calls.index("_install_project") < at for at in planning), session
    assert all("examples=True" in ast.unparse(functions[name]) for name in ("tests", "tests_slow"))
