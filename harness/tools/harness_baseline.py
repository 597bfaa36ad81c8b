"""The speed gate: the harness's own speed now against a baseline revision, side by side in one run, and a
verdict on it.

    python -m harness.tools.harness_baseline --baseline REV [--rounds 5] [--margin 0.10] [--out FILE]
    nox -s speed-gate -- --baseline REV          (CI: the merge base, or the commit before the push)
    nox -s bench -- --baseline REV               (the bench, then this gate, then the core's bare cost per op)

The baseline's tree is checked out with ``git worktree`` into a scratch folder; both trees run the same
implementations: the working tree's built testees (the WASM package and Pyodide's node_modules are linked in,
PyO3 is the installed module) and the current tree's reference (linked in: it runs in process and inside
Pyodide), so what differs is the harness's path alone. A faster reference is not a slower harness: with each
tree's own reference, a harness/bare ratio would fall when the bare call got faster. A baseline whose harness
cannot run the current reference is a usage error (status 2), named. Each round measures every measure of
``MEASURES`` in both trees, alternating which goes first, so that a drift of the machine hits both alike:

* the fuzzer's rate: examples per second of one fixed fuzz run (seed, seconds and implementations fixed);
* the sweep's rate: values per second of one fixed sweep (every template on a fixed code-point range, every
  implementation the default sweep runs);
* per implementation, the harness's path against its bare cost: calls per second through ``call_batch``
  over the fixture inputs, divided by the implementation's own loop over them (harness/checks/bench.py).

A measure's ratio is the median of its rounds' ratios (current / baseline, every measure a rate: below 1 is
slower). The gate fails (status 1) when a measure's ratio is below ``1 - margin``: a slowdown beyond the
noise margin, named with its rounds. Status 0: no measure slower than the margin; 2: a revision that cannot be
checked out, or a baseline whose harness lacks what a measure runs; 3: an implementation that cannot start.
The verdict is a pure function of the rounds (``verdict``), held to planted figures in the tests, and the
gate itself to a planted 20 % slowdown of the harness's call path (suites/tools/test_speed_gate.py).
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.model.status import Unavailable, UsageError

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = "speed-gate-v1"
MARGIN = 0.10  # a measure more than 10 % slower than the baseline fails the gate (measured noise: docs/speed.md)
# Build outputs the trees share (not in git): linked into the baseline's tree so that it runs the same testees.
BUILT = ("wasm_host/pkg", "pyodide_host/node_modules")
# Sources of implementations the harness runs from a tree: the current tree's replace the baseline's.
SHARED = ("reference",)

# Run in a tree (its own harness imported: the current folder comes first on sys.path): each implementation's
# calls per second through the harness's path and through its own loop, over the fixture inputs.
_RATIOS = r"""
import json, sys
from harness.checks import bench
from harness.testees import impls
names, seconds = sys.argv[1].split(","), float(sys.argv[2])
calls = bench.input_sets()["fixture inputs"]
out = {}
for name in names:
    testee = impls.get_impl(name)
    try:
        common = [c for c in calls if impls.declaration(name).can_express(c[1])]
        bare, how = bench.bare_rate(name, testee, common, seconds)
        through = bench.harness_rate(testee, common, seconds)
    finally:
        testee.close()
    out[name] = None if bare is None else through / bare
