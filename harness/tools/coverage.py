"""Which branches of each implementation's own code the fixture cases and a fuzz run take, and which they do
not (issue 35, build 2): ``python -m harness.tools.coverage [--seconds 20]`` (``nox -s coverage``).

* **The reference** (Python): coverage.py, branch coverage of ``reference/``.
* **The Rust core** through the PyO3 module: LLVM source-based coverage with branch counts. The module is
  built once more with ``-C instrument-coverage -Z coverage-options=branch`` (``RUSTC_BOOTSTRAP=1``: the
  option is unstable) for this run alone, and read with the ``llvm-profdata`` and ``llvm-cov`` of the LLVM
  major rustc itself was built with: Debian's ``llvm-<major>`` (``llvm-profdata-22``: a dependency of the
  ``rust-web-llvm`` package the WASM build provisions), else rustup's ``llvm-tools`` component. Without
  either, the Rust side is not measured, and the run says which tool to install (status 3).
* **The WASM testee's JavaScript** (``wasm_host/testee.js`` and the wasm-bindgen glue it loads): V8's block
  coverage, which Node writes for each of its processes into ``NODE_V8_COVERAGE`` (``js_branches``). A unit is
  a block V8 counts (a function, a branch's body, the code after a return); one is taken when any process ran
  any of it. The ``.wasm`` itself is not in V8's coverage (the Rust core is measured through PyO3). Without
  Node or the built package, this side is not measured, and the run says why (status 3).

All run the same workload under coverage.py: every fixture case on the reference, the instrumented module and
the WASM testee (``harness check``), the parity suites on all three (``suites/parity``: fixtures, surface,
traces, properties), ``harness tracecheck`` (2,000 traced inputs per op), ``harness fuzz`` for ``--seconds``
with one worker and a fixed seed, and for the testee's own protocol paths ``harness selftest --impl wasm`` (bad
requests, a death mid-run) and its tests (``suites/testees/test_command_testee.py``: a trap, a broken package).

Every branch a side never takes must be listed with why in ``coverage/reasons.json`` (matched by file and
the text of the branch's line, so an entry survives lines moving): a branch neither taken nor listed fails
the run (status 1), and so does a branch on an internal threshold (the ``thresholds`` of that file: a scan
that switches to a set, a fast path) not taken on both sides, listed or not. An entry no branch needs any
more is printed as stale. The report: ``reports/coverage.json`` (schema coverage-report-v1).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.model import envelope, untrusted
from harness.model.files import write_document
from harness.model.paths import ROOT
from harness.model.schemas import problems
from harness.model.status import AGREE, FOUND, UNAVAILABLE, UsageError

REASONS = ROOT / "coverage" / "reasons.json"
PYO3_MANIFEST = ROOT / "rust_core" / "python" / "Cargo.toml"
TARGET = "x86_64-unknown-linux-gnu"  # named, so RUSTFLAGS skip the build's host tools (proc macros, build scripts)
RUST_SOURCES = ("rust_core/core/src/", "rust_core/python/src/")
PARITY = ("suites/parity",)  # the parity suites (fixtures, surface, traces, properties), on the measured sides
WASM_HOST = ROOT / "wasm_host"
# The testee's own: a trap, a broken package, its errors, a package without the traced-op list
WASM_TESTS = ("suites/testees/test_command_testee.py", "suites/tools/test_op_table.py")


@dataclass(frozen=True)
class Branch:
    """One branch of one implementation: where, the text of its line, and how often each side was taken (a
    Python branch is an arc from a line to another, its ``sides`` (taken, 0) or (0, 0); a Rust branch is a
    condition, its sides (true, false))."""

    implementation: str
    file: str
    line: int
    text: str
    sides: tuple[int, ...]
    arc: str  # "55->56" for Python; "true/false" for Rust; "chars 120-160" for JavaScript

    @property
    def untaken(self) -> bool:
        return any(count == 0 for count in self.sides)


def _line(file: str, number: int) -> str:
    try:
        return (ROOT / file).read_text(encoding="utf-8").splitlines()[number - 1].strip()
    except (OSError, IndexError):
        return ""


def llvm_tools() -> tuple[Path, Path] | str:
    """(llvm-profdata, llvm-cov) of rustc's own LLVM major, or why there are none."""
    try:
        verbose = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"rustc is not usable ({exc})"
    found = re.search(r"^LLVM version: (\d+)", verbose, re.M)
    if found is None:
        return "rustc -vV names no LLVM version"
    major = found.group(1)
    debian = [shutil.which(f"llvm-profdata-{major}"), shutil.which(f"llvm-cov-{major}")]
    if all(debian):
        return Path(debian[0]), Path(debian[1])  # type: ignore[arg-type]
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True,
                             check=False).stdout.strip()
    rustup = Path(sysroot) / "lib" / "rustlib" / TARGET / "bin"
    if (rustup / "llvm-profdata").is_file() and (rustup / "llvm-cov").is_file():
        return rustup / "llvm-profdata", rustup / "llvm-cov"
    return (f"no llvm-profdata/llvm-cov of LLVM {major} (rustc's): install Debian's llvm-{major} "
            f"(apt-get install llvm-{major}) or rustup's llvm-tools component")


