"""A testee that dies on every request is taken out of the run after ``max_faults`` crashes or hangs in a row
(no good answer between them), as one that breaks the protocol is: one ``taken_out`` finding that says how
many and on which requests, and every command that talks to it ends in bounded time. One that dies on one
request in ten is never taken out: each death is a ``flaky_crash`` and the good answers are used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import reference
from harness.testees import impls
from harness.tools.hostile_faults import declare

TEXTS = [f"Fact {i}" for i in range(200)]


def test_a_testee_that_dies_on_every_request_is_taken_out_with_one_finding(hostile) -> None:  # type: ignore[no-untyped-def]
    testee = hostile("exit", at=1)
    started = time.monotonic()
    responses = testee.call_batch([("normalize_fact_text", {"text": text}) for text in TEXTS])
    assert time.monotonic() - started < 60
    assert testee.taken_out is not None and "crashes or hangs in a row" in testee.taken_out
    taken = [f for f in testee.findings.to_json() if f["kind"] == "taken_out"]
    assert len(taken) == 1 and f"{testee.max_faults} crashes or hangs in a row" in taken[0]["message"]
    assert '"text": "Fact 0"' in taken[0]["message"]  # the requests it died on, named
    # A process started per death, bounded by the limit (each request: once in its line, once alone).
    assert testee.restarts <= testee.max_faults + 2
    codes = {r.get("error", {}).get("code") for r in responses}
    assert "unavailable" in codes  # the rest never compared


def test_a_testee_that_dies_on_one_request_in_ten_is_not_taken_out(hostile) -> None:  # type: ignore[no-untyped-def]
    testee = hostile("exit", at=10)
    responses = testee.call_batch([("normalize_fact_text", {"text": text}) for text in TEXTS])
    assert testee.taken_out is None
    assert responses == [{"ok": reference.normalize_fact_text(text)} for text in TEXTS]
    assert "flaky_crash" in {f["kind"] for f in testee.findings.to_json()}


def test_check_on_a_testee_that_dies_on_every_request_ends_soon_with_status_1(tmp_path: Path) -> None:
    declare(tmp_path / "decl", "exit", at=1, name="crashy", request_deadline=2, startup_deadline=5)
    env = {**os.environ, impls.EXTRA_ENV: str(tmp_path / "decl")}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "harness", "check", "--impl", "crashy", "--results",
                           str(tmp_path / "results.json")], cwd=impls.ROOT, env=env, capture_output=True, text=True,
                          timeout=180, check=False)
    # Bound: max_faults deaths, each at most a start-up and a request deadline (5 + 2 s), and the rest at once.
    assert time.monotonic() - started < 20 * 7, proc.stderr
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert [f["kind"] for f in results["findings"]].count("taken_out") == 1