print(json.dumps(out))
"""


@dataclass(frozen=True)
class Settings:
    impls: tuple[str, ...]
    fuzz_impls: tuple[str, ...]
    fuzz_seconds: float
    seed: int
    sweep_range: str
    bench_seconds: float


def _run(tree: Path, argv: list[str], what: str) -> str:
    """``argv`` with this interpreter in ``tree`` (its own harness first on the path); stdout."""
    # PARITY_IMPLEMENTATIONS passes through: an outside implementation is measured through both trees alike.
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, *argv], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=1800, check=False)
    if done.returncode == 3:
        raise Unavailable(f"{what} in {tree}: an implementation could not start:\n{done.stderr[-1500:]}")
    if done.returncode not in (0, 1):
        raise UsageError(f"{what} in {tree} failed (status {done.returncode}):\n{done.stderr[-1500:]}")
    return done.stdout


def _report(path: Path, what: str) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{what}: its report {path} cannot be read ({exc})") from None
    if not isinstance(document, dict):
        raise UsageError(f"{what}: its report {path} is not a JSON object")
    return document


def fuzz_rate(tree: Path, scratch: Path, settings: Settings) -> dict[str, float]:
    report = scratch / f"fuzz-{tree.name}.json"
    _run(tree, ["-m", "harness", "fuzz", "--seconds", str(settings.fuzz_seconds), "--impls",
                ",".join(settings.fuzz_impls), "--seed", str(settings.seed), "--report", str(report)], "fuzz")
    document = _report(report, "fuzz")
    return {"fuzz rate (examples/s)": float(document["examples"]) / float(document["seconds"])}


def sweep_rate(tree: Path, scratch: Path, settings: Settings) -> dict[str, float]:
    checkpoint, report = scratch / f"cp-{tree.name}.jsonl", scratch / f"sweep-{tree.name}.json"
    _run(tree, ["-m", "harness", "sweep", "--range", settings.sweep_range, "--impls", ",".join(settings.impls),
                "--fresh", "--checkpoint", str(checkpoint), "--report", str(report)], "sweep")
    document = _report(report, "sweep")
    return {"sweep rate (values/s)": float(document["sweep"]["values"]) / float(document["seconds"])}


def harness_over_bare(tree: Path, scratch: Path, settings: Settings) -> dict[str, float]:
    out = _run(tree, ["-c", _RATIOS, ",".join(settings.impls), str(settings.bench_seconds)],
               "the harness/bare ratios")
    try:
        ratios = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise UsageError(f"the harness/bare ratios in {tree}: no result line in {out[-300:]!r}") from None
    return {f"harness/bare, {name}": float(value) for name, value in ratios.items() if value is not None}


MEASURES: tuple[Callable[[Path, Path, Settings], dict[str, float]], ...] = (fuzz_rate, sweep_rate, harness_over_bare)


@dataclass
class Rounds:
    """Every measure's figures, round by round, in both trees (every figure a rate: higher is faster)."""

    baseline: dict[str, list[float]] = field(default_factory=dict)
    current: dict[str, list[float]] = field(default_factory=dict)

    def add(self, tree: str, figures: dict[str, float]) -> None:
        for measure, value in figures.items():
            getattr(self, tree).setdefault(measure, []).append(value)


@dataclass(frozen=True)
class Row:
    measure: str
    baseline: float  # medians
    current: float
    ratio: float  # the median of the rounds' ratios, current / baseline
    ratios: tuple[float, ...]
    slower: bool  # beyond the margin


def verdict(rounds: Rounds, margin: float) -> list[Row]:
    """One row per measure both trees gave in every round; ``slower`` when its ratio is below 1 - margin."""
    rows = []
    for measure, base in rounds.baseline.items():
        now = rounds.current.get(measure)
        if not now or len(now) != len(base) or not all(value > 0 for value in (*base, *now)):
            continue
        ratios = tuple(c / b for b, c in zip(base, now, strict=True))
        ratio = statistics.median(ratios)
        rows.append(Row(measure, statistics.median(base), statistics.median(now), ratio, ratios,
                        ratio < 1.0 - margin))
    return rows


def unmatched(rounds: Rounds) -> list[str]:
    """Measures one tree gave and the other did not (an implementation bare in one tree only): named, never
    a silent pass."""
    return sorted(set(rounds.baseline) ^ set(rounds.current))


def table(rows: list[Row], margin: float) -> str:
    lines = [f"{'measure':<34} {'baseline':>12} {'current':>12} {'ratio':>7}  verdict"]
    for row in rows:
        state = f"SLOWER than the margin ({100 * margin:.0f} %)" if row.slower else "ok"
        lines.append(f"{row.measure:<34} {row.baseline:>12,.2f} {row.current:>12,.2f} {row.ratio:>7.3f}  {state}")
    return "\n".join(lines)


def markdown(rows: list[Row], margin: float, baseline: str) -> str:
    """The job summary's section."""
    lines = [f"### Speed against {baseline}", "",
             f"Median of the rounds' ratios, current / baseline (below {1 - margin:.2f} fails).", "",
             "| measure | baseline | current | ratio | rounds | verdict |", "|---|---:|---:|---:|---|---|"]
    for row in rows:
        rounds = ", ".join(f"{r:.3f}" for r in row.ratios)
        lines.append(f"| {row.measure} | {row.baseline:,.2f} | {row.current:,.2f} | {row.ratio:.3f} | {rounds} | "
                     f"{'**slower**' if row.slower else 'ok'} |")
    return "\n".join(lines) + "\n"


def measure(trees: dict[str, Path], scratch: Path, settings: Settings, rounds: int,
            stream: Any = sys.stderr) -> Rounds:
    found = Rounds()
    for number in range(rounds):
        order = ["baseline", "current"] if number % 2 == 0 else ["current", "baseline"]
        for name in order:
            started = time.monotonic()
            figures: dict[str, float] = {}
            for one in MEASURES:
                figures.update(one(trees[name], scratch, settings))
            found.add(name, figures)
            shown = ", ".join(f"{key} {value:,.2f}" for key, value in figures.items())
            stream.write(f"[round {number + 1}/{rounds}] {name} ({time.monotonic() - started:.0f} s): {shown}\n")
            stream.flush()
    return found