def build_instrumented(scratch: Path) -> Path:
    """The PyO3 module built with coverage instrumentation and branch counts, installed into a folder of its
    own (first on PYTHONPATH for the run); that folder."""
    wheels, site = scratch / "wheels", scratch / "site"
    env = {**os.environ, "RUSTC_BOOTSTRAP": "1", "RUSTFLAGS": "-C instrument-coverage -Z coverage-options=branch",
           "CARGO_TARGET_DIR": str(ROOT / "rust_core" / "target" / "coverage"),
           "LLVM_PROFILE_FILE": str(scratch / "build-%p-%m.profraw")}
    maturin = Path(sys.executable).parent / "maturin"
    subprocess.run([str(maturin) if maturin.is_file() else "maturin", "build", "--release", "--manifest-path",
                    str(PYO3_MANIFEST), "--interpreter", sys.executable, "--target", TARGET, "--out", str(wheels)],
                   env=env, check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                    *map(str, wheels.glob("*.whl"))], check=True)
    return site


def wasm_testee() -> str | None:
    """Why the WASM testee's JavaScript cannot be measured here, or None."""
    if shutil.which("node") is None:
        return "node is not on PATH (Debian: apt-get install nodejs)"
    if not (WASM_HOST / "pkg" / "memgate_wasm.js").is_file():
        return "the WASM package is not built (nox -s build-wasm, or python wasm_host/build.py)"
    return None


def run_workload(scratch: Path, site: Path | None, seconds: float, wasm: bool = False) -> Path:
    """Every fixture case on the reference (on the instrumented module, on the WASM testee), the parity suites,
    tracecheck and a fuzz run of them all, in processes under coverage.py; the coverage data file. The module's
    profiles go to scratch/prof/, Node's block coverage to scratch/v8/."""
    data = scratch / ".coverage"
    env = {**os.environ, "LLVM_PROFILE_FILE": str(scratch / "prof" / "%p-%m.profraw")}
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    if wasm:
        env["NODE_V8_COVERAGE"] = str(scratch / "v8")
    impls = ["reference"] + (["pyo3"] if site is not None else []) + (["wasm"] if wasm else [])
    steps = [["check", "--impl", name, "--results", str(scratch / f"check-{name}.json")] for name in impls]
    steps.append(["-m", "pytest", *PARITY, *(WASM_TESTS if wasm else ()), "-q", "-p", "no:cacheprovider",
                  *[f"--impl={name}" for name in impls]])
    steps.append(["tracecheck", "--impls", ",".join(impls), "--examples", "2000", "--seed", "1"])
    steps.append(["fuzz", "--impls", ",".join(impls), "--seconds", str(seconds), "--workers", "1", "--seed", "1",
                  "--report", str(scratch / "fuzz.json")])
    if wasm:
        steps.append(["selftest", "--impl", "wasm"])
    for number, step in enumerate(steps):
        module = step[:2] if step[0] == "-m" else ["-m", "harness"]
        command = [sys.executable, "-m", "coverage", "run", "--branch", "--source", str(ROOT / "reference"),
                   "--data-file", str(data), *(["--append"] if number else []), *module,
                   *(step[2:] if step[0] == "-m" else step)]
        done = subprocess.run(command, env=env, cwd=ROOT, check=False)
        if done.returncode not in (AGREE, FOUND):  # a verdict either way; anything else is the run failing
            raise RuntimeError(f"{' '.join(step[:4])} under coverage ended with status {done.returncode}")
    return data


def python_branches(data: Path, scratch: Path) -> list[Branch]:
    out = scratch / "coverage.json"
    subprocess.run([sys.executable, "-m", "coverage", "json", "--data-file", str(data), "-o", str(out), "-q"],
                   cwd=ROOT, check=True)
    found = []
    for path, measured in json.loads(out.read_text(encoding="utf-8"))["files"].items():
        file = Path(path).resolve().relative_to(ROOT).as_posix()
        for taken, arcs in ((1, measured.get("executed_branches", [])), (0, measured.get("missing_branches", []))):
            for start, end in arcs:
                found.append(Branch("reference", file, start, _line(file, start), (taken,), f"{start}->{end}"))
    return found


