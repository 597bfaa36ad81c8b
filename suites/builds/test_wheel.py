"""The harness as a package: the wheel carries what the harness needs (its schemas, data tables and own family), and
an installed harness finds the project it checks from the working directory or ``--project``, as pytest finds
its rootdir (harness/model/paths.py). The wheel is built from this checkout, installed into a fresh
virtualenv outside it (once for the module), and every command the README shows is run from it (issue 52 item 1):
in a copy of this checkout (its ``families/`` holds the wheel's own family again: one family), in an outside
project with a family of its own (docs/examples/tags/), and with ``--project`` from another folder; help and
the version outside any project."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness.model import paths

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_listed_for_the_wheel() -> None:
    """pyproject.toml lists the packages (its package-dir maps the data folders into the harness): a new
    subpackage left out of the list would be missing from every installed harness."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    on_disk = {str(init.parent.relative_to(ROOT)).replace("/", ".")
               for top in ("reference", "generators", "harness") for init in (ROOT / top).rglob("__init__.py")
               if "__pycache__" not in init.parts}
    assert on_disk <= listed, sorted(on_disk - listed)
    assert {"harness.resources.schemas", "harness.resources.data", "harness.resources.families"} <= listed


def test_the_project_is_found_from_the_working_directory_up(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "implementations").mkdir(parents=True)
    (project / "fixtures").mkdir()
    deep = project / "a" / "b"
    deep.mkdir(parents=True)
    assert paths.find_project(deep) == project.resolve()
    assert paths.find_project(tmp_path) is None
    (tmp_path / "implementations").mkdir()  # declarations alone do not make a project
    assert paths.find_project(tmp_path) is None


def _project_folder(where: Path) -> Path:
    """A project of its own: the fixtures and the reference's declaration, nothing of the harness."""
    project = where / "my-project"
    shutil.copytree(ROOT / "fixtures", project / "fixtures")
    (project / "implementations").mkdir(parents=True)
    declaration = json.loads((ROOT / "implementations" / "reference.json").read_text(encoding="utf-8"))
    (project / "implementations" / "reference.json").write_text(json.dumps(declaration), encoding="utf-8")
    return project


