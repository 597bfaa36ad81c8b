"""The speed gate (harness/tools/harness_baseline.py): its verdict is a pure function of the rounds, held to planted
figures; the gate itself fails on a planted 20 % slowdown of the harness's call path and passes on an unchanged
tree (marked timing: `nox -s tests-slow` runs them alone, after the rest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.tools import harness_baseline as gate
from harness.tools.hostile_faults import declare

ROOT = gate.ROOT


def rounds(**measures: tuple[list[float], list[float]]) -> gate.Rounds:
    found = gate.Rounds()
    for name, (base, now) in measures.items():
        found.baseline[name] = list(base)
        found.current[name] = list(now)
    return found


def test_a_slowdown_beyond_the_margin_fails_and_noise_within_it_passes() -> None:
    found = rounds(sweep=([100.0, 102.0, 98.0], [80.0, 81.0, 79.0]), fuzz=([100.0, 100.0, 100.0], [95.0, 104.0, 93.0]))
    rows = {row.measure: row for row in gate.verdict(found, 0.10)}
    assert rows["sweep"].slower and rows["sweep"].ratio == pytest.approx(0.80, abs=0.01)
    assert not rows["fuzz"].slower and rows["fuzz"].ratio == pytest.approx(0.95)
    assert rows["fuzz"].ratios == (0.95, 1.04, 0.93)


def test_the_median_of_the_rounds_ratios_decides_not_one_round() -> None:
    one_bad_round = rounds(fuzz=([100.0, 100.0, 100.0], [50.0, 99.0, 101.0]))
    assert not gate.verdict(one_bad_round, 0.10)[0].slower
    two_bad_rounds = rounds(fuzz=([100.0, 100.0, 100.0], [50.0, 85.0, 101.0]))
    assert gate.verdict(two_bad_rounds, 0.10)[0].slower


def test_the_margin_is_where_it_says() -> None:
    assert gate.verdict(rounds(m=([100.0], [90.5])), 0.10)[0].slower is False
    assert gate.verdict(rounds(m=([100.0], [89.5])), 0.10)[0].slower is True
    assert gate.verdict(rounds(m=([100.0], [89.5])), 0.20)[0].slower is False


def test_a_measure_of_one_tree_only_is_named_not_passed() -> None:
    found = rounds(fuzz=([1.0], [1.0]))
    found.current["harness/bare, new"] = [0.5]
    assert gate.unmatched(found) == ["harness/bare, new"]
    assert [row.measure for row in gate.verdict(found, 0.1)] == ["fuzz"]


def _main_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, found: gate.Rounds) -> tuple[int, dict, str]:
    """The gate's command line on planted rounds (no checkout, no measuring)."""
    monkeypatch.setattr(gate, "checkout", lambda revision, scratch, current: tmp_path)
    monkeypatch.setattr(gate, "measure", lambda *args, **kwargs: found)
    monkeypatch.setattr(gate, "_settings", lambda args: gate.Settings(("a", "b"), ("a",), 1.0, 1, "U+0041", 0.1))
    summary = tmp_path / "summary.md"
    status = gate.main(["--baseline", "HEAD", "--out", str(tmp_path / "gate.json"), "--summary", str(summary)])
    return status, json.loads((tmp_path / "gate.json").read_text()), summary.read_text()


def test_the_command_fails_on_a_planted_slowdown_and_says_which(monkeypatch, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    status, report, summary = _main_on(monkeypatch, tmp_path, rounds(
        **{"sweep rate (values/s)": ([100.0, 100.0, 100.0], [80.0, 80.0, 80.0]),
           "fuzz rate (examples/s)": ([10.0, 10.0, 10.0], [10.0, 10.0, 10.0])}))
    out = capsys.readouterr().out
    assert status == 1
    assert "speed gate: FAILED" in out and "sweep rate (values/s) 20.0 % slower" in out
    assert "fuzz rate" not in out.split("FAILED")[1]
    assert report["schema"] == gate.SCHEMA and [m["slower"] for m in report["measures"]] == [True, False]
    assert "| sweep rate (values/s) | 100.00 | 80.00 | 0.800 |" in summary and "**slower**" in summary


def test_the_command_passes_an_unchanged_speed(monkeypatch, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    status, report, _ = _main_on(monkeypatch, tmp_path, rounds(sweep=([100.0, 101.0, 99.0], [99.0, 100.0, 101.0])))
    assert status == 0 and "speed gate: passed" in capsys.readouterr().out
    assert report["notCompared"] == []


def test_the_command_fails_when_a_measure_is_missing_on_one_side(monkeypatch, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    found = rounds(sweep=([100.0], [100.0]))
    found.baseline["harness/bare, gone"] = [0.5]
    status, _, _ = _main_on(monkeypatch, tmp_path, found)
    assert status == 1 and "not compared: harness/bare, gone" in capsys.readouterr().out


def test_a_revision_that_is_not_one_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "harness.tools.harness_baseline", "--baseline", "no-such-revision-x"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "cannot check out 'no-such-revision-x'" in done.stderr


# A 20 % slowdown of the harness's one call path to an implementation (Testee.call_batch, in process and over the
# protocol): each call spins a quarter of its own time more, so what went at rate r through it goes at 0.8 r. The
# bare loops do not go through it; the fuzzer and the sweep do, among their other work.
SLOWDOWN = """

import time as _planted_time


def _planted_slowdown(unplanted):  # planted by suites/tools/test_speed_gate.py: 20 % slower
    def call_batch(self, calls):
        began = _planted_time.perf_counter()
        try:
            return unplanted(self, calls)
        finally:
            until = _planted_time.perf_counter() + 0.25 * (_planted_time.perf_counter() - began)
            while _planted_time.perf_counter() < until:
                pass
    return call_batch


{name}.call_batch = _planted_slowdown({name}.call_batch)
"""
PLANTED = {"harness/testees/inprocess.py": "InProcess", "harness/testees/command.py": "CommandTestee"}


@pytest.fixture
def tree_at_head(tmp_path: Path):  # type: ignore[no-untyped-def]
    """This repository's HEAD, checked out beside it (removed again)."""
    tree = tmp_path / "current"
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), "HEAD"], cwd=ROOT, check=True,
                   capture_output=True)
    for built in gate.BUILT:
        if (ROOT / built).exists():
            (tree / built).symlink_to(ROOT / built)
    try:
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True, check=False)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True, check=False)


