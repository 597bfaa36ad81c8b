#!/usr/bin/env python3
"""Build the WebAssembly Node package of the Rust core: wasm_host/pkg (stdlib only).

Steps:
1. Toolchain: rustup's stable if it has the wasm32-unknown-unknown target, else Debian's rustc-web,
   cargo-web, rust-web-src, rust-web-llvm and lld-22 (std built from source with -Zbuild-std). The
   readiness check looks for each piece where that toolchain looks (rustc, cargo, rust-lld, the std
   sources or the target's std), then compiles and links a tiny wasm32 crate with the same toolchain
   and flags. Debian's packages are installed with apt-get when missing and the script runs as root
   with --install-toolchain, CI=true or PARITY_INSTALL_TOOLCHAIN=1 (what the nox sessions set as root), never
   with PARITY_INSTALL_TOOLCHAIN=0, and named with the reason before apt-get runs; otherwise, or when a
   piece is still missing, it exits 2 naming
   each missing piece and both remedies, before any build output. `--check` runs this step alone.
2. wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in rust_core/Cargo.lock: the one on
   PATH if it reports that version, else one installed with `cargo install --locked` into a cache
   ($PARITY_CACHE or ~/.cache/memgate-parity) and reused.
3. `cargo build -p memgate-wasm --lib --profile wasm-release` (the workspace rust_core/) for
   wasm32-unknown-unknown, in its own target dir (rust_core/target/wasm) so host builds stay valid.
4. `wasm-bindgen --target nodejs` into the output dir (default wasm_host/pkg), then a smoke load with
   Node when it is installed.

Exit status: 0 built (or ready, with --check); 1 a step failed; 2 the toolchain is not ready.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system: probes in one folder are not serialised there
    fcntl = None  # type: ignore[assignment]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORE = ROOT / "rust_core"
TARGET = "wasm32-unknown-unknown"
PROFILE = "wasm-release"
WASM_PACKAGE = "memgate-wasm"  # the workspace member with the wasm-bindgen binding
CRATE_LIB = "memgate_wasm"


class BuildError(Exception):
    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def log(message: str) -> None:
    print(f"[build-wasm] {message}", flush=True)


def run(cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None, what: str) -> None:
    log("$ " + " ".join(cmd))
    try:
        result = subprocess.run(cmd, env=env, cwd=cwd, check=False)
    except OSError as exc:
        raise BuildError(f"{what}: cannot run {cmd[0]}: {exc}") from None
    if result.returncode != 0:
        raise BuildError(f"{what} failed (exit status {result.returncode}); see the output above")


def capture(cmd: list[str], env: dict[str, str] | None = None) -> str | None:
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None


def cache_dir() -> Path:
    """Where provisioned tools live across checkouts: wasm-bindgen-cli, the readiness probe's std build."""
    configured = os.environ.get("PARITY_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "memgate-parity"


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

# The pieces a wasm32 build uses, and the Debian packages that hold each one. Every package named here
# is installed, and none other: `--no-install-recommends` keeps apt from pulling in a piece by luck
# (rustc-web only *recommends* rust-web-llvm, the package of rust-lld).
DEBIAN_PACKAGES_OF = {
    "rustc": ("rustc-web",),  # /usr/bin/rustc; its dependency libstd-rust-web-dev is the host std
    "cargo": ("cargo-web",),  # /usr/bin/cargo
    "rust-lld": ("rust-web-llvm", "lld-22"),  # /usr/bin/rust-lld -> lld-22 -> /usr/lib/llvm-22/bin/lld
    "std sources": ("rust-web-src",),  # <sysroot>/lib/rustlib/src/rust/library, for -Zbuild-std
}
DEBIAN_PACKAGES = tuple(dict.fromkeys(p for packages in DEBIAN_PACKAGES_OF.values() for p in packages))
LINKER = "rust-lld"  # rustc's default linker for wasm32-unknown-unknown


@dataclass(frozen=True)
class Toolchain:
    """How to run a wasm32 build: which rustc and cargo, their environment and extra cargo flags."""

    kind: str  # "rustup" (prebuilt wasm32 std) or "debian" (std built from source with -Zbuild-std)
    rustc: str
    cargo: str
    env: dict[str, str]
    extra_args: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        if self.kind == "rustup":
            return f"rustup ({TARGET} target installed)"
        return "Debian rustc-web + cargo-web + rust-web-src + rust-web-llvm (-Zbuild-std)"


@dataclass(frozen=True)
class Gap:
    """A piece the build needs and cannot find, and where it was looked for."""

    piece: str
    detail: str


def rustup_toolchain() -> Toolchain | None:
    """rustup's toolchain when it has the wasm32 target (rustup target list --installed), else None."""
    if shutil.which("rustup") is None or shutil.which("cargo") is None:
        return None
    installed = capture(["rustup", "target", "list", "--installed"])
    if installed is None or TARGET not in installed.split():
        return None
    return Toolchain("rustup", "rustc", "cargo", dict(os.environ))


def debian_toolchain(rustc: str = "/usr/bin/rustc", cargo: str = "/usr/bin/cargo") -> Toolchain:
    env = dict(os.environ)
    env["RUSTC"] = rustc
    env["RUSTC_BOOTSTRAP"] = "1"  # -Zbuild-std on a stable compiler: std is built from rust-web-src
    env.pop("RUSTUP_TOOLCHAIN", None)
    return Toolchain("debian", rustc, cargo, env, ("-Zbuild-std=std,panic_abort",))


def linker_search(toolchain: Toolchain, sysroot: Path, host: str) -> list[Path]:
    """Where rustc looks for rust-lld, in order (seen with strace on Debian's rustc 1.96): its sysroot's
    tool directory for the host, that directory's self-contained/, then PATH."""
    tools = sysroot / "lib" / "rustlib" / host / "bin"
    return [tools, tools / "self-contained", *map(Path, toolchain.env.get("PATH", "").split(os.pathsep))]


def static_gaps(toolchain: Toolchain) -> list[Gap]:
    """The pieces of `toolchain` that are missing, looked for where that toolchain looks (no build)."""
    env = toolchain.env
    gaps = []
    version = capture([toolchain.rustc, "-vV"], env)
    if version is None:
        gaps.append(Gap("rustc", f"`{toolchain.rustc} -vV` does not run (the linker and std are looked up "
                        "through rustc: not checked)"))
    if capture([toolchain.cargo, "--version"], env) is None:
        gaps.append(Gap("cargo", f"`{toolchain.cargo} --version` does not run"))
    if version is None:
        return gaps  # everything else is found through rustc
    host = next((line.split(":", 1)[1].strip() for line in version.splitlines() if line.startswith("host:")), "")
    sysroot = Path((capture([toolchain.rustc, "--print", "sysroot"], env) or "").strip() or "/nonexistent")
    search = linker_search(toolchain, sysroot, host)
    # A dangling symlink (rust-lld -> lld-22 without lld-22) is missing: Path.is_file follows links.
    if not any((directory / LINKER).is_file() and os.access(directory / LINKER, os.X_OK) for directory in search):
        dangling = [str(d / LINKER) for d in search if (d / LINKER).is_symlink() and not (d / LINKER).exists()]
        where = f"{search[0]}, {search[1]}, then PATH"
        gaps.append(Gap(LINKER, f"not found where {toolchain.rustc} looks ({where})"
                        + (f"; dangling link {', '.join(dangling)}" if dangling else "")))
    if toolchain.kind == "debian":
        library = sysroot / "lib" / "rustlib" / "src" / "rust" / "library"
        if not (library / "Cargo.lock").is_file() or not (library / "std" / "src" / "lib.rs").is_file():
            gaps.append(Gap("std sources", f"{library} (Cargo.lock, std/src/lib.rs) is missing; "
                            "-Zbuild-std builds std from it"))
    else:
        libdir = sysroot / "lib" / "rustlib" / TARGET / "lib"
        if not any(libdir.glob("libstd-*.rlib")):
            gaps.append(Gap(f"{TARGET} std", f"no libstd-*.rlib in {libdir}"))
    return gaps


# cargo/rustc messages of a failed probe build, and the piece each one names.
PROBE_FAILURES = (
    (re.compile(r"linker `rust-lld` not found|could not exec the linker `rust-lld`"), LINKER),
    (re.compile(r"unable to build with the standard library|failed to read `[^`]*/src/rust/library/"), "std sources"),
    (re.compile(r"can't find crate for `(std|core)`|target may not be installed"), f"{TARGET} std"),
)
PROBE_SOURCE = """\
// Written by wasm_host/build.py: the readiness probe (a tiny cdylib that needs std and the linker).
#[no_mangle]
pub extern "C" fn probe(n: u32) -> u32 {
    format!("{n}").len() as u32
}
"""
PROBE_MANIFEST = """\
[package]
name = "wasm_probe"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "lib.rs"
crate-type = ["cdylib"]

[profile.release]
panic = "abort"

[workspace]
"""


@contextlib.contextmanager
def _holding(lock: Path) -> Iterator[None]:
    """An exclusive lock on ``lock`` (flock) while the block runs: one probe at a time in a probe folder."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def probe_gaps(toolchain: Toolchain, probe_dir: Path) -> tuple[list[Gap], float]:
    """Compile and link a tiny wasm32 cdylib with the toolchain and the build's flags.

    Its std build is kept in `probe_dir`; a later probe recompiles and relinks only the crate (its source
    is rewritten and its output removed every time, so the compiler and the linker always run). Probes that
    share `probe_dir` take turns: another's build in between would leave an output this one never linked."""
    probe_dir.mkdir(parents=True, exist_ok=True)
    with _holding(probe_dir / ".probe.lock"):
        return _probe(toolchain, probe_dir)


def _probe(toolchain: Toolchain, probe_dir: Path) -> tuple[list[Gap], float]:
    (probe_dir / "Cargo.toml").write_text(PROBE_MANIFEST, encoding="utf-8")
    (probe_dir / "lib.rs").write_text(PROBE_SOURCE, encoding="utf-8")
    output = probe_dir / "target" / TARGET / "release" / "wasm_probe.wasm"
    output.unlink(missing_ok=True)
    env = dict(toolchain.env, CARGO_TARGET_DIR=str(probe_dir / "target"))
    cmd = [toolchain.cargo, "build", *toolchain.extra_args, "--target", TARGET, "--release", "--quiet",
           "--manifest-path", str(probe_dir / "Cargo.toml")]
    started = time.monotonic()
    try:
        result = subprocess.run(cmd, env=env, cwd=probe_dir, capture_output=True, text=True, timeout=1800, check=False)
        stderr, status = result.stderr, result.returncode
    except (OSError, subprocess.SubprocessError) as exc:
        stderr, status = str(exc), -1
    seconds = time.monotonic() - started
    if status == 0 and output.is_file() and output.read_bytes()[:4] == b"\0asm":
        return [], seconds
    pieces = [piece for pattern, piece in PROBE_FAILURES if pattern.search(stderr)]
    tail = "\n      ".join(stderr.strip().splitlines()[-12:])
    why = f"`{' '.join(cmd)}` failed (exit status {status}):\n      {tail}"
    return [Gap(piece, why) for piece in pieces] or [Gap("wasm32 build", why)], seconds


def remedies(toolchain: Toolchain, gaps: list[Gap]) -> str:
    """The error for a toolchain with gaps: each missing piece by name, then both remedies."""
    unchecked = any(gap.piece == "rustc" for gap in gaps)  # then the rest is unknown: name every package
    packages = [p for gap in gaps for p in DEBIAN_PACKAGES_OF.get(gap.piece, DEBIAN_PACKAGES)]
    packages = list(DEBIAN_PACKAGES) if unchecked else packages
    lines = [f"the {TARGET} toolchain is not ready ({toolchain.name}); missing:"]
    lines += [f"  - {gap.piece}: {gap.detail}" for gap in gaps]
    lines += [
        "Either",
        f"  - rustup target add {TARGET}   (rustup's stable then builds it; needs static.rust-lang.org), or",
        f"  - apt-get install -y --no-install-recommends {' '.join(dict.fromkeys(packages))}   (Debian's "
        "toolchain; as root, or rerun this script as root with --install-toolchain, or with CI=true)",
    ]
    return "\n".join(lines)


def install_debian_toolchain() -> float:
    """apt-get install every package of DEBIAN_PACKAGES; returns the seconds it took."""
    if shutil.which("apt-get") is None:
        raise BuildError("apt-get is not available here: install the Debian packages "
                         f"{' '.join(DEBIAN_PACKAGES)} another way, or use rustup's {TARGET} target", status=2)
    log(f"installing Debian packages with apt-get, as root: {' '.join(DEBIAN_PACKAGES)}; why: the wasm32 "
        "Rust toolchain (rustc-web, its std sources for -Zbuild-std, and the linker) this build needs is not "
        "complete here; PARITY_INSTALL_TOOLCHAIN=0 turns installs off")
    started = time.monotonic()
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run(["apt-get", "update"], env=env, what="apt-get update")
    run(["apt-get", "install", "-y", "--no-install-recommends", *DEBIAN_PACKAGES], env=env,
        what="apt-get install of the Debian Rust toolchain")
    return time.monotonic() - started


def may_install(install: bool) -> tuple[bool, str]:
    """Whether the Debian toolchain may be installed here, and why not."""
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if os.environ.get("PARITY_INSTALL_TOOLCHAIN") == "0":
        return False, "\n(PARITY_INSTALL_TOOLCHAIN=0: installs are off; install the packages above yourself)"
    wants = install or os.environ.get("CI", "").lower() == "true" or os.environ.get("PARITY_INSTALL_TOOLCHAIN") == "1"
    if not wants:
        return False, ""
    return (True, "") if is_root else (False, "\n(--install-toolchain / CI=true / PARITY_INSTALL_TOOLCHAIN=1 "
                                       "given, but not running as root)")


def find_toolchain(install: bool, timings: dict[str, float], why_not: str = "") -> Toolchain:
    """The toolchain the build will use (static checks only); Debian's is installed when it has gaps
    and `install` is true, otherwise the error names the gaps and both remedies (+ `why_not`)."""
    toolchain = rustup_toolchain() or debian_toolchain()
    gaps = static_gaps(toolchain)
    if gaps and toolchain.kind == "debian":
        if not install:
            raise BuildError(remedies(toolchain, gaps) + why_not, status=2)
        log(f"installing the Debian toolchain; missing: {', '.join(g.piece for g in gaps)}")
        timings["apt-get install"] = install_debian_toolchain()
        gaps = static_gaps(toolchain)
    if gaps:
        raise BuildError(remedies(toolchain, gaps), status=2)
    return toolchain


def ready_toolchain(install: bool, timings: dict[str, float], why_not: str = "") -> Toolchain:
    """find_toolchain, then the probe: a toolchain returned here has compiled and linked a wasm32 cdylib.
    The probe's std build is cached per toolchain kind (cargo rebuilds it when the toolchain changes)."""
    toolchain = find_toolchain(install, timings, why_not)
    gaps, seconds = probe_gaps(toolchain, cache_dir() / f"wasm-probe-{toolchain.kind}")
    timings["readiness probe"] = seconds
    if gaps:
        raise BuildError(remedies(toolchain, gaps), status=2)
    log(f"readiness: {toolchain.name} compiled and linked a {TARGET} probe in {seconds:.0f} s")
    return toolchain


# --- wasm-bindgen-cli ------------------------------------------------------------------------------

def cli_version(binary: Path) -> str | None:
    """The version a wasm-bindgen binary reports (`wasm-bindgen 0.2.130` -> "0.2.130"), else None."""
    out = capture([str(binary), "--version"]) if binary.is_file() else None
    words = out.split() if out else []
    return words[-1] if words else None


# cargo's message when a package version pinned by a lockfile is not in the registry's index
# (e.g. a registry mirror that lags behind crates.io).
LOCKED_UNAVAILABLE = re.compile(r"requirement `([A-Za-z0-9_-]+) = [^`]*` \(locked to ([^)\s]+)\)")


def cargo_home() -> Path:
    configured = os.environ.get("CARGO_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".cargo"


def extract_safely(archive, dest: Path) -> None:  # type: ignore[no-untyped-def]
    """Extract a .crate (a tar archive) below `dest` only: tarfile's "data" filter where the Python has
    it (3.11.4 and later; Debian 12's 3.11.2 does not), else the same refusals by hand: no absolute
    path, no `..`, nothing but regular files and directories."""
    import tarfile

    if hasattr(tarfile, "data_filter"):
        archive.extractall(dest, filter="data")
        return
    members = archive.getmembers()
    for member in members:
        parts = Path(member.name).parts
        if member.name.startswith("/") or ".." in parts or not (member.isfile() or member.isdir()):
            raise BuildError(f"{archive.name}: refusing to extract {member.name!r} (outside the folder, or "
                             "not a plain file or directory)")
    archive.extractall(dest, members=members)  # every member checked above


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
        extract_safely(archive, src_parent)
    src = src_parent / f"wasm-bindgen-cli-{version}"
    adjusted: list[str] = []
    for _ in range(20):
        check = subprocess.run([cargo, "fetch", "--locked"], cwd=src, env=env, capture_output=True, text=True,
                               check=False)
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


def cached_cli(version: str) -> Path:
    return cache_dir() / f"wasm-bindgen-cli-{version}" / "bin" / "wasm-bindgen"


def find_wasm_bindgen_cli(version: str) -> Path | None:
    """A wasm-bindgen that reports exactly `version`: the one on PATH, else the cached one, else None.
    One of another version on PATH is ignored, with a line saying so."""
    cached = cached_cli(version)
    on_path = shutil.which("wasm-bindgen")
    if on_path is not None and Path(on_path).resolve() != cached.resolve():
        found = cli_version(Path(on_path))
        if found == version:
            log(f"wasm-bindgen-cli {version}: using {on_path} from PATH")
            return Path(on_path)
        log(f"ignoring {on_path} on PATH: it reports {found or 'no version'}, the wasm-bindgen crate is {version}")
    if cli_version(cached) == version:
        log(f"wasm-bindgen-cli {version}: reusing {cached}")
        return cached
    return None


def ensure_wasm_bindgen_cli(version: str, toolchain: Toolchain, timings: dict[str, float]) -> Path:
    """find_wasm_bindgen_cli, else `cargo install --locked` of exactly `version` into the cache."""
    found = find_wasm_bindgen_cli(version)
    if found is not None:
        return found
    binary = cached_cli(version)
    root = binary.parent.parent
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
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    sys.stderr.write(result.stderr[-4000:])
    if result.returncode != 0:
        unavailable = LOCKED_UNAVAILABLE.findall(result.stderr)
        if not unavailable:
            raise BuildError(f"cargo install wasm-bindgen-cli {version} failed (exit status "
                             f"{result.returncode}); see the output above")
        install_with_adjusted_lock(cargo, env, version, root)
    timings["wasm-bindgen-cli install"] = time.monotonic() - started
    log(f"wasm-bindgen-cli installed in {timings['wasm-bindgen-cli install']:.0f} s")
    if cli_version(binary) != version:
        raise BuildError(f"{binary} does not report version {version} after installing it")
    return binary


# --- build -----------------------------------------------------------------------------------------

def build_wasm(toolchain: Toolchain, crate: Path = CORE, target_dir: Path | None = None) -> Path:
    target_dir = target_dir or crate / "target" / "wasm"
    env = dict(toolchain.env, CARGO_TARGET_DIR=str(target_dir))
    cmd = [toolchain.cargo, "build", *toolchain.extra_args, "--target", TARGET, "--profile", PROFILE,
           "-p", WASM_PACKAGE, "--lib", "--locked", "--manifest-path", str(crate / "Cargo.toml")]
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
    result = subprocess.run([node, "-e", script, str(entry)], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BuildError(f"the package does not load in Node: {result.stderr.strip()[-2000:]}")
    log(f"smoke load ok: unicodeVersions() = {result.stdout.strip()}")


def check() -> int:
    """--check: the readiness check alone (static checks, then the probe); installs and builds nothing."""
    version = wasm_bindgen_version()
    toolchain = ready_toolchain(False, {}, "\n(--check installs nothing)")
    cli = find_wasm_bindgen_cli(version)
    if cli is None:
        log(f"wasm-bindgen-cli {version} is not installed: "
            f"a build installs it into {cached_cli(version).parent.parent} "
            "(cargo install, a few minutes, once)")
    log(f"ready: {toolchain.name}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true",
                        help="only check that the toolchain can build (static checks, then a tiny wasm32 crate "
                        "compiled and linked); build and install nothing; exit 0 ready, 2 not")
    parser.add_argument("--install-toolchain", action="store_true",
                        help="apt-get install the Debian toolchain when it is missing (needs root)")
    parser.add_argument("--out", type=Path, default=HERE / "pkg", help="output directory (default wasm_host/pkg)")
    parser.add_argument("--crate", type=Path, default=CORE,
                        help="the Rust workspace to build (default rust_core; another copy, e.g. a planted bug's)")
    parser.add_argument("--target-dir", type=Path, default=None, help="cargo target dir (default <crate>/target/wasm)")
    parser.add_argument("--keep-names", action="store_true",
                        help="keep the wasm name section (function names in trap stack traces; ~70 KiB more)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    timings: dict[str, float] = {}
    try:
        if args.check:
            return check()
        version = wasm_bindgen_version()
        install, why_not = may_install(args.install_toolchain)
        toolchain = ready_toolchain(install, timings, why_not)
        log(f"toolchain: {toolchain.name}; wasm-bindgen {version}")
        cli = ensure_wasm_bindgen_cli(version, toolchain, timings)
        present = [what for what, step in (("the toolchain", "apt-get install"),
                                           ("wasm-bindgen-cli", "wasm-bindgen-cli install")) if step not in timings]
        log(f"provisioning took {sum(timings.values()):.0f} s: "
            + ", ".join(f"{what} {seconds:.0f} s" for what, seconds in timings.items())
            + (f" ({' and '.join(present)} already installed)" if present else ""))
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
