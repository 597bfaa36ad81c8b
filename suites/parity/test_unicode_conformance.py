"""NFC conformance against NormalizationTest.txt, per implementation, with the version skew reported."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest
import unicodedata2

from harness.checks.conformance import check, file_for, files, load
from harness.model import unicode_tables
from harness.testees.impls import InProcess


@pytest.fixture(scope="module")
def normalization_test() -> tuple[str, list[tuple[str, ...]]]:
    return load()


@pytest.mark.op("unicode_nfc", "unicode_versions")
def test_nfc_conformance(impl_name: str, impl: Any) -> None:
    """Against the file of the version it reports (or the newest older one there is)."""
    reported = json.loads(impl.call("unicode_versions", {})["ok"])["normalization"]
    version, rows = load(file_for(reported))
    assert version == reported or reported not in files(), (version, reported)
    result = check(impl_name, impl, rows, version)
    print(result.summary())
    assert result.checks == 5 * len(rows)
    assert result.ok, f"{result.summary()}\nfirst failures: {result.nonconforming[:5]}"


def _fake(nfc: Any, normalization: str) -> InProcess:
    versions = json.dumps({"case_mapping": "14.0.0", "normalization": normalization, "white_space": "contract-v1"})

    def resolve(op):  # type: ignore[no-untyped-def]
        if op.name == "unicode_versions":
            return lambda: versions
        if op.name == "unicode_nfc":
            return lambda text: nfc(text)
        return op.reference

    return InProcess("fake", resolve)


def test_older_unicode_is_reported_as_skew(normalization_test: tuple[str, list[tuple[str, ...]]]) -> None:
    """CPython 3.11's own tables (14.0) fail the 15.0 file only on characters new in 15.0: skew, not a bug."""
    version, rows = normalization_test
    if unicode_tables.version_key(unicodedata.unidata_version) >= unicode_tables.version_key(version):
        pytest.skip(f"this Python's unicodedata ({unicodedata.unidata_version}) is not older than the file's {version}")
    result = check("py-builtin", _fake(lambda t: unicodedata.normalize("NFC", t), unicodedata.unidata_version),
                   rows, version)
    assert result.ok and result.skew, result.summary()
    assert "characters from Unicode 15.0.0, newer than 14.0.0" in result.summary()


def test_wrong_normalization_is_nonconformance(normalization_test: tuple[str, list[tuple[str, ...]]]) -> None:
    version, rows = normalization_test
    result = check("nfd", _fake(lambda t: unicodedata2.normalize("NFD", t), "18.0.0"), rows, version)
    assert not result.ok and len(result.nonconforming) > 1000


def test_each_version_gets_its_own_file_or_the_newest_older_one() -> None:
    found = files()
    assert {"15.0.0", "18.0.0"} <= set(found)
    assert load(file_for("18.0.0"))[0] == "18.0.0"
    assert load(file_for("16.0.0"))[0] == "15.0.0"  # none ships 16.0's: the newest older
    assert file_for("14.0.0") == found["15.0.0"]  # nothing older: the oldest


def test_the_18_0_file_fails_an_nfc_of_older_data_and_passes_unicodedata2() -> None:
    """The file is the real one: unicodedata2 18.0 conforms; CPython's own older NFC fails it only on newer
    characters (skew), which the check sees."""
    version, rows = load(file_for("18.0.0"))
    good = check("unicodedata2", _fake(lambda t: unicodedata2.normalize("NFC", t), "18.0.0"), rows, version)
    assert good.ok and not good.skew and good.checks == 5 * len(rows) > 90_000, good.summary()
    old = check("cpython", _fake(lambda t: unicodedata.normalize("NFC", t), unicodedata.unidata_version), rows, version)
    assert old.ok and old.skew, old.summary()