def rust_branches(scratch: Path, site: Path, tools: tuple[Path, Path]) -> list[Branch]:
    profdata, cov = tools
    merged = scratch / "pyo3.profdata"
    subprocess.run([str(profdata), "merge", "-sparse", *map(str, (scratch / "prof").glob("*.profraw")), "-o",
                    str(merged)], check=True)
    (module,) = site.glob("memgate_rs/*.so")
    exported = subprocess.run([str(cov), "export", "-format=text", "--object", str(module), "--instr-profile",
                               str(merged), "--ignore-filename-regex=/.cargo/registry|/rustc/"],
                              capture_output=True, text=True, check=True).stdout
    sides: dict[tuple[str, int, int], list[int]] = defaultdict(lambda: [0, 0])
    for function in json.loads(exported)["data"][0]["functions"]:
        files = function["filenames"]
        for start, column, _, _, true, false, file_id, *_ in function.get("branches", []):
            file = Path(files[file_id]).resolve()
            if not file.is_relative_to(ROOT):
                continue
            key = (file.relative_to(ROOT).as_posix(), start, column)
            sides[key][0], sides[key][1] = max(sides[key][0], true), max(sides[key][1], false)  # instantiations
    return [Branch("pyo3", file, line, _line(file, line), tuple(counts), "true/false")
            for (file, line, _), counts in sorted(sides.items()) if file.startswith(RUST_SOURCES)]


def _painted(script: dict[str, Any], size: int) -> list[int]:
    """One process's count at each character of a script: V8's ranges nest, and an inner range's count is
    the count of the characters it covers (ranges by start, the wider first, so each inner one paints last)."""
    counts = [0] * size
    ranges = sorted((r for function in script["functions"] for r in function["ranges"]),
                    key=lambda r: (r["startOffset"], -r["endOffset"]))
    for r in ranges:
        start, end = max(0, r["startOffset"]), min(size, r["endOffset"])
        counts[start:end] = [r["count"]] * max(0, end - start)
    return counts


def _code_at(source: str, start: int, end: int) -> int | None:
    """The first character of a span that is code (not blank, not a closing bracket or a separator), or None."""
    for offset in range(start, end):
        if not source[offset].isspace() and source[offset] not in "})];,":
            return offset
    return None


def _unique_text(source: str, number: int) -> str:
    """The text of a line, with the lines after it (up to three in all, one per line) while it is not
    unique in the file: a reason names one block, not every ``} catch (err) {``."""
    lines = [line.strip() for line in source.splitlines()]
    text = lines[number - 1]
    for more in range(number, min(number + 2, len(lines))):
        if sum(1 for at in range(len(lines)) if "\n".join(lines[at:at + more - number + 1]) == text) <= 1:
            break
        text += "\n" + lines[more]
    return text


