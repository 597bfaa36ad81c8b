"""Protocol faults planted in the WASM testee itself (a copy of wasm_host/testee.js, declared as
``wasm-planted`` through PARITY_IMPLEMENTATIONS): each is a finding of that testee in the fixture run, the
parity suites and the fuzzer, and never a divergence; and a testee killed or frozen from outside, by the
count of requests it answered, costs no request its answer (chaos)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.fixtures.load import all_cases
from harness.model.compare import mismatch
from harness.testees import impls

ROOT = impls.ROOT
PKG = ROOT / "wasm_host" / "pkg"
REASON = ("the wasm package is not built (wasm_host/pkg); run `python wasm_host/build.py`"
          if not (PKG / "memgate_wasm.js").is_file() else "node is not on PATH" if shutil.which("node") is None else "")
pytestmark = pytest.mark.skipif(bool(REASON), reason=REASON or "ready")

ANSWERED = "  return [{ id, batch: answers }, false];\n}"
PLANTS = {
    "drop_last": ("  return [{ id, batch: answers.slice(0, -1) }, false];\n}", "missing_answers"),
    "reverse": ("  return [{ id, batch: answers.reverse() }, false];\n}", "out_of_order"),
    "duplicate": ("  if (answers.length > 1) answers.splice(1, 0, answers[0]);\n" + ANSWERED, "duplicate_answer"),
}


def plant(folder: Path, name: str) -> Path:
    """The planted testee and its declaration in ``folder``; returns the declarations' folder."""
    source = (ROOT / "wasm_host" / "testee.js").read_text(encoding="utf-8")
    assert source.count(ANSWERED) == 1, "wasm_host/testee.js changed: update the plant"
    (folder / "testee.js").write_text(source.replace(ANSWERED, PLANTS[name][0]), encoding="utf-8")
    declared = json.loads((ROOT / "implementations" / "wasm.json").read_text(encoding="utf-8"))
    declared.update(name="wasm-planted", expected=None, build=[], description=f"wasm with a planted fault: {name}")
    declared.pop("bare_bench", None)
    declared["start"] = {"command": ["node", str(folder / "testee.js"), str(PKG)]}
    (folder / "decl").mkdir()
    (folder / "decl" / "wasm-planted.json").write_text(json.dumps(declared), encoding="utf-8")
    return folder / "decl"


@pytest.mark.parametrize("name", sorted(PLANTS))
def test_a_planted_batch_fault_is_a_finding_and_every_case_passes(tmp_path: Path, monkeypatch, name: str) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(impls.EXTRA_ENV, str(plant(tmp_path, name)))
    cases = [c for c in all_cases() if impls.declaration("wasm-planted").can_express(c.args)]
    with impls.get_impl("wasm-planted") as testee:
        responses = testee.call_batch([(c.op, c.args) for c in cases])
        problems = [(c.full_id, mismatch(c.op, c.expect, r)) for c, r in zip(cases, responses, strict=True)]
        assert [p for p in problems if p[1] is not None] == []
        assert [f["kind"] for f in testee.findings.to_json()] == [PLANTS[name][1]]


@pytest.mark.parametrize("name", sorted(PLANTS))
def test_the_parity_run_and_the_fuzzer_name_it(tmp_path: Path, name: str) -> None:
    folder = plant(tmp_path, name)
    env = {**os.environ, impls.EXTRA_ENV: str(folder)}
    parity = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "suites/parity/test_fixtures.py", "suites/parity/test_testee_health.py",
                             "--impl=wasm-planted"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300, check=False)
    assert parity.returncode == 1, parity.stdout[-3000:]
    assert "FAILED suites/parity/test_testee_health.py::test_no_finding_about_the_testee[wasm-planted]" in parity.stdout
    assert (PLANTS[name][1] in parity.stdout
            and "test_fixtures.py::test_case" not in parity.stdout.split("short test summary")[-1])
    report = tmp_path / "fuzz.json"
    fuzz = subprocess.run([sys.executable, "-m", "harness", "fuzz", "--impls", "reference,wasm-planted",
                           "--seconds", "3", "--workers", "1", "--seed", "5", "--report", str(report)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    data = json.loads(report.read_text())
    assert fuzz.returncode == 1, fuzz.stdout + fuzz.stderr
    # The Rust core's real Unicode skews (expected/wasm.json; the planted copy has no expected list) may show:
    # nothing else may.
    assert [d for d in data["divergences"] if d["cause"] != "unicode_version_skew"] == []
    assert PLANTS[name][1] in {f["kind"] for f in data["findings"]}


@pytest.mark.parametrize("how", ["kill", "freeze"])
def test_chaos_every_request_answered_once_with_the_references_answer(how: str) -> None:
    """Kill (SIGKILL) or freeze (SIGSTOP) the WASM testee each time it answered 97 more requests, while a run
    of batches goes on; every request is answered exactly once, with the reference's answer, and every
    hit is a finding (flaky_crash, flaky_timeout), never a crash of an innocent request."""
    import reference

    testee = impls.get_impl("wasm")
    testee.timeout = 1.0  # a frozen process shows at the deadline: keep the test short
    texts = [f"Fact {i} \u201cq\u201d  \u00c9" for i in range(97 * 12)]
    hits = []
    stop = threading.Event()

    def chaos() -> None:
        seen = 0
        while not stop.is_set() and len(hits) < 12:
            proc = testee._proc
            if proc is None or proc.popen.poll() is not None:
                time.sleep(0.001)
                continue
            answered = testee.answered
            if answered - seen >= 97:
                seen = answered
                proc.popen.send_signal(signal.SIGKILL if how == "kill" else signal.SIGSTOP)
                hits.append(answered)
            time.sleep(0.0005)

    worker = threading.Thread(target=chaos, daemon=True)
    worker.start()
    try:
        got = []
        for start in range(0, len(texts), 97):
            chunk = texts[start:start + 97]
            got += testee.call_batch([("normalize_fact_text", {"text": t}) for t in chunk])
            testee.batch_form = len(got) % 2 == 0  # batch lines and single lines, both
    finally:
        stop.set()
        worker.join(timeout=5)
        testee.close()
    assert got == [{"ok": reference.normalize_fact_text(t)} for t in texts]
    kinds = {f["kind"]: f["count"] for f in testee.findings.to_json()}
    assert len(hits) >= 10, hits
    # Every process hit was replaced (the last hit may come after the last batch); a hit that landed on a request
    # is a flaky finding, never a crash of an innocent request. The kill lands just after a batch is answered, so
    # some hits find the process idle between two batches: it is replaced before the next one is sent, with no
    # request to blame (CI once saw 9 findings of 10 hits), so the findings are not counted against the hits.
    assert testee.restarts >= len(hits) - 1, (testee.restarts, hits)
    assert set(kinds) <= {"flaky_crash", "flaky_timeout"} and sum(kinds.values()) >= 1, kinds
