"""A bug planted in the Rust core shows in its trace at the step it is in: one plant per op, built once.

``python -m harness.tools.trace_plants`` (run by ``nox -s mutants``) copies rust_core/ into a scratch folder, plants
every bug of ``PLANTS`` there (each in a different op, so one build carries them all), builds the PyO3
module with maturin, and traces each plant's witness on the reference and on the planted module. It passes
when, for every plant, the first entry where the two traces part is the plant's step, the planted module's
trace ends in its own op's output (the trace runs the op's own code), and an unplanted witness of the same
op still traces exactly as the reference does (the plants touch nothing else). Exit status 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.tools.mutants import ROOT, Mutation, apply, copy_rust_core


@dataclass(frozen=True)
class TracePlant:
    mutation: Mutation
    op: str
    witness: dict[str, Any]  # an input the bug changes
    step: str  # where its trace must part from the reference's
    untouched: dict[str, Any]  # an input of the same op the bug does not reach


def _core(name: str, file: str, old: str, new: str) -> Mutation:
    return Mutation(name, f"rust_core/core/src/{file}", old, new, ())


PLANTS = [
    TracePlant(_core("quote map misses U+2019", "normalize.rs", "'\\u{2018}' | '\\u{2019}' | '\\u{201A}'",
                     "'\\u{2018}' | '\\u{201A}'"),
               "normalize_fact_text", {"text": "It\u2019s TEA"}, "norm.quote_dash", {"text": "Tea \u2018x"}),
    TracePlant(_core("pinned candidates compared in auto", "write_gate.rs", "if mode == Mode::Auto && c.pinned {",
                     "if mode == Mode::Auto && c.pinned && false {"),
               "decide_write", {"text": "new fact", "embedding_json": "[1,0]", "candidates_json":
                                '[{"id":"p","text":"old","pinned":true,"embedding":[1,0]}]'},
               "gate.similarity",
               {"text": "new fact", "embedding_json": "[1,0]", "candidates_json":
                '[{"id":"p","text":"old","embedding":[1,0]}]'}),
    TracePlant(_core("ids with brackets kept", "dedup_context.rs", "            if id.contains(['[', ']']) {\n",
                     "            if false {\n"),
               "build_dedup_context", {"topical_json": '[{"id":"[x]","text":"t"},{"id":"y","text":"u"}]',
                                       "pinned_json": "null", "recent_json": "null"},
               "ctx.skip_bracket",
               {"topical_json": '[{"id":"x","text":"t"}]', "pinned_json": "null", "recent_json": "null"}),
]

# Run in a fresh interpreter whose memgate_rs is the planted build: prints one JSON line per plant.
_PROBE = r"""
import json, sys
import memgate_rs, reference
from harness.checks.traces import problems
from harness.model.traces import first_difference, parse
for op, witness, untouched in json.loads(sys.argv[1]):
    out = {}
    for label, args in (("witness", witness), ("untouched", untouched)):
        ours, theirs = parse(reference.trace(op, args)), parse(memgate_rs.trace(op, args))
        parting = first_difference(ours, theirs)
        try:
            own = {"ok": getattr(memgate_rs, op)(**args)}
        except ValueError as exc:
            own = {"error": {"code": str(exc).split(":")[0], "message": str(exc)}}
        out[label] = {"parting": parting and parting.step,
                      "problems": problems(op, {"ok": memgate_rs.trace(op, args)}, own)}
    print(json.dumps(out))
"""


def verdicts(results: list[dict[str, Any]]) -> list[str]:
    """One line per plant: ``ok`` or what is wrong."""
    lines = []
    for plant, result in zip(PLANTS, results, strict=True):
        wrong = []
        if result["witness"]["parting"] != plant.step:
            wrong.append(f"the traces part at {result['witness']['parting']}, not at {plant.step}")
        if result["witness"]["problems"]:
            wrong.append(f"the planted trace: {result['witness']['problems'][0]}")
        if result["untouched"]["parting"] is not None:
            wrong.append(f"an input the plant does not reach parts at {result['untouched']['parting']}")
        lines.append(f"{'ok  ' if not wrong else 'FAIL'} {plant.op}: {plant.mutation.name}: "
                     + ("; ".join(wrong) if wrong else f"shows first at {plant.step}"))
    return lines


def run() -> list[str]:
    env = dict(os.environ, CARGO_TARGET_DIR=str(ROOT / "rust_core" / "target" / "trace-plants"))
    with tempfile.TemporaryDirectory(prefix="trace-plants-") as scratch_name:
        scratch = Path(scratch_name)
        tree = scratch / "tree"
        copy_rust_core(tree / "rust_core")
        for plant in PLANTS:
            apply(plant.mutation, tree)
        wheels = scratch / "wheels"
        proc = subprocess.run(["maturin", "build", "--manifest-path", str(tree / "rust_core" / "python" / "Cargo.toml"),
                               "--out", str(wheels), "--interpreter", sys.executable], env=env, capture_output=True,
                              text=True, timeout=1800, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"the planted core does not build:\n{proc.stderr[-3000:]}")
        site = scratch / "site"
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                        *map(str, wheels.glob("*.whl"))], check=True, capture_output=True)
        cases = json.dumps([[plant.op, plant.witness, plant.untouched] for plant in PLANTS])
        probe = subprocess.run([sys.executable, "-c", _PROBE, cases], cwd=ROOT, capture_output=True, text=True,
                               env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)])),
                               timeout=300, check=False)
        if probe.returncode != 0:
            raise SystemExit(f"the probe failed:\n{probe.stderr[-3000:]}")
    return verdicts([json.loads(line) for line in probe.stdout.splitlines() if line.strip()])


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m harness.tools.trace_plants",
                            description=__doc__.split("\n\n")[0]).parse_args(argv)
    lines = run()
    print("\n".join(lines))
    return 1 if any(line.startswith("FAIL") for line in lines) else 0


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
