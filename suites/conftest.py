"""Shared pytest wiring: which implementations the parity suites run on.

``--impl NAME`` (repeatable) or ``PARITY_IMPLS=reference,pyo3``; default: the oracle. Implementations are
the declared ones (implementations/*.json, plus any folder in PARITY_IMPLEMENTATIONS). An
implementation that was asked for and cannot be loaded fails the run: it is never silently skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator
from pathlib import Path

import pytest
from hypothesis import settings

from harness.differential import profiles  # noqa: F401  (registers the Hypothesis profiles)
from harness.testees import impls
from harness.testees.fanout import harvest
from harness.testees.findings import Findings
from suites.slow_set import is_slow

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    """No test runs with an op family missing: a family file that does not load stops the session."""
    from harness.model.registry import family_problems

    if family_problems():
        raise pytest.UsageError("\n".join(family_problems()))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--impl", action="append", default=None, help="implementation to test (repeatable)")
    parser.addoption("--parity-report", default=None, metavar="PATH",
                     help="write the differential suite's divergence report here (nox -s parity: reports/)")
    parser.addoption("--fixture-results", default=None, metavar="PATH",
                     help="write every implementation x fixture case result here (fixture-results-v1)")
    parser.addoption("--ran-report", default=None, metavar="PATH",
                     help="write how many tests passed, failed and were skipped per implementation (JSON); "
                          "nox -s parity checks that every implementation it asked for ran")


# Per implementation: outcomes of the tests parametrized with it (impl_name), for --ran-report.
_RAN: dict[str, dict[str, int]] = {}
_IMPL_OF: dict[str, str] = {}


PARITY_FOLDER = "suites/parity/"
LAST = PARITY_FOLDER + "test_testee_health.py"  # its tests read the findings every other test of the session made


def _op_of(params: dict[str, object]) -> str | None:
    """The op a parametrized test is about: its ``op_name`` or ``op``, or its fixture case's op (or the op its
    ``@pytest.mark.op(name)`` names)."""
    for key in ("op_name", "op"):
        if isinstance(params.get(key), str):
            return str(params[key])
    op = getattr(params.get("case"), "op", None)
    return op if isinstance(op, str) else None


# Session fixtures every test has (cheap, or per implementation): they do not tie a test to a worker.
_SHARED_FREELY = frozenset({"impl", "impl_set", "impl_name", "_name_the_run_in_junit"})


def _heavy_fixtures(item: pytest.Item) -> list[str]:
    """The suites' own session and module fixtures ``item`` uses (each made once per worker that runs a user)."""
    info = getattr(item, "_fixtureinfo", None)
    found = []
    for name, chain in info.name2fixturedefs.items() if info else ():
        fixture = chain[-1]
        if name in _SHARED_FREELY or not fixture.baseid.startswith("suites"):
            continue
        if fixture.scope == "session":
            found.append(f"session:{name}")
        elif fixture.scope == "module":
            found.append(f"module:{item.nodeid.split('::')[0]}")
    return found


