"""Planted bugs: each one is a small source edit that a check must catch.

``python -m suites.mutants`` applies each mutation to a scratch copy of the reference, runs every
fixture case on it (``python -m harness check --impl reference``) and prints the case ids that fail.
``suites/test_mutants.py`` asserts that every mutation is caught by the cases listed here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to the repository root
    old: str
    new: str
    must_fail: tuple[str, ...]  # fixture cases (fixture/id) that must catch it
    needs: tuple[str, ...] = ()  # modules the mutated code imports


REFERENCE_MUTATIONS = [
    Mutation("str-strip-as-trim (normalize)", "reference/normalize.py",
             "    return strip_edges(text)  # step 7", "    return strip_edges(text.strip())  # step 7",
             ("write-gate-v1/norm-not-ws-u001c", "write-gate-v1/norm-not-ws-u001f")),
    Mutation("str-strip-as-trim (dedup context)", "reference/dedup_context.py",
             "    return \" \".join(trimmed for trimmed in map(_trim, pieces) if trimmed)",
             "    return \" \".join(trimmed for trimmed in (p.strip() for p in pieces) if trimmed)",
             ("dedup-context-v1/ctx-u001c-line-edges",)),
    Mutation("greater-than-for-at-least", "reference/write_gate.py",
             "best_sim >= threshold", "best_sim > threshold",
             ("write-gate-v1/gate-threshold-exactly-default", "write-gate-v1/gate-threshold-exact-3-4-5")),
    Mutation("numpy-dot-similarity", "reference/write_gate.py",
             "    total = 0.0\n    for x, y in zip(a, b):\n        total += x * y\n    return total",
             "    import numpy\n\n    return float(numpy.dot(numpy.array(a), numpy.array(b)))",
             ("write-gate-v1/gate-summation-order-16d",), needs=("numpy",)),
    Mutation("math-fsum-similarity", "reference/write_gate.py",
             "    total = 0.0\n    for x, y in zip(a, b):\n        total += x * y\n    return total",
             "    return math.fsum(x * y for x, y in zip(a, b))",
             ("write-gate-v1/gate-summation-order-16d", "write-gate-v1/gate-summation-cancellation")),
    Mutation("threshold-as-binary32", "reference/write_gate.py",
             "best_sim >= threshold", "best_sim >= to_binary32(threshold)",
             ("write-gate-v1/gate-threshold-exactly-default",)),
    Mutation("pinned-kept-in-auto", "reference/write_gate.py",
             '(mode == "auto" and candidate.pinned)', "False",
             ("write-gate-v1/gate-pinned-near-auto", "write-gate-v1/gate-pinned-best-skipped-auto")),
    Mutation("nfc-skipped-after-lowercasing", "reference/normalize.py",
             "    text = nfc(text)  # step 5\n", "",
             ("write-gate-v1/norm-nfc-after-lower-h-macron-below", "write-gate-v1/norm-nfc-after-lower-j-caron",
              "write-gate-v1/norm-nfc-after-lower-dotted-i-mark")),
    Mutation("negative-cap-accepted", "reference/host.py",
             "if not 0 <= cap_int <= CAP_MAX:", "if not cap_int <= CAP_MAX:",
             ("dedup-context-v1/ctx-error-cap-negative",)),
]


def run_mutation(mutation: Mutation) -> tuple[list[str], str]:
    """Apply ``mutation`` in a scratch tree and return (failing case ids, output)."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as scratch:
        tree = Path(scratch)
        shutil.copytree(ROOT / "reference", tree / "reference")
        for name in ("harness", "fixtures"):
            os.symlink(ROOT / name, tree / name)
        target = tree / mutation.file
        source = target.read_text(encoding="utf-8")
        if source.count(mutation.old) != 1:
            raise AssertionError(f"{mutation.name}: the text to replace occurs {source.count(mutation.old)} times "
                                 f"in {mutation.file}; update the mutation")
        target.write_text(source.replace(mutation.old, mutation.new), encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree)] + sys.path[1:]))
        proc = subprocess.run([sys.executable, "-m", "harness", "check", "--impl", "reference"], cwd=tree, env=env,
                              capture_output=True, text=True, timeout=300)
    failing = [line.split(" ", 2)[1].rstrip(":") for line in proc.stdout.splitlines() if line.startswith("FAIL ")]
    return failing, proc.stdout + proc.stderr


def main() -> int:
    status = 0
    for mutation in REFERENCE_MUTATIONS:
        failing, output = run_mutation(mutation)
        caught = "CAUGHT" if failing else "NOT CAUGHT"
        print(f"{mutation.name}: {caught} by {len(failing)} case(s)")
        for case_id in failing:
            print(f"    {case_id}")
        if not failing:
            status = 1
            print(output[-2000:])
    return status


if __name__ == "__main__":
    sys.exit(main())
