"""Unicode's NormalizationTest.txt for the normalization versions in play (data/unicode-<version>/).

The NFC conformance check (harness/checks/conformance.py) runs each implementation against the file of
the Unicode version it reports for normalization. Unicode's own site is not reachable from the machines
this project runs on; the file is taken from a registry package that ships it verbatim: the
``icu_normalizer`` crate (crates.io) carries ``tests/data/NormalizationTest.txt`` in the releases listed
in ``SOURCES`` (other releases carry a placeholder). Each crate is pinned by its sha256; the file's own
first line must name the version. 15.0.0's file came from Debian's ``unicode-data`` package (apt) and is
kept as it is. No reachable package ships 16.0.0's (Pyodide's normalization version): its check uses the
newest older file, and says so.

    python -m harness.tools.make_normalization_tests [--versions 18.0.0]

Writes data/unicode-<version>/NormalizationTest.txt.bz2 (bzip2, deterministic) and the crate's license
beside it, atomically.
"""

from __future__ import annotations

import argparse
import bz2
import hashlib
import io
import sys
import tarfile
import urllib.request
from pathlib import Path

from harness.model.files import atomic_write
from harness.model.paths import DATA

# Unicode version -> (icu_normalizer release that ships its NormalizationTest.txt, the .crate's sha256)
SOURCES = {
    "17.0.0": ("2.3.0", "12f9cf5f235641ed274641dd81c3f28d870e276763d0797aeeab72317b1c646f"),
    "18.0.0": ("2.4.0", "404a3b8c486f205c87fe7f23ab6894d84a4ad76d6e4671ae1981ba7def87c599"),
}
URL = "https://static.crates.io/crates/icu_normalizer/icu_normalizer-{release}.crate"
MAX_CRATE_BYTES = 64 << 20


class SourceError(Exception):
    pass


def fetch(release: str, sha256: str) -> bytes:
    url = URL.format(release=release)
    try:
        with urllib.request.urlopen(url, timeout=120) as response:  # a fixed https URL
            data = response.read(MAX_CRATE_BYTES + 1)
    except OSError as exc:
        raise SourceError(f"cannot download {url}: {exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise SourceError(f"{url}: sha256 {digest}, pinned {sha256}")
    return data


def extract(crate: bytes, release: str, version: str) -> tuple[bytes, bytes]:
    """(NormalizationTest.txt, the crate's LICENSE) from the crate, the file's version line checked."""
    prefix = f"icu_normalizer-{release}/"
    with tarfile.open(fileobj=io.BytesIO(crate), mode="r:gz") as archive:
        def member(name: str) -> bytes:
            found = archive.extractfile(prefix + name)
            if found is None:
                raise SourceError(f"icu_normalizer {release}: no {name}")
            return found.read()
        text, license_text = member("tests/data/NormalizationTest.txt"), member("LICENSE")
    first = text.split(b"\n", 1)[0].decode("ascii", "replace")
    if first.strip() != f"# NormalizationTest-{version}.txt":
        raise SourceError(f"icu_normalizer {release}: its NormalizationTest.txt begins {first!r}, "
                          f"not version {version}")
    return text, license_text


def write(version: str, text: bytes, license_text: bytes, release: str) -> Path:
    folder = DATA / f"unicode-{version}"
    path = folder / "NormalizationTest.txt.bz2"
    atomic_write(path, bz2.compress(text, compresslevel=9))
    atomic_write(folder / "LICENSE-unicode-data.txt", (
                 f"NormalizationTest-{version}.txt, as shipped verbatim in the icu_normalizer {release} crate "
                 f"(crates.io; {URL.format(release=release)}). The crate's license, which covers the Unicode "
                 "data files it carries:\n\n").encode("ascii") + license_text)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.make_normalization_tests",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", default="18.0.0", help="among: " + ", ".join(SOURCES))
    args = parser.parse_args(argv)
    for version in args.versions.split(","):
        if version not in SOURCES:
            print(f"make_normalization_tests: error: no source for Unicode {version}; known: {', '.join(SOURCES)}",
                  file=sys.stderr)
            return 2
        release, sha256 = SOURCES[version]
        try:
            text, license_text = extract(fetch(release, sha256), release, version)
        except (SourceError, tarfile.TarError) as exc:
            print(f"make_normalization_tests: error: Unicode {version}: {exc}", file=sys.stderr)
            return 3
        path = write(version, text, license_text, release)
        print(f"{path.relative_to(DATA.parent)}: {len(text):,} bytes ({path.stat().st_size:,} packed), "
              f"from icu_normalizer {release}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
