"""Per-version Unicode tables for the versions in play (data/unicode-tables/<version>.json).

The cause classifier must say, character by character, whether the data a step uses differs between two
Unicode versions. Guessing from one version's data or from a category (every Hangul syllable because
CPython's unicodedata gives it no decomposition, every Lo letter next to a capital sigma) let a real bug
pass as an expected skew. These tables hold, for each version, exactly the data the contract's
Unicode-dependent steps read, taken from registry packages independent of every implementation:

* assigned code points, and for case mapping (norm.lowercase) the unconditional full lowercase mapping
  (SpecialCasing, else the simple mapping), Cased and Case_Ignorable: from `@unicode/unicode-<version>`
  (npm);
* ``general_category`` (each assigned code point's General_Category, as ranges per short name; Cn, the
  unassigned, is what no range holds) and ``white_space`` (the White_Space property, as ranges): from the same
  `@unicode/unicode-<version>` package, for a family's step that declares that property (family-v2 `unicode`);
* normalization (norm.nfc, norm.nfc_again, unicode_nfc): canonical combining classes, canonical
  decompositions, and the code points NFC does not recompose (composition exclusions): from the
  `unicodedata2` wheel of that version (PyPI); Hangul syllables are left out (their decomposition is an
  algorithm, alike in every version, that some unicodedata2 releases list and others do not). There is
  no unicodedata2 14.0.0 wheel for CPython 3.11 (its sdist does not build there): a version without a
  wheel is read from the running CPython's own `unicodedata` when that is the version (CPython 3.11's is
  14.0.0, the data a reference planted with the standard library's NFC normalizes with), else its
  `normalization` is null.

    python -m harness.tools.make_unicode_tables [--versions 14.0.0,15.0.0,15.1.0,16.0.0,17.0.0,18.0.0]

Needs pip (PyPI) and npm (the npm registry). Writes atomically; suites/model/test_unicode_tables.py checks the
files (schema, and the 14.0.0 and 18.0.0 tables against the host's own CPython 3.11 and unicodedata2).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unicodedata
import zipfile
from pathlib import Path

from harness.model.files import atomic_write

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "data" / "unicode-tables"
VERSIONS = ("14.0.0", "15.0.0", "15.1.0", "16.0.0", "17.0.0", "18.0.0")
SCHEMA = "unicode-tables-v2"  # v2: v1 plus general_category and white_space

# The npm package's General_Category folders (long names) -> the short names a table holds. Cn (Unassigned) is
# left out: a code point no range holds is unassigned, and "assigned" already says which those are.
CATEGORIES = {
    "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Titlecase_Letter": "Lt", "Modifier_Letter": "Lm",
    "Other_Letter": "Lo", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
    "Decimal_Number": "Nd", "Letter_Number": "Nl", "Other_Number": "No", "Connector_Punctuation": "Pc",
    "Dash_Punctuation": "Pd", "Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Math_Symbol": "Sm", "Currency_Symbol": "Sc",
    "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Space_Separator": "Zs", "Line_Separator": "Zl",
    "Paragraph_Separator": "Zp", "Control": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
}

# Run inside a Python that imports the unicodedata2 of one version (and nothing else of this project).
_NORMALIZATION_DUMP = r"""
import json, sys
u = __import__(sys.argv[1])
assigned, ccc, canonical, excluded = [], {}, {}, []
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF:
        continue
    ch = chr(cp)
    if u.category(ch) != "Cn":
        assigned.append(cp)
    if u.combining(ch):
        ccc[cp] = u.combining(ch)
    d = u.decomposition(ch)
    # Hangul syllables decompose by algorithm, alike in every version; some unicodedata2 releases list
    # their decompositions and others do not, so none is listed here.
    if d and not d.startswith("<") and not 0xAC00 <= cp <= 0xD7A3:
        canonical[cp] = [int(h, 16) for h in d.split()]
        if u.normalize("NFC", ch) != ch:
            excluded.append(cp)
json.dump({"unidata_version": u.unidata_version, "assigned": assigned, "ccc": ccc, "canonical": canonical,
           "excluded": excluded}, sys.stdout)
