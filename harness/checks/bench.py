"""Speed, side by side in one run (``nox -s bench`` / ``python -m harness bench``): each implementation's
bare cost against the harness's cost through the same calls, as ratios. Nothing is asserted; the goals
(harness overhead for one input through all implementations <= 2x the sum of their bare costs; >= 20,000
normalize examples/s through the fuzzer) are printed next to the numbers and written to the report.

* **bare**: the implementation's own loop over the inputs: a Python loop calling the function for an
  in-process implementation; for a command testee, the command its declaration names in ``bare_bench``
  (for WASM, a Node loop calling the export: wasm_host/bench.js; for Pyodide, a Python loop inside
  Pyodide: pyodide_host/bench.js);
* **harness, one implementation**: ``call_batch`` over the same inputs (the one call path every suite
  uses: host values encoded, the protocol's batch lines for a command testee);
* **harness, all together**: every implementation's ``call_batch`` (command testees in threads while
  the in-process ones run: harness/testees/fanout.py) and the comparison of the answers, per input:
  what the sweep and the fuzzer pay per input, against the sum of the bare costs;
* **fuzzer**: examples per second of ``python -m harness fuzz`` on normalize_fact_text, generation,
  worker processes and classification included.

The goals are stated for the implementations whose declaration keeps ``speed_goals`` (reference, PyO3,
WASM); one that declares ``"speed_goals": false`` (Pyodide: a CPython compiled to WebAssembly) gets its
rows, and "together" and the fuzzer once more with every implementation, without a goal. Every
implementation's start-up is timed too (an import for one in process; the process and its start
handshake for a command testee).

Input sets: every fixture case's input (all ops, errors included), and 5,000 generated normalize inputs.
An input an implementation's host cannot hold is left out of every measurement of that set.

Every figure is attributed: the report keeps the machine's 1-minute load average at the start and the end
(``load``) beside its core count and its run envelope (the command, the session, the UTC start). ``markdown``
makes of a report the table the README's speed section quotes, a row per figure with the command that made it,
its date, the loads and the cores; ``main`` prints it last, and ``python -m harness.checks.bench --markdown
FILE [REPORT]`` writes it from a report already made (``nox -s bench -- --markdown FILE``).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness.classes.expected import ExpectedSet
from harness.differential.outcomes import agreeing
from harness.fixtures.load import all_cases
from harness.fuzzing.fuzz import fuzz
from harness.fuzzing.generate import Inputs
from harness.model import envelope, hostvalues
from harness.model.files import write_document
from harness.model.paths import ROOT
from harness.model.registry import get_op
from harness.model.schemas import problems
from harness.model.status import Unavailable, UsageError, exit_with
from harness.model.untrusted import read_document
from harness.testees import impls
from harness.testees.command import op_table
from harness.testees.fanout import call_all
from harness.testees.testee import Testee

OVERHEAD_GOAL = 2.0
FUZZ_GOAL = 20_000

Calls = list[tuple[str, dict[str, Any]]]


def input_sets() -> dict[str, Calls]:
    return {
        "fixture inputs": [(case.op, case.args) for case in all_cases()],
        "normalize inputs": [("normalize_fact_text", args) for args in Inputs(1).batch("normalize_fact_text", 5000)],
    }


def _rate(run: Callable[[], int], min_seconds: float) -> float:
    """Calls per second over repeated runs lasting at least ``min_seconds``."""
    done = 0
    start = time.perf_counter()
    while True:
        done += run()
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return done / elapsed


def bare_rate(name: str, impl: Testee, calls: Calls, min_seconds: float) -> tuple[float | None, str]:
    """(calls per second of the implementation's own loop, how it was measured)."""
    declared = impls.declaration(name)
    if isinstance(impl, impls.InProcess):
        functions = [(impl.resolve(get_op(op)), args) for op, args in calls]

        def direct() -> int:
            for function, args in functions:
                try:
                    function(**args)
                except Exception:  # noqa: BLE001 - a contract error is a result like any other
                    pass
            return len(functions)

        return _rate(direct, min_seconds), "Python loop calling the function"
    if declared.bare_bench is None:
        return None, "no bare_bench command declared"
    with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
        path = Path(scratch) / "requests.json"
        path.write_text(json.dumps({"ops": op_table(), "requests": [
            {"op": op, "args": hostvalues.encode_args(args)} for op, args in calls]}), encoding="ascii")
        proc = subprocess.run([*declared.bare_bench, str(path), "--seconds", str(min_seconds)], capture_output=True,
                              text=True, timeout=120 + 10 * min_seconds, env={**os.environ, **declared.env},
                              check=False)
    if proc.returncode != 0:
        return None, f"bare_bench failed: {proc.stderr.strip()[-300:]}"
    return (float(json.loads(proc.stdout.strip().splitlines()[-1])["requestsPerSecond"]),
            " ".join(declared.bare_bench[:2]))


def harness_rate(impl: Testee, calls: Calls, min_seconds: float) -> float:
    return _rate(lambda: len(impl.call_batch(calls)), min_seconds)


def together_rate(opened: dict[str, Testee], calls: Calls, min_seconds: float) -> float:
    """Inputs per second through every implementation, answers compared: the sweep's and fuzzer's path."""
    def run() -> int:
        answers = call_all(opened, {name: calls for name in opened})
        for j, (op, _) in enumerate(calls):
            agreeing(op, {name: column[j] for name, column in answers.items()})
        return len(calls)

    return _rate(run, min_seconds)


def fuzz_rate(opened: dict[str, Testee], seconds: float) -> dict[str, Any]:
    result = fuzz(opened, ExpectedSet([], []), seconds, seed=1, ops=["normalize_fact_text"], stream=io.StringIO())
    if result.unavailable or not result.seconds:  # the implementations never came up: no rate to give
        raise Unavailable(f"the fuzzer's rate: no fuzzing was done ({result.unavailable or 'its clock never started'})")
    return {"examplesPerSecond": result.examples / result.seconds, "examples": result.examples,
            "seconds": round(result.seconds, 2), "workers": result.workers, "goal": FUZZ_GOAL}


@contextmanager
def busy_machine() -> Iterator[int]:
    """One process spinning per core while the block runs (a CI runner shared with other jobs): yields how
    many. They are killed on the way out, whatever happens in the block."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
               for _ in range(os.cpu_count() or 1)]
    try:
        yield len(burners)
    finally:
        for burner in burners:
            burner.kill()
        for burner in burners:
            burner.wait()


def busy_fuzz_rate(opened: dict[str, Testee], seconds: float) -> dict[str, Any]:
    """``fuzz_rate`` on a busy machine (``busy_machine``), its goal none: measured beside the idle figure."""
    with busy_machine() as burners:
        found = fuzz_rate(opened, seconds)
    return {**found, "goal": None, "burners": burners}


def parallel_startup(names: list[str]) -> float:
    """Seconds to start every named implementation at once (``impls.start_each``, as the fuzzer and the
    sweep do), each closed again: beside ``startupSeconds``, which start them one by one."""
    started = time.perf_counter()
    opened = impls.start_each(names)
    seconds = time.perf_counter() - started
    for testee in opened.values():
        if not isinstance(testee, Exception):
            testee.close()
    return seconds


def _together(opened: dict[str, Testee], rows: list[dict[str, Any]], calls: Calls, min_seconds: float,
              goal: float | None) -> dict[str, Any]:
    """All of ``opened`` together against the sum of their bare costs (rows: their per-implementation rows)."""
    together = together_rate(opened, calls, min_seconds)
    bare_costs = [1.0 / row["bare"] for row in rows if row["implementation"] in opened and row["bare"]]
    complete = len(bare_costs) == len(opened)
    return {"implementations": list(opened), "harness": together,
            "bareSum": 1.0 / sum(bare_costs) if complete and bare_costs else None,
            # per-input cost through the harness / the sum of the bare per-input costs
            "overhead": (1.0 / together) / sum(bare_costs) if complete and bare_costs else None,
            "goal": goal}


def bench(min_seconds: float = 2.0, names: list[str] | None = None, fuzz_seconds: float = 10.0) -> dict[str, Any]:
    """The goals are stated for the implementations whose declaration keeps ``speed_goals`` (default);
    the others (a CPython in WebAssembly) are measured beside them: their rows, their start-up, and
    everything together once more, without a goal."""
    load_start = load_average()
    opened: dict[str, Testee] = {}
    unavailable = {}
    startup = {}
    for name in names or impls.names():
        started = time.perf_counter()
        try:
            opened[name] = impls.get_impl(name)
        except impls.ImplementationUnavailable as exc:
            unavailable[name] = str(exc)
            continue
        startup[name] = time.perf_counter() - started
    goal_set = {name: impl for name, impl in opened.items() if impls.declaration(name).speed_goals}
    sets = []
    try:
        for set_name, calls in input_sets().items():
            common = [c for c in calls if all(impls.declaration(n).can_express(c[1]) for n in opened)]
            rows = []
            for name, impl in opened.items():
                bare, how = bare_rate(name, impl, common, min_seconds)
                through = harness_rate(impl, common, min_seconds)
                rows.append({"implementation": name, "bare": bare, "bareHow": how, "harness": through,
                             "overhead": None if bare is None else bare / through,
                             "speedGoals": name in goal_set})
            found = {"inputs": set_name, "count": len(common), "left out": len(calls) - len(common), "rows": rows,
                     "together": _together(goal_set, rows, common, min_seconds, OVERHEAD_GOAL) if goal_set else None}
            if len(goal_set) < len(opened):
                found["togetherAll"] = _together(opened, rows, common, min_seconds, None)
            sets.append(found)
        fuzzing = fuzz_rate(goal_set, fuzz_seconds) if len(goal_set) > 1 else None
        fuzzing_all = fuzz_rate(opened, fuzz_seconds) if len(goal_set) < len(opened) and len(opened) > 1 else None
        if fuzzing_all:
            fuzzing_all["goal"] = None
        fuzzing_busy = busy_fuzz_rate(opened, fuzz_seconds) if len(opened) > 1 else None
        described = envelope.descriptions(opened)
    finally:
        for impl in opened.values():
            impl.close()
    together_start = parallel_startup(list(opened)) if len(opened) > 1 else None
    return {"schema": "bench-report-v1", "run": envelope.build(described), "benchmark": "bench-v3",
            "python": platform.python_version(), "machine": platform.machine(),
            "cores": os.cpu_count(), "implementations": list(opened), "goalSet": list(goal_set),
            "unavailable": unavailable, "startupSeconds": startup, "sets": sets,
            "fuzzer": fuzzing, "fuzzerAll": fuzzing_all, "fuzzerBusy": fuzzing_busy,
            "startupTogetherSeconds": together_start,
            # the machine's 1-minute load average as the run began and as it ended: every figure is read with it
            "load": {"start": load_start, "end": load_average()}}


def load_average() -> float | None:
    """The 1-minute load average now (None where the system keeps none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def _together_line(together: dict[str, Any]) -> str:
    names = " + ".join(together["implementations"])
    if together["overhead"] is None:
        return f"  together ({names}): {together['harness']:,.0f} inputs/s (no bare cost for every one)"
    line = (f"  together ({names}): {together['harness']:,.0f} inputs/s through the harness, "
            f"bare {together['bareSum']:,.0f}/s: overhead {together['overhead']:.2f}x")
    if together["goal"] is None:
        return line + " (measured beside the goal set, no goal)"
    verdict = "meets" if together["overhead"] <= together["goal"] else "MISSES"
    return line + f" ({verdict} the goal <= {together['goal']:.0f}x)"


def _fuzz_line(fuzzing: dict[str, Any], names: list[str]) -> str:
    line = (f"fuzzer, normalize_fact_text on {', '.join(names)}: {fuzzing['examplesPerSecond']:,.0f} examples/s "
            f"on {fuzzing['workers']} worker(s)")
    if fuzzing["goal"] is None:
        return line + " (no goal)"
    verdict = "meets" if fuzzing["examplesPerSecond"] >= fuzzing["goal"] else "MISSES"
    return line + f" ({verdict} the goal >= {fuzzing['goal']:,})"


def table(report: dict[str, Any]) -> str:
    lines = []
    startup = report.get("startupSeconds", {})
    if startup:
        lines.append("start-up (to a started implementation: an import in process; a process and its start "
                     "handshake for a command testee): "
                     + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in startup.items()))
    for found in report["sets"]:
        lines.append(f"{found['inputs']}: {found['count']:,} inputs"
                     + (f" ({found['left out']} not expressible everywhere, left out)" if found["left out"] else ""))
        lines.append(f"  {'implementation':<14} {'bare calls/s':>14} "
                     f"{'harness calls/s':>16} {'overhead':>9}  bare loop")
        for row in found["rows"]:
            bare = f"{row['bare']:>14,.0f}" if row["bare"] else f"{'-':>14}"
            overhead = f"{row['overhead']:>8.2f}x" if row["overhead"] else f"{'-':>9}"
            lines.append(f"  {row['implementation']:<14} {bare} {row['harness']:>16,.0f} {overhead}  {row['bareHow']}")
        if found["together"]:
            lines.append(_together_line(found["together"]))
        if found.get("togetherAll"):
            lines.append(_together_line(found["togetherAll"]))
    if report.get("fuzzer"):
        lines.append(_fuzz_line(report["fuzzer"], report.get("goalSet", report["implementations"])))
    if report.get("fuzzerAll"):
        lines.append(_fuzz_line(report["fuzzerAll"], report["implementations"]))
    if report.get("fuzzerBusy"):
        busy, idle = report["fuzzerBusy"], report.get("fuzzerAll") or report.get("fuzzer")
        ratio = f", {busy['examplesPerSecond'] / idle['examplesPerSecond']:.2f}x the idle rate" \
            if idle and idle["examplesPerSecond"] else ""
        lines.append(_fuzz_line(busy, report["implementations"]).replace(
            " (no goal)", f" on a busy machine ({busy['burners']} spinning processes{ratio}; no goal)"))
    if report.get("startupTogetherSeconds") is not None:
        lines.append(f"start-up of all {len(report['implementations'])} at once (as the fuzzer and the sweep start "
                     f"them): {report['startupTogetherSeconds']:.2f} s, one by one "
                     f"{sum(report.get('startupSeconds', {}).values()):.2f} s")
    for name, why in report["unavailable"].items():
        lines.append(f"{name}: unavailable ({why[:120]})")
    return "\n".join(lines)


MARKDOWN_COLUMNS = ("figure", "value", "command", "date (UTC)", "load (1 min, start → end)", "cores")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$")
LOADS = re.compile(r"^\d+(\.\d+)? → \d+(\.\d+)?$")


class BadBench(UsageError):
    """A bench report whose figures cannot be attributed (no date, load or cores): status 2, what is missing."""


def figures(report: dict[str, Any]) -> list[tuple[str, str]]:
    """Every figure of a report as (what it is, its value with its unit): what ``table`` prints, a figure a row."""
    out = [(f"start-up, {name}", f"{seconds:.2f} s") for name, seconds in report.get("startupSeconds", {}).items()]
    if report.get("startupTogetherSeconds") is not None:
        out.append((f"start-up, all {len(report['implementations'])} at once",
                    f"{report['startupTogetherSeconds']:.2f} s"))
    for found in report["sets"]:
        where = f"{found['inputs']} ({found['count']:,})"
        for row in found["rows"]:
            if row["bare"]:
                how = row["bareHow"].replace(f"{ROOT}/", "")  # the bare loop's script, from the checkout
                out.append((f"{where}, {row['implementation']} bare ({how})", f"{row['bare']:,.0f} calls/s"))
            out.append((f"{where}, {row['implementation']} through the harness", f"{row['harness']:,.0f} calls/s"))
            if row["overhead"]:
                out.append((f"{where}, {row['implementation']} overhead (bare / harness)", f"{row['overhead']:.2f}x"))
        for together in (found.get("together"), found.get("togetherAll")):
            if together:
                names = " + ".join(together["implementations"])
                value = f"{together['harness']:,.0f} inputs/s"
                if together["overhead"] is not None:
                    goal = "" if together["goal"] is None else f", goal <= {together['goal']:.0f}x"
                    value += f", overhead {together['overhead']:.2f}x{goal}"
                out.append((f"{where}, together ({names}), answers compared", value))
    for key, how in (("fuzzer", "fuzzer"), ("fuzzerAll", "fuzzer, every implementation"),
                     ("fuzzerBusy", "fuzzer on a busy machine")):
        fuzzing = report.get(key)
        if fuzzing:
            goal = "" if fuzzing["goal"] is None else f", goal >= {fuzzing['goal']:,}"
            busy = f", {fuzzing['burners']} spinning processes" if key == "fuzzerBusy" else ""
            out.append((f"{how}, normalize_fact_text, {fuzzing['workers']} worker(s){busy}",
                        f"{fuzzing['examplesPerSecond']:,.0f} examples/s{goal}"))
    return out


def attribution(report: dict[str, Any], where: str = "the bench report") -> tuple[str, str, str, str]:
    """(the command that made the report, its UTC start, its loads at start and end, its cores); BadBench names
    what is missing (a report written before the loads were kept has none: run the bench again)."""
    run = report.get("run") if isinstance(report.get("run"), dict) else {}
    session, command, started = run.get("session"), run.get("command"), run.get("started")
    load = report.get("load") if isinstance(report.get("load"), dict) else {}
    missing = [what for what, value in (("run.command", command), ("run.started", started),
                                        ("load.start", load.get("start")), ("load.end", load.get("end")),
                                        ("cores", report.get("cores"))) if value is None]
    if missing:
        raise BadBench(f"{where}: its figures cannot be attributed: no {', '.join(missing)} (a report of an older "
                       "bench, or not one: run `nox -s bench` again)")
    if session:
        made_by = f"nox -s {session}"
    else:
        words = shlex.split(str(command))
        if words and Path(words[0]).name.startswith("python"):
            words[0] = "python"
        made_by = " ".join(words)
    moment = str(started).replace("T", " ")[:16]
    if not DATE.match(moment):
        raise BadBench(f"{where}: run.started is not a UTC time (YYYY-MM-DDTHH:MM...Z): {started!r}")
    return made_by, moment, f"{load['start']:.2f} → {load['end']:.2f}", str(report["cores"])


def markdown(report: dict[str, Any], where: str = "the bench report") -> str:
    """The table the README's speed section quotes: a row per figure, each with its command, date, loads and
    cores (``MARKDOWN_COLUMNS``)."""
    made_by, moment, loads, cores = attribution(report, where)
    lines = ["| " + " | ".join(MARKDOWN_COLUMNS) + " |", "|" + "|".join("---" for _ in MARKDOWN_COLUMNS) + "|"]
    for figure, value in figures(report):
        lines.append(f"| {figure.replace('|', '/')} | {value} | `{made_by}` | {moment} | {loads} | {cores} |")
    return "\n".join(lines)


def main(out: Path, min_seconds: float, markdown_out: Path | None = None) -> int:
    if markdown_out is not None and not markdown_out.parent.is_dir():  # said before minutes of measuring, not after
        raise UsageError(f"--markdown {markdown_out}: its folder {markdown_out.parent} is not there")
    report = bench(min_seconds)
    print(f"{report['python']} on {report['machine']}, {report['cores']} cores")
    print(table(report))
    write_document(out, report, replaces=(report["schema"],), what="bench report")
    print(f"written {out}")
    quoted = markdown(report, str(out))
    print("\nthe table the README's speed section quotes:\n")
    print(quoted)
    if markdown_out is not None:
        _write_markdown(markdown_out, quoted)
    return 0


def _write_markdown(path: Path, text: str) -> None:
    try:
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--markdown {path}: cannot write it: {exc.strerror or exc}") from None
    print(f"written {path}")


def from_report(argv: list[str] | None = None) -> int:
    """``python -m harness.checks.bench [--markdown FILE] [REPORT]``: the README's table of a bench report made
    already (default reports/bench.json), printed, and written to FILE."""
    parser = argparse.ArgumentParser(prog="python -m harness.checks.bench", description=from_report.__doc__)
    parser.add_argument("report", nargs="?", type=Path, default=Path("reports/bench.json"),
                        help="a bench report (bench-report-v1)")
    parser.add_argument("--markdown", type=Path, default=None, help="write the table here too")
    args = parser.parse_args(argv)
    report = read_document(args.report, "bench report")
    found = problems(report)
    if found:
        raise BadBench(f"{args.report}: not a bench report (bench-report-v1): {found[0]}")
    quoted = markdown(report, str(args.report))
    print(quoted)
    if args.markdown is not None:
        _write_markdown(args.markdown, quoted)
    return 0


if __name__ == "__main__":
    exit_with(from_report)