def _worker_groups(items: list[pytest.Item]) -> dict[str, str]:
    """Under pytest-xdist (nox -s tests: -n auto --dist loadgroup), the tests that must share one worker, by node
    id: the parity suites, in this order, so that test_testee_health.py reads the findings of every parity test
    before it; and the users of one of the suites' session or module fixtures (a built wheel, a started Pyodide, a
    browser, reports made by the real command line), joined where they share one, so that each is made once.
    Every other test goes where a worker is free."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    heavy = {item.nodeid: _heavy_fixtures(item) for item in items}
    for keys in heavy.values():
        for key in keys[1:]:
            parent[root(key)] = root(keys[0])
    groups = {nodeid: root(keys[0]) for nodeid, keys in heavy.items() if keys}
    groups.update({item.nodeid: "parity-suites" for item in items if item.nodeid.startswith(PARITY_FOLDER)})
    return groups


def _not_served(item: pytest.Item) -> bool:
    """A test of an implementation about an op its declaration does not serve: never run, never a skip."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or "impl_name" not in callspec.params:
        return False
    marked = item.get_closest_marker("op")
    ops = list(marked.args) if marked is not None and marked.args else [_op_of(callspec.params)]
    try:
        declared = impls.declaration(callspec.params["impl_name"])
        return any(op is not None and not declared.serves_op(op) for op in ops)
    except impls.ImplementationUnavailable:
        return False


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> Generator[None, None, None]:
    """Around every other plugin's hook. Before them: the unserved tests deselected, the slow set marked (before
    ``-m``'s deselection) and the worker groups marked, which pytest-xdist's own hook reads on each worker (a
    plain hook of this conftest would run after it: the marks came too late and no group ever formed). After
    them: test_testee_health.py last, each group in its node id (``_group_in_the_node_id``), the tests by
    implementation for ``--ran-report``."""
    unserved = [item for item in items if _not_served(item)]
    if unserved:  # deselected (pytest counts them as such), not skipped: a pass rate never includes them
        config.hook.pytest_deselected(items=unserved)
        items[:] = [item for item in items if not _not_served(item)]
    for item in items:
        if is_slow(item.nodeid) or item.get_closest_marker("timing"):  # suites/slow_set.py; tests-slow runs these
            item.add_marker(pytest.mark.slow)
    if config.pluginmanager.hasplugin("xdist"):
        groups = _worker_groups(items)
        for item in items:
            if item.nodeid in groups:
                item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))
    yield
    items.sort(key=lambda item: item.nodeid.startswith(LAST))  # stable: every other test keeps its place
    _group_in_the_node_id(config, items)
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "impl_name" in callspec.params:
            _IMPL_OF[item.nodeid] = callspec.params["impl_name"]


def _group_in_the_node_id(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a worker of ``--dist loadgroup``, each grouped test's node id ends with its group ("@" and the names of
    its xdist_group marks, as pytest-xdist writes them): that suffix is how the worker tells the scheduler the
    group. pytest-xdist 3.8 writes it into ``item._nodeid``, which pytest 9.2 no longer reads (a node's id is
    its structured ``item._id``): every group was scattered over the workers and a module fixture such as
    test_wheel.py's built wheel made once per worker (pytest-dev/pytest-xdist#1386). Where the suffix is
    missing it is put into the id pytest reads; where pytest-xdist's write took, nothing is done."""
    if not getattr(config.option, "loadgroup", False):  # set on the workers of --dist loadgroup only
        return
    for item in items:
        names = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                        for mark in item.iter_markers("xdist_group")})
        suffix = "@" + "_".join(names) if names else ""
        if suffix and not item.nodeid.endswith(suffix) and hasattr(item, "_id"):
            item._id = type(item._id).parse(item.nodeid + suffix)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    name = _IMPL_OF.get(report.nodeid)
    if name is None or not (report.when == "call" or report.outcome != "passed"):
        return  # one count per test: its call, or the phase that skipped or failed it
    counts = _RAN.setdefault(name, {"passed": 0, "failed": 0, "skipped": 0})
    counts[report.outcome] += 1


def requested_impls(config: pytest.Config) -> list[str]:
    names = config.getoption("--impl") or [n for n in os.environ.get("PARITY_IMPLS", "").split(",") if n]
    return names or [impls.oracle()]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "impl_name" in metafunc.fixturenames:
        metafunc.parametrize("impl_name", requested_impls(metafunc.config), scope="session")


_LOADED: dict[str, object] = {}


@pytest.fixture(scope="session")
def impl(impl_name: str):  # type: ignore[no-untyped-def]
    if impl_name not in _LOADED:
        try:
            _LOADED[impl_name] = impls.get_impl(impl_name)
        except impls.ImplementationUnavailable as exc:
            pytest.fail(f"implementation {impl_name!r} was requested but is unavailable: {exc}", pytrace=False)
    return _LOADED[impl_name]


@pytest.fixture(scope="session")
def impl_set(request: pytest.FixtureRequest) -> dict[str, object]:
    """Every requested implementation at once (the oracle always included), for differential tests."""
    names = list(dict.fromkeys([impls.oracle(), *requested_impls(request.config)]))
    opened: dict[str, object] = {}
    for name in names:
        if name not in _LOADED:
            try:
                _LOADED[name] = impls.get_impl(name)
            except impls.ImplementationUnavailable as exc:
                pytest.fail(f"implementation {name!r} was requested but is unavailable: {exc}", pytrace=False)
        opened[name] = _LOADED[name]
    return opened


