"""Every selftest probe seen failing (issue 53, item 5): for each probe, a testee double that gets exactly that one
thing wrong (suites/fakes/probe_double.py) fails that probe and no other, and the faithful double passes them all.
A probe that could not fail (the old other-version probe, which sent a start without its codes) fails its row."""

from __future__ import annotations

from pathlib import Path

import pytest

from suites.fake_impl import declare, run

DOUBLE = Path(__file__).resolve().parents[1] / "fakes" / "probe_double.py"

# The wrong thing -> the FAIL lines it must give (their starts), and only those. Where one wrong thing is seen by
# two probes (a lie in the start answer is also the client's handshake_lie finding; a wrong answer is also what the
# trace of that request must end in), both are listed: each must fail, nothing else may.
FINDING = "FAIL no finding about the testee after its start"
PROBES = {
    "start_invalid": ["FAIL start: a valid self-description"],
    "contracts": ["FAIL the testee serves the contracts its declaration names", FINDING],
    "wrong_id": ["FAIL request ", FINDING],
    "wrong_type": ["FAIL request write-gate-v1/norm-", "FAIL trace of write-gate-v1/norm-"],
    "batch_order": ["FAIL a batch of "],
    "not_json": ["FAIL not JSON: answered bad_request"],
    "unknown_op": ["FAIL an unknown op: answered bad_request"],
    "unknown_arg": ["FAIL an unknown argument: answered bad_request"],
    "missing_arg": ["FAIL a missing argument: answered bad_request"],
    "args_not_object": ["FAIL args that are not an object: answered bad_request"],
    "any_version": ["FAIL a start with another protocol version: answered bad_request"],
    "stale_after_bad": ["FAIL still answering after the bad requests"],
    "trace_invalid": ["FAIL trace of "],
    "trace_unlisted": ["FAIL a trace of build_dedup_context, which it does not list"],
    "oversized": [FINDING],
    "restart_lie": ["FAIL a testee killed from outside"],
}


def _selftest(tmp_path: Path, wrong: str) -> tuple[int, list[str], str]:
    declare(tmp_path, "probe", start={"command": ["{python}", str(DOUBLE)], "env": {"PROBE_WRONG": wrong}})
    result = run(tmp_path, "-m", "harness", "selftest", "--impl", "probe")
    return result.returncode, [line for line in result.stdout.splitlines() if line.startswith("FAIL ")], \
        result.stdout + result.stderr


def test_the_faithful_double_passes_every_probe(tmp_path: Path) -> None:
    status, failed, out = _selftest(tmp_path, "")
    assert (status, failed) == (0, []), out


@pytest.mark.parametrize("wrong", sorted(PROBES))
def test_each_probe_fails_its_own_double_alone(tmp_path: Path, wrong: str) -> None:
    status, failed, out = _selftest(tmp_path, wrong)
    assert status == 1, out
    wanted = PROBES[wrong]
    assert failed and all(any(line.startswith(start) for start in wanted) for line in failed), out
    assert all(any(line.startswith(start) for line in failed) for start in wanted), out
