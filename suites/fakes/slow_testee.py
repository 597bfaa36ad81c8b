"""A slow testee: the reference served faithfully, late on purpose, for the deadline tests
(suites/testees/test_deadlines.py).

    SLOW_START      seconds after this process began (its exec, read from /proc, so the interpreter's own
                    start counts) before it answers ``start``; default 0
    SLOW_REQUEST    seconds it waits before answering the SLOW_AT-th line after ``start`` (a batch line is
                    one); default 0
    SLOW_AT         that line's number, counted again in every process; default 1
    SLOW_PROCESSES  only the first N processes started with this SLOW_STATE are slow (start and request);
                    unset: every one
    SLOW_FROM       only the processes after the first N started with this SLOW_STATE are slow (with SLOW_PROCESSES:
                    those of them within its first N); unset: from the first
    SLOW_EXIT       a slow process exits with this status when it reads ``start``, answering nothing
    SLOW_STATE      a folder for the count of processes (SLOW_STATE/starts, one line per process)
    SLOW_KILL_PARENT  ``N:AT``: the N-th process started with this SLOW_STATE kills its parent (SIGKILL: a fuzz or
                    sweep worker that dies, which its pool replaces) when it reads its AT-th line after ``start``
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import reference
from harness.testees import protocol
from harness.testees.inprocess import InProcess

BEGAN = time.monotonic()
DESCRIPTION = {"protocol": protocol.PROTOCOL_VERSION, "name": "slow-testee", "version": "faithful",
               "language": "Python (a slow test double)", "unicode": json.loads(reference.unicode_versions()),
               "contracts": ["v1"]}
IMPL = InProcess("slow", lambda op: getattr(reference, op.name), DESCRIPTION)
OUT = sys.stdout.buffer


def since_exec() -> float:
    """Seconds since this process was started (its start time in /proc/self/stat against CLOCK_BOOTTIME);
    since this module began where /proc cannot say."""
    try:
        fields = Path("/proc/self/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        return time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic() - BEGAN


def slowed() -> tuple[bool, int]:
    """Whether this process is slow: it is one of the first SLOW_PROCESSES and not of the first SLOW_FROM (counted in
    SLOW_STATE/starts); and its number there."""
    limit = os.environ.get("SLOW_PROCESSES")
    after = int(os.environ.get("SLOW_FROM") or 0)
    state = Path(os.environ.get("SLOW_STATE") or ".")
    with (state / "starts").open("a+", encoding="ascii") as starts:
        starts.write(f"{os.getpid()}\n")
        starts.seek(0)
        number = len(starts.read().split())
    return (not limit or number <= int(limit)) and number > after, number


def main() -> int:
    slow, number = slowed()
    killer, _, kill_at = (os.environ.get("SLOW_KILL_PARENT") or "0:0").partition(":")
    kill_at_line = int(kill_at) if int(killer) == number else 0
    start_at = float(os.environ.get("SLOW_START", "0")) if slow else 0.0
    request_wait = float(os.environ.get("SLOW_REQUEST", "0")) if slow else 0.0
    at = int(os.environ.get("SLOW_AT", "1"))
    started, count = False, 0  # count: lines after the start answer
    for raw in sys.stdin.buffer:
        try:
            request = json.loads(raw)
        except ValueError as exc:
            answer = protocol.bad_request(None, f"not JSON: {exc}")
        else:
            if not started and isinstance(request, dict) and request.get("op") == "start":
                if slow and os.environ.get("SLOW_EXIT"):
                    return int(os.environ["SLOW_EXIT"])
                time.sleep(max(0.0, start_at - since_exec()))
                started = True
            elif started:
                count += 1
                if count == kill_at_line:
                    os.kill(os.getppid(), signal.SIGKILL)
                if count == at:
                    time.sleep(request_wait)
            answer = protocol.handle(IMPL, request, DESCRIPTION)
        OUT.write(protocol.encode_line(answer).encode("ascii"))
        OUT.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
