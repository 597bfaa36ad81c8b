"""The Rust core's bare cost per op, now against a baseline revision, side by side in one run, as ratios.

``python -m harness.tools.bench_baseline --baseline REV`` (``nox -s bench -- --baseline REV``) builds rust_core/ as it
is at git revision REV (``git archive`` into a scratch folder: PyO3 with maturin, WASM with
wasm_host/build.py) beside the working tree's build, then times each op's fixture inputs through both
builds' own loops, no protocol: a Python loop calling the PyO3 functions (each build in its own
interpreter: both are called memgate_rs), wasm_host/bench.js calling the WASM exports. Rounds alternate
baseline and current, ``--rounds`` of each; the ratio of an op is the median of its rounds' ratios
(current calls per second / baseline's), so a drift of the machine during the run hits both alike.

Prints a table; ``--out FILE`` writes it as JSON. Exit status 0 (it measures; it asserts nothing: see
docs/fuzzing.md for what was measured and when).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness.fixtures.load import all_cases  # noqa: E402
from harness.model import envelope, hostvalues  # noqa: E402
from harness.model.status import Unavailable  # noqa: E402
from harness.testees.command import op_table  # noqa: E402

OPS = ("normalize_fact_text", "decide_write", "build_dedup_context")

_PY_LOOP = r"""
import json, sys, time
import memgate_rs
from harness.model import hostvalues
calls = [(getattr(memgate_rs, r["op"]), hostvalues.decode_args(r["args"]))
         for r in json.load(open(sys.argv[1]))["requests"]]
seconds = float(sys.argv[2])
done, start = 0, time.perf_counter()
while time.perf_counter() - start < seconds:
    for function, args in calls:
        try:
            function(**args)
        except ValueError:
            pass
    done += len(calls)
print(json.dumps({"requestsPerSecond": done / (time.perf_counter() - start)}))
"""


def _run(command: list[str], env: dict[str, str] | None = None, timeout: float = 3600) -> str:
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, check=False, cwd=ROOT)
    if proc.returncode != 0:
        raise Unavailable(f"{' '.join(command[:4])} ... failed:\n{proc.stderr[-3000:]}")  # a build: status 3
    return proc.stdout


def build(tree: Path, scratch: Path, label: str) -> dict[str, Path]:
    """PyO3 (a site folder to put on PYTHONPATH) and WASM (a package folder) builds of ``tree/rust_core``."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(ROOT / "rust_core" / "target" / f"bench-{label}"))
    wheels = scratch / f"wheels-{label}"
    _run(["maturin", "build", "--release", "--manifest-path", str(tree / "rust_core" / "python" / "Cargo.toml"),
          "--out", str(wheels), "--interpreter", sys.executable], env)
    site = scratch / f"site-{label}"
    _run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
          *map(str, wheels.glob("*.whl"))])
    pkg = scratch / f"pkg-{label}"
    _run([sys.executable, str(ROOT / "wasm_host" / "build.py"), "--crate", str(tree / "rust_core"),
          "--target-dir", str(ROOT / "rust_core" / "target" / f"bench-wasm-{label}"), "--out", str(pkg)])
    return {"site": site, "pkg": pkg}


def checkout(revision: str, dest: Path) -> Path:
    """rust_core/ as it is at ``revision``, extracted below ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    archive = dest / "core.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", revision, "rust_core"], stdout=out,
                       check=True)
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():  # a tree of our own repository: refuse anything that leaves dest
            if member.name.startswith("/") or ".." in Path(member.name).parts or member.issym() or member.islnk():
                raise SystemExit(f"error: unexpected archive member {member.name}")
        tar.extractall(dest)  # every member checked above
    return dest


def rate(kind: str, built: dict[str, Path], requests: Path, seconds: float) -> float:
    if kind == "pyo3":
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(built["site"]), str(ROOT)]))
        out = _run([sys.executable, "-c", _PY_LOOP, str(requests), str(seconds)], env)
    else:
        out = _run(["node", str(ROOT / "wasm_host" / "bench.js"), str(requests), str(built["pkg"]),
                    "--seconds", str(seconds)])
    return float(json.loads(out.strip().splitlines()[-1])["requestsPerSecond"])


def measure(builds: dict[str, dict[str, Path]], scratch: Path, rounds: int, seconds: float) -> list[dict[str, Any]]:
    rows = []
    table = op_table()
    for op in OPS:
        cases = [c for c in all_cases() if c.op == op]
        requests = scratch / f"{op}.json"
        requests.write_text(json.dumps({"ops": table, "requests": [
            {"op": c.op, "args": hostvalues.encode_args(c.args)} for c in cases
            if not hostvalues.utf16_merges(list(c.args.values()))]}), encoding="ascii")
        for kind in ("pyo3", "wasm"):
            ratios, base_rates, now_rates = [], [], []
            for _ in range(rounds):
                base = rate(kind, builds["baseline"], requests, seconds)
                now = rate(kind, builds["current"], requests, seconds)
                base_rates.append(base)
                now_rates.append(now)
                ratios.append(now / base)
            rows.append({"op": op, "binding": kind, "cases": len(cases), "baseline": statistics.median(base_rates),
                         "current": statistics.median(now_rates), "ratio": statistics.median(ratios),
                         "ratios": ratios})
            print(f"  {op:<22} {kind:<5} current/baseline {statistics.median(ratios):.3f} "
                  f"(rounds: {', '.join(f'{r:.3f}' for r in ratios)})", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.bench_baseline",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="a git revision whose rust_core/ is the baseline")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0, help="per round, per build")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-baseline-") as scratch_name:
        scratch = Path(scratch_name)
        print(f"building rust_core at {args.baseline} and as it is now (release, PyO3 and WASM) ...", flush=True)
        builds = {"baseline": build(checkout(args.baseline, scratch / "base"), scratch, "baseline"),
                  "current": build(ROOT, scratch, "current")}
        rows = measure(builds, scratch, args.rounds, args.seconds)
    document = {"schema": "bench-baseline-v1", "run": envelope.build({}), "benchmark": "bench-baseline-v1",
                "baseline": args.baseline, "rounds": args.rounds,
                "secondsPerRound": args.seconds, "rows": rows}
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    worst = max(rows, key=lambda row: abs(row["ratio"] - 1.0))
    print(f"largest change: {worst['op']} through {worst['binding']}: {100 * (worst['ratio'] - 1):+.1f} %")
    return 0


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