# Findings about testees that a suite took out of a testee (the fuzzer ships its testees' findings into
# its result): kept here for suites/parity/test_testee_health.py, which fails per implementation on any.
FINDINGS = Findings()


def findings_of(name: str) -> list[dict[str, object]]:
    """Every finding about ``name`` this session: what the suites recorded, and its testee's own."""
    if name in _LOADED:
        FINDINGS.merge(harvest({name: _LOADED[name]}).findings)  # type: ignore[dict-item]
    return [item for item in FINDINGS.to_json() if item["impl"] == name]


# The folder the guard below watches: reports/ (PARITY_REPORTS_GUARD names another one only for the guard's
# own test, suites/classes/test_reports.py, which plants a write into a temporary folder and sees the session fail).
REPORTS = Path(os.environ.get("PARITY_REPORTS_GUARD") or Path(__file__).resolve().parent.parent / "reports")
_REPORTS_BEFORE: dict[str, tuple[int, int]] = {}
REPORT_OPTIONS = ("--ran-report", "--parity-report", "--fixture-results", "--junitxml")


def _reports_now() -> dict[str, tuple[int, int]]:
    """Every file under reports/: (size, modification time in ns), by path."""
    found = {}
    for path in REPORTS.rglob("*") if REPORTS.is_dir() else []:
        if path.is_file():
            stat = path.stat()
            found[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return found


def pytest_sessionstart(session: pytest.Session) -> None:
    _REPORTS_BEFORE.update(_reports_now())


@pytest.fixture(scope="session", autouse=True)
def _name_the_run_in_junit(record_testsuite_property) -> None:  # type: ignore[no-untyped-def]
    """The JUnit XML names its run too: the nox session and the commit (testsuite properties)."""
    from harness.model import envelope

    record_testsuite_property("session", os.environ.get("NOX_CURRENT_SESSION") or "none")
    record_testsuite_property("commit", envelope.project()["commit"] or "unknown")


def _reports_written_unasked(config: pytest.Config) -> list[str]:
    """Files under reports/ this session created or changed other than those its options asked for: only
    the user's commands write there (a test writes into a temporary folder)."""
    asked = set()
    for option in REPORT_OPTIONS:
        value = config.getoption(option, default=None) if option != "--junitxml" else config.option.xmlpath
        if value:
            asked.add(str(Path(value).resolve()))
    now = _reports_now()
    return sorted(path for path, state in now.items()
                  if _REPORTS_BEFORE.get(path) != state and str(Path(path).resolve()) not in asked)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    ran_report = session.config.getoption("--ran-report")
    if ran_report:
        from harness.model import envelope

        for name in requested_impls(session.config):
            _RAN.setdefault(name, {"passed": 0, "failed": 0, "skipped": 0})
        document = {"schema": "parity-ran-v1", "run": envelope.build({}), "counts": _RAN}
        with open(ran_report, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=2, sort_keys=True)
    written = _reports_written_unasked(session.config)
    if written:
        session.config.get_terminal_writer().line(
            "FAILED: the tests wrote under reports/, which holds only what the user's commands wrote: "
            + ", ".join(written), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    for impl in _LOADED.values():
        close = getattr(impl, "close", None)
        if close:
            close()


@pytest.fixture(scope="session")
def page_reports(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Reports made by the real command line on a fake with a planted traced bug, for the page's tests
    (suites/cli/page_reports.py), once per session, in a temporary folder."""
    from suites.cli import page_reports as making

    return making.make(tmp_path_factory.mktemp("page-reports"))


@pytest.fixture()
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``hostile(FAULT, **declared)``: the hostile test double (harness/tools/hostile_faults.py) declared in
    tmp_path and opened; closed at the end."""
    from harness.tools.hostile_faults import declare

    opened = []

    def make(fault: str, **kwargs):  # type: ignore[no-untyped-def]
        declare(tmp_path, fault, request_deadline=kwargs.pop("request_deadline", 2), **kwargs)
        monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
        testee = impls.get_impl("hostile")
        opened.append(testee)
        return testee

    yield make
    for testee in opened:
        testee.close()