def js_branches(folder: Path) -> list[Branch]:
    """The WASM testee's JavaScript blocks from Node's V8 coverage files: each block any process reports (by its
    span), taken when some process ran any character of it. A block never taken inside another never taken is
    left out (its outer one says it); a block with no code of its own (a closing bracket) is too."""
    counts: dict[str, list[int]] = {}
    spans: dict[str, set[tuple[int, int]]] = defaultdict(set)
    sources: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            scripts = json.loads(path.read_text(encoding="utf-8"))["result"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RuntimeError(f"{path}: not a V8 coverage file Node wrote ({exc})") from None
        for script in scripts:
            url = str(script.get("url", ""))
            file = Path(url.removeprefix("file://")) if url.startswith("file://") else None
            if file is None or not file.resolve().is_relative_to(WASM_HOST):
                continue
            name = file.resolve().relative_to(ROOT).as_posix()
            if name not in sources:
                sources[name] = file.read_text(encoding="utf-8")
                counts[name] = [0] * len(sources[name])
            painted = _painted(script, len(sources[name]))
            counts[name] = [max(a, b) for a, b in zip(counts[name], painted, strict=True)]
            for function in script["functions"]:
                for r in function["ranges"]:
                    if r["startOffset"] > 0 or r["endOffset"] < len(sources[name]):  # the whole script: not a block
                        spans[name].add((r["startOffset"], r["endOffset"]))
    found = []
    for name, blocks in sorted(spans.items()):
        source, merged = sources[name], counts[name]
        untaken = [(start, end) for start, end in blocks if not any(merged[start:end])]
        for start, end in sorted(blocks):
            taken = any(merged[start:end])
            if not taken and any(a <= start and end <= b and (a, b) != (start, end) for a, b in untaken):
                continue  # inside a block never taken
            code = _code_at(source, start, end)
            if code is None:
                continue
            line = source.count("\n", 0, code) + 1
            found.append(Branch("wasm", name, line, _unique_text(source, line), (1 if taken else 0,),
                                f"chars {start}-{end}"))
    return found


def load_reasons(path: Path = REASONS) -> dict[str, Any]:  # a bad file: UsageError (status 2), naming it
    """coverage/reasons.json: {"reasons": [{implementation, file, line (its text), why}], "thresholds":
    [{implementation, file, line, what}]}."""
    document = untrusted.read_document(path, "coverage reasons file (schema coverage-reasons-v1)", unique_keys=True)
    found = problems(document, "coverage-reasons-v1")
    if found:
        raise UsageError(f"{path}: not a coverage-reasons-v1 document: " + "; ".join(found[:3]))
    return document


def _matches(entry: dict[str, Any], branch: Branch) -> bool:
    return entry["implementation"] == branch.implementation and entry["file"] == branch.file and \
        entry["line"] == branch.text


def judge(branches: list[Branch], reasons: dict[str, Any]) -> dict[str, Any]:
    """Per implementation: branches, taken, the untaken with their reasons; the unexplained, the thresholds
    not taken both ways, the stale entries."""
    per: dict[str, dict[str, Any]] = {}
    used: set[int] = set()
    for branch in branches:
        side = per.setdefault(branch.implementation, {"branches": 0, "taken": 0, "untaken": []})
        side["branches"] += len(branch.sides) if branch.implementation != "reference" else 1
        side["taken"] += sum(1 for count in branch.sides if count)
        if not branch.untaken:
            continue
        number, entry = next(((n, e) for n, e in enumerate(reasons["reasons"]) if _matches(e, branch)), (-1, None))
        if entry is not None:
            used.add(number)
        side["untaken"].append({"file": branch.file, "line": branch.line, "text": branch.text, "branch": branch.arc,
                                "sides": list(branch.sides), "why": None if entry is None else entry["why"]})
    thresholds = []
    for entry in reasons.get("thresholds", []):
        seen = [b for b in branches if _matches(entry, b)]
        if not seen or any(b.untaken for b in seen):
            thresholds.append({**entry, "found": bool(seen), "sides": [list(b.sides) for b in seen]})
    measured = {b.implementation for b in branches}
    stale = [entry for number, entry in enumerate(reasons["reasons"])
             if number not in used and entry["implementation"] in measured]
    unexplained = [(name, item) for name, side in per.items() for item in side["untaken"] if item["why"] is None]
    return {"implementations": per, "unexplained": len(unexplained), "thresholdsMissed": thresholds, "stale": stale}


def table(verdict: dict[str, Any], unmeasured: dict[str, str]) -> str:
    lines = []
    for name, side in verdict["implementations"].items():
        lines.append(f"{name}: {side['taken']}/{side['branches']} branch sides taken; "
                     f"{len(side['untaken'])} branch(es) with a side never taken")
        for item in side["untaken"]:
            why = item["why"] or "NOT LISTED in coverage/reasons.json"
            shown = item["text"].replace("\n", " / ")[:60]
            lines.append(f"  {item['file']}:{item['line']} {item['branch']} {item['sides']}  {shown}")
            lines.append(f"      {why}")
    for item in verdict["thresholdsMissed"]:
        lines.append(f"THRESHOLD NOT TAKEN BOTH WAYS: {item['implementation']} {item['file']}: {item['line']} "
                     f"({item['what']}): {item['sides'] or 'no such branch measured'}")
    for entry in verdict["stale"]:
        lines.append(f"stale entry (its branch is taken now, or gone): {entry['implementation']} {entry['file']}: "
                     f"{entry['line']}")
    for name, why in unmeasured.items():
        lines.append(f"{name}: not measured: {why}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.coverage", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="the fuzz run's budget (default 20)")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "coverage.json")
    args = parser.parse_args(argv)
    reasons = load_reasons()
    unmeasured: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="coverage-") as folder:
        scratch = Path(folder)
        (scratch / "prof").mkdir()
        tools = llvm_tools()
        site = None
        if isinstance(tools, str):
            unmeasured["pyo3 (the Rust core)"] = tools
        else:
            site = build_instrumented(scratch)
        wasm = wasm_testee()
        if wasm is not None:
            unmeasured["wasm (the testee's JavaScript)"] = wasm
        data = run_workload(scratch, site, args.seconds, wasm is None)
        branches = python_branches(data, scratch)
        if site is not None and not isinstance(tools, str):
            branches += rust_branches(scratch, site, tools)
        if wasm is None:
            branches += js_branches(scratch / "v8")
    verdict = judge(branches, reasons)
    print(table(verdict, unmeasured))
    write_document(args.out, {"schema": "coverage-report-v1", "run": envelope.build({}), "seconds": args.seconds,
                              "unmeasured": unmeasured, **verdict}, replaces=("coverage-report-v1",),
                   what="coverage report")
    print(f"written {args.out}")
    if verdict["unexplained"] or verdict["thresholdsMissed"]:
        return FOUND
    return UNAVAILABLE if unmeasured else AGREE


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
