"""The speed gate: the instructions the harness's own paths cost now against a baseline revision, on fixed
workloads, counted by Valgrind's callgrind, and a verdict on them.

    python -m harness.tools.harness_baseline --baseline REV [--rounds 1] [--margin 0.03] [--out FILE]
    nox -s speed-gate -- --baseline REV          (CI: the commit main was at before the work, .ci/run)
    nox -s bench -- --baseline REV               (the bench, then this gate, then the core's bare cost per op)

Seconds are what a busy machine moves (an unchanged tree's fuzz rate moved 14.5 % on a CI runner, margin 10 %);
instructions are not. The baseline's tree is checked out with ``git worktree`` into a scratch folder (its
``reference`` is the current tree's, linked in: a faster reference is not a slower harness). Each tree runs
harness/tools/speed_workload.py, with its own harness first on the path, under
``valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no``: start-up and imports uninstrumented and not
counted, and only the instructions of the harness's main thread (the testees are other processes, Valgrind does
not follow them; the client's I/O threads only move bytes) on three fixed workloads (``PYTHONHASHSEED`` fixed):

* ``command client``: ``Testee.call_batch`` of a command testee (``get_impl``) over the fixture inputs whose
  arguments are plain JSON, in batches of 200, ``client_passes`` passes;
* ``fuzz loop``: ``python -m harness fuzz --workers 1 --seed S --max-examples M`` on two command testees;
* ``sweep driver``: ``python -m harness sweep --workers 1`` of every template over a fixed code-point range;

each against a double served over the command protocol (harness/tools/hostile_testee.py, no fault: the
reference, answering), the same file for both trees. Each path runs once uncounted (lazy imports, caches), then
at size N and at 2N: its figure is the difference, N units of its own work with its fixed costs (argument
parsing, the testees' start, the report) taken out. The fuzzer's and the sweep's figures leave the client's
calls out, so a slower client is named as the client alone. Both trees are measured at once (two processes:
the counts do not depend on the load).

A measure's ratio is the median of its rounds' ratios (current / baseline instructions: above 1 is slower). The
gate fails (status 1) when a ratio is above ``1 + margin``, naming the measure. Two copies of one tree measured
at once differed by at most 0.5 % (client, fuzz) and 1.5 % (sweep), with two busy processes per core beside them
or at load 13 (docs/testing.md): the margin is 3 %, so a 5 % slowdown of one path's own cost fails it. Status
0: no measure slower than the margin; 2: a revision that cannot be checked out, or a baseline whose harness lacks
an entry point a workload drives (named); 3: valgrind is not installed, or a testee could not start. The verdict
is a pure function of the rounds (``verdict``), held to planted figures in the tests, and the gate itself to an
unchanged tree and to a planted 5 % slowdown of each path (suites/tools/test_speed_gate.py). Seconds (each tree's,
the gate's) are printed as information only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.model.status import Unavailable, UsageError

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = "speed-gate-v2"
MARGIN = 0.03  # a path more than 3 % dearer than the baseline fails the gate (measured noise: docs/testing.md)
# Build outputs the trees share (not in git): linked into the baseline's tree so that it runs the same testees.
BUILT = ("wasm_host/pkg", "pyodide_host/node_modules")
# Sources of implementations the harness runs from a tree: the current tree's replace the baseline's.
SHARED = ("reference",)
WORKLOAD = Path(__file__).resolve().parent / "speed_workload.py"
DOUBLES = ("gate-a", "gate-b")  # two command testees serving the reference (harness/tools/hostile_testee.py)
FIXTURES = ("fixtures/write-gate-v1.json", "fixtures/dedup-context-v1.json")
# The measures, in the order the workload runs them: the dump labels' prefix -> the measure's name.
PATHS = {"client": "command client", "fuzz": "fuzz loop", "sweep": "sweep driver"}
INSTALL = "valgrind is not installed: apt-get install valgrind (the speed gate counts instructions under callgrind)"


@dataclass(frozen=True)
class Settings:
    client_passes: int  # N for the client: passes over the fixture calls
    batch: int  # calls per call_batch
    fuzz_examples: int  # N for the fuzzer (whole batches of 1,000)
    sweep_range: str  # N for the sweep: its code points (2N: as many again after them)
    seed: int


def _doubled(text: str) -> str:
    """``U+A..U+B`` -> ``U+A..U+C``, twice as many code points."""
    first, _, last = text.partition("..")
    try:
        low, high = int(first.removeprefix("U+"), 16), int((last or first).removeprefix("U+"), 16)
    except ValueError:
        raise UsageError(f"--sweep-range: {text!r} is not a range of code points (U+0000..U+003F)") from None
    if not 0 <= low <= high or low + 2 * (high - low + 1) - 1 > 0x10FFFF:
        raise UsageError(f"--sweep-range: {text!r} is not a range of code points whose double fits below U+10FFFF")
    return f"U+{low:04X}..U+{low + 2 * (high - low + 1) - 1:04X}"


def fixture_calls(tree: Path) -> list[list[Any]]:
    """The fixture inputs whose arguments are plain JSON values (no host value to encode), in file order."""
    calls = []
    for name in FIXTURES:
        try:
            tests = json.loads((tree / name).read_text(encoding="utf-8"))["tests"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"the client's calls: {tree / name} cannot be read ({exc})") from None
        calls += [[test["op"], test["args"]] for test in tests
                  if all(not isinstance(value, (dict, list)) for value in test["args"].values())]
    return calls


def plan(scratch: Path, tag: str, settings: Settings, calls: list[list[Any]]) -> dict[str, Any]:
    """What speed_workload.py runs in one tree: the client's calls, each command at warm-up, N and 2N."""
    impls = ",".join(DOUBLES)

    def fuzz(examples: int, size: str) -> list[str]:
        return ["fuzz", "-q", "--impls", impls, "--workers", "1", "--seed", str(settings.seed), "--seconds", "3600",
                "--max-examples", str(examples), "--report", str(scratch / f"fuzz-{tag}-{size}.json")]

    def sweep(code_points: str, size: str) -> list[str]:
        return ["sweep", "-q", "--impls", impls, "--workers", "1", "--range", code_points, "--fresh",
                "--checkpoint", str(scratch / f"sweep-{tag}-{size}.jsonl"),
                "--report", str(scratch / f"sweep-{tag}-{size}.json")]

    examples, code_points = settings.fuzz_examples, settings.sweep_range
    return {"double": DOUBLES[0], "calls": calls, "batch": settings.batch, "client_passes": settings.client_passes,
            "commands": ["fuzz", "sweep"],
            "fuzz": [fuzz(examples, "warm"), fuzz(examples, "1"), fuzz(2 * examples, "2")],
            "sweep": [sweep(code_points, "warm"), sweep(code_points, "1"), sweep(_doubled(code_points), "2")]}


