"""The speed gate (harness/tools/harness_baseline.py): its verdict is a pure function of the rounds, held to planted
figures; the gate itself passes an unchanged tree (a copy of HEAD against HEAD) and fails a planted 5 % slowdown of
each path's own cost, naming that path alone (marked timing: `nox -s tests-slow` runs them alone, after the rest;
one measuring of the unchanged pair and one of the three planted trees, shared)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.model.status import Unavailable
from harness.tools import harness_baseline as gate

ROOT = gate.ROOT


def rounds(**measures: tuple[list[float], list[float]]) -> gate.Rounds:
    found = gate.Rounds()
    for name, (base, now) in measures.items():
        found.baseline[name] = list(base)
        found.current[name] = list(now)
    return found


def test_a_slowdown_beyond_the_margin_fails_and_noise_within_it_passes() -> None:
    found = rounds(sweep=([100.0, 102.0, 98.0], [105.0, 107.1, 103.0]),
                   fuzz=([100.0, 100.0, 100.0], [101.0, 99.0, 100.5]))
    rows = {row.measure: row for row in gate.verdict(found, 0.02)}
    assert rows["sweep"].slower and rows["sweep"].ratio == pytest.approx(1.05, abs=0.001)
    assert not rows["fuzz"].slower and rows["fuzz"].ratio == pytest.approx(1.005)
    assert rows["fuzz"].ratios == (1.01, 0.99, 1.005)


def test_the_median_of_the_rounds_ratios_decides_not_one_round() -> None:
    one_bad_round = rounds(fuzz=([100.0, 100.0, 100.0], [150.0, 101.0, 99.0]))
    assert not gate.verdict(one_bad_round, 0.02)[0].slower
    two_bad_rounds = rounds(fuzz=([100.0, 100.0, 100.0], [150.0, 103.0, 99.0]))
    assert gate.verdict(two_bad_rounds, 0.02)[0].slower


def test_the_margin_is_where_it_says() -> None:
    assert gate.verdict(rounds(m=([1000.0], [1019.5])), 0.02)[0].slower is False
    assert gate.verdict(rounds(m=([1000.0], [1020.5])), 0.02)[0].slower is True
    assert gate.verdict(rounds(m=([1000.0], [1020.5])), 0.03)[0].slower is False
    assert gate.verdict(rounds(m=([1000.0], [900.0])), 0.02)[0].slower is False  # cheaper is never slower


def test_a_measure_of_one_tree_only_is_named_not_passed() -> None:
    found = rounds(fuzz=([1.0], [1.0]))
    found.current["new path"] = [0.5]
    assert gate.unmatched(found) == ["new path"]
    assert [row.measure for row in gate.verdict(found, 0.02)] == ["fuzz"]



def test_a_path_that_counted_nothing_in_a_tree_fails_never_passes() -> None:
    rows = {row.measure: row for row in gate.verdict(rounds(fuzz=([1000.0], [0.0]), sweep=([0.0], [1000.0]),
                                                            client=([1000.0], [1000.0])), 0.03)}
    assert rows["fuzz"].slower and rows["fuzz"].nothing and rows["sweep"].slower and rows["sweep"].nothing
    assert not rows["client"].slower
    assert "NOTHING COUNTED" in gate.table(list(rows.values()), 0.03)


def test_a_run_whose_report_shows_no_work_is_not_measured(tmp_path: Path) -> None:
    """The workload reads each command's report: a run that exited 0 without its planned work, or the N and 2N runs
    that compared the same inputs, fail (status 2, named), as does an unreadable report; a report that keeps no
    ledger (a tree older than the ledger) is taken as it is."""
    from harness.tools import speed_workload as workload

    def argv(ledger: object) -> list[str]:
        path = tmp_path / f"r{len(list(tmp_path.iterdir()))}.json"
        path.write_text(json.dumps({"run": {"ledger": ledger}} if ledger is not None else {"run": {}}))
        return ["fuzz", "--report", str(path)]

    assert workload.work_done(argv({"ok": True, "compared": 500, "problems": []}), "fuzz") == 500
    assert workload.work_done(argv(None), "fuzz") is None
    with pytest.raises(workload.Failed, match="did not do its planned work: 9 unanswered"):
        workload.work_done(argv({"ok": False, "compared": 0, "problems": ["9 unanswered"]}), "fuzz")
    with pytest.raises(workload.Failed, match="could not be read"):
        workload.work_done(["fuzz", "--report", str(tmp_path / "absent.json")], "fuzz")

def _main_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, found: gate.Rounds) -> tuple[int, dict, str]:
    """The gate's command line on planted rounds (no checkout, no measuring)."""
    monkeypatch.setattr(gate, "checkout", lambda revision, scratch, current: tmp_path)
    monkeypatch.setattr(gate, "measure", lambda *args, **kwargs: found)
    monkeypatch.setattr(gate, "valgrind", lambda: "valgrind")
    summary = tmp_path / "summary.md"
    status = gate.main(["--baseline", "HEAD", "--out", str(tmp_path / "gate.json"), "--summary", str(summary)])
    return status, json.loads((tmp_path / "gate.json").read_text()), summary.read_text()


