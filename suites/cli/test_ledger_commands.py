"""Every command that sends inputs keeps its ledger (harness/model/ledger.py) in its report's envelope and takes its
verdict from it: on the reference and a faithful command testee the work is done and the counts add up; on a testee
that dies on every request (or one in ten) no command ends in status 0, each ends soon, and its ledger says what was
not done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.model import envelope, schemas
from harness.model.ledger import Ledger
from harness.testees import impls
from harness.tools.hostile_faults import declare

SWEEP = ["--templates", "alone", "--range", "U+0000..U+00FF", "--workers", "1", "--fresh"]


def run(tmp_path: Path, *args: str, folder: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({impls.EXTRA_ENV: str(folder)} if folder else {})}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=impls.ROOT, env=env, capture_output=True,
                          text=True, timeout=240, check=False)


def ledger_in(path: Path) -> Ledger:
    document = json.loads(path.read_text())
    assert schemas.problems(document) == []
    ledger = envelope.ledger_of(document)
    assert ledger is not None, "the report keeps no ledger"
    return ledger


def test_the_reference_alone_does_its_work_in_check_and_says_so(tmp_path: Path) -> None:
    proc = run(tmp_path, "check", "--impl", "reference", "--results", str(tmp_path / "check.json"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ledger = ledger_in(tmp_path / "check.json")
    assert ledger.ok and ledger.planned == ledger.inputs == ledger.compared > 500
    assert ledger.impls["reference"].sent == ledger.impls["reference"].answered
    assert "verdict on the work: done and compared" in proc.stdout


@pytest.mark.parametrize("command", ["fuzz", "sweep", "diff"])
def test_two_implementations_that_agree_do_their_work(tmp_path: Path, command: str) -> None:
    declare(tmp_path / "decl", "none", name="twin")  # the reference served faithfully by a command testee
    report = tmp_path / f"{command}.json"
    argv = {"fuzz": ["fuzz", "--impls", "reference,twin", "--seconds", "3", "--workers", "1", "--report", str(report)],
            "sweep": ["sweep", "--impls", "reference,twin", *SWEEP, "--checkpoint", str(tmp_path / "c.jsonl"),
                      "--report", str(report)],
            "diff": ["diff", "normalize_fact_text", "Ab  c", "--impls", "reference,twin", "--json"]}[command]
    proc = run(tmp_path, *argv, folder=tmp_path / "decl")
    if command == "diff":
        report.write_text(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ledger = ledger_in(report)
    assert ledger.ok and ledger.compared == ledger.inputs > 0
    for tally in ledger.impls.values():
        assert tally.sent == tally.answered > 0


DYING = [(command, 1) for command in ("check", "fuzz", "sweep", "diff")] + [(c, 10) for c in ("check", "fuzz", "sweep")]


@pytest.mark.parametrize(("command", "at"), DYING, ids=[f"{command}-{at}" for command, at in DYING])
def test_a_testee_that_dies_never_gets_status_0(tmp_path: Path, command: str, at: int) -> None:
    """It dies on every request (``at`` 1: taken out) or on one in ten (each process at its 10th: flaky crashes)."""
    declare(tmp_path / "decl", "exit", at=at, name="crashy", request_deadline=2, startup_deadline=5)
    report = tmp_path / f"{command}.json"
    argv = {"check": ["check", "--impl", "crashy", "--results", str(report)],
            "fuzz": ["fuzz", "--impls", "reference,crashy", "--seconds", "5", "--report", str(report)],
            "sweep": ["sweep", "--impls", "reference,crashy", *SWEEP, "--checkpoint", str(tmp_path / "c.jsonl"),
                      "--report", str(report)],
            "diff": ["diff", "normalize_fact_text", "Ab  c", "--impls", "reference,crashy", "--json"]}[command]
    started = time.monotonic()
    proc = run(tmp_path, *argv, folder=tmp_path / "decl")
    assert time.monotonic() - started < 150  # the bound: 20 deaths, each within its deadlines, and the rest at once
    if command == "diff":
        report.write_text(proc.stdout)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    ledger = ledger_in(report)
    if at == 10:  # every request answered at last (a fresh process takes the one its predecessor died on), or,
        # in fuzz's short budget on a slow machine, its first batch (some 100 deaths) not back in time: never green
        assert "flaky_crash" in proc.stdout + proc.stderr or "no batch came back" in proc.stdout
        return
    assert not ledger.ok or command == "diff", ledger.problems()  # diff: one input, its crash an answer compared
    if command != "diff":  # taken out, or (a slow machine, fuzz's short budget) nothing came back in time
        assert any(why in " ".join(ledger.problems()) for why in ("taken out", "no batch came back")), ledger


def test_a_campaign_cut_by_its_budget_is_not_done(tmp_path: Path) -> None:
    """fuzz --max-examples M: a plan of M examples; a budget that ends before them is not green."""
    declare(tmp_path / "decl", "none", name="twin")
    report = tmp_path / "fuzz.json"
    proc = run(tmp_path, "fuzz", "--impls", "reference,twin", "--seed", "1", "--max-examples", "500000", "--seconds",
               "1", "--workers", "1", "--report", str(report), folder=tmp_path / "decl")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    ledger = ledger_in(report)
    assert ledger.planned == 500_000 and f"{ledger.inputs:,} of 500,000 planned inputs run" in ledger.problems()[0]


def test_a_sweep_merge_without_a_shard_is_not_done_and_a_shard_twice_is_refused(tmp_path: Path) -> None:
    declare(tmp_path / "decl", "none", name="twin")
    shard = tmp_path / "shard-1.json"
    proc = run(tmp_path, "sweep", "--impls", "reference,twin", "--templates", "alone", "--range", "U+0000..U+3FFF",
               "--shard", "1/2", "--workers", "1", "--fresh", "--checkpoint", str(tmp_path / "c.jsonl"),
               "--report", str(shard), folder=tmp_path / "decl")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    alone = run(tmp_path, "sweep", "--merge", str(shard), "--report", str(tmp_path / "merged.json"))
    assert alone.returncode == 1, alone.stdout + alone.stderr
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert not merged["ok"] and "shards 2/2 of the sweep are not in this merge" in merged["cut"]
    assert "shards 2/2 of the sweep are not in this merge" in ledger_in(tmp_path / "merged.json").problems()[0]
    twice = run(tmp_path, "sweep", "--merge", str(shard), str(shard), "--report", str(tmp_path / "twice.json"))
    assert twice.returncode == 2 and "a shard is given twice" in twice.stderr, twice.stderr