def declare_doubles(folder: Path) -> None:
    from harness.tools.hostile_faults import declare

    for name in DOUBLES:
        declare(folder, "faithful", name=name, request_deadline=60, startup_deadline=60)


def valgrind() -> str:
    found = shutil.which("valgrind")
    if found is None:
        raise Unavailable(INSTALL)
    if platform.machine().lower() not in ("x86_64", "amd64"):
        raise Unavailable(f"the speed gate's client requests are x86-64 code; this machine is {platform.machine()}")
    return found


def _dumps(out: Path) -> dict[str, int]:
    """Each client-request dump's label -> its instructions (``summary``), from callgrind's files ``out.N``."""
    found = {}
    for path in sorted(out.parent.glob(out.name + ".*")):
        label = count = None
        with path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith("desc: Trigger: Client Request: "):
                    label = line.split(":", 3)[3].strip()
                elif line.startswith("summary: "):
                    count = int(line.split()[1])
                if label is not None and count is not None:
                    break
        if label is not None and count is not None:
            found[label] = count
    return found


def start(tree: Path, scratch: Path, tag: str, settings: Settings, calls: list[list[Any]], decl: Path,
          program: str) -> tuple[subprocess.Popen[str], Path]:
    """The workload in ``tree`` under callgrind, started (not waited for); its callgrind output's name."""
    plan_file, out = scratch / f"plan-{tag}.json", scratch / f"cg-{tag}.out"
    plan_file.write_text(json.dumps(plan(scratch, tag, settings, calls)), encoding="utf-8")
    for old in scratch.glob(out.name + "*"):
        old.unlink()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(tree), PYTHONHASHSEED="0",
               PARITY_IMPLEMENTATIONS=str(decl))
    for name in ("PARITY_REQUIRE_ALL", "PARITY_ORACLE", "PARITY_CONTEXT"):  # the run's own choices, not the user's
        env.pop(name, None)
    argv = [program, "-q", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
            f"--callgrind-out-file={out}", sys.executable, str(WORKLOAD), str(plan_file)]
    return subprocess.Popen(argv, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True), out


