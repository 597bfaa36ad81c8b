"""Quiet interruption (issue 31, part 10): Ctrl-C, or a kill of the harness's process alone, prints no
worker's traceback; an interrupted fuzz run writes its partial report, marked interrupted; an interrupted
sweep exits 4 and resumes; the workers (and their testees) end within seconds when their parent is killed.

Each test starts ``python -m harness`` in a session of its own with the fake command testee
(suites/fakes/fake_testee.py) beside the reference and two workers, waits for the first progress line,
and sends SIGINT to the whole process group (what a terminal's Ctrl-C does) or SIGKILL to the harness's
process alone. Everything they print goes to one file (the workers inherit it)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness.classes.report import validate
from harness.fuzzing import fuzz_report
from suites.fake_impl import ROOT, declare
from suites.stand_ins import interruptible

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; process groups")

QUIET = ("Traceback", "KeyboardInterrupt", "BrokenPipeError", "PoolWorker")  # "Process ForkPoolWorker-1:" heads one
FUZZ = ["fuzz", "--impls", "fake", "--seconds", "30", "--workers", "2"]
SWEEP = ["sweep", "--impls", "fake", "--workers", "2", "--templates", "alone"]


def _start(folder: Path, *command: str) -> tuple[subprocess.Popen[bytes], Path]:
    output = folder / "output.txt"
    env = dict(os.environ, PARITY_IMPLEMENTATIONS=str(folder / "impls"), HYPOTHESIS_PROFILE="ci")
    with output.open("wb") as handle:
        proc = subprocess.Popen([sys.executable, "-m", "harness", *command], cwd=ROOT, env=env, stdout=handle,
                                stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=interruptible)
    return proc, output


def _wait_for(output: Path, text: str, proc: subprocess.Popen[bytes], within: float = 90.0) -> None:
    until = time.monotonic() + within
    while text not in output.read_text(errors="replace"):
        assert proc.poll() is None, output.read_text(errors="replace")[-3000:]
        assert time.monotonic() < until, f"no {text!r} within {within:g} s: " + output.read_text()[-3000:]
        time.sleep(0.1)


def _running(pid: int) -> bool:
    """Whether a process exists and is not a zombie (an orphan's zombie may wait for a reaper)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (the workers, the testees)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, stack = set(), [pid]
    while stack:
        for child in parents.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _left_after(pids: set[int], seconds: float) -> set[int]:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        alive = {pid for pid in pids if _running(pid)}
        if not alive:
            return alive
        time.sleep(0.1)
    return {pid for pid in pids if _running(pid)}


def _interrupt(folder: Path, command: list[str], ready: str, settle: float = 1.5) -> dict[str, Any]:
    """Run ``command``, Ctrl-C it (SIGINT to its process group) ``settle`` s after ``ready`` is printed."""
    proc, output = _start(folder, *command)
    try:
        _wait_for(output, ready, proc)
        time.sleep(settle)
        below = _descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        status = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return {"status": status, "output": output.read_text(errors="replace"), "below": below,
            "left": _left_after(below, 10.0)}


@pytest.fixture(scope="module")
def interrupted_fuzz(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("fuzz")
    declare(folder / "impls")
    report = folder / "report.json"
    got = _interrupt(folder, [*FUZZ, "--report", str(report)], "examples (")
    got["report"] = json.loads(report.read_text()) if report.exists() else None
    return got


def test_an_interrupted_fuzz_run_is_quiet_and_writes_its_partial_report(interrupted_fuzz: dict[str, Any]) -> None:
    got = interrupted_fuzz
    assert len(got["below"]) >= 2, got  # the two workers (and the testees) were running
    for word in QUIET:
        assert word not in got["output"], got["output"][-4000:]
    report = got["report"]
    assert report is not None, got["output"][-3000:]
    assert validate(report) == [] and report["examples"] > 0
    assert any(line.startswith("interrupted (Ctrl-C) after ") for line in report["cut"]), report["cut"]
    assert not got["left"], f"still running after 10 s: {got['left']}"


def test_an_interrupted_fuzz_run_exits_4_with_its_report_marked(interrupted_fuzz: dict[str, Any]) -> None:
    assert interrupted_fuzz["report"]["fuzz"]["interrupted"] is True
    assert interrupted_fuzz["status"] == 4, interrupted_fuzz["output"][-3000:]


def test_the_mark_is_optional_and_a_merge_keeps_it(interrupted_fuzz: dict[str, Any]) -> None:
    """Schema v2 takes a fuzz section with and without ``interrupted``; a merge is interrupted when one of
    its shards was."""
    report = interrupted_fuzz["report"]
    shards = []
    for k, interrupted in ((1, True), (2, False)):
        shard = json.loads(json.dumps(report))
        shard["fuzz"] = fuzz_report.campaign(7, 2000, (k, 2), report["fuzz"]["ops"], interrupted=interrupted)
        assert validate(shard) == []
        shards.append(shard)
    assert fuzz_report.merge(shards)["fuzz"]["interrupted"] is True
    shards[0]["fuzz"]["interrupted"] = False
    assert fuzz_report.merge(shards)["fuzz"]["interrupted"] is False
    for shard in shards:  # reports written before the mark, or by a caller that does not know
        del shard["fuzz"]["interrupted"]
        assert validate(shard) == []
    assert "interrupted" not in fuzz_report.merge(shards)["fuzz"]
    assert "interrupted" not in fuzz_report.campaign(7, None, (1, 1), ["decide_write"])


def test_an_interrupted_sweep_is_quiet_exits_4_and_resumes(tmp_path: Path) -> None:
    declare(tmp_path / "impls")
    checkpoint, report = tmp_path / "checkpoint.jsonl", tmp_path / "report.json"
    command = [*SWEEP, "--checkpoint", str(checkpoint), "--report", str(report)]
    got = _interrupt(tmp_path, command, "values (")
    assert got["status"] == 4, got["output"][-3000:]
    for word in QUIET:
        assert word not in got["output"], got["output"][-4000:]
    assert not got["left"], f"still running after 10 s: {got['left']}"
    partial = json.loads(report.read_text())
    assert validate(partial) == [] and partial["sweep"]["interrupted"] is True
    lines = checkpoint.read_text(encoding="ascii").splitlines()
    assert checkpoint.read_bytes().endswith(b"\n") and all(json.loads(line) for line in lines)
    done = len(lines) - 1
    assert 0 < done < 272, done  # interrupted between its first chunk and its last
    proc, output = _start(tmp_path, *command)
    assert proc.wait(timeout=300) == 0, output.read_text()[-3000:]
    said = output.read_text()
    assert f"resuming {checkpoint}: {done:,} of 272 chunks already done" in said and "dropped" not in said, said
    whole = json.loads(report.read_text())
    assert whole["sweep"]["interrupted"] is False and whole["sweep"]["values"] == 0x110000


@pytest.mark.parametrize("command", [FUZZ, SWEEP], ids=["fuzz", "sweep"])
def test_workers_end_quietly_when_the_harness_is_killed(tmp_path: Path, command: list[str]) -> None:
    """SIGKILL to the harness's process alone: its workers and their testees are gone within 5 s, and none
    printed a traceback (the workers' stderr is the file)."""
    declare(tmp_path / "impls")
    outputs = ["--report", str(tmp_path / "report.json")]
    if command is SWEEP:
        outputs += ["--checkpoint", str(tmp_path / "checkpoint.jsonl")]
    proc, output = _start(tmp_path, *command, *outputs)
    below: set[int] = set()
    try:
        _wait_for(output, "values (" if command is SWEEP else "examples (", proc)
        time.sleep(1.5)
        below = _descendants(proc.pid)
        workers = {pid for pid in below if "fake_testee" not in _command_line(pid)}
        assert len(workers) >= 2, below
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        left = _left_after(below, 5.0)
    finally:
        for pid in below | _descendants(proc.pid):
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
    assert not left, f"still running 5 s after the harness was killed: {left}"
    time.sleep(0.3)
    for word in QUIET:
        assert word not in output.read_text(errors="replace"), output.read_text()[-4000:]
