"""wasm_host/build.py: the readiness check names each missing piece of the wasm32 toolchain, where the
chosen toolchain looks for it, before any build output; wasm-bindgen-cli is the crate's exact version.

Most tests plant gaps in a fake toolchain (scripts standing in for rustc and cargo, a fake sysroot), so
they run anywhere. The last ones plant gaps in front of the real Debian toolchain (real rustc, real
cargo, real link); they need it installed (`python wasm_host/build.py --install-toolchain`), are
skipped without it, and fail instead when PARITY_REQUIRE_WASM_TOOLCHAIN=1 (CI sets it).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOST = "x86_64-unknown-linux-gnu"


def _load_build():
    spec = importlib.util.spec_from_file_location("wasm_build", ROOT / "wasm_host" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


build = _load_build()

# What the real tools print for each gap (seen with Debian's rustc-web 1.96 / cargo-web).
REAL_NO_LLD = "error: linker `rust-lld` not found\n  |\n  = note: No such file or directory (os error 2)\n"
REAL_NO_STD_SOURCES = ('error: "/usr/lib/rustlib/src/rust/library/Cargo.lock" does not exist, unable to build '
                       "with the standard library, try:\n        rustup component add rust-src\n")


def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(0o755)
    return path


def fake_toolchain(tmp: Path, *, lld: str | None = "sysroot", std_sources: bool = True, rustc: bool = True,
                   cargo: bool = True, cargo_error: str = "") -> build.Toolchain:
    """A Debian-kind toolchain of scripts. `lld`: where rust-lld is ("sysroot": the sysroot's host tool
    dir; "self-contained": its self-contained/; "path": on PATH; "elsewhere": in a dir rustc does not search;
    "dangling": a broken link in the sysroot's tool dir; None: nowhere). `cargo_error`: what `cargo build`
    prints before failing."""
    sysroot, path_dir = tmp / "sysroot", tmp / "bin"
    tools = sysroot / "lib" / "rustlib" / HOST / "bin"
    tools.mkdir(parents=True)
    path_dir.mkdir()
    lld_dirs = {"sysroot": tools, "self-contained": tools / "self-contained", "path": path_dir,
                "elsewhere": tmp / "rustup-sysroot" / "bin"}
    if lld in lld_dirs:
        _script(lld_dirs[lld] / "rust-lld", "")
    elif lld == "dangling":
        (tools / "rust-lld").symlink_to(tmp / "lld-22-not-installed")
    if std_sources:
        library = sysroot / "lib" / "rustlib" / "src" / "rust" / "library"
        (library / "std" / "src").mkdir(parents=True)
        (library / "Cargo.lock").write_text("", encoding="utf-8")
        (library / "std" / "src" / "lib.rs").write_text("", encoding="utf-8")
    rustc_path, cargo_path = tmp / "tools" / "rustc", tmp / "tools" / "cargo"
    if rustc:
        _script(rustc_path, f"""import sys
args = sys.argv[1:]
if args == ["-vV"]:
    print("rustc 0.0.0-fake\\nhost: {HOST}")
elif args == ["--print", "sysroot"]:
    print({str(sysroot)!r})
else:
    sys.exit(1)
""")
    if cargo:
        _script(cargo_path, """import os, sys
from pathlib import Path
args = sys.argv[1:]
if args == ["--version"]:
    print("cargo 0.0.0-fake")
elif args[:1] == ["build"]:
    if os.environ.get("FAKE_CARGO_ERROR"):
        sys.stderr.write(os.environ["FAKE_CARGO_ERROR"])
        sys.exit(101)
    out = Path(os.environ["CARGO_TARGET_DIR"]) / "wasm32-unknown-unknown" / "release"
    out.mkdir(parents=True, exist_ok=True)
    (out / "wasm_probe.wasm").write_bytes(b"\\0asm\\1\\0\\0\\0")
else:
    sys.exit(1)
""")
    env = {"PATH": str(path_dir), "FAKE_CARGO_ERROR": cargo_error}
    return build.Toolchain("debian", str(rustc_path), str(cargo_path), env, ("-Zbuild-std=std,panic_abort",))


def pieces(gaps) -> list[str]:
    return [gap.piece for gap in gaps]


# --- static checks: where the chosen toolchain looks ---------------------------------------------------

@pytest.mark.parametrize("lld", ["sysroot", "self-contained", "path"])
def test_a_complete_toolchain_is_ready(tmp_path, lld):
    toolchain = fake_toolchain(tmp_path, lld=lld)
    assert build.static_gaps(toolchain) == []
    gaps, _ = build.probe_gaps(toolchain, tmp_path / "probe")
    assert gaps == []


@pytest.mark.parametrize("lld", [None, "elsewhere", "dangling"])
def test_rust_lld_missing_where_rustc_looks_is_named(tmp_path, lld):
    # "elsewhere" is rustup's case: its sysroot has rust-lld, but Debian's rustc never looks there.
    gaps = build.static_gaps(fake_toolchain(tmp_path, lld=lld))
    assert pieces(gaps) == ["rust-lld"]
    assert str(tmp_path / "sysroot" / "lib" / "rustlib" / HOST / "bin") in gaps[0].detail
    assert ("dangling" in gaps[0].detail) == (lld == "dangling")


def test_missing_std_sources_are_named(tmp_path):
    gaps = build.static_gaps(fake_toolchain(tmp_path, std_sources=False))
    assert pieces(gaps) == ["std sources"]
    assert "src/rust/library" in gaps[0].detail


def test_missing_rustc_and_cargo_are_named(tmp_path):
    toolchain = fake_toolchain(tmp_path, rustc=False)
    gaps = build.static_gaps(toolchain)
    assert pieces(gaps) == ["rustc"]
    # Without rustc nothing else can be looked up: the Debian remedy names every package.
    assert f"--no-install-recommends {' '.join(build.DEBIAN_PACKAGES)}   " in build.remedies(toolchain, gaps)
    assert pieces(build.static_gaps(fake_toolchain(tmp_path / "c", cargo=False))) == ["cargo"]


def test_several_gaps_are_each_named(tmp_path):
    gaps = build.static_gaps(fake_toolchain(tmp_path, lld=None, std_sources=False, cargo=False))
    assert pieces(gaps) == ["cargo", "rust-lld", "std sources"]


def test_the_error_names_each_piece_and_both_remedies(tmp_path):
    toolchain = fake_toolchain(tmp_path, lld=None, std_sources=False)
    text = build.remedies(toolchain, build.static_gaps(toolchain))
    assert "- rust-lld: not found where" in text and "- std sources:" in text
    assert f"rustup target add {build.TARGET}" in text
    # The Debian remedy installs the packages of the missing pieces, nothing else.
    assert "apt-get install -y --no-install-recommends rust-web-llvm lld-22 rust-web-src " in text


def test_every_piece_has_its_packages_in_the_install_list():
    for piece, packages in build.DEBIAN_PACKAGES_OF.items():
        assert set(packages) <= set(build.DEBIAN_PACKAGES), piece
    assert "rust-web-llvm" in build.DEBIAN_PACKAGES  # rustc-web only recommends it; apt skips recommends


# --- the probe: a real compile and link, its failures classified -----------------------------------------

@pytest.mark.parametrize(("stderr", "piece"), [
    (REAL_NO_LLD, "rust-lld"),
    (REAL_NO_STD_SOURCES, "std sources"),
    ("error[E0463]: can't find crate for `std`\n  = note: the `wasm32-unknown-unknown` target may not be installed\n",
     f"{build.TARGET} std"),
    ("error: something nobody planned for\n", "wasm32 build"),
    # An error inside std's sources is not missing std sources.
    ("error[E0425]: cannot find value `x` in this scope\n --> /usr/lib/rustlib/src/rust/library/std/src/lib.rs:1:1\n",
     "wasm32 build"),
])
def test_a_failed_probe_names_the_piece(tmp_path, stderr, piece):
    # The static checks pass here: only the probe can see the gap (e.g. a broken lld behind rust-lld).
    toolchain = fake_toolchain(tmp_path, cargo_error=stderr)
    assert build.static_gaps(toolchain) == []
    gaps, _ = build.probe_gaps(toolchain, tmp_path / "probe")
    assert pieces(gaps) == [piece]
    assert stderr.splitlines()[0].strip() in gaps[0].detail


def test_a_probe_always_links_again(tmp_path):
    """A probe that passed once must not pass again from cargo's cache after the linker went away."""
    probe = tmp_path / "probe"
    assert build.probe_gaps(fake_toolchain(tmp_path / "a"), probe)[0] == []
    output = probe / "target" / build.TARGET / "release" / "wasm_probe.wasm"
    assert output.is_file()
    gaps, _ = build.probe_gaps(fake_toolchain(tmp_path / "b", cargo_error=REAL_NO_LLD), probe)
    assert pieces(gaps) == ["rust-lld"] and not output.exists()


def test_probes_sharing_a_folder_take_turns(tmp_path):
    """A probe waits while another holds the folder: another's build in between would leave an output this one
    never linked (two test workers raced so: a probe without rust-lld passed on the other's link)."""
    import threading

    probe = tmp_path / "probe"
    probe.mkdir()
    found: list[list[build.Gap]] = []
    with build._holding(probe / ".probe.lock"):
        waiting = threading.Thread(target=lambda: found.append(build.probe_gaps(
            fake_toolchain(tmp_path / "b", cargo_error=REAL_NO_LLD), probe)[0]))
        waiting.start()
        waiting.join(timeout=1.0)
        assert waiting.is_alive() and not found  # held at the lock, its cargo not run
    waiting.join(timeout=60)
    assert pieces(found[0]) == ["rust-lld"]


# --- the command line: --check, install when allowed ------------------------------------------------------

@pytest.fixture
def chosen(monkeypatch):
    """Make `toolchain` the one build.py chooses (no rustup wasm32 target; Debian's is this fake)."""
    def choose(toolchain):
        monkeypatch.setattr(build, "rustup_toolchain", lambda: None)
        monkeypatch.setattr(build, "debian_toolchain", lambda: toolchain)
        return toolchain
    return choose


def test_check_reports_the_gaps_before_any_build_and_exits_2(tmp_path, chosen, capsys, monkeypatch):
    monkeypatch.setenv("PARITY_CACHE", str(tmp_path / "cache"))
    chosen(fake_toolchain(tmp_path, lld=None))
    monkeypatch.setattr(build, "build_wasm", lambda *a, **k: pytest.fail("--check must not build"))
    monkeypatch.setattr(build, "install_debian_toolchain", lambda: pytest.fail("--check must not install"))
    monkeypatch.setenv("CI", "true")
    assert build.main(["--check"]) == 2
    err = capsys.readouterr().err
    assert "rust-lld: not found where" in err and "rustup target add" in err and "--check installs nothing" in err


def test_check_passes_on_a_ready_toolchain(tmp_path, chosen, capsys, monkeypatch):
    monkeypatch.setenv("PARITY_CACHE", str(tmp_path / "cache"))
    chosen(fake_toolchain(tmp_path))
    assert build.main(["--check"]) == 0
    out = capsys.readouterr().out
    assert "ready:" in out and "wasm-bindgen-cli" in out


def test_gaps_are_installed_when_allowed_then_checked_again(tmp_path, chosen, monkeypatch):
    toolchain = chosen(fake_toolchain(tmp_path, lld=None))
    with pytest.raises(build.BuildError) as refused:
        build.find_toolchain(False, {}, "\n(not root)")
    assert refused.value.status == 2 and "rust-lld" in str(refused.value) and "(not root)" in str(refused.value)

    def installs_lld():
        _script(Path(toolchain.env["PATH"]) / "rust-lld", "")
        return 1.5
    monkeypatch.setattr(build, "install_debian_toolchain", installs_lld)
    timings: dict[str, float] = {}
    assert build.find_toolchain(True, timings) is toolchain
    assert timings == {"apt-get install": 1.5}

    (Path(toolchain.env["PATH"]) / "rust-lld").unlink()
    monkeypatch.setattr(build, "install_debian_toolchain", lambda: 1.0)  # an install that does not bring it
    with pytest.raises(build.BuildError, match="rust-lld: not found where") as still:
        build.find_toolchain(True, {})
    assert still.value.status == 2


@pytest.mark.parametrize("env, flag, root, allowed", [
    ({}, False, True, False),  # nothing asks for an install
    ({"PARITY_INSTALL_TOOLCHAIN": "1"}, False, True, True),
    ({"CI": "true"}, False, True, True),
    ({}, True, True, True),  # --install-toolchain
    ({}, True, False, False),  # not root
    ({"PARITY_INSTALL_TOOLCHAIN": "0", "CI": "true"}, True, True, False),  # 0 wins, even as root, in CI
])
def test_who_may_install(monkeypatch, env, flag, root, allowed):
    for name in ("PARITY_INSTALL_TOOLCHAIN", "CI"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(build.os, "geteuid", lambda: 0 if root else 1000)
    may, why_not = build.may_install(flag)
    assert may is allowed
    if env.get("PARITY_INSTALL_TOOLCHAIN") == "0":
        assert "PARITY_INSTALL_TOOLCHAIN=0" in why_not


def test_an_install_is_announced_before_apt_get_runs(monkeypatch, capsys):
    ran: list[list[str]] = []
    monkeypatch.setattr(build.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(build, "run", lambda cmd, **kwargs: ran.append(cmd) or print("RAN", cmd[:2]))
    build.install_debian_toolchain()
    out = capsys.readouterr()
    text = out.out + out.err
    announced = text.index("installing Debian packages with apt-get")
    assert announced < text.index("RAN") and all(package in text for package in build.DEBIAN_PACKAGES)
    assert "why:" in text and "PARITY_INSTALL_TOOLCHAIN=0" in text and len(ran) == 2


def _crate(path: Path, members: dict[str, bytes], link: str | None = None) -> Path:
    import io
    import tarfile

    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        if link:
            info = tarfile.TarInfo("pkg/link")
            info.type, info.linkname = tarfile.SYMTYPE, link
            archive.addfile(info)
    return path


@pytest.mark.parametrize("with_filter", [True, False])  # False: a Python without tarfile's filters (3.11.2)
@pytest.mark.filterwarnings("ignore:Python 3.14 will, by default, filter:DeprecationWarning")  # False, on 3.12+
def test_a_crate_is_extracted_below_its_folder_only(tmp_path, monkeypatch, with_filter):
    import tarfile

    if not with_filter:
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    good = _crate(tmp_path / "good.crate", {"pkg/Cargo.toml": b"[package]", "pkg/src/main.rs": b"fn main() {}"})
    with tarfile.open(good) as archive:
        build.extract_safely(archive, tmp_path / "out")
    assert (tmp_path / "out" / "pkg" / "src" / "main.rs").read_bytes() == b"fn main() {}"
    absolute = Path("/tmp") / f"escape-{tmp_path.name}"
    for name, crate in [("dotdot", _crate(tmp_path / "bad1.crate", {"pkg/../../escape": b"x"})),
                        ("absolute", _crate(tmp_path / "bad2.crate", {str(absolute): b"x"})),
                        ("link", _crate(tmp_path / "bad3.crate", {"pkg/a": b"x"}, link="/etc/passwd"))]:
        # Refused (by hand) or kept inside (the data filter strips a leading /): never outside.
        with tarfile.open(crate) as archive, contextlib.suppress(build.BuildError, tarfile.TarError):
            build.extract_safely(archive, tmp_path / name)
        assert not (tmp_path / "escape").exists() and not (tmp_path.parent / "escape").exists()
        assert not absolute.exists() and not (tmp_path / name / "pkg" / "link").is_symlink()


# --- wasm-bindgen-cli: exactly the crate's version ---------------------------------------------------------

def _fake_cli(path: Path, version: str) -> Path:
    return _script(path, f"print('wasm-bindgen {version}')\n")


@pytest.fixture
def clean_path(tmp_path, monkeypatch):
    """PATH = one empty dir of this test's (returned) + the Python interpreter's dir; cache in tmp."""
    bin_dir = tmp_path / "path-bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent)]))
    monkeypatch.setenv("PARITY_CACHE", str(tmp_path / "cache"))
    return bin_dir


def test_another_version_on_path_is_ignored_for_the_cached_one(clean_path, capsys):
    version = build.wasm_bindgen_version()
    _fake_cli(clean_path / "wasm-bindgen", "0.2.99")
    cached = _fake_cli(build.cached_cli(version), version)
    assert build.ensure_wasm_bindgen_cli(version, None, {}) == cached
    out = capsys.readouterr().out
    assert f"ignoring {clean_path / 'wasm-bindgen'} on PATH: it reports 0.2.99" in out
    assert f"reusing {cached}" in out


def test_another_version_on_path_is_ignored_and_the_right_one_installed(clean_path, capsys):
    version = build.wasm_bindgen_version()
    _fake_cli(clean_path / "wasm-bindgen", "0.2.99")
    _script(clean_path / "cargo", f"""import sys
from pathlib import Path
args = sys.argv[1:]
assert args[:1] == ["install"] and "={version}" in args, args
root = Path(args[args.index("--root") + 1])
(root / "bin").mkdir(parents=True, exist_ok=True)
binary = root / "bin" / "wasm-bindgen"
binary.write_text("#!{sys.executable}\\nprint('wasm-bindgen {version}')\\n")
binary.chmod(0o755)
""")
    timings: dict[str, float] = {}
    assert build.ensure_wasm_bindgen_cli(version, None, timings) == build.cached_cli(version)
    assert "wasm-bindgen-cli install" in timings
    assert "ignoring" in capsys.readouterr().out


def test_the_right_version_on_path_is_used(clean_path, capsys):
    version = build.wasm_bindgen_version()
    on_path = _fake_cli(clean_path / "wasm-bindgen", version)
    assert build.ensure_wasm_bindgen_cli(version, None, {}) == on_path
    assert f"using {on_path} from PATH" in capsys.readouterr().out


# --- the real Debian toolchain, with gaps planted in front of it -------------------------------------------

def _real_debian_toolchain():
    toolchain = build.debian_toolchain()
    if build.static_gaps(toolchain):
        if os.environ.get("PARITY_REQUIRE_WASM_TOOLCHAIN") == "1":
            pytest.fail("PARITY_REQUIRE_WASM_TOOLCHAIN=1 but "
                        f"{build.remedies(toolchain, build.static_gaps(toolchain))}")
        pytest.skip("the Debian wasm toolchain is not installed (python wasm_host/build.py --install-toolchain)")
    return toolchain


def test_real_toolchain_without_rust_lld_on_path(tmp_path):
    """Real rustc, real sysroot, a PATH with everything but rust-lld: both checks name rust-lld."""
    toolchain = _real_debian_toolchain()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for directory in toolchain.env.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for entry in os.listdir(directory):
            if entry != build.LINKER and not os.path.lexists(bin_dir / entry):
                (bin_dir / entry).symlink_to(Path(directory) / entry)
    toolchain.env["PATH"] = str(bin_dir)
    assert pieces(build.static_gaps(toolchain)) == ["rust-lld"]
    # The probe's std build is shared with the real build's readiness probe (the same cache dir).
    gaps, _ = build.probe_gaps(toolchain, build.cache_dir() / "wasm-probe-debian")
    assert pieces(gaps) == ["rust-lld"], gaps
    assert "linker `rust-lld` not found" in gaps[0].detail


def test_real_toolchain_without_std_sources(tmp_path):
    """Real rustc and cargo on a sysroot with the host libraries and no std sources: both checks say so."""
    real = _real_debian_toolchain()
    sysroot = Path(build.capture([real.rustc, "--print", "sysroot"], env=real.env).strip())
    fake = tmp_path / "sysroot"
    (fake / "lib" / "rustlib").mkdir(parents=True)
    (fake / "lib" / "rustlib" / HOST).symlink_to(sysroot / "lib" / "rustlib" / HOST)
    rustc = tmp_path / "rustc"
    rustc.write_text(f'#!/bin/sh\nexec {real.rustc} --sysroot {fake} "$@"\n', encoding="utf-8")
    rustc.chmod(0o755)
    toolchain = build.debian_toolchain(rustc=str(rustc))
    assert pieces(build.static_gaps(toolchain)) == ["std sources"]
    gaps, _ = build.probe_gaps(toolchain, tmp_path / "probe")
    assert pieces(gaps) == ["std sources"], gaps
    assert "unable to build with the standard library" in gaps[0].detail


def test_real_toolchain_is_ready():
    toolchain = _real_debian_toolchain()
    gaps, _ = build.probe_gaps(toolchain, build.cache_dir() / "wasm-probe-debian")
    assert gaps == []
