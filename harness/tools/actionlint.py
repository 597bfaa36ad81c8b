"""Check the GitHub Actions workflows (.github/workflows/) offline, in `nox -s lint`.

    python -m harness.tools.actionlint [FOLDER]  actionlint at its pinned version; check-jsonschema's schema without Go

actionlint is built from the Go module proxy at exactly ACTIONLINT_VERSION (`go install`, into the cache
wasm_host/build.py uses: PARITY_CACHE or ~/.cache/memgate-parity), once; an actionlint of another version on
PATH is ignored. Without Go, the fallback is check-jsonschema's vendored GitHub workflow schema (its
`--builtin-schema vendor.github-workflows`, from PyPI, pinned in constraints.txt), which checks the shape of
the file but not its expressions, and says so. Standard library only: the lint session installs nothing of
the project. Exit statuses: 0 the workflows pass, 1 a problem in them, 3 no checker could be had.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
ACTIONLINT_VERSION = "1.7.12"
MODULE = "github.com/rhysd/actionlint/cmd/actionlint"
INSTALL_SECONDS = 600


def cache_dir() -> Path:
    configured = os.environ.get("PARITY_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "memgate-parity"


def pinned_binary() -> Path:
    return cache_dir() / f"actionlint-{ACTIONLINT_VERSION}" / "actionlint"


def _version(binary: Path) -> str | None:
    try:
        out = subprocess.run([str(binary), "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = out.stdout.strip().splitlines()[:1]
    return first[0].strip().removeprefix("v") if first else None


def actionlint() -> Path | None:
    """The pinned actionlint: from the cache, else `go install`ed into it; None without Go (or when the
    install fails, said on stderr)."""
    binary = pinned_binary()
    if binary.is_file() and _version(binary) == ACTIONLINT_VERSION:
        return binary
    go = shutil.which("go")
    if go is None:
        return None
    print(f"actionlint: building {MODULE}@v{ACTIONLINT_VERSION} with go install (the Go module proxy), into "
          f"{binary.parent}; once, later runs reuse it", flush=True)
    env = dict(os.environ, GOBIN=str(binary.parent), GOFLAGS="-mod=mod")
    try:
        subprocess.run([go, "install", f"{MODULE}@v{ACTIONLINT_VERSION}"], env=env, check=True,
                       timeout=INSTALL_SECONDS, cwd=cache_dir() if cache_dir().is_dir() else None)
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        print(f"actionlint: go install failed: {exc}", file=sys.stderr)
        return None
    found = _version(binary)
    if found != ACTIONLINT_VERSION:
        print(f"actionlint: {binary} says version {found!r}, not {ACTIONLINT_VERSION}", file=sys.stderr)
        return None
    return binary


def workflows(folder: Path = WORKFLOWS) -> list[Path]:
    return sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")])


def main(argv: list[str] | None = None, use_actionlint: bool = True) -> int:
    """Check every workflow of the folder ``argv`` names (default: .github/workflows/); ``use_actionlint``
    False: the fallback alone (its tests)."""
    folder = Path(argv[0]).resolve() if argv else WORKFLOWS
    files = workflows(folder)
    if not files:
        print(f"actionlint: no workflow in {folder}: nothing to check")
        return 0
    cache_dir().mkdir(parents=True, exist_ok=True)
    binary = actionlint() if use_actionlint else None
    names = [str(path) for path in files]
    if binary is not None:
        print(f"actionlint {ACTIONLINT_VERSION}: {', '.join(names)}", flush=True)
        done = subprocess.run([str(binary), "-no-color", *names], cwd=folder, check=False)
        return 0 if done.returncode == 0 else 1
    why = "no Go here" if shutil.which("go") is None else "actionlint could not be built (above)"
    beside = Path(sys.executable).parent / "check-jsonschema"  # this interpreter's, when it is not on PATH
    checker = str(beside) if beside.is_file() else shutil.which("check-jsonschema")
    if checker is None:
        print(f"actionlint: {why} (Go 1.25 or later builds it), and no check-jsonschema for the fallback "
              "(pip install check-jsonschema)", file=sys.stderr)
        return 3
    print(f"actionlint: {why}; the fallback checks the workflows against check-jsonschema's vendored GitHub "
          f"workflow schema only (their shape, not their expressions): {', '.join(names)}", flush=True)
    done = subprocess.run([checker, "--builtin-schema", "vendor.github-workflows", *names], cwd=folder, check=False)
    return 0 if done.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
