"""Regenerate data/unicode-age.json: the Unicode version that assigned each code point
assigned after the interpreter's own Unicode data (14.0.0 for Python 3.11), up to the newest
unicodedata2 release listed below.

Maintainer tool, run by hand when a version is added (needs PyPI):

    python harness/tools/make_unicode_age.py

It downloads the unicodedata2 wheel of every version, imports each in its own subprocess and
records, per code point, the first version in which its general category is not Cn.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import unicodedata
import zipfile
from pathlib import Path

VERSIONS = ["15.0.0", "15.1.0", "16.0.0", "17.0.0", "18.0.0"]
OUT = Path(__file__).resolve().parents[2] / "data" / "unicode-age.json"
PROBE = (
    "import sys, unicodedata2 as u; "
    "sys.stdout.write(u.unidata_version + '\\n' + ','.join(str(c) for c in range(0x110000) "
    "if not 0xD800 <= c <= 0xDFFF and u.category(chr(c)) != 'Cn'))"
)


def assigned_in(version: str, workdir: Path) -> set[int]:
    target = workdir / version
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                    "-d", str(target), f"unicodedata2=={version}"], check=True)
    wheel = next(target.glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target / "site")
    out = subprocess.run([sys.executable, "-c", PROBE], env={"PYTHONPATH": str(target / "site")}, check=True,
                         capture_output=True, text=True, cwd=target).stdout
    reported, codes = out.split("\n", 1)
    if reported != version:
        raise SystemExit(f"wheel for {version} reports {reported}")
    return {int(c) for c in codes.split(",")}


def main() -> None:
    base = {c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and unicodedata.category(chr(c)) != "Cn"}
    age: dict[int, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for version in VERSIONS:
            for cp in assigned_in(version, Path(tmp)) - base - set(age):
                age[cp] = version
    ranges: list[list] = []
    for cp in sorted(age):
        if ranges and ranges[-1][1] == cp - 1 and ranges[-1][2] == age[cp]:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp, age[cp]])
    document = {
        "description": "First Unicode version assigning each code point that is unassigned in the base version",
        "base": unicodedata.unidata_version,
        "versions": VERSIONS,
        "source": "general category != Cn in the unicodedata2 wheel of each version "
                  "(harness/tools/make_unicode_age.py)",
        "ranges": ranges,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(document, separators=(",", ":")) + "\n", encoding="ascii")
    print(f"{OUT}: {len(age)} code points in {len(ranges)} ranges")


if __name__ == "__main__":
    main()