def finish(process: subprocess.Popen[str], out: Path, tree: Path, what: str) -> dict[str, float]:
    """The figures of a started workload: per path, the instructions of 2N units less those of N."""
    try:
        stdout, stderr = process.communicate(timeout=1800)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise UsageError(f"the workload in {tree} ({what}) did not end within 30 minutes") from None
    if process.returncode == 3:
        raise Unavailable(f"the workload in {tree} ({what}): a testee could not start:\n{stderr[-1500:]}")
    if process.returncode != 0:
        raise UsageError(f"the workload in {tree} ({what}) failed (status {process.returncode}): its harness lacks "
                         f"what the gate drives, or failed:\n{stderr[-2500:]}")
    dumps = _dumps(out)
    missing = [f"{path}-{size}" for path in PATHS for size in (1, 2) if f"{path}-{size}" not in dumps]
    if missing:
        raise UsageError(f"the workload in {tree} ({what}) ended without callgrind's counts of "
                         f"{', '.join(missing)} (stdout: {stdout[-300:]!r}; stderr: {stderr[-1500:]})")
    return {name: float(dumps[f"{path}-2"] - dumps[f"{path}-1"]) for path, name in PATHS.items()}


@dataclass
class Rounds:
    """Every measure's figures, round by round, in both trees (every figure a cost in instructions: higher is
    slower)."""

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
    slower: bool  # beyond the margin, or nothing counted
    nothing: bool = False  # a tree counted no instructions for it: the work was not measured (fails)


def verdict(rounds: Rounds, margin: float) -> list[Row]:
    """One row per measure both trees gave in every round; ``slower`` when its ratio is above 1 + margin, or when
    a tree counted nothing for it (``nothing``: a path that did no work, or left the counted thread, never passes)."""
    rows = []
    for measure, base in rounds.baseline.items():
        now = rounds.current.get(measure)
        if not now or len(now) != len(base):
            continue
        if not all(value > 0 for value in (*base, *now)):  # nothing counted: never a pass
            rows.append(Row(measure, statistics.median(base), statistics.median(now), 0.0, (), True, nothing=True))
            continue
        ratios = tuple(c / b for b, c in zip(base, now, strict=True))
        ratio = statistics.median(ratios)
        rows.append(Row(measure, statistics.median(base), statistics.median(now), ratio, ratios,
                        ratio > 1.0 + margin))
    return rows


def unmatched(rounds: Rounds) -> list[str]:
    """Measures one tree gave and the other did not: named, never a silent pass."""
    return sorted(set(rounds.baseline) ^ set(rounds.current))


def table(rows: list[Row], margin: float) -> str:
    lines = [f"{'measure (instructions)':<24} {'baseline':>15} {'current':>15} {'ratio':>7}  verdict"]
    for row in rows:
        state = "NOTHING COUNTED in a tree: not measured" if row.nothing else \
            f"SLOWER than the margin ({100 * margin:g} %)" if row.slower else "ok"
        lines.append(f"{row.measure:<24} {row.baseline:>15,.0f} {row.current:>15,.0f} {row.ratio:>7.4f}  {state}")
    return "\n".join(lines)


def markdown(rows: list[Row], margin: float, baseline: str) -> str:
    """The job summary's section."""
    lines = [f"### Speed against {baseline}", "",
             f"Instructions of each path's own work (callgrind), median of the rounds' ratios, current / baseline "
             f"(above {1 + margin:.2f} fails).", "",
             "| measure | baseline | current | ratio | rounds | verdict |", "|---|---:|---:|---:|---|---|"]
    for row in rows:
        rounds = ", ".join(f"{r:.4f}" for r in row.ratios)
        lines.append(f"| {row.measure} | {row.baseline:,.0f} | {row.current:,.0f} | {row.ratio:.4f} | {rounds} | "
                     f"{'**nothing counted**' if row.nothing else '**slower**' if row.slower else 'ok'} |")
    return "\n".join(lines) + "\n"


def figures_of(trees: dict[str, Path], scratch: Path, settings: Settings,
               calls: list[list[Any]] | None = None) -> dict[str, dict[str, float]]:
    """Each tree's figures, the trees measured at once (one callgrind process each: counts do not depend on the
    load). ``calls``: the client's (default: the fixture calls of this tree, the gate's)."""
    program = valgrind()
    calls = fixture_calls(ROOT) if calls is None else calls
    decl = scratch / "doubles"
    declare_doubles(decl)
    running = {}
    try:
        for name, tree in trees.items():
            running[name] = start(tree, scratch, f"{name}-{len(list(scratch.glob('plan-*')))}", settings, calls,
                                  decl, program)
        return {name: finish(process, out, trees[name], name) for name, (process, out) in running.items()}
    finally:
        for process, _ in running.values():
            if process.poll() is None:
                process.kill()
                process.communicate()


