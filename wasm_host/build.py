#!/usr/bin/env python3
"""Build the WebAssembly Node package of the Rust core: wasm_host/pkg (stdlib only).

Steps:
1. Toolchain: rustup's stable with the wasm32-unknown-unknown target if it is installed, else Debian's
   rustc-web + cargo-web + rust-web-src + lld-22 (std is built from source with -Zbuild-std).
   Missing: installed with apt-get when running as root with CI=true or --install-toolchain,
   otherwise exit 2 naming both remedies.
2. wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in rust_core/Cargo.lock, installed
   with `cargo install --locked` into a cache ($PARITY_CACHE or ~/.cache/memgate-parity) and reused.
3. `cargo build --lib --features wasm --no-default-features --profile wasm-release` for
   wasm32-unknown-unknown, in its own target dir (rust_core/target/wasm) so host builds stay valid.
4. `wasm-bindgen --target nodejs` into the output dir (default wasm_host/pkg), then a smoke load with
   Node when it is installed.

Exit status: 0 built; 1 a step failed; 2 the toolchain is missing and was not installed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORE = ROOT / "rust_core"
TARGET = "wasm32-unknown-unknown"
PROFILE = "wasm-release"
CRATE_LIB = "memgate_core"
DEBIAN_PACKAGES = ("rustc-web", "cargo-web", "rust-web-src", "rust-web-llvm", "lld-22")


class BuildError(Exception):
    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def log(message: str) -> None:
    print(f"[build-wasm] {message}", flush=True)


def run(cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None, what: str) -> None:
    log("$ " + " ".join(cmd))
    try:
        result = subprocess.run(cmd, env=env, cwd=cwd)
    except OSError as exc:
        raise BuildError(f"{what}: cannot run {cmd[0]}: {exc}") from None
    if result.returncode != 0:
        raise BuildError(f"{what} failed (exit status {result.returncode}); see the output above")


def capture(cmd: list[str], env: dict[str, str] | None = None) -> str | None:
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None


# --- versions --------------------------------------------------------------------------------------

def wasm_bindgen_version(lock: Path = CORE / "Cargo.lock") -> str:
    """The version of the wasm-bindgen crate in Cargo.lock (the CLI must be exactly the same)."""
    try:
        text = lock.read_text(encoding="utf-8")
    except OSError as exc:
        raise BuildError(f"cannot read {lock}: {exc}") from None
    versions = set()
    for block in text.split("[[package]]"):
        name = re.search(r'^name = "([^"]+)"', block, re.M)
        version = re.search(r'^version = "([^"]+)"', block, re.M)
        if name and version and name.group(1) == "wasm-bindgen":
            versions.add(version.group(1))
    if len(versions) != 1:
        raise BuildError(
            f"{lock} must hold exactly one wasm-bindgen package, found {sorted(versions) or 'none'}; "
            "add the pinned dependency to rust_core/Cargo.toml and update the lockfile"
        )
    return versions.pop()


# --- toolchain -------------------------------------------------------------------------------------

class Toolchain:
    def __init__(self, name: str, cargo: str, env: dict[str, str], extra_args: list[str]) -> None:
        self.name = name
        self.cargo = cargo
        self.env = env
        self.extra_args = extra_args


def rustup_toolchain() -> Toolchain | None:
    if shutil.which("rustup") is None or shutil.which("cargo") is None:
        return None
    installed = capture(["rustup", "target", "list", "--installed"])
    if installed is None or TARGET not in installed.split():
        return None
    return Toolchain("rustup (wasm32-unknown-unknown target installed)", "cargo", dict(os.environ), [])


def debian_missing() -> list[str]:
    """Debian packages of the fallback toolchain that are not installed (all of them without dpkg)."""
    missing = []
    for package in DEBIAN_PACKAGES:
        status = capture(["dpkg-query", "-W", "-f=${Status}", package])
        if status is None or "install ok installed" not in status:
            missing.append(package)
    if not missing:
        # The packages' files, in case dpkg's database and the filesystem disagree.
        if not (Path("/usr/bin/rustc").exists() and Path("/usr/bin/cargo").exists()):
            missing += ["rustc-web", "cargo-web"]
        if shutil.which("lld-22") is None:
            missing.append("lld-22")
    return sorted(set(missing), key=DEBIAN_PACKAGES.index)


def debian_toolchain() -> Toolchain:
    sysroot = (capture(["/usr/bin/rustc", "--print", "sysroot"]) or "/usr").strip()
    library = Path(sysroot) / "lib" / "rustlib" / "src" / "rust" / "library"
    if not library.is_dir():
        raise BuildError(f"rust-web-src is installed but {library} is missing; reinstall rust-web-src")
    env = dict(os.environ)
    env["RUSTC"] = "/usr/bin/rustc"
    env["RUSTC_BOOTSTRAP"] = "1"  # -Zbuild-std on a stable compiler: std is built from rust-web-src
    env.pop("RUSTUP_TOOLCHAIN", None)
    return Toolchain("Debian rustc-web + rust-web-src + lld-22 (-Zbuild-std)", "/usr/bin/cargo", env,
                     ["-Zbuild-std=std,panic_abort"])


def remedies(missing: list[str]) -> str:
    return (
        f"no Rust toolchain for {TARGET} here: rustup has no {TARGET} target and the Debian packages "
        f"{', '.join(missing)} are not installed. Either\n"
        f"  - rustup target add {TARGET}   (needs access to static.rust-lang.org), or\n"
        f"  - apt-get install -y {' '.join(DEBIAN_PACKAGES)}   (as root; or rerun this script as root "
        "with --install-toolchain, or with CI=true)"
    )


def find_toolchain(install: bool) -> Toolchain:
    toolchain = rustup_toolchain()
    if toolchain is not None:
        return toolchain
    missing = debian_missing()
    if missing:
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
        wants_install = install or os.environ.get("CI", "").lower() == "true"
        if not (wants_install and is_root):
            why = "" if not wants_install else "\n(--install-toolchain / CI=true given, but not running as root)"
            raise BuildError(remedies(missing) + why, status=2)
        if shutil.which("apt-get") is None:
            raise BuildError(remedies(missing) + "\n(apt-get is not available here)", status=2)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        run(["apt-get", "update"], env=env, what="apt-get update")
        run(["apt-get", "install", "-y", "--no-install-recommends", *DEBIAN_PACKAGES], env=env,
            what="apt-get install of the Debian Rust toolchain")
        still = debian_missing()
        if still:
            raise BuildError(f"after apt-get install, still missing: {', '.join(still)}")
    return debian_toolchain()


# --- wasm-bindgen-cli ------------------------------------------------------------------------------

def cache_dir() -> Path:
    configured = os.environ.get("PARITY_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "memgate-parity"


def cli_reports(binary: Path, version: str) -> bool:
    out = capture([str(binary), "--version"]) if binary.is_file() else None
    return out is not None and out.split()[-1:] == [version]


# cargo's message when a package version pinned by a lockfile is not in the registry's index
# (e.g. a registry mirror that lags behind crates.io).
LOCKED_UNAVAILABLE = re.compile(r"requirement `([A-Za-z0-9_-]+) = [^`]*` \(locked to ([^)\s]+)\)")


def cargo_home() -> Path:
    configured = os.environ.get("CARGO_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".cargo"


def install_with_adjusted_lock(cargo: str, env: dict[str, str], version: str, root: Path) -> None:
    """`cargo install --locked` from the crate's own Cargo.lock, where only the packages whose locked
    version the registry does not have are moved to their newest available compatible version."""
    crates = sorted(cargo_home().glob(f"registry/cache/*/wasm-bindgen-cli-{version}.crate"))
    if not crates:
        raise BuildError(f"cargo install wasm-bindgen-cli {version} failed and its .crate was not downloaded")
    import tarfile

    src_parent = root.parent / f"wasm-bindgen-cli-{version}-src"
    shutil.rmtree(src_parent, ignore_errors=True)
    src_parent.mkdir(parents=True)
    with tarfile.open(crates[0]) as archive:
        archive.extractall(src_parent, filter="data")
    src = src_parent / f"wasm-bindgen-cli-{version}"
    adjusted: list[str] = []
    for _ in range(20):
        check = subprocess.run([cargo, "fetch", "--locked"], cwd=src, env=env, capture_output=True, text=True)
        if check.returncode == 0:
            break
        found = LOCKED_UNAVAILABLE.findall(check.stderr)
        if not found:
            sys.stderr.write(check.stderr[-4000:])
            raise BuildError(f"cannot fetch the dependencies of wasm-bindgen-cli {version}; see the output above")
        for name, locked in found:
            log(f"{name} {locked} (locked by wasm-bindgen-cli {version}) is not in the registry: "
                "moving only it to the newest available compatible version")
            run([cargo, "update", "-p", f"{name}@{locked}"], cwd=src, env=env, what=f"cargo update -p {name}")
            adjusted.append(f"{name} {locked}")
    else:
        raise BuildError("too many unavailable locked packages in wasm-bindgen-cli's Cargo.lock")
    run([cargo, "install", "--locked", "--force", "--path", str(src), "--root", str(root)], env=env,
        what=f"cargo install wasm-bindgen-cli {version} from its adjusted lockfile")
    (root / "LOCK-ADJUSTMENTS.txt").write_text(
        "wasm-bindgen-cli was installed from its own Cargo.lock except these locked versions, which the\n"
        "registry did not have (replaced by the newest available compatible version):\n"
        + "".join(f"  {line}\n" for line in adjusted), encoding="utf-8")
    shutil.rmtree(src_parent, ignore_errors=True)


def ensure_wasm_bindgen_cli(version: str, toolchain: Toolchain) -> Path:
    root = cache_dir() / f"wasm-bindgen-cli-{version}"
    binary = root / "bin" / "wasm-bindgen"
    if cli_reports(binary, version):
        log(f"wasm-bindgen-cli {version}: reusing {binary}")
        return binary
    # Any host cargo can build the CLI; prefer rustup's (newer), else the Debian one.
    if shutil.which("cargo") is not None:
        cargo, env = "cargo", dict(os.environ)
    else:
        cargo, env = toolchain.cargo, {k: v for k, v in toolchain.env.items() if k != "RUSTC_BOOTSTRAP"}
    log(f"installing wasm-bindgen-cli {version} into {root} (once; later builds reuse it)")
    started = time.monotonic()
    cmd = [cargo, "install", "--locked", "--force", "--version", f"={version}", "wasm-bindgen-cli",
           "--root", str(root)]
    log("$ " + " ".join(cmd))
    result = subprocess.run(cmd, env=env, capture_output=True, text=True)
    sys.stderr.write(result.stderr[-4000:])
    if result.returncode != 0:
        unavailable = LOCKED_UNAVAILABLE.findall(result.stderr)
        if not unavailable:
            raise BuildError(f"cargo install wasm-bindgen-cli {version} failed (exit status "
                             f"{result.returncode}); see the output above")
        install_with_adjusted_lock(cargo, env, version, root)
    log(f"wasm-bindgen-cli installed in {time.monotonic() - started:.0f} s")
    if not cli_reports(binary, version):
        raise BuildError(f"{binary} does not report version {version} after installing it")
    return binary


# --- build -----------------------------------------------------------------------------------------

def build_wasm(toolchain: Toolchain, crate: Path = CORE, target_dir: Path | None = None) -> Path:
    target_dir = target_dir or crate / "target" / "wasm"
    env = dict(toolchain.env, CARGO_TARGET_DIR=str(target_dir))
    cmd = [toolchain.cargo, "build", *toolchain.extra_args, "--target", TARGET, "--profile", PROFILE,
           "--lib", "--no-default-features", "--features", "wasm", "--locked",
           "--manifest-path", str(crate / "Cargo.toml")]
    started = time.monotonic()
    run(cmd, env=env, cwd=crate, what="cargo build for wasm32")
    log(f"cargo build took {time.monotonic() - started:.0f} s")
    wasm = target_dir / TARGET / PROFILE / f"{CRATE_LIB}.wasm"
    if not wasm.is_file():
        raise BuildError(f"cargo reported success but {wasm} is missing")
    return wasm


def bindgen(cli: Path, wasm: Path, out: Path, keep_names: bool) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        staging.chmod(0o755)  # mkdtemp makes it private
        names = [] if keep_names else ["--remove-name-section"]
        run([str(cli), "--target", "nodejs", *names, "--out-dir", str(staging), str(wasm)], what="wasm-bindgen")
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    bg = out / f"{CRATE_LIB}_bg.wasm"
    if not bg.is_file() or not (out / f"{CRATE_LIB}.js").is_file():
        raise BuildError(f"wasm-bindgen did not produce {out / (CRATE_LIB + '.js')} and {bg}")
    return bg


def smoke(out: Path) -> None:
    node = shutil.which("node")
    if node is None:
        log("node not found: skipped the smoke load")
        return
    script = "const m = require(process.argv[1]); process.stdout.write(m.unicodeVersions());"
    entry = out / f"{CRATE_LIB}.js"
    result = subprocess.run([node, "-e", script, str(entry)], capture_output=True, text=True)
    if result.returncode != 0:
        raise BuildError(f"the package does not load in Node: {result.stderr.strip()[-2000:]}")
    log(f"smoke load ok: unicodeVersions() = {result.stdout.strip()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--install-toolchain", action="store_true",
                        help="apt-get install the Debian toolchain when it is missing (needs root)")
    parser.add_argument("--out", type=Path, default=HERE / "pkg", help="output directory (default wasm_host/pkg)")
    parser.add_argument("--crate", type=Path, default=CORE,
                        help="the crate to build (default rust_core; another copy, e.g. a planted bug's)")
    parser.add_argument("--target-dir", type=Path, default=None, help="cargo target dir (default <crate>/target/wasm)")
    parser.add_argument("--keep-names", action="store_true",
                        help="keep the wasm name section (function names in trap stack traces; ~70 KiB more)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        version = wasm_bindgen_version()
        toolchain = find_toolchain(args.install_toolchain)
        log(f"toolchain: {toolchain.name}; wasm-bindgen {version}")
        cli = ensure_wasm_bindgen_cli(version, toolchain)
        wasm = build_wasm(toolchain, args.crate.resolve(), args.target_dir.resolve() if args.target_dir else None)
        out = args.out.resolve()
        bg = bindgen(cli, wasm, out, args.keep_names)
        smoke(out)
    except BuildError as exc:
        print(f"build.py: error: {exc}", file=sys.stderr, flush=True)
        return exc.status
    except KeyboardInterrupt:
        print("build.py: interrupted", file=sys.stderr)
        return 130
    size = bg.stat().st_size
    log(f"built {out} in {time.monotonic() - started:.0f} s")
    log(f"{bg.name}: {size} bytes ({size / 1024:.1f} KiB); cargo output {wasm.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
