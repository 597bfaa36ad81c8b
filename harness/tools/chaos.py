"""A chaos run: requests streamed through ``python -m harness run --impl IMPL`` while its testee process is
killed (SIGKILL) from outside at random, some of the kills aimed at a testee while it starts.

    python -m harness.tools.chaos --impl wasm --requests 300000 --kills 15 --seed 1

Every request is a ``normalize_fact_text`` of seeded random ASCII words, whose answer the reference gives
in this process. The verdict (issue 31, "Done when"): every request is answered exactly once; an answer is
the reference's or, for a request a kill hit, the error ``crash``; no request is ``unavailable`` (a testee
taken out of the run by kills it should have survived); at most one request is hit per kill; and no process
the testee started is left when the run ends. Exit 0 when it holds, 1 when it does not (each breach named),
2 on a bad command line, 3 when the implementation cannot start at all.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from harness.tools.processes import alive, children, descendants

ROOT = Path(__file__).resolve().parents[2]
WORDS = ("user", "Likes", "GREEN", "tea", "owns", "a", "cat", "lives", "in", "Paris", "  ", "!", "vegetarian")


def requests(count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [{"id": i, "op": "normalize_fact_text",
             "args": {"text": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))}}
            for i in range(1, count + 1)]


def expected_answers(asked: list[dict[str, Any]]) -> dict[int, Any]:
    from harness.testees.impls import get_impl

    reference = get_impl("reference")
    try:
        return {r["id"]: reference.call(r["op"], r["args"]).get("ok") for r in asked}
    finally:
        reference.close()


class Killer(threading.Thread):
    """Kills the harness's testee child at the answer counts given; every other kill is followed by one of
    the fresh process the harness starts in its place, as soon as it appears (a kill during start-up)."""

    def __init__(self, harness: int, at: list[int], progress: list[int], seed: int) -> None:
        super().__init__(daemon=True, name="killer")
        self.harness, self.at, self.progress = harness, at, progress
        self.rng = random.Random(seed)
        self.kills: list[dict[str, Any]] = []
        self.done = threading.Event()
        self.seen: set[int] = set()  # every process below the harness seen during the run
        self._looked = 0.0

    def observe(self, every: float = 0.05) -> None:
        now = time.monotonic()
        if now - self._looked >= every:
            self._looked = now
            self.seen.update(descendants(self.harness))

    def _testee(self, avoid: int | None = None, wait: float = 30.0) -> int | None:
        ends = time.monotonic() + wait
        while time.monotonic() < ends and not self.done.is_set():
            found = [pid for pid in children(self.harness) if pid != avoid and alive(pid)]
            self.seen.update(found)
            if found:
                return found[0]
            time.sleep(0.0005)
        return None

    def _kill(self, pid: int, how: str) -> None:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            command = "?"
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        self.kills.append({"pid": pid, "how": how, "afterAnswers": self.progress[0], "command": command[:200]})

    def run(self) -> None:
        for number, count in enumerate(self.at):
            while self.progress[0] < count and not self.done.is_set():
                self.observe()
                time.sleep(0.001)
            if self.done.is_set():
                return
            pid = self._testee()
            if pid is None:
                return
            self._kill(pid, "running")
            if len(self.kills) >= len(self.at):
                return
            if number % 2 == 1:  # the next one at start-up: the fresh process, as soon as it is there
                fresh = self._testee(avoid=pid)
                if fresh is not None:
                    time.sleep(self.rng.uniform(0.0, 0.02))
                    self._kill(fresh, "starting")
            if len(self.kills) >= len(self.at):
                return


def chaos(impl: str, count: int, kills: int, seed: int) -> dict[str, Any]:
    asked = requests(count, seed)
    print(f"[chaos] {count:,} requests; the reference's answers first", file=sys.stderr)
    good = expected_answers(asked)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "harness", "run", "--impl", impl], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            bufsize=1)
    assert proc.stdin and proc.stdout and proc.stderr
    stderr: list[str] = []
    threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True).start()  # type: ignore[union-attr]

    def feed() -> None:
        try:
            for request in asked:
                proc.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            pass

    rng = random.Random(seed + 1)
    # ``kills`` kills: every other planned one brings a start-up kill with it
    planned = sorted(rng.sample(range(count // 20, count - count // 20), (kills + 1) // 2 + kills // 2))
    progress = [0]
    killer = Killer(proc.pid, planned, progress, seed + 2)
    writer = threading.Thread(target=feed, daemon=True)
    started = time.monotonic()
    writer.start()
    killer.start()
    answers: dict[Any, list[Any]] = {}
    odd: list[str] = []
    for line in proc.stdout:
        try:
            answer = json.loads(line)
            answers.setdefault(answer.get("id"), []).append(answer)
        except (ValueError, AttributeError):
            odd.append(line[:200])
        progress[0] += 1
        if progress[0] % 50_000 == 0:
            print(f"[chaos] {progress[0]:,} answers, {len(killer.kills)} kill(s)", file=sys.stderr)
    killer.observe(0.0)
    killer.done.set()
    status = proc.wait(timeout=60)
    seconds = time.monotonic() - started
    time.sleep(0.5)
    left = sorted(pid for pid in killer.seen if alive(pid))  # (a pid reused meanwhile would show here too)
    tally: dict[str, int] = {}
    breaches: list[str] = []
    for request in asked:
        got = answers.get(request["id"], [])
        if len(got) != 1:
            tally["not answered once"] = tally.get("not answered once", 0) + 1
            if len(breaches) < 20:
                breaches.append(f"request {request['id']}: answered {len(got)} time(s)")
            continue
        answer = got[0]
        if "ok" in answer and answer["ok"] == good[request["id"]]:
            kind = "good"
        elif "error" in answer:
            kind = f"error {answer['error'].get('code')}"
        else:
            kind = "wrong answer"
        tally[kind] = tally.get(kind, 0) + 1
        if kind not in ("good", "error crash") and len(breaches) < 20:
            breaches.append(f"request {request['id']}: {json.dumps(answer)[:200]}")
    hit = tally.get("error crash", 0)
    if hit > len(killer.kills):
        breaches.append(f"{hit} requests answered crash after {len(killer.kills)} kill(s): more than one per kill")
    if status != 0:
        breaches.append(f"harness run exited {status}")
    if odd:
        breaches.append(f"{len(odd)} answer line(s) not JSON: {odd[:3]}")
    if left:
        breaches.append(f"{len(left)} process(es) left after the run: {left}")
    if len(killer.kills) < kills:
        breaches.append(f"only {len(killer.kills)} of {kills} kills happened (the run ended first?)")
    return {"impl": impl, "requests": count, "seconds": round(seconds, 1), "kills": killer.kills,
            "tally": tally, "breaches": breaches, "exit": status, "stderrTail": "".join(stderr)[-2000:]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.chaos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--impl", default="wasm")
    parser.add_argument("--requests", type=int, default=300_000)
    parser.add_argument("--kills", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None, help="write the summary here as JSON")
    args = parser.parse_args(argv)
    if args.requests < 100 or args.kills < 0:
        parser.error("--requests must be at least 100 and --kills at least 0")
    result = chaos(args.impl, args.requests, args.kills, args.seed)
    from harness.model.printable import printable

    print(f"{result['impl']}: {result['requests']:,} requests in {result['seconds']} s, "
          f"{len(result['kills'])} kill(s) ({sum(k['how'] == 'starting' for k in result['kills'])} at start-up)")
    for kind, number in sorted(result["tally"].items()):
        print(f"  {kind}: {number:,}")
    for breach in result["breaches"]:
        print(f"BREACH: {printable(breach)}")
    if args.json is not None:
        from harness.model.files import atomic_write

        atomic_write(args.json, json.dumps(result, indent=2, ensure_ascii=True) + "\n")
    print("verdict holds" if not result["breaches"] else "verdict BROKEN")
    return 0 if not result["breaches"] else 1


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