def measure(trees: dict[str, Path], scratch: Path, settings: Settings, rounds: int,
            stream: Any = sys.stderr) -> Rounds:
    """Both trees, at once, ``rounds`` times."""
    calls = fixture_calls(trees["current"])
    found = Rounds()
    for number in range(rounds):
        started = time.monotonic()
        for name, values in figures_of(trees, scratch, settings, calls).items():
            found.add(name, values)
            shown = ", ".join(f"{key} {value:,.0f}" for key, value in values.items())
            stream.write(f"[round {number + 1}/{rounds}] {name}: {shown}\n")
        stream.write(f"[round {number + 1}/{rounds}] both trees in {time.monotonic() - started:.0f} s "
                     "(seconds: information only)\n")
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
    if args.client_passes < 1 or args.fuzz_examples < 1 or args.batch < 1:
        raise UsageError("--client-passes, --fuzz-examples and --batch must be at least 1")
    _doubled(args.sweep_range)
    return Settings(args.client_passes, args.batch, args.fuzz_examples, args.sweep_range, args.seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.harness_baseline",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="a git revision (the merge base, the commit before a push)")
    parser.add_argument("--current", type=Path, default=ROOT, help="the tree measured as current (default: this one)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds (default 1: counts barely move)")
    parser.add_argument("--margin", type=float, default=MARGIN, help="the noise margin: a slowdown beyond it fails")
    parser.add_argument("--client-passes", type=int, default=2, help="N of the client: passes over the calls")
    parser.add_argument("--batch", type=int, default=200, help="calls per call_batch in the client's passes")
    parser.add_argument("--fuzz-examples", type=int, default=1000, help="N of the fuzzer (whole batches of 1,000)")
    parser.add_argument("--sweep-range", default="U+0000..U+003F", help="N of the sweep (2N: twice the range)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=None, help="the gate's report (JSON, speed-gate-v2)")
    parser.add_argument("--summary", type=Path, default=None, help="append the Markdown table here (a job summary)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or not 0 < args.margin < 1:
        parser.error("--rounds must be at least 1 and --margin between 0 and 1")
    began = time.monotonic()
    settings = _settings(args)
    valgrind()
    scratch = Path(tempfile.mkdtemp(prefix="speed-gate-"))
    try:
        current = args.current.resolve()
        trees = {"baseline": checkout(args.baseline, scratch, current), "current": current}
        print(f"speed gate: {args.baseline} against {trees['current']}, {args.rounds} round(s), margin "
              f"{100 * args.margin:g} %, instructions under callgrind", file=sys.stderr)
        rounds = measure(trees, scratch, settings, args.rounds)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(scratch / "baseline")], cwd=ROOT,
                       capture_output=True, check=False)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True, check=False)
        shutil.rmtree(scratch, ignore_errors=True)
    rows = verdict(rounds, args.margin)
    missing = unmatched(rounds)
    seconds = time.monotonic() - began
    print(table(rows, args.margin))
    for name in missing:
        print(f"not compared: {name} (measured in one tree only)")
    slower = [row for row in rows if row.slower]
    document = {"schema": SCHEMA, "baseline": args.baseline, "rounds": args.rounds, "margin": args.margin,
                "settings": settings.__dict__, "seconds": round(seconds, 1),
                "measures": [{**row.__dict__, "ratios": list(row.ratios)} for row in rows],
                "notCompared": missing, "figures": {"baseline": rounds.baseline, "current": rounds.current}}
    if args.out is not None:
        from harness.model.files import write_document

        write_document(args.out, document, replaces=(SCHEMA, "speed-gate-v1"), what="speed gate report")
    if args.summary is not None:
        with args.summary.open("a", encoding="utf-8") as out:
            out.write(markdown(rows, args.margin, args.baseline))
    print(f"speed gate: took {seconds:.0f} s")
    if slower or missing or not rows:
        why = (f"{len(slower)} path(s) dearer than the baseline beyond the {100 * args.margin:g} % margin: "
               + "; ".join(f"{row.measure}: nothing counted in a tree" if row.nothing else
                        f"{row.measure} {100 * (row.ratio - 1):.1f} % more instructions" for row in slower)) \
            if slower else "measures not compared in both trees" if missing else "nothing measured"
        print(f"speed gate: FAILED: {why}")
        return 1
    print(f"speed gate: passed: no path more than {100 * args.margin:g} % dearer than {args.baseline}")
    return 0


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