def _plant(tree: Path, plants: dict[str, str], holds: str, text: str) -> None:
    """Append ``text`` to each file of ``plants`` (path -> the name ``text`` and ``holds`` are formatted with), once
    that file is seen to hold ``holds`` (the class or function the plant rebinds)."""
    for path, name in plants.items():
        source = tree / path
        assert holds.format(name=name) in source.read_text(encoding="utf-8"), f"{path} has no {name}: update the plant"
        source.write_text(source.read_text(encoding="utf-8") + text.format(name=name), encoding="utf-8")


def _gate(tmp_path: Path, tree: Path) -> tuple[subprocess.CompletedProcess[str], dict]:
    """The gate, HEAD against ``tree``, on the reference and a command testee (the hostile double, faithful)."""
    declare(tmp_path / "decl", "faithful")
    report = tmp_path / "gate.json"
    done = subprocess.run(
        [sys.executable, "-m", "harness.tools.harness_baseline", "--baseline", "HEAD", "--current", str(tree),
         "--impls", "reference,hostile", "--rounds", "3", "--fuzz-seconds", "4", "--sweep-range", "U+0000..U+07FF",
         "--bench-seconds", "0.5", "--out", str(report)],
        cwd=ROOT, env={**os.environ, "PARITY_IMPLEMENTATIONS": str(tmp_path / "decl")},
        capture_output=True, text=True, timeout=900, check=False)
    return done, json.loads(report.read_text()) if report.exists() else {}


@pytest.mark.timing
def test_the_gate_fails_on_a_planted_20_percent_slowdown(tmp_path: Path, tree_at_head: Path) -> None:
    _plant(tree_at_head, PLANTED, "class {name}", SLOWDOWN)
    done, report = _gate(tmp_path, tree_at_head)
    assert done.returncode == 1, done.stdout + done.stderr[-3000:]
    slower = {m["measure"]: m["ratio"] for m in report["measures"] if m["slower"]}
    assert "harness/bare, reference" in slower, done.stdout
    assert all(m["ratio"] < 1 for m in report["measures"]), done.stdout  # every measure went slower


# A much faster reference (every op memoized, its contract errors too: half the fixture inputs are errors): the
# bare loop over the fixture inputs gets far faster than the harness's path through it. Both trees run the
# current tree's reference, so the harness is not called slower (with each tree's own, the gate failed on it).
FASTER = """

import functools as _planted_functools  # planted by suites/tools/test_speed_gate.py: a faster reference


def _planted_memo(function):
    outcomes = {{}}

    @_planted_functools.wraps(function)
    def memo(*args, **kwargs):
        key = (args, tuple(sorted(kwargs.items())))
        if key not in outcomes:
            try:
                outcomes[key] = (True, function(*args, **kwargs))
            except Exception as exc:
                outcomes[key] = (False, exc)
        answered, value = outcomes[key]
        if answered:
            return value
        raise value.with_traceback(None)
    return memo


{name} = _planted_memo({name})
"""
MEMOIZED = {"reference/normalize.py": "normalize_fact_text", "reference/write_gate.py": "decide_write",
            "reference/dedup_context.py": "build_dedup_context"}


def test_the_baseline_runs_the_current_trees_reference(tmp_path: Path) -> None:
    current = tmp_path / "current"
    (current / "reference").mkdir(parents=True)
    base = gate.checkout("HEAD", tmp_path / "scratch", current)
    try:
        assert (base / "reference").resolve() == (current / "reference").resolve()
        assert (base / "harness").is_dir() and not (base / "harness").is_symlink()  # its own harness
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True, check=False)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True, check=False)
    assert (ROOT / "reference" / "normalize.py").exists()  # the link went, not what it pointed to


@pytest.mark.timing
def test_a_faster_reference_is_not_a_slower_harness(tmp_path: Path, tree_at_head: Path) -> None:
    _plant(tree_at_head, MEMOIZED, "def {name}(", FASTER)
    done, report = _gate(tmp_path, tree_at_head)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "harness/bare, reference" in {m["measure"] for m in report["measures"]}


@pytest.mark.timing
def test_the_gate_passes_an_unchanged_tree(tmp_path: Path, tree_at_head: Path) -> None:
    done, report = _gate(tmp_path, tree_at_head)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert {m["measure"] for m in report["measures"]} >= {"fuzz rate (examples/s)", "sweep rate (values/s)",
                                                          "harness/bare, reference"}