def _copy_of_the_checkout(to: Path) -> Path:
    """The files git knows of this checkout, as they are in the working tree (changes not committed included),
    copied to ``to``: the wheel is built from them alone, and nothing is written into the checkout."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)
    return to


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv outside the checkout with the wheel of this checkout installed (its dependencies at the
    versions of constraints.txt); its bin folder."""
    where = tmp_path_factory.mktemp("wheel")
    env = {**os.environ, "PIP_CONSTRAINT": str(ROOT / "constraints.txt"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PARITY_PROJECT", None)
    source = _copy_of_the_checkout(where / "source")  # setuptools builds in its source tree (build/): a copy
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(where / "dist"),
                            str(source)], capture_output=True, text=True, timeout=600, env=env, check=False)
    assert built.returncode == 0, built.stderr[-3000:]
    wheels = sorted((where / "dist").glob("memgate_parity-*.whl"))
    assert len(wheels) == 1, wheels
    import zipfile

    with zipfile.ZipFile(wheels[0]) as wheel:
        top = {name.split("/", 1)[0] for name in wheel.namelist()}
    assert "tools" not in top and {"harness", "reference", "generators"} <= top, sorted(top)  # no generic `tools`
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = set(wheel.namelist())
    assert "harness/resources/schemas/fixture-v1.schema.json" in names and "harness/tools/plants.py" in names
    assert {"harness/resources/families/memgate.json", "harness/resources/schemas/family-v1.schema.json"} <= names
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True, timeout=300)
    pip = subprocess.run([str(where / "venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheels[0])],
                         capture_output=True, text=True, timeout=900, env=env, check=False)
    assert pip.returncode == 0, pip.stderr[-3000:]
    return where / "venv" / "bin"


def _run(bin_dir: Path, cwd: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A command of the installed harness, with nothing of this checkout's environment to lean on (``env``: what
    the place it runs in sets)."""
    # Every PARITY_ setting of the run goes (a CI run's PARITY_REQUIRE_ALL=1 made `fuzz` refuse the implementations
    # this virtualenv has no build of), and so do the paths of this checkout's environment.
    clean = {key: value for key, value in os.environ.items()
             if not key.startswith("PARITY_") and key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(bin_dir / argv[0]), *argv[1:]], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**clean, **(env or {})}, check=False)


def test_the_installed_wheel_runs_on_a_project_folder(installed: Path, tmp_path: Path) -> None:
    project = _project_folder(tmp_path)
    site = _run(installed, tmp_path, "python", "-c", "import harness; print(harness.__file__)").stdout.strip()
    assert not Path(site).resolve().is_relative_to(ROOT), site  # the installed copy, not this checkout

    helped = _run(installed, project, "memgate-parity", "--help")
    assert helped.returncode == 0 and "harness commands" in helped.stdout, helped.stderr
    version = _run(installed, project, "memgate-parity", "--version")
    assert version.returncode == 0 and version.stdout.startswith("memgate-parity ")
    assert "site-packages" in version.stdout

    listed = _run(installed, project / "fixtures", "python", "-m", "harness", "impls")  # found from below too
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "reference" in listed.stdout and "pyo3" not in listed.stdout  # the project's declarations only

    checked = _run(installed, project, "python", "-m", "harness", "check", "--impl", "reference")
    assert checked.returncode == 0, checked.stdout[-2000:] + checked.stderr[-2000:]
    assert "Traceback" not in checked.stderr
    assert (project / "reports" / "check-reference.json").is_file()  # into the project's reports/

    elsewhere = _run(installed, tmp_path, "memgate-parity", "--project", str(project), "check", "--impl", "reference",
                     "--results", str(tmp_path / "r.json"))
    assert elsewhere.returncode == 0, elsewhere.stdout[-2000:] + elsewhere.stderr[-2000:]


def test_outside_any_project_the_installed_harness_says_so(installed: Path, tmp_path: Path) -> None:
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    done = _run(installed, nowhere, "python", "-m", "harness", "check", "--impl", "reference")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "no project found" in done.stderr and "--project" in done.stderr and "Traceback" not in done.stderr
    assert not (nowhere / "reports").exists()


def test_a_harness_without_its_data_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main as cli

    monkeypatch.setattr(paths, "SCHEMAS", tmp_path / "gone")
    assert cli.main(["impls"]) == 2
    err = capsys.readouterr().err
    assert "the harness's own data is missing" in err and str(tmp_path / "gone") in err


# A second implementation of the memgate ops that needs no build (a checkout's pyo3, wasm and pyodide need theirs):
# the wheel's reference again, in process, so that a 5 s fuzz run compares from its first second even on a busy
# machine (a command testee's start-up can take the whole budget there).
TWIN = {"schema": "implementation-v1", "name": "reference-again", "language": "Python", "oracle": False,
        "description": "the installed harness's reference again, in process", "contracts": ["v1"],
        "ops": ["memgate"], "build": [], "expected": None, "start": {"python": "reference"},
        "deadlines": {"startup": 30, "request": 10}, "hint": "the wheel's reference, installed with it"}


def _place(kind: str, tmp_path: Path) -> tuple[Path, list[str], dict[str, str], str]:
    """(the folder to run in, the leading options, the environment, the project's oracle) of one place:
    ``checkout`` a copy of this checkout (its families/ again holds the wheel's own family); ``outside`` an outside
    project with a family of its own and implementations in two languages (docs/examples/tags/); ``project_option``
    the checkout's copy named with --project from another folder."""
    if kind == "outside":
        project = tmp_path / "tags"
        shutil.copytree(ROOT / "docs" / "examples" / "tags", project)
        return project, [], {"PYTHONPATH": str(project / "src")}, "tags-ref"  # and js-twin, py-toy
    checkout = _copy_of_the_checkout(tmp_path / "checkout")
    assert (checkout / "families" / "memgate.json").is_file()
    twin = tmp_path / "twin"
    twin.mkdir()
    (twin / "reference-again.json").write_text(json.dumps(TWIN), encoding="utf-8")
    env = {"PARITY_IMPLEMENTATIONS": str(twin)}
    if kind == "checkout":
        return checkout, [], env, "reference"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return elsewhere, ["--project", str(checkout)], env, "reference"


@pytest.mark.parametrize("kind", ["checkout", pytest.param("outside", marks=pytest.mark.slow),
                                  pytest.param("project_option", marks=pytest.mark.slow)])
def test_every_readme_command_runs_from_the_wheel(installed: Path, tmp_path: Path, kind: str) -> None:
    """Each command the README shows, as it says: --help and --version, impls, check, fuzz --seconds 5, report show,
    -q before and after the command (the verdict line alone, the same status)."""
    where, lead, env, oracle = _place(kind, tmp_path)

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        head = 3 if argv[0] == "python" else 1  # the leading options go after `python -m harness`
        done = _run(installed, where, *argv[:head], *lead, *argv[head:], env=env)
        assert "Traceback" not in done.stderr, done.stderr[-3000:]
        return done

    def ok(*argv: str) -> str:
        done = run(*argv)
        assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-2000:])
        return done.stdout

    assert "harness commands" in ok("memgate-parity", "--help")
    assert "--seconds" in ok("memgate-parity", "fuzz", "--help")
    assert "--seconds" in ok("python", "-m", "harness", "fuzz", "--help")
    assert ok("memgate-parity", "--version").startswith("memgate-parity ")
    assert ok("python", "-m", "harness", "--version").startswith("memgate-parity ")
    listed = ok("memgate-parity", "impls")
    assert oracle in listed and ("reference-again" in listed) == (kind != "outside"), listed
    assert f"{oracle}: " in ok("memgate-parity", "check", "--impl", oracle)
    # The in-process implementations (the tags family's Node twin can take the 5 s to start on a busy machine).
    fuzzed = ok("memgate-parity", "fuzz", "--seconds", "5",
                *(["--impls", "tags-ref,py-toy"] if kind == "outside" else []))
    assert " 0 new divergence(s)" in fuzzed and " 0 finding(s)" in fuzzed, fuzzed[-2000:]
    report = where / "reports" / "fuzz-report.json"
    assert report.is_file(), sorted(where.rglob("*.json"))[:20]  # into reports/ of the working directory
    shown = ok("memgate-parity", "report", "show", str(report))
    verdict = [line for line in shown.splitlines() if line.startswith("verdict: ")]
    assert len(verdict) == 1, shown[-2000:]
    for quiet in (["-q", "report", "show", str(report)], ["report", "show", str(report), "-q"]):
        assert ok("memgate-parity", *quiet).splitlines() == verdict, quiet
        assert ok("python", "-m", "harness", *quiet).splitlines() == verdict, quiet
    for quiet in (["-q", "impls"], ["impls", "-q"], ["--quiet", "check", "--impl", oracle]):
        said = ok("memgate-parity", *quiet).splitlines()
        assert len(said) == 1, (quiet, said)
    assert ok("memgate-parity", "-q", "impls").splitlines() == ["impls: all agree (status 0)"]


def test_help_and_the_version_need_no_project(installed: Path, tmp_path: Path) -> None:
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    for argv in (["memgate-parity", "--help"], ["memgate-parity", "fuzz", "--help"], ["memgate-parity", "--version"],
                 ["python", "-m", "harness", "--help"], ["python", "-m", "harness", "--version"],
                 ["python", "-m", "harness", "check", "--help"], ["memgate-parity", "report", "show", "-h"]):
        done = _run(installed, nowhere, *argv)
        assert done.returncode == 0 and done.stdout.strip(), (argv, done.stdout[-1000:], done.stderr[-1000:])
        assert "Traceback" not in done.stderr
    helped = _run(installed, nowhere, "memgate-parity", "fuzz", "--help").stdout
    assert "implementations: those the project declares" in helped and "ops: " in helped
    assert not (nowhere / "reports").exists()