def checkout(revision: str, scratch: Path, current: Path) -> Path:
    """``revision`` checked out in ``scratch``, running the same implementations as ``current`` (BUILT, SHARED)."""
    base = scratch / "baseline"
    made = subprocess.run(["git", "worktree", "add", "--detach", str(base), revision], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    if made.returncode != 0:
        raise UsageError(f"cannot check out {revision!r} (a git revision of {ROOT}): {made.stderr.strip()}")
    for built in BUILT:
        here, there = ROOT / built, base / built
        if here.exists() and not there.exists():
            there.symlink_to(here)
    for shared in SHARED:
        there = base / shared
        if there.is_dir() and not there.is_symlink():
            shutil.rmtree(there)
        there.symlink_to(current / shared, target_is_directory=True)
    return base


def _settings(args: argparse.Namespace) -> Settings:
    from harness.testees import impls  # the current tree's declarations: the implementations both trees run

    names = tuple(args.impls.split(",")) if args.impls else tuple(impls.available())
    try:
        fuzz_names = tuple(name for name in names if impls.declaration(name).speed_goals)
    except impls.ImplementationUnavailable as exc:  # an unknown name: a usage error (a DeclarationError is one)
        raise UsageError(f"--impls: {exc}") from None
    return Settings(names, fuzz_names or names, args.fuzz_seconds, args.seed, args.sweep_range, args.bench_seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.harness_baseline",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="a git revision (the merge base, the commit before a push)")
    parser.add_argument("--current", type=Path, default=ROOT, help="the tree measured as current (default: this one)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--margin", type=float, default=MARGIN, help="the noise margin: a slowdown beyond it fails")
    parser.add_argument("--impls", default=None, help="implementations (default: every available one)")
    parser.add_argument("--fuzz-seconds", type=float, default=8.0)
    parser.add_argument("--sweep-range", default="U+0000..U+0FFF")
    parser.add_argument("--bench-seconds", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=None, help="the gate's report (JSON, speed-gate-v1)")
    parser.add_argument("--summary", type=Path, default=None, help="append the Markdown table here (a job summary)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or not 0 < args.margin < 1:
        parser.error("--rounds must be at least 1 and --margin between 0 and 1")
    scratch = Path(tempfile.mkdtemp(prefix="speed-gate-"))
    try:
        settings = _settings(args)
        current = args.current.resolve()
        trees = {"baseline": checkout(args.baseline, scratch, current), "current": current}
        print(f"speed gate: {args.baseline} against {trees['current']}, {args.rounds} rounds, margin "
              f"{100 * args.margin:.0f} %, implementations {', '.join(settings.impls)}", file=sys.stderr)
        rounds = measure(trees, scratch, settings, args.rounds)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(scratch / "baseline")], cwd=ROOT,
                       capture_output=True, check=False)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True, check=False)
        shutil.rmtree(scratch, ignore_errors=True)
    rows = verdict(rounds, args.margin)
    missing = unmatched(rounds)
    print(table(rows, args.margin))
    for name in missing:
        print(f"not compared: {name} (measured in one tree only)")
    slower = [row for row in rows if row.slower]
    document = {"schema": SCHEMA, "baseline": args.baseline, "rounds": args.rounds, "margin": args.margin,
                "settings": {**settings.__dict__, "impls": list(settings.impls),
                             "fuzz_impls": list(settings.fuzz_impls)},
                "measures": [{**row.__dict__, "ratios": list(row.ratios)} for row in rows],
                "notCompared": missing, "figures": {"baseline": rounds.baseline, "current": rounds.current}}
    if args.out is not None:
        from harness.model.files import write_document

        write_document(args.out, document, replaces=(SCHEMA,), what="speed gate report")
    if args.summary is not None:
        with args.summary.open("a", encoding="utf-8") as out:
            out.write(markdown(rows, args.margin, args.baseline))
    if slower or missing or not rows:
        why = (f"{len(slower)} measure(s) slower than the baseline beyond the {100 * args.margin:.0f} % margin: "
               + "; ".join(f"{row.measure} {100 * (1 - row.ratio):.1f} % slower" for row in slower)) if slower \
            else "measures not compared in both trees" if missing else "nothing measured"
        print(f"speed gate: FAILED: {why}")
        return 1
    print(f"speed gate: passed: no measure more than {100 * args.margin:.0f} % slower than {args.baseline}")
    return 0


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