def test_the_command_fails_on_a_planted_slowdown_and_says_which(monkeypatch, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    status, report, summary = _main_on(monkeypatch, tmp_path, rounds(
        **{"sweep driver": ([1000.0], [1200.0]), "fuzz loop": ([10.0], [10.0])}))
    out = capsys.readouterr().out
    assert status == 1
    assert "speed gate: FAILED" in out and "sweep driver 20.0 % more instructions" in out
    assert "fuzz loop" not in out.split("FAILED")[1]
    assert report["schema"] == gate.SCHEMA and [m["slower"] for m in report["measures"]] == [True, False]
    assert "| sweep driver | 1,000 | 1,200 | 1.2000 |" in summary and "**slower**" in summary
    assert "speed gate: took" in out


def test_the_command_passes_an_unchanged_speed(monkeypatch, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    status, report, _ = _main_on(monkeypatch, tmp_path, rounds(sweep=([100.0], [101.0])))
    assert status == 0 and "speed gate: passed" in capsys.readouterr().out
    assert report["notCompared"] == []


def test_the_command_fails_when_a_measure_is_missing_on_one_side(monkeypatch, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    found = rounds(sweep=([100.0], [100.0]))
    found.baseline["gone"] = [0.5]
    status, _, _ = _main_on(monkeypatch, tmp_path, found)
    assert status == 1 and "not compared: gone" in capsys.readouterr().out


def test_a_revision_that_is_not_one_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "harness.tools.harness_baseline", "--baseline", "no-such-revision-x"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "cannot check out 'no-such-revision-x'" in done.stderr


def test_without_valgrind_the_gate_says_how_to_install_it(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # no valgrind (nor anything else) on the path
    done = subprocess.run([sys.executable, "-m", "harness.tools.harness_baseline", "--baseline", "HEAD"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 3, done.stderr
    assert "valgrind is not installed: apt-get install valgrind" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_figure_is_the_difference_of_the_two_sizes(tmp_path: Path) -> None:
    out = tmp_path / "cg.out"
    counts = {"client-1": 100, "client-2": 190, "fuzz-1": 5000, "fuzz-2": 9000, "sweep-1": 70, "sweep-2": 110}
    out.write_text("desc: Trigger: Program termination\nsummary: 12\n")  # the end's dump: not a path's
    for number, (label, count) in enumerate(counts.items(), start=1):
        Path(f"{out}.{number}").write_text(f"version: 1\ndesc: Trigger: Client Request: {label}\nevents: Ir\n"
                                           f"summary: {count}\ntotals: {count}\n")
    process = subprocess.Popen([sys.executable, "-c", "pass"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    figures = gate.finish(process, out, tmp_path, "a test")
    assert figures == {"command client": 90.0, "fuzz loop": 4000.0, "sweep driver": 40.0}
    Path(f"{out}.6").unlink()
    process = subprocess.Popen([sys.executable, "-c", "pass"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    with pytest.raises(gate.UsageError, match="without callgrind's counts of sweep-2"):
        gate.finish(process, out, tmp_path, "a test")


def test_a_workload_that_fails_in_the_baseline_is_named() -> None:
    failing = subprocess.Popen([sys.executable, "-c", "import sys; print('no get_impl', file=sys.stderr); sys.exit(2)"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with pytest.raises(gate.UsageError, match="no get_impl"):
        gate.finish(failing, ROOT / "nothing", Path("/baseline"), "baseline")
    unavailable = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
    with pytest.raises(Unavailable, match="could not start"):
        gate.finish(unavailable, ROOT / "nothing", Path("/baseline"), "baseline")


def test_the_sweep_range_doubles() -> None:
    assert gate._doubled("U+0000..U+003F") == "U+0000..U+007F"
    assert gate._doubled("U+0100..U+0100") == "U+0100..U+0101"
    with pytest.raises(gate.UsageError):
        gate._doubled("U+10FFF0..U+10FFFF")
    with pytest.raises(gate.UsageError):
        gate._doubled("nonsense")


# ---- the gate on real trees ---------------------------------------------------------------------------------------

# A planted slowdown: a loop of ``{count}`` empty turns per unit of the path's work, sized by the test (``_turns``)
# to 5 % of the unchanged figure. ``{unit}`` counts the units of one call of the rebound function.
SLOWDOWN = """

def _planted_slowdown(unplanted):  # planted by suites/tools/test_speed_gate.py: 5 % more instructions
    def planted(*args, **kwargs):
        for _ in range({count} * ({unit})):
            pass
        return unplanted(*args, **kwargs)
    return planted


{target} = _planted_slowdown({target})
"""
# path -> (what the file must hold, the name rebound, the units of one call: client calls, fuzz tasks, sweep values)
PLANTS = {
    "command client": ("class CommandTestee", "CommandTestee.call_batch",
                       "len(args[1]) if hasattr(args[1], '__len__') else 0"),
    "fuzz loop": ("def run_batch(", "run_batch", "1"),
    "sweep driver": ("def run_chunk(", "run_chunk", "args[0].stop - args[0].start"),
}
PLANTED_IN = {"command client": "harness/testees", "fuzz loop": "harness/fuzzing/fuzz.py",
              "sweep driver": "harness/fuzzing/sweep.py"}


def _worktree(path: Path) -> Path:
    subprocess.run(["git", "worktree", "add", "--detach", str(path), "HEAD"], cwd=ROOT, check=True,
                   capture_output=True)
    for built in gate.BUILT:
        if (ROOT / built).exists():
            (path / built).symlink_to(ROOT / built)
    return path


def _remove(path: Path) -> None:
    subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, capture_output=True, check=False)
    subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True, check=False)


@pytest.fixture(scope="module")
def unchanged(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The gate's command line on a copy of HEAD against HEAD: its status, output and report (measured once)."""
    tmp = tmp_path_factory.mktemp("unchanged")
    tree = _worktree(tmp / "current")
    try:
        report = tmp / "gate.json"
        done = subprocess.run([sys.executable, "-m", "harness.tools.harness_baseline", "--baseline", "HEAD",
                               "--current", str(tree), "--out", str(report)],
                              cwd=ROOT, capture_output=True, text=True, timeout=1200, check=False)
        yield done, json.loads(report.read_text()) if report.exists() else {}
    finally:
        _remove(tree)


def _turn_cost(tmp: Path) -> float:
    """Instructions of one turn of the planted loop, counted as the gate counts (the workload's requests)."""
    script = tmp / "turns.py"
    script.write_text(f"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("speed_workload", {str(gate.WORKLOAD)!r})
workload = importlib.util.module_from_spec(spec)
spec.loader.exec_module(workload)
def turns(count):
    for _ in range(count):
        pass
workload.counted("turns-1", lambda: turns(200_000))
workload.counted("turns-2", lambda: turns(400_000))
""", encoding="utf-8")
    out = tmp / "turns.out"
    subprocess.run([gate.valgrind(), "-q", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
                    f"--callgrind-out-file={out}", sys.executable, str(script)], check=True, capture_output=True,
                   timeout=300)
    dumps = gate._dumps(out)
    return (dumps["turns-2"] - dumps["turns-1"]) / 200_000


def _sweep_values(tree: Path, tmp: Path) -> int:
    """The values of the gate's sweep at size N (its 2N runs as many more): a native run on the doubles."""
    decl = tmp / "doubles"
    gate.declare_doubles(decl)
    report = tmp / "sweep-values.json"
    subprocess.run([sys.executable, "-m", "harness", "sweep", "-q", "--impls", ",".join(gate.DOUBLES), "--workers",
                    "1", "--range", "U+0000..U+003F", "--fresh", "--checkpoint", str(tmp / "sweep-values.jsonl"),
                    "--report", str(report)], cwd=tree, check=True, capture_output=True, timeout=300,
                   env={**os.environ, "PYTHONPATH": str(tree), "PARITY_IMPLEMENTATIONS": str(decl)})
    return int(json.loads(report.read_text())["sweep"]["values"])


def _plant(tree: Path, measure: str, count: int) -> None:
    holds, target, unit = PLANTS[measure]
    where = tree / PLANTED_IN[measure]
    files = sorted(where.glob("*.py")) if where.is_dir() else [where]
    found = [path for path in files if holds in path.read_text(encoding="utf-8")]
    assert len(found) == 1, f"{where} has no single file with {holds!r}: update the plant"
    found[0].write_text(found[0].read_text(encoding="utf-8") + SLOWDOWN.format(count=count, unit=unit, target=target),
                        encoding="utf-8")


@pytest.fixture(scope="module")
def planted(unchanged, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Three copies of HEAD, each with one path 5 % dearer, measured at once: each tree's figures."""
    _, report = unchanged
    base = {measure: values[0] for measure, values in report["figures"]["baseline"].items()}
    tmp = tmp_path_factory.mktemp("planted")
    trees = {measure: _worktree(tmp / measure.replace(" ", "-")) for measure in PLANTS}
    try:
        turn = _turn_cost(tmp)
        calls = gate.fixture_calls(trees["command client"])
        units = {"command client": 2 * len(calls), "fuzz loop": 1,
                 "sweep driver": _sweep_values(trees["sweep driver"], tmp)}
        for measure, tree in trees.items():
            _plant(tree, measure, round(0.05 * base[measure] / (units[measure] * turn)))
        settings = gate.Settings(2, 200, 1000, "U+0000..U+003F", 11)
        yield base, gate.figures_of(trees, tmp, settings, calls)
    finally:
        for tree in trees.values():
            _remove(tree)


@pytest.mark.timing
def test_the_gate_passes_an_unchanged_tree(unchanged) -> None:  # type: ignore[no-untyped-def]
    done, report = unchanged
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert {m["measure"] for m in report["measures"]} == set(gate.PATHS.values())
    assert all(abs(m["ratio"] - 1) < gate.MARGIN for m in report["measures"]), done.stdout
    assert "speed gate: took" in done.stdout


@pytest.mark.timing
@pytest.mark.parametrize("measure", list(PLANTS))
def test_the_gate_fails_a_planted_5_percent_slowdown_of_one_path_naming_it(planted, measure: str) -> None:  # type: ignore[no-untyped-def]
    base, figures = planted
    found = gate.Rounds(baseline={name: [value] for name, value in base.items()},
                        current={name: [value] for name, value in figures[measure].items()})
    rows = {row.measure: row for row in gate.verdict(found, gate.MARGIN)}
    shown = gate.table(list(rows.values()), gate.MARGIN)
    assert [name for name, row in rows.items() if row.slower] == [measure], shown
    assert rows[measure].ratio == pytest.approx(1.05, abs=0.01), shown
