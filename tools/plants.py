"""Planted divergences: each must be found by the fuzzer within the time budget, with the right cause.

``python -m tools.plants [--seconds 60] [--only TEXT]`` (or ``nox -s plants``) plants each bug in a
scratch copy, runs ``python -m harness fuzz`` on it, and checks the report for a *new* divergence of
the expected op and cause. Reports are kept in reports/plants/.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tools.mutants import REFERENCE_MUTATIONS, RUST_MUTATIONS, ROOT, Mutation, apply

REPORTS = ROOT / "reports" / "plants"


@dataclass(frozen=True)
class Plant:
    name: str
    kind: str  # "reference", "rust" or "wasm-glue"
    impls: str
    op: str
    cause: str
    mutation: Mutation | None = None


def _mutation(name: str, pool: list[Mutation]) -> Mutation:
    return next(m for m in pool if m.name == name)


NFC_FROM_PYTHON = Mutation(
    "reference NFC from Python's unicodedata", "reference/unicode_data.py",
    'NORMALIZATION_VERSION: str = unicodedata2.unidata_version',
    'NORMALIZATION_VERSION: str = unicodedata.unidata_version', (),
    more=(('    return unicodedata2.normalize("NFC", text)', '    return unicodedata.normalize("NFC", text)'),),
)

PLANTS = [
    Plant("str.strip() in the reference's dedup-context trim", "reference", "reference,pyo3,wasm",
          "build_dedup_context", "whitespace_definition",
          _mutation("str-strip-as-trim (dedup context)", REFERENCE_MUTATIONS)),
    Plant("JS cap wrapped with >>> 0", "wasm-glue", "reference,wasm", "build_dedup_context", "boundary_coercion"),
    Plant("binary32 accumulation in the core", "rust", "reference,pyo3", "decide_write", "float_rounding",
          _mutation("binary32-accumulation", RUST_MUTATIONS)),
    Plant("reference NFC from a different Unicode version (CPython's 14.0)", "reference", "reference,pyo3,wasm",
          "normalize_fact_text", "unicode_version_skew", NFC_FROM_PYTHON),
]

CAP_WRAP = "function buildDedupContext(topicalJson, pinnedJson, recentJson, cap) {\n"


def _prepare(plant: Plant, scratch: Path) -> tuple[Path, dict[str, str]]:
    """(working directory, environment) for a fuzz run with the plant in place."""
    env = dict(os.environ)
    tree = scratch / "tree"
    tree.mkdir()
    for name in ("harness", "generators", "fixtures", "expected", "wasm_host"):
        os.symlink(ROOT / name, tree / name)
    if plant.kind == "reference":
        shutil.copytree(ROOT / "reference", tree / "reference")
        assert plant.mutation is not None
        apply(plant.mutation, tree)
    else:
        os.symlink(ROOT / "reference", tree / "reference")
    path = [str(tree)]
    if plant.kind == "rust":
        assert plant.mutation is not None
        shutil.copytree(ROOT / "rust_core", tree / "rust_core", ignore=shutil.ignore_patterns("target"))
        apply(plant.mutation, tree)
        wheels = scratch / "wheels"
        build_env = dict(env, CARGO_TARGET_DIR=str(ROOT / "rust_core" / "target" / "mutants"))
        subprocess.run(["maturin", "build", "--release", "--manifest-path",
                        str(tree / "rust_core" / "python" / "Cargo.toml"),
                        "--out", str(wheels), "--interpreter", sys.executable], env=build_env, check=True,
                       capture_output=True)
        site = scratch / "site"
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                        *map(str, wheels.glob("*.whl"))], check=True, capture_output=True)
        path.insert(0, str(site))
    if plant.kind == "wasm-glue":
        pkg = scratch / "pkg"
        shutil.copytree(ROOT / "wasm_host" / "pkg", pkg)
        glue = pkg / "memgate_wasm.js"
        text = glue.read_text()
        if text.count(CAP_WRAP) != 1:
            raise AssertionError("the wasm-bindgen glue changed; update CAP_WRAP in tools/plants.py")
        glue.write_text(text.replace(CAP_WRAP, CAP_WRAP + "    if (typeof cap === 'number') cap = cap >>> 0;\n"))
        env["MEMGATE_WASM_PKG"] = str(pkg)
    env["PYTHONPATH"] = os.pathsep.join(path + [p for p in sys.path[1:] if p])
    return tree, env


def run_plant(plant: Plant, seconds: float) -> tuple[bool, dict, str]:
    REPORTS.mkdir(parents=True, exist_ok=True)
    slug = "".join(ch if ch.isalnum() else "-" for ch in plant.name.lower()).strip("-")[:60]
    report_path = REPORTS / f"{slug}.json"
    with tempfile.TemporaryDirectory(prefix="plant-") as scratch:
        tree, env = _prepare(plant, Path(scratch))
        proc = subprocess.run([sys.executable, "-m", "harness", "fuzz", "--seconds", str(seconds), "--stop-after-new", "10", "--impls",
                               plant.impls, "--report", str(report_path)], cwd=tree, env=env, capture_output=True,
                              text=True, timeout=seconds * 4 + 300)
    report = json.loads(report_path.read_text())
    new = [d for d in report["divergences"] if d["status"] == "new"]
    hits = [d for d in new if d["op"] == plant.op and d["cause"] == plant.cause]
    # One bug, one report per op it shows in: exactly one new class of the plant's op, with its cause,
    # within the budget; the same bug seen through another op (same cause) is allowed, any other
    # cause is a wrong explanation.
    in_op = [d for d in new if d["op"] == plant.op]
    found = len(in_op) == 1 and len(hits) == 1 and all(d["cause"] == plant.cause for d in new) and \
        hits[0]["foundAfterSeconds"] is not None and hits[0]["foundAfterSeconds"] <= seconds
    return found, report, proc.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.plants")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--only", default=None)
    args = parser.parse_args(argv)
    status = 0
    for plant in PLANTS:
        if args.only and args.only not in plant.name:
            continue
        found, report, output = run_plant(plant, args.seconds)
        hits = [d for d in report["divergences"] if d["status"] == "new"]
        verdict = "FOUND, ONE REPORT" if found else ("NOT FOUND" if not hits else "FOUND, BUT NOT AS ONE REPORT")
        print(f"== {plant.name}: {verdict} ({plant.op}, {plant.cause}) in {report['examples']:,} examples")
        for d in hits:
            print(f"   new: {d['op']} {d['cause']} ({d['detail']}) after {d['foundAfterSeconds']}s, "
                  f"args {json.dumps(d['args'], ensure_ascii=True)[:200]}")
        if not found:
            status = 1
            print(output[-3000:])
    return status


if __name__ == "__main__":
    sys.exit(main())
