"""The table of hostile testees (harness/tools/hostile_testee.py): each fault, the trigger it takes and the
verdict the harness must give it. Every command that talks to testees is checked against it
(suites/testees/test_hostile.py); ``declare`` writes one as an implementation, through PARITY_IMPLEMENTATIONS,
like any implementation in any language.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

HOSTILE = Path(__file__).resolve().parent / "hostile_testee.py"  # run by path, as any testee


@dataclass(frozen=True)
class Fault:
    name: str  # HOSTILE_FAULT
    finding: str  # the finding kind it must give (harness/testees/findings.py)
    at: int = 50  # HOSTILE_AT: the Nth request of each process
    # "client": the command client decides it (every command is held to it); "id": the client, an id of
    # another JSON type (held in the client, check and diff; wrong_id_float, the one Python's == takes for
    # the id, is a "client" row); "gate": the reproduction gate; "start": the start handshake, the testee
    # still usable; "unavailable": the start fails at once (status 3); "retried": a start killed from outside,
    # tried again (finding: what the run must give, "" none)
    family: str = "client"


FAULTS = (
    Fault("not_json", "not_json"),
    Fault("wrong_id", "wrong_id"),
    Fault("exit", "flaky_crash"),
    Fault("hang", "flaky_timeout"),
    Fault("stderr_flood", "stderr_flood"),
    Fault("long_line", "line_too_long"),
    Fault("bad_utf8", "not_utf8"),
    Fault("twice", "duplicate_answer"),
    Fault("drop_last", "missing_answers", at=1),
    Fault("reverse", "out_of_order", at=1),
    Fault("refuse_op", "refused_op"),
    Fault("random", "nondeterministic", family="gate"),
    Fault("batch_state", "batch_context", family="gate"),
    Fault("lie_contracts", "handshake_lie", family="start"),
    Fault("lie_unicode", "handshake_lie", family="start"),
    # issue 31, part 12: hostile doubles for every kind the hardened client names
    Fault("deep_json", "not_json"),  # 100,000 '[': Python's parser gives up (untrusted: too_deep), not JSON
    Fault("wrong_id_float", "wrong_id"),
    Fault("wrong_id_array", "wrong_id", family="id"),
    Fault("wrong_id_object", "wrong_id", family="id"),
    Fault("wrong_id_true", "wrong_id", family="id"),
    Fault("wrong_id_null", "wrong_id", family="id"),
    Fault("wrong_id_string", "wrong_id", family="id"),
    Fault("ok_wrong_type", "malformed_answer"),
    Fault("ok_nan", "not_json"),  # the NaN token is not JSON (untrusted: constant)
    Fault("extra_key", "malformed_answer"),
    Fault("duplicate_key", "malformed_answer"),  # issue 49: {"id":N,"ok":"right","ok":"wrong"}, the last one wins
    Fault("grandchild", "flaky_crash"),
    Fault("control_bytes", "refused_op"),
    Fault("bom_start", "not_json", family="unavailable"),
    Fault("killed_start", "", family="retried"),
    Fault("killed_restart", "flaky_crash", family="retried"),
    # issue 49, part 7: a restarted process that describes itself otherwise than the first (a crash restarts it)
    Fault("another_self", "handshake_lie"),
    # issue 49, item 5: what a testee sends over its caps (family "caps": held in suites/testees/test_caps.py)
    Fault("huge_answer", "oversized_answer", family="caps"),
    Fault("huge_description", "oversized_description", family="caps"),
    # issue 31, part 9: a trace claim shown false (family "trace": held in suites/testees/test_trace_claims.py)
    Fault("refuse_trace", "handshake_lie", family="trace"),
)
BY_NAME = {fault.name: fault for fault in FAULTS}


def declare(folder: Path, fault: str, at: int | None = None, name: str = "hostile", request_deadline: float = 10,
            startup_deadline: float = 10, extra_env: dict[str, str] | None = None) -> str:
    """Write ``folder/<name>.json`` declaring the hostile testee with ``fault``; returns the name."""
    chosen = BY_NAME[fault] if fault in BY_NAME else Fault(fault, "")
    folder.mkdir(parents=True, exist_ok=True)
    env = {"HOSTILE_FAULT": fault, "HOSTILE_AT": str(at if at is not None else chosen.at),
           "HOSTILE_STATE": str(folder), **(extra_env or {})}
    declaration = {
        "schema": "implementation-v1", "name": name, "oracle": False, "contracts": ["v1"],
        "description": f"the reference served with one fault: {fault}", "language": "Python (a hostile test double)",
        "start": {"command": ["{python}", str(HOSTILE)], "env": env},
        "build": [], "expected": None, "deadlines": {"startup": startup_deadline, "request": request_deadline},
        "hint": "a test double of the harness (harness/tools/hostile_faults.py)",
    }
    (folder / f"{name}.json").write_text(json.dumps(declaration, indent=2), encoding="utf-8")
    return name