"""

# Run by Node in the unpacked @unicode/unicode-<version> package.
_CASE_DUMP = r"""
const load = async (path) => (await import(`./${path}`)).default;
const special = await load("Special_Casing/Lowercase/code-points.mjs");
const simple = await load("Simple_Case_Mapping/Lowercase/code-points.mjs");
const lower = {};
for (const [cp, to] of simple) if (to !== cp) lower[cp] = [to];
for (const [cp, to] of special) {
  if (to.length === 1 && to[0] === cp) delete lower[cp]; else lower[cp] = to;
}
const categories = {};
for (const name of JSON.parse(process.argv[1])) {
  categories[name] = await load(`General_Category/${name}/code-points.mjs`);
}
process.stdout.write(JSON.stringify({
  unassigned: await load("General_Category/Unassigned/code-points.mjs"),
  categories,
  white_space: await load("Binary_Property/White_Space/code-points.mjs"),
  lower,
  cased: await load("Binary_Property/Cased/code-points.mjs"),
  case_ignorable: await load("Binary_Property/Case_Ignorable/code-points.mjs"),
}));
"""


class TableError(Exception):
    pass


def ranges(points: list[int]) -> list[list[int]]:
    """Sorted code points as [first, last] ranges."""
    out: list[list[int]] = []
    for cp in sorted(points):
        if out and cp == out[-1][1] + 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def _complement(unassigned: list[int]) -> list[list[int]]:
    """Assigned code points (not Cn; surrogates and private use count as assigned) as ranges."""
    gone = set(unassigned)
    return ranges([cp for cp in range(0x110000) if cp not in gone])


def _run(command: list[str], **kwargs) -> str:  # type: ignore[no-untyped-def]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False, **kwargs)
    if proc.returncode != 0:
        raise TableError(f"{' '.join(command[:4])} failed: {proc.stderr.strip()[-1500:]}")
    return proc.stdout


def normalization_data(version: str, scratch: Path) -> tuple[dict | None, str]:
    """(the normalization tables of `version` or None, the package they came from or why none)."""
    wheels = scratch / f"wheel-{version}"
    try:
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
              f"unicodedata2=={version}", "-d", str(wheels)], env={**os.environ, "PIP_CONSTRAINT": ""})
    except TableError:
        python = f"{sys.version_info.major}.{sys.version_info.minor}"
        if unicodedata.unidata_version != version:
            return None, f"none: no unicodedata2 {version} wheel for CPython {python}"
        data = json.loads(_run([sys.executable, "-I", "-c", _NORMALIZATION_DUMP, "unicodedata"]))
        return data, f"unicodedata of CPython {python} (no unicodedata2 {version} wheel)"
    found = sorted(wheels.glob("unicodedata2-*.whl"))
    site = scratch / f"site-{version}"
    with zipfile.ZipFile(found[0]) as wheel:
        wheel.extractall(site)
    data = json.loads(_run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r})\n"
                            + _NORMALIZATION_DUMP, "unicodedata2"]))
    if data["unidata_version"] != version:
        raise TableError(f"unicodedata2 {version} reports Unicode {data['unidata_version']}")
    return data, found[0].name


def case_data(version: str, scratch: Path) -> tuple[dict, str]:
    """(the case tables of `version`, the package they came from)."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        raise TableError("node and npm are needed for the @unicode packages (Node.js 20 or newer)")
    where = scratch / f"npm-{version}"
    where.mkdir()
    name = _run([npm, "pack", "--silent", f"@unicode/unicode-{version}"], cwd=where).strip().splitlines()[-1]
    with tarfile.open(where / name) as archive:
        members = [m for m in archive.getmembers() if m.isfile() and not m.name.startswith("/")
                   and ".." not in Path(m.name).parts]
        archive.extractall(where, members=members)  # files only, below `where`
    return json.loads(_run([node, "--input-type=module", "-e", _CASE_DUMP, json.dumps(sorted(CATEGORIES))],
                           cwd=where / "package")), name


def general_category(case: dict, version: str) -> dict[str, list[list[int]]]:
    """Each General_Category's code points as ranges, by short name; every assigned code point in exactly one."""
    out = {CATEGORIES[name]: ranges(points) for name, points in sorted(case["categories"].items())}
    held = sorted(cp for name in case["categories"] for cp in case["categories"][name])
    if len(held) != len(set(held)) or set(held) & set(case["unassigned"]) or \
            len(held) + len(case["unassigned"]) != 0x110000:
        raise TableError(f"@unicode/unicode-{version}: its General_Category folders do not part the code points")
    return dict(sorted(out.items()))


def table(version: str, scratch: Path) -> dict:
    norm, norm_source = normalization_data(version, scratch)
    case, case_source = case_data(version, scratch)
    return {
        "schema": SCHEMA,
        "unicode": version,
        "sources": {"normalization": norm_source, "case_mapping": case_source, "general_category": case_source,
                    "white_space": case_source},
        "assigned": _complement(case["unassigned"]),
        "normalization": None if norm is None else {
            "ccc": {str(cp): value for cp, value in sorted(norm["ccc"].items(), key=lambda kv: int(kv[0]))},
            "canonical": {str(cp): parts for cp, parts in sorted(norm["canonical"].items(), key=lambda kv: int(kv[0]))},
            "excluded": norm["excluded"],
        },
        "case_mapping": {
            "lower": {str(cp): to for cp, to in sorted(case["lower"].items(), key=lambda kv: int(kv[0]))},
            "cased": ranges(case["cased"]),
            "case_ignorable": ranges(case["case_ignorable"]),
        },
        "general_category": general_category(case, version),
        "white_space": ranges(case["white_space"]),
    }


def write(version: str, document: dict) -> Path:
    path = OUT / f"{version}.json"
    atomic_write(path, json.dumps(document, separators=(",", ":")) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", default=",".join(VERSIONS))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="unicode-tables-") as scratch:
        for version in args.versions.split(","):
            try:
                document = table(version, Path(scratch))
            except TableError as exc:
                print(f"make_unicode_tables: error: Unicode {version}: {exc}", file=sys.stderr)
                return 2
            path = write(version, document)
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
            canonical = len((document["normalization"] or {}).get("canonical", {}))
            print(f"{path.relative_to(ROOT)}: {len(document['case_mapping']['lower'])} lowercase mappings, "
                  f"{canonical} canonical decompositions, "
                  f"{sum(map(len, document['general_category'].values()))} General_Category ranges "
                  f"(sha256 {digest}...)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
