"""The harness's own speed, now against a baseline revision, side by side in one run, as ratios: the fuzz rate
(examples per second of one fixed fuzz run) and the sweep time (wall-clock seconds of one fixed sweep).

    python -m harness.tools.harness_baseline --baseline 8f93967 [--rounds 3] [--fuzz-seconds 15]

The baseline's harness is checked out with ``git worktree`` into a scratch folder (its built testees are
the working tree's: the WASM package is linked in, PyO3 is the installed module), and each round runs the
same commands in both trees, alternating which goes first, so that a drift of the machine hits both alike.
The ratio of a measure is the median of its rounds' ratios (current / baseline: above 1 is faster for the
rate, slower for the time). Prints a table; ``--out FILE`` writes it as JSON. Exit status 0: it measures
and asserts nothing; 2 on a bad revision.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
IMPLS = "reference,pyo3,wasm"


def _run(tree: Path, argv: list[str]) -> float:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PARITY_IMPLEMENTATIONS", None)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "harness", *argv], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=1800, check=False)
    seconds = time.monotonic() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{tree}: harness {' '.join(argv)}: status {done.returncode}\n{done.stderr[-2000:]}")
    return seconds


def fuzz_rate(tree: Path, scratch: Path, seconds: float, seed: int) -> float:
    report = scratch / f"fuzz-{tree.name}.json"
    _run(tree, ["fuzz", "--seconds", str(seconds), "--impls", IMPLS, "--seed", str(seed), "--report", str(report)])
    document = json.loads(report.read_text(encoding="utf-8"))
    return document["examples"] / document["seconds"]


def sweep_time(tree: Path, scratch: Path, span: str) -> float:
    checkpoint, report = scratch / f"cp-{tree.name}.jsonl", scratch / f"sweep-{tree.name}.json"
    return _run(tree, ["sweep", "--range", span, "--impls", IMPLS, "--fresh", "--checkpoint", str(checkpoint),
                       "--report", str(report)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.harness_baseline",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="a git revision")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fuzz-seconds", type=float, default=15.0)
    parser.add_argument("--sweep-range", default="U+0000..U+2FFF")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="harness-baseline-"))
    base = scratch / "baseline"
    made = subprocess.run(["git", "worktree", "add", "--detach", str(base), args.baseline], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    if made.returncode != 0:
        print(f"error: cannot check out {args.baseline}: {made.stderr.strip()}", file=sys.stderr)
        shutil.rmtree(scratch, ignore_errors=True)
        return 2
    try:
        pkg = ROOT / "wasm_host" / "pkg"
        if pkg.exists() and not (base / "wasm_host" / "pkg").exists():
            (base / "wasm_host" / "pkg").symlink_to(pkg)
        trees = {"baseline": base, "current": ROOT}
        rows: dict[str, dict[str, list[float]]] = {"fuzz rate (examples/s)": {}, "sweep time (s)": {}}
        for number in range(args.rounds):
            order = ["baseline", "current"] if number % 2 == 0 else ["current", "baseline"]
            for name in order:
                rate = fuzz_rate(trees[name], scratch, args.fuzz_seconds, args.seed)
                rows["fuzz rate (examples/s)"].setdefault(name, []).append(rate)
                took = sweep_time(trees[name], scratch, args.sweep_range)
                rows["sweep time (s)"].setdefault(name, []).append(took)
                print(f"[round {number + 1}] {name}: {rate:,.0f} examples/s, sweep {took:.1f} s", file=sys.stderr)
        result: dict[str, Any] = {"baseline": args.baseline, "rounds": args.rounds, "measures": {}}
        print(f"{'measure':<24} {'baseline':>12} {'current':>12} {'ratio':>7}")
        for measure, by in rows.items():
            ratios = [c / b for b, c in zip(by["baseline"], by["current"], strict=True)]
            result["measures"][measure] = {**by, "ratio": statistics.median(ratios)}
            base, now = statistics.median(by["baseline"]), statistics.median(by["current"])
            print(f"{measure:<24} {base:>12,.1f} {now:>12,.1f} {statistics.median(ratios):>7.3f}")
        if args.out is not None:
            args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        return 0
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True, check=False)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True, check=False)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
