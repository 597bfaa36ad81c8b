"""No test build compiles the core differently from what ships.

Cargo unifies the features of a dependency over everything one command builds: `cargo test -p
memgate-fixture-tests` compiles memgate-core's serde_json with every feature the test crate asks for too.
A feature the shipped builds lack (say `float_roundtrip`, removed from the core but kept by the test
crate) would then be tested and never shipped. This tool reads `cargo tree -e features` of each shipped
build (the PyO3 module on the host, the WASM module on wasm32) and of each test build that `nox -s rust`
runs, and names every package of the core's dependency closure that a test build compiles with a
feature a shipped build does not have.

    python -m harness.tools.cargo_features [--workspace rust_core]     exit 1 and one line per problem
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = "x86_64-unknown-linux-gnu"
SHIPPED = (("memgate-rs", HOST), ("memgate-wasm", "wasm32-unknown-unknown"))  # maturin, wasm_host/build.py
TESTED = ("memgate-core", "memgate-fixture-tests")  # `cargo test -p` each, in nox -s rust


class CargoError(Exception):
    pass


def _tree(workspace: Path, package: str, target: str, edges: str, fmt: str) -> list[str]:
    cargo = shutil.which("cargo")
    if cargo is None:
        raise CargoError("cargo is not on PATH (install rustup's stable Rust)")
    proc = subprocess.run([cargo, "tree", "--manifest-path", str(workspace / "Cargo.toml"), "--locked",
                           "-p", package, "--target", target, "-e", edges, "--prefix", "none", "-f", fmt],
                          capture_output=True, text=True, timeout=300, check=False)
    if proc.returncode != 0:
        raise CargoError(f"cargo tree -p {package} --target {target} failed: {proc.stderr.strip()[-800:]}")
    return [line.removesuffix(" (*)").strip() for line in proc.stdout.splitlines() if line.strip()]


def _package(spec: str) -> str:
    """'serde_json v1.0.154' from 'serde_json v1.0.154 (/path)' or '... (proc-macro)'."""
    name, version = spec.split()[:2]
    return f"{name} {version}"


def features(workspace: Path, package: str, target: str, edges: str) -> dict[str, set[str]]:
    """Every package one build compiles -> the features it is compiled with."""
    out: dict[str, set[str]] = {}
    for line in _tree(workspace, package, target, edges, "{p}|{f}"):
        spec, _, enabled = line.partition("|")
        out.setdefault(_package(spec), set()).update(f for f in enabled.split(",") if f)
    return out


def core_closure(workspace: Path) -> set[str]:
    """memgate-core and every package its code runs (normal dependencies, proc macros left out)."""
    return {_package(line) for line in _tree(workspace, "memgate-core", HOST, "normal,no-proc-macro", "{p}")}


def problems(workspace: Path = ROOT / "rust_core") -> list[str]:
    closure = core_closure(workspace)
    shipped = {name: features(workspace, name, target, "normal") for name, target in SHIPPED}
    found = []
    for tested in TESTED:
        test_build = features(workspace, tested, HOST, "normal,dev")
        for package in sorted(closure):
            for name, ship_build in shipped.items():
                extra = test_build.get(package, set()) - ship_build.get(package, set())
                if extra:
                    found.append(f"cargo test -p {tested} compiles {package} with {', '.join(sorted(extra))}, "
                                 f"which {name} does not ship with: the tests would not test what ships")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, default=ROOT / "rust_core")
    args = parser.parse_args(argv)
    try:
        found = problems(args.workspace)
    except CargoError as exc:
        print(f"cargo_features: error: {exc}", file=sys.stderr)
        return 2
    for line in found:
        print(line)
    verdict = f"FAILED, {len(found)} problem(s)" if found else "every test build compiles the core as it ships"
    print(f"cargo features: {verdict}")
    return 1 if found else 0


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
