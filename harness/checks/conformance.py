"""Unicode conformance of the NFC step: every implementation's ``unicode_nfc`` against Unicode's
NormalizationTest.txt (the NFC invariants c2 == NFC(c1) == NFC(c2) == NFC(c3), c4 == NFC(c4) ==
NFC(c5)), and the version skew that reveals.

Each implementation is checked against the file of the Unicode version it reports for normalization
(``file_for``): data/unicode-<version>/NormalizationTest.txt.bz2, 18.0.0's from the icu_normalizer crate
(harness/tools/make_normalization_tests.py), 15.0.0's from Debian's unicode-data, each with its license. A version
with no file (16.0.0: no reachable package ships it) is checked against the newest older file, and the
result says so. A failure on a line whose characters were all assigned before the implementation's
reported normalization version is non-conformance; one that involves characters newer than that
version is version skew, reported but expected. Characters newer than the file are not covered
here; the differential suites compare them against the reference.
"""

from __future__ import annotations

import bz2
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.model import paths, untrusted
from harness.model.unicode_info import age
from harness.testees.testee import Testee

DATA = paths.DATA
FILE_NAME = "NormalizationTest.txt.bz2"
DEFAULT_FILE = DATA / "unicode-15.0.0" / FILE_NAME


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def files() -> dict[str, Path]:
    """Every vendored NormalizationTest file, by its Unicode version."""
    return {path.parent.name.removeprefix("unicode-"): path for path in sorted(DATA.glob(f"unicode-*/{FILE_NAME}"))}


def file_for(version: str) -> Path:
    """The file of ``version``, else the newest older one, else the oldest there is."""
    found = files()
    if version in found:
        return found[version]
    try:
        older = [v for v in found if _key(v) <= _key(version)]
    except ValueError:  # not a version: the oldest file
        older = []
    return found[max(older, key=_key)] if older else found[min(found, key=_key)]


def load(path: Path = DEFAULT_FILE) -> tuple[str, list[tuple[str, ...]]]:
    """(the file's Unicode version, rows of the five columns as strings)."""
    version = ""
    rows = []
    with untrusted.open_regular(path, "normalization test file") as raw, \
            bz2.open(raw, "rt", encoding="utf-8") as handle:  # a regular file, its size bounded (untrusted.LIMITS)
        for line in handle:
            if line.startswith("# NormalizationTest-"):
                version = line.split("-", 1)[1].split(".txt")[0]
            body = line.split("#", 1)[0].strip()
            if not body or body.startswith("@"):
                continue
            columns = body.split(";")[:5]
            rows.append(tuple("".join(chr(int(cp, 16)) for cp in column.split()) for column in columns))
    if not version:
        raise ValueError(f"{path}: no version line")
    return version, rows


@dataclass
class ConformanceResult:
    impl: str
    reported_version: str
    file_version: str
    checks: int = 0
    nonconforming: list[dict[str, Any]] = field(default_factory=list)
    skew: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.nonconforming

    def summary(self) -> str:
        text = (f"{self.impl}: NFC {self.reported_version} vs NormalizationTest {self.file_version}: "
                f"{self.checks:,} checks, {len(self.nonconforming)} non-conforming, {len(self.skew)} version skew")
        if self.skew:
            ages = sorted({a for s in self.skew for a in s["newerCharacters"]}, key=_key)
            text += f" (characters from Unicode {', '.join(ages)}, newer than {self.reported_version})"
        if _key(self.reported_version) > _key(self.file_version):
            text += f"; characters assigned after {self.file_version} are not covered by this file"
        return text


def _newer(text: str, version: str) -> list[str]:
    found = set()
    for ch in text:
        assigned = age(ord(ch))
        if assigned is not None and _key(assigned) > _key(version):
            found.add(assigned)
    return sorted(found, key=_key)


def check(impl_name: str, impl: Testee, rows: list[tuple[str, ...]], file_version: str) -> ConformanceResult:
    versions = json.loads(impl.call("unicode_versions", {})["ok"])
    reported = versions["normalization"]
    result = ConformanceResult(impl_name, reported, file_version)
    calls = []
    wanted = []
    for row in rows:
        c1, c2, c3, c4, c5 = row
        for source, target in ((c1, c2), (c2, c2), (c3, c2), (c4, c4), (c5, c4)):
            calls.append(("unicode_nfc", {"text": source}))
            wanted.append((row, source, target))
    batch = getattr(impl, "call_batch", None)
    responses = batch(calls) if batch else [impl.call(op, args) for op, args in calls]
    for (row, source, target), response in zip(wanted, responses, strict=True):
        result.checks += 1
        got = response.get("ok")
        if got == target:
            continue
        entry = {"source": " ".join(f"{ord(c):04X}" for c in source),
                 "expected": " ".join(f"{ord(c):04X}" for c in target),
                 "got": " ".join(f"{ord(c):04X}" for c in got) if isinstance(got, str) else response,
                 "newerCharacters": _newer("".join(row), reported)}
        (result.skew if entry["newerCharacters"] else result.nonconforming).append(entry)
    return result
