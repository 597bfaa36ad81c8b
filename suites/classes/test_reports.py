"""Reports people read and compare: every report carries its run (schemas/run-envelope-v1), validates
against its schema, and names the implementations' versions and the commit; `report diff` of a run
against itself says nothing changed, against a run with a planted bug names exactly that class; v1
reports stay readable; the tables stay within 120 columns and show astral characters as one code point."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.classes import rundiff
from harness.cli import reports, views
from harness.cli.reports import divergences
from harness.model import paths
from harness.model.schemas import problems
from suites.fake_impl import declare, run
from suites.stand_ins import Terminal

ROOT = Path(__file__).resolve().parents[2]
SWEEP = ["--templates", "alone,leading-edge", "--range", "U+0000..U+007F", "--workers", "1"]


def _head() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def _sweep(folder: Path, name: str, bug: str = "", *extra: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    declare(folder / name, bug=bug)
    report = folder / f"{name}.json"
    proc = run(folder / name, "-m", "harness", "sweep", "--impls", "fake", *SWEEP, "--report", str(report),
               "--checkpoint", str(folder / f"{name}.jsonl"), *extra)
    assert report.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc, report


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("sweeps")
    good = _sweep(folder, "good")[1]
    again = _sweep(folder, "again")[1]
    buggy = _sweep(folder, "buggy", "strip")[1]
    return {"good": good, "again": again, "buggy": buggy}


def test_every_report_names_its_run_the_versions_and_the_commit(sweeps: dict[str, Path], tmp_path: Path) -> None:
    declare(tmp_path / "impls")
    fuzzed, checked = tmp_path / "fuzz.json", tmp_path / "check.json"
    run(tmp_path / "impls", "-m", "harness", "fuzz", "--seconds", "2", "--impls", "fake", "--seed", "5",
        "--max-examples", "1000", "--report", str(fuzzed))  # a report is all it needs: one batch, not 2 s of them
    run(tmp_path / "impls", "-m", "harness", "check", "--impl", "fake", "--results", str(checked))
    for path in (sweeps["good"], fuzzed, checked):
        document = json.loads(path.read_text())
        assert problems(document) == [], (path, problems(document))
        envelope = document["run"]
        assert envelope["project"]["commit"] == _head()
        assert envelope["implementations"]["fake"]["version"], path
        assert envelope["started"] <= envelope["ended"]
        assert " -m harness " in envelope["command"], envelope["command"]
    assert json.loads(fuzzed.read_text())["run"]["seed"] == 5
    assert json.loads(fuzzed.read_text())["run"]["implementations"]["reference"]["unicode"]


def test_a_run_against_itself_changes_nothing(sweeps: dict[str, Path]) -> None:
    proc = run(ROOT, "-m", "harness", "report", "diff", str(sweeps["good"]), str(sweeps["again"]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "nothing changed" in proc.stdout
    found = reports.diff(json.loads(sweeps["buggy"].read_text()), json.loads(sweeps["buggy"].read_text()))
    assert found.changes == [] and found.unchanged == 1


def test_a_planted_bug_is_exactly_one_new_class_and_fixed_when_it_goes(sweeps: dict[str, Path]) -> None:
    proc = run(ROOT, "-m", "harness", "report", "diff", str(sweeps["good"]), str(sweeps["buggy"]), "--format",
               "json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = json.loads(proc.stdout)
    assert [(c["change"], c["kind"], c["implementations"], c["subject"].split()[:2], c["blocking"])
            for c in found["changes"]] == \
        [("new", "class", ["fake"], ["normalize_fact_text", "whitespace_definition"], True)], found
    back = run(ROOT, "-m", "harness", "report", "diff", str(sweeps["buggy"]), str(sweeps["good"]))
    assert back.returncode == 0 and "1 fixed" in back.stdout, back.stdout  # a sweep's absence: fixed


def test_the_baseline_option_prints_the_same_diff(sweeps: dict[str, Path], tmp_path: Path) -> None:
    proc, _ = _sweep(tmp_path, "buggy", "strip", "--baseline", str(sweeps["good"]))
    assert proc.returncode == 1
    assert "changes since the baseline" in proc.stdout and "1 new" in proc.stdout, proc.stdout
    bad = run(ROOT, "-m", "harness", "sweep", "--baseline", str(tmp_path / "missing.json"))
    assert bad.returncode == 2 and "--baseline" in bad.stderr


def test_a_class_missing_from_a_fuzz_run_is_not_seen_never_fixed(sweeps: dict[str, Path]) -> None:
    old = json.loads(sweeps["buggy"].read_text())
    new = dict(old, profile="fuzz", divergences=[])
    assert [c.change for c in reports.diff(old, new).changes] == ["not seen"]


def test_a_class_that_is_expected_now_is_changed_and_one_no_longer_covered_is_new(sweeps: dict[str, Path]) -> None:
    old = json.loads(sweeps["buggy"].read_text())
    covered = json.loads(json.dumps(old))
    covered["divergences"][0].update(status="expected", expectedEntry="fake/x", expectedEntries=["fake/x"])
    assert [(c.change, c.blocking) for c in reports.diff(old, covered).changes] == [("changed", False)]
    assert [(c.change, c.blocking) for c in reports.diff(covered, old).changes] == [("changed", True)]


def test_a_v1_report_is_still_read(sweeps: dict[str, Path], tmp_path: Path) -> None:
    document = json.loads(sweeps["buggy"].read_text())
    document["schema"] = "divergence-report-v1"
    del document["run"]
    for divergence in document["divergences"]:
        divergence.pop("expectedEntries", None)
        divergence.pop("oracle", None)  # v2 fields a v1 report never had
    document["sweep"].pop("shardCommits", None)
    old = tmp_path / "v1.json"
    old.write_text(json.dumps(document))
    assert rundiff.read(old)["schema"] == "divergence-report-v1"
    proc = run(ROOT, "-m", "harness", "report", "diff", str(old), str(sweeps["buggy"]))
    assert proc.returncode == 0 and "nothing changed" in proc.stdout, proc.stdout + proc.stderr
    shown = run(ROOT, "-m", "harness", "report", "show", str(old))
    assert "no run envelope (a v1 report)" in shown.stdout and "whitespace_definition" in shown.stdout


def test_fixture_results_diff_by_case(tmp_path: Path) -> None:
    declare(tmp_path / "good")
    declare(tmp_path / "buggy", bug="capitalize")
    good, buggy = tmp_path / "good.json", tmp_path / "buggy.json"
    run(tmp_path / "good", "-m", "harness", "check", "--impl", "fake", "--results", str(good))
    run(tmp_path / "buggy", "-m", "harness", "check", "--impl", "fake", "--results", str(buggy))
    broke = reports.diff(json.loads(good.read_text()), json.loads(buggy.read_text()))
    assert broke.new and all(c.kind == "case" and c.change == "new" and c.after.startswith("fail")
                             for c in broke.new)
    mended = reports.diff(json.loads(buggy.read_text()), json.loads(good.read_text()))
    assert not mended.new and {c.change for c in mended.changes} == {"fixed"}
    assert len(mended.changes) == len(broke.new)
    with pytest.raises(ValueError, match="cannot compare"):
        reports.diff(json.loads(good.read_text()), {"schema": "divergence-report-v2", "divergences": []})


def test_a_broken_report_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"schema": "divergence-report-v2", "divergences": []}))
    proc = run(ROOT, "-m", "harness", "report", "show", str(path))
    assert proc.returncode == 2 and str(path) in proc.stderr and "does not match its schema" in proc.stderr


def test_astral_characters_show_as_one_code_point_and_lone_surrogates_as_units() -> None:
    assert views.show_text("a\U00016EA1b") == '"a\\U+16EA1b"'
    assert views.show_text("\ud81b") == '"\\uD81B"'
    assert views.show_text('q"\\') == '"q\\"\\\\"'
    assert views.show_text("\x1cx") == '"\\u001Cx"'


def test_tables_stay_within_120_columns_and_markdown_escapes_pipes(sweeps: dict[str, Path]) -> None:
    document = json.loads(sweeps["buggy"].read_text())
    text = divergences.classes_view(document, "text", "all")
    assert max(len(line) for line in text.splitlines()) <= 120, text
    assert "whitespace_definition" in text.splitlines()[3] or "whitespace_definition" in text
    markdown = views.markdown_table(("a", "witness"), [["x|y", "p|q"]])
    assert "x\\|y" in markdown and "`p\\|q`" in markdown


def test_a_test_session_that_writes_under_reports_fails(tmp_path: Path) -> None:
    """The guard of suites/conftest.py: a pytest session that leaves a file it was not asked for under the
    watched folder (reports/, here a temporary stand-in) fails, naming it; one that writes only the files its
    options name passes."""
    watched = tmp_path / "reports"
    watched.mkdir()
    (watched / "old.json").write_text("{}")
    planted = tmp_path / "test_writes.py"
    planted.write_text(f"def test_writes():\n    open({str(watched / 'stray.json')!r}, 'w').write('x')\n")
    quiet = tmp_path / "test_quiet.py"
    quiet.write_text("def test_quiet():\n    pass\n")
    env = dict(os.environ, PARITY_REPORTS_GUARD=str(watched))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT), "-c",
               str(ROOT / "pyproject.toml"), "--confcutdir", str(ROOT / "suites")]
    wrote = subprocess.run([*command, "-p", "suites.conftest", str(planted)], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300, check=False)
    assert wrote.returncode == 1, wrote.stdout[-2000:]
    assert "wrote under reports/" in wrote.stdout and "stray.json" in wrote.stdout
    (watched / "stray.json").unlink()
    asked = watched / "ran.json"
    clean = subprocess.run([*command, "-p", "suites.conftest", str(quiet), f"--ran-report={asked}"], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=300, check=False)
    assert clean.returncode == 0, clean.stdout[-2000:]
    assert asked.exists()


def test_the_reports_check_wants_every_file_to_name_its_session(sweeps: dict[str, Path], tmp_path: Path) -> None:
    """harness/tools/reports_check.py (the end of .ci/run): a report written outside nox, a stray file and a JUnit
    file without its properties are problems; the parity suites' own files under a session pass."""
    from harness.tools import reports_check

    folder = tmp_path / "reports"
    env = dict(os.environ, NOX_CURRENT_SESSION="parity")
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "suites/parity/test_fixtures.py",
                    "-k", "norm-ascii-lowercase", "--impl=reference", f"--junitxml={folder / 'j.xml'}",
                    f"--fixture-results={folder / 'f.json'}", f"--ran-report={folder / 'ran.json'}"],
                   cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True)
    assert reports_check.main([str(folder)]) == 0
    outside = json.loads(sweeps["good"].read_text())
    outside["run"]["session"] = None  # as written outside nox (this test may itself run under nox -s tests)
    (folder / "sweep.json").write_text(json.dumps(outside))
    (folder / "notes.txt").write_text("x")
    (folder / "bare.xml").write_text("<testsuites><testsuite name='x'/></testsuites>")
    found = [problem for path in sorted(folder.iterdir()) for problem in reports_check.check_file(path, folder)]
    assert len(found) == 3 and any("names no nox session" in p for p in found), found
    assert reports_check.main([str(folder)]) == 1


