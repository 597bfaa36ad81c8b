"""The measured run of the hostile testees (``python -m harness.tools.hostile``): for each fault of
harness/tools/hostile_faults.py, ``python -m harness fuzz --impls reference,hostile --seconds S --workers W`` with the
declared deadlines, timed from start to exit, the largest resident size of the harness's own processes
(the command and its worker processes, never the testees) sampled while it runs, and its report read.

Each run must end within the budget (S + D + 5 s, D the request deadline), stay under the memory limit,
report the fault's finding and no divergence. Prints a table; exit status 1 if a run misses any of it.

    python -m harness.tools.hostile                      # every fault, 15 s each (about 5 minutes)
    python -m harness.tools.hostile --faults hang,random --seconds 15
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.tools import processes  # noqa: E402
from harness.tools.hostile_faults import BY_NAME, FAULTS, HOSTILE, declare  # noqa: E402

MEMORY_LIMIT_MIB = 200.0
REQUEST_DEADLINE = 10.0  # as the project's declarations
SLACK = 5.0  # the budget: S + D + SLACK


@dataclass
class Run:
    fault: str
    seconds: float
    peak_mib: float
    findings: dict[str, int]
    divergences: list[str]
    problems: list[str]


def _rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def harness_pids(root: int) -> set[int]:
    """``root`` and its descendants that are the harness (not a testee program)."""
    tree = processes.tree()
    found, stack = set(), [root]
    while stack:
        pid = stack.pop()
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if str(HOSTILE).encode() in command or b"testee.js" in command:
            continue  # a testee: not the harness's memory
        found.add(pid)
        stack.extend(tree.get(pid, []))
    return found


def harness_rss_mib(root: int, before: set[int]) -> tuple[float, set[int]]:
    """The resident size of the harness's processes that were already there at the last sample (a child
    forked to start a testee shows its parent's memory until it execs: never counted), and the pids."""
    now = harness_pids(root)
    return sum(_rss_mib(pid) for pid in now if pid == root or pid in before), now


def measure(fault: str, seconds: float, workers: int, folder: Path) -> Run:
    declare(folder / fault, fault, request_deadline=REQUEST_DEADLINE)
    report = folder / f"{fault}.json"
    env = {**os.environ, "PARITY_IMPLEMENTATIONS": str(folder / fault)}
    env.pop("PARITY_REQUEST_TIMEOUT", None)
    env.pop("PARITY_STARTUP_TIMEOUT", None)
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "harness", "fuzz", "--impls", "reference,hostile", "--seconds",
                             str(seconds), "--workers", str(workers), "--report", str(report)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak, seen = 0.0, set()
    while proc.poll() is None:
        rss, seen = harness_rss_mib(proc.pid, seen)
        peak = max(peak, rss)
        time.sleep(0.05)
    elapsed = time.monotonic() - started
    problems = []
    findings: dict[str, int] = {}
    divergences: list[str] = []
    try:
        data = json.loads(report.read_text())
        findings = {item["kind"]: item["count"] for item in data["findings"]}
        divergences = [f"{d['op']} {d['cause']}" for d in data["divergences"]]
    except (OSError, ValueError, KeyError) as exc:
        problems.append(f"no readable report: {exc}")
    budget = seconds + REQUEST_DEADLINE + SLACK
    if elapsed > budget:
        problems.append(f"took {elapsed:.1f} s, over the budget of {budget:.0f} s")
    if peak > MEMORY_LIMIT_MIB:
        problems.append(f"the harness's peak resident size {peak:.0f} MiB is over {MEMORY_LIMIT_MIB:.0f} MiB")
    if divergences:
        problems.append(f"divergences reported: {divergences}")
    wanted = BY_NAME[fault].finding
    if wanted not in findings:
        problems.append(f"no {wanted} finding (findings: {findings})")
    return Run(fault, elapsed, peak, findings, divergences, problems)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.hostile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--faults", help="comma-separated faults (default: every fault the fuzzer meets)")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    chosen = args.faults.split(",") if args.faults else [f.name for f in FAULTS if f.family in ("client", "gate")]
    unknown = [name for name in chosen if name not in BY_NAME]
    if unknown:
        parser.error(f"unknown fault(s) {unknown}; known: {', '.join(BY_NAME)}")
    failed = 0
    print(f"{'fault':<14} {'took':>7} {'peak':>8}  findings / problems")
    with tempfile.TemporaryDirectory() as scratch:
        for fault in chosen:
            run = measure(fault, args.seconds, args.workers, Path(scratch))
            failed += bool(run.problems)
            shown = ", ".join(f"{kind} x{count}" for kind, count in run.findings.items())
            print(f"{fault:<14} {run.seconds:6.1f}s {run.peak_mib:6.0f}MiB  {shown}"
                  + "".join(f"\n{'':33}PROBLEM: {p}" for p in run.problems), flush=True)
    print(f"{len(chosen) - failed}/{len(chosen)} faults within the budget ({args.seconds:g} s + "
          f"{REQUEST_DEADLINE:g} s + {SLACK:g} s), under {MEMORY_LIMIT_MIB:.0f} MiB, named, no divergence")
    return 1 if failed else 0


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