def test_progress_is_a_plain_line_in_a_log_and_a_bar_without_a_thread_on_a_terminal() -> None:
    """harness/fuzzing/progress.py: a line every few seconds when the stream is no terminal; on one, rich's
    bar, redrawn only by update (a refresh thread would hold locks across the workers' fork)."""
    import io
    import threading

    from harness.fuzzing.progress import Progress

    log = io.StringIO()
    plain = Progress(log, "sweep", 10, every=0.0)
    plain.update(3, "3/10 values", force=True)
    plain.done()
    assert log.getvalue() == "[sweep] 3/10 values\n"

    screen = Terminal()
    threads = threading.active_count()
    live = Progress(screen, "fuzz", 10)
    live.update(5, "5,000 examples", force=True)
    assert threading.active_count() == threads
    live.done()
    assert "fuzz" in screen.getvalue() and "5,000 examples" in screen.getvalue()


@pytest.mark.parametrize("columns", [80, 100, 120])
def test_the_progress_bar_keeps_its_label_and_percentage_at_any_width(columns: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36: at 80 columns rich's default columns cut the label, the bar and the percentage away, leaving
    the middle of the counts. The counts now fold under a short bar: everything is on the screen."""
    import re

    from harness.fuzzing.progress import Progress

    monkeypatch.setenv("COLUMNS", str(columns))  # rich's console width for a stream that is no real terminal
    text = "12,345/65,536 values ( 18.8%)  66,412 values/s (132,825 requests/s)  ETA 3s  disagreeing inputs: 0"
    screen = Terminal()
    live = Progress(screen, "sweep", 100)
    live.update(18.8, text, force=True)
    live.done()
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue()).replace("\r", "\n")
    last = [line for line in shown.split("\n") if line.strip()][-2:]  # the final frame, on one or two lines
    assert all(len(line) <= columns for line in last), last
    joined = " ".join(last)
    assert joined.startswith("sweep") and "19%" in joined, last
    assert "".join(text.split()) in "".join(joined.split()), last


def test_a_class_is_the_same_class_whatever_order_a_run_listed_its_implementations(sweeps: dict[str, Path]) -> None:
    old = json.loads(sweeps["buggy"].read_text())
    new = json.loads(json.dumps(old))
    for divergence in old["divergences"]:
        divergence["divergent"] = ["reference-b", *divergence["divergent"]]
    for divergence in new["divergences"]:
        divergence["divergent"] = [*divergence["divergent"], "reference-b"]
    assert reports.diff(old, new).changes == []


def test_markdown_for_ci_job_summaries(sweeps: dict[str, Path], tmp_path: Path) -> None:
    """--format markdown on check, fuzz, sweep and report show: GitHub-flavoured tables."""
    declare(tmp_path / "impls", bug="strip")
    header = "| # | op | impls | cause | step | extent | witness | status |"
    checked = run(tmp_path / "impls", "-m", "harness", "check", "--impl", "fake", "--results",
                  str(tmp_path / "c.json"), "--format", "markdown")
    assert "| implementation | fixture | pass | fail | skip |" in checked.stdout, checked.stdout
    assert "| implementation | case | steps | mismatch |" in checked.stdout
    fuzzed = run(tmp_path / "impls", "-m", "harness", "fuzz", "--seconds", "3", "--impls", "fake", "--seed", "2",
                 "--max-examples", "1000", "--ops", "normalize_fact_text", "--report", str(tmp_path / "f.json"),
                 "--format", "markdown")
    assert header in fuzzed.stdout, fuzzed.stdout
    swept = run(ROOT, "-m", "harness", "report", "show", str(sweeps["buggy"]), "--format", "markdown")
    assert header in swept.stdout and "`\"\\u001C\"`" in swept.stdout, swept.stdout
    proc, _ = _sweep(tmp_path, "again", "strip", "--format", "markdown")
    assert header in proc.stdout


def test_a_long_status_is_wrapped_never_cut_at_the_edge(sweeps: dict[str, Path]) -> None:
    """rich cuts a table wider than the console at its right edge; an expected entry's id is one long word,
    so the cells are wrapped first: the end of every status is still there."""
    document = json.loads(sweeps["buggy"].read_text())
    divergence = document["divergences"][0]
    entries = ["pyo3/case-mapping-unicode-17-normalize", "wasm/case-mapping-unicode-17-normalize"]
    divergence.update(status="expected", expectedEntry=entries[0], expectedEntries=entries,
                      divergent=["pyo3", "wasm"], detail="case_mapping", step="norm.lowercase")
    text = divergences.classes_view(document)
    assert max(len(line) for line in text.splitlines()) <= 120, text
    assert "(pyo3, wasm)" in text and "normalize" in text, text


@pytest.mark.parametrize("columns", [80, 100, 120])
def test_every_class_keeps_its_whole_status_at_any_width(sweeps: dict[str, Path], columns: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36: at 100 columns the status shrank to `expe`, at 80 it disappeared. The class table of fuzz,
    sweep and report show (one view) keeps every class's status whole, wrapped if need be, at 80, 100, 120."""
    from harness.cli import views

    document = json.loads(sweeps["buggy"].read_text())
    first = document["divergences"][0]
    entries = ["pyo3/case-mapping-unicode-17-normalize", "wasm/case-mapping-unicode-17-normalize"]
    first.update(status="expected", expectedEntry=entries[0], expectedEntries=entries, divergent=["pyo3", "wasm"])
    monkeypatch.setattr(views, "width", lambda: columns)
    text = divergences.classes_view(document)
    table = text.split("\n\n")[1]  # below its title
    assert max(len(line) for line in table.splitlines()) <= columns, table
    statuses = [divergences.status_of(record) for record in divergences.report_classes(document)]
    assert any(status.startswith("expected: ") for status in statuses)
    # The status column, read down from its header's place: every status whole, in the table's order (a value moved
    # under its row, "    cause: ...", is not in the column).
    lines = table.splitlines()
    column = lines[0].index("status")
    moved = re.compile(r"^ {4,}[a-z]+: ")
    down = "".join(line[column:].strip() for line in lines[2:] if not moved.match(line))
    assert "".join("".join(status.split()) for status in statuses) == "".join(down.split()), (down, table)


def test_a_class_that_moved_to_another_step_says_so(sweeps: dict[str, Path]) -> None:
    """One row, "changed", naming both steps; never "unchanged", never an unrelated new and a lost class."""
    old = json.loads(sweeps["buggy"].read_text())
    new = json.loads(json.dumps(old))
    step = old["divergences"][0]["step"]
    new["divergences"][0]["step"] = "norm.collapse" if step != "norm.collapse" else "norm.trim"
    found = reports.diff(old, new)
    assert [c.change for c in found.changes] == ["changed"] and found.unchanged == 0, found
    moved = f"step {step or '-'} -> {new['divergences'][0]['step']}"
    assert found.changes[0].how == (moved,) and found.changes[0].after.endswith(f"; {moved}"), found
    other = json.loads(json.dumps(new))  # another cause at another step: a new class and a gone one
    other["divergences"][0]["cause"] = "rule_difference"
    assert sorted(c.change for c in reports.diff(old, other).changes) == ["fixed", "new"]  # a sweep: fixed


def test_a_changed_class_names_the_characters_it_gained_and_lost(sweeps: dict[str, Path]) -> None:
    old = json.loads(sweeps["buggy"].read_text())
    old["divergences"][0]["characters"] = ["U+0085", "U+00A0"]
    new = json.loads(json.dumps(old))
    new["divergences"][0]["characters"] = ["U+00A0", "U+1680", "U+2000..U+200A"]
    [change] = reports.diff(old, new).changes
    assert change.change == "changed" and change.before != change.after
    assert change.after.endswith("; +2 U+1680 U+2000..U+200A; -1 U+0085"), change.after


def test_what_the_baseline_never_ran_is_not_in_the_baseline(sweeps: dict[str, Path], tmp_path: Path) -> None:
    old = json.loads(sweeps["buggy"].read_text())
    never = dict(old, implementations={"reference": old["implementations"]["reference"]}, divergences=[])
    assert [(c.change, c.blocking) for c in reports.diff(never, old).changes] == [("not in the baseline", True)]
    assert [c.change for c in reports.diff(dict(never, implementations=old["implementations"]), old).changes] \
        == ["new"]
    declare(tmp_path / "buggy", bug="capitalize")
    results = tmp_path / "buggy.json"
    run(tmp_path / "buggy", "-m", "harness", "check", "--impl", "fake", "--results", str(results))
    document = json.loads(results.read_text())
    found = reports.diff(dict(document, results=[]), document)
    assert found.changes and {c.change for c in found.changes} == {"not in the baseline"}
    assert {c.blocking for c in found.changes if c.after.startswith("fail")} == {True}


def test_every_report_kind_has_its_row_in_every_table() -> None:
    """harness/classes/kinds.py is the table of report kinds: each one its schemas (files in schemas/, but the
    JUnit pseudo-schema), its label, its part in the verdict and its view in report show; a kind added
    without one of them fails here, not on a user's report."""
    from harness.classes.kinds import BY_SCHEMA, Kind
    from harness.model.paths import SCHEMAS

    for kind in Kind:
        assert kind.schemas and kind.label, kind
        row = reports.KINDS[kind]
        assert row.kind is kind and callable(row.part) and callable(row.view), kind
        for schema in kind.schemas:
            assert BY_SCHEMA[schema] is kind
            assert schema == "junit-xml" or (SCHEMAS / f"{schema}.schema.json").is_file(), schema
    assert set(reports.COMPARABLE) == {Kind.DIVERGENCES, Kind.RESULTS}
    assert {section.ident for section in reports.sections()} == {"matrix", "tests", "classes"}
    with pytest.raises(ValueError, match="not a report the harness reads"):
        rundiff.kind_of({"schema": "run-summary-v1"})


def _change_table() -> dict[str, list[str]]:
    """docs/architecture.md, "What a change takes": change -> the files its row names."""
    import re

    text = (paths.ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    part = text[text.index("## What a change takes"):]
    rows = {}
    for line in part.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("change", "---"):
            rows[cells[0]] = re.findall(r"`([^`]+\.(?:py|json))`", cells[1])
    return rows


def test_the_docs_say_what_a_new_report_kind_and_a_new_witness_field_take() -> None:
    """The table of docs/architecture.md is the code's: each file it names exists (NAME: a kind's module, one
    per kind here, each declaring its kind), and the witness's fields live in the record it names."""
    import dataclasses

    from harness.classes.kinds import Kind
    from harness.classes.record import Witness

    table = _change_table()
    assert set(table) == {"a new field of a witness", "a new report kind"}, table
    for files in table.values():
        for name in files:
            if "NAME" not in name:
                assert (paths.ROOT / name).is_file(), name
    kind_files = table["a new report kind"]
    assert "harness/cli/reports/NAME.py" in kind_files and "harness/classes/kinds.py" in kind_files
    modules = sorted(p.stem for p in (paths.ROOT / "harness" / "cli" / "reports").glob("*.py")
                     if p.stem not in ("__init__", "kind"))
    assert sorted(module.__name__.rsplit(".", 1)[1] for module in reports.MODULES) == modules
    assert {module.KIND.kind for module in reports.MODULES} == set(Kind) and len(reports.MODULES) == len(Kind)
    record = (paths.ROOT / table["a new field of a witness"][0]).read_text(encoding="utf-8")
    for witness_field in dataclasses.fields(Witness):
        assert f"witness.{witness_field.name}" in record, witness_field.name  # written by to_json there
