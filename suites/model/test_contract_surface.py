"""The surface in the specification (issue 53 item 7): docs/contract.md's signature table and parameter table agree
with the family file on every op's Python and JavaScript names and every parameter's position, names, kind, host
value, default and code (harness/model/contract_surface.py, which `python -m harness lint` runs on every family);
each planted disagreement, in the document or in the family file, is named."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from harness.model import contract_surface
from harness.model.contract_surface import HOST_SAMPLES, host_type, kind_host_type, out_of_kind
from harness.model.families import Family
from harness.model.registry import FAMILIES, OPS, PLAIN_VALUES, is_boundary_host_value

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "docs" / "contract.md"
TEXT = CONTRACT.read_text(encoding="utf-8")
(MEMGATE,) = [family for family in FAMILIES if family.name == "memgate"]
KINDS = json.loads((ROOT / "schemas" / "family-v2.schema.json").read_text(encoding="utf-8"))["$defs"]["kind"]["enum"]


def _row(op: str, name: str) -> str:
    matches = [(line, contract_surface.PARAM_ROW.match(line)) for line in TEXT.splitlines()]
    (line,) = [line for line, match in matches if match and match.group(1) == op and match.group(3) == name]
    return line


def _family(**changes: Any) -> Family:
    """The memgate family with one parameter of its file changed: ``op.param.field=value`` (None: removed)."""
    ops = copy.deepcopy(list(MEMGATE.ops))
    for where, value in changes.items():
        op_name, param_name, key = where.split("__")
        (param,) = [p for op in ops if op["name"] == op_name for p in op["params"] if p["name"] == param_name]
        if value is None:
            param.pop(key)
        else:
            param[key] = value
    return dataclasses.replace(MEMGATE, ops=tuple(ops))


def test_the_specification_gives_the_families_surface() -> None:
    assert MEMGATE.contract == CONTRACT
    assert contract_surface.problems(MEMGATE) == []
    rows = contract_surface.param_rows(TEXT)
    assert [(row.op, row.position, row.name) for row in rows] == [
        (op.name, position, param.name) for op in OPS.values() if op.family == "memgate"
        for position, param in enumerate(op.params, start=1)]
    assert [row.name for row in contract_surface.signature_rows(TEXT)] == [
        op.name for op in OPS.values() if op.family == "memgate"]


def _written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "written.md"
    path.write_text(text, encoding="utf-8")
    return path


def _swap_numbers(text: str, a: str, b: str) -> str:
    first, second = _row("decide_write", a), _row("decide_write", b)
    n_first, n_second = first.split("|")[2], second.split("|")[2]
    return text.replace(first, first.replace(f"|{n_first}|", f"|{n_second}|", 1)).replace(
        second, second.replace(f"|{n_second}|", f"|{n_first}|", 1))


PLANTED_TEXT = [
    ("wrong kind", lambda t: t.replace(_row("build_dedup_context", "pinned_json"),
                                       _row("build_dedup_context", "pinned_json").replace("`section_json`",
                                                                                          "`candidates_json`")),
     "pinned_json is of kind candidates_json in its table, section_json in the family file"),
    ("wrong position", lambda t: _swap_numbers(t, "mode", "force"),
     "parameter mode is number 6 in its table, 5 in the family file"),
    ("missing parameter", lambda t: t.replace(_row("decide_write", "mode") + "\n", ""),
     "0 parameter rows for decide_write's parameter mode"),
    ("parameter listed twice", lambda t: t.replace(_row("unicode_nfc", "text"), _row("unicode_nfc", "text") + "\n"
                                                   + _row("unicode_nfc", "text")),
     "2 parameter rows for unicode_nfc's parameter text"),
    ("extra parameter", lambda t: t.replace(_row("unicode_nfc", "text"), _row("unicode_nfc", "text") + "\n"
                                            + "| `unicode_nfc` | 2 | `form` | `form` | `mode` | string | `\"NFC\"` | "
                                              "`invalid_mode` |"),
     "lists unicode_nfc's parameter form, which the family file does not declare"),
    ("unknown op", lambda t: t + "\n| `normalise` | 1 | `text` | `text` | `text` | string | — | `invalid_text` |\n",
     "its parameter table lists normalise, an op the family file does not declare"),
    ("float default", lambda t: t.replace("| `cap` | `cap` | `cap` | number | `30` |",
                                          "| `cap` | `cap` | `cap` | number | `30.0` |"),
     "cap defaults to 30.0 in its table, 30 in the family file"),
    ("default of a required one", lambda t: t.replace(_row("decide_write", "text"),
                                                      _row("decide_write", "text").replace("| — |", "| `\"\"` |")),
     "decide_write's parameter text defaults to \"\" in its table, — (required) in the family file"),
    ("no default", lambda t: t.replace("| `force` | `force` | `force` | boolean | `false` |",
                                       "| `force` | `force` | `force` | boolean | — |"),
     "force defaults to — (required) in its table, false in the family file"),
    ("wrong JS name", lambda t: t.replace("| `recent_json` | `recentJson` |", "| `recent_json` | `recent_json` |"),
     "recent_json is recent_json in JavaScript in its table, recentJson in the family file"),
    ("wrong host value", lambda t: t.replace("| `force` | `force` | `force` | boolean |",
                                             "| `force` | `force` | `force` | number |"),
     "force takes a number in its table; its kind force takes a boolean"),
    ("wrong code", lambda t: t.replace("| number | `30` | `invalid_cap` |", "| number | `30` | `invalid_json` |"),
     "cap refuses a wrong value with invalid_json in its table, invalid_cap in the family file"),
    ("signature swapped", lambda t: t.replace("threshold, mode, force)` | `decideWrite",
                                              "threshold, force, mode)` | `decideWrite"),
     "its signature of decide_write takes (text, embedding_json, candidates_json, threshold, force, mode)"),
    ("JS signature", lambda t: t.replace("`unicodeNfc(text)`", "`unicodeNFC(text)`"),
     "its JavaScript signature of unicode_nfc is unicodeNFC(text), the family file's unicodeNfc(text)"),
    ("signature default", lambda t: t.replace("| cap 30 |", "| cap 32 |"),
     "gives build_dedup_context the defaults cap 32, the family file cap 30"),
    ("unreadable default", lambda t: t.replace("| cap 30 |", "| cap thirty |"),
     "the defaults of build_dedup_context do not read"),
    ("a default nested past any reader",
     lambda t: t.replace("| cap 30 |", "| cap " + "[" * 50_000 + "]" * 50_000 + " |"),
     "the defaults of build_dedup_context do not read"),
    ("missing signature", lambda t: "\n".join(line for line in t.splitlines() if "`unicodeVersions()`" not in line),
     "0 signature rows for unicode_versions"),
]


@pytest.mark.parametrize("change, says", [(c, s) for _, c, s in PLANTED_TEXT], ids=[n for n, _, _ in PLANTED_TEXT])
def test_a_planted_change_of_the_document_is_named(tmp_path: Path, change: Any, says: str) -> None:
    changed = change(TEXT)
    assert changed != TEXT
    planted = tmp_path / "contract.md"
    planted.write_text(changed, encoding="utf-8")
    found = contract_surface.problems(MEMGATE, planted)
    assert any(says in problem for problem in found), found


@pytest.mark.parametrize("changes, says", [
    ({"build_dedup_context__cap__default": 32},
     ["gives build_dedup_context the defaults cap 30, the family file cap 32",
      "cap defaults to 30 in its table, 32 in the family file"]),
    ({"build_dedup_context__cap__default": 30.0}, ["cap defaults to 30 in its table, 30.0 in the family file"]),
    ({"decide_write__mode__kind": "text"}, ["mode is of kind mode in its table, text in the family file"]),
    ({"decide_write__threshold__default": None}, ["threshold defaults to 0.85 in its table, — (required)"]),
    ({"decide_write__force__js_name": "forced"}, ["force is force in JavaScript in its table, forced",
                                                  "its JavaScript signature of decide_write is"]),
    ({"unicode_nfc__text__error_code": "invalid_mode"}, ["text refuses a wrong value with invalid_text in its table"]),
], ids=["cap 32", "cap 30.0", "kind", "required", "js name", "code"])
def test_a_planted_change_of_the_family_file_is_named(changes: dict[str, Any], says: list[str]) -> None:
    found = contract_surface.problems(_family(**changes))
    for said in says:
        assert any(said in problem for problem in found), (said, found)


def test_a_contract_without_the_tables_says_what_is_missing(tmp_path: Path) -> None:
    """A family that names a contract must give both tables, as it must give its step tables (contract_doc)."""
    bare = tmp_path / "contract.md"
    bare.write_text("# A family\n\n| # | step | what it does | error |\n|---|---|---|---|\n", encoding="utf-8")
    (found,) = contract_surface.problems(MEMGATE, bare)
    assert "has no a signature table" not in found
    assert "has no signature table (one row per op" in found and "and no parameter table (one row per parameter" \
        in found and "declares the ops normalize_fact_text, decide_write" in found, found
    (found,) = contract_surface.problems(MEMGATE, _written(tmp_path, "\n".join(
        line for line in TEXT.splitlines() if not contract_surface.PARAM_ROW.match(line))))
    assert "has no parameter table" in found and "signature table" not in found, found
    assert contract_surface.problems(dataclasses.replace(MEMGATE, contract=None)) == []
    missing = tmp_path / "absent.md"
    (found,) = contract_surface.problems(MEMGATE, missing)
    assert "cannot be read" in found


def test_every_kind_has_a_host_type_and_values_out_of_it() -> None:
    """Generated, never listed: each kind of the family schema has a plain value, hence a host type; its out-of-kind
    values are every sample of every other host type, each one the registry too calls a boundary host value."""
    assert set(KINDS) == set(PLAIN_VALUES)
    types = [name for name, _ in HOST_SAMPLES]
    assert all(host_type(value) == name for name, values in HOST_SAMPLES for value in values)
    for kind in KINDS:
        wanted = kind_host_type(kind)
        assert wanted in types
        values = out_of_kind(kind)
        assert {host_type(value) for value in values} == set(types) - {wanted}
        assert all(is_boundary_host_value(kind, value) for value in values), kind
    assert host_type(True) == "boolean" and host_type(1) == host_type(1.0) == "number"
    assert kind_host_type("no such kind") is None and out_of_kind("no such kind") == []


def test_lint_reports_a_surface_problem(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m harness lint` runs the reader on every family: a planted document (the cap's default 32 in the
    parameter table) is printed and makes it fail (status 1)."""
    import argparse

    from harness.cli.commands import lint

    planted = tmp_path / "contract.md"
    row = "| `cap` | `cap` | `cap` | number | `30` |"
    planted.write_text(TEXT.replace(row, row.replace("`30`", "`32`")), encoding="utf-8")
    real = contract_surface.problems
    monkeypatch.setattr(contract_surface, "problems", lambda family, path=None: real(family, path or (
        planted if family.name == "memgate" else None)))
    assert lint.run(argparse.Namespace(no_regenerate=True)) == 1
    out = capsys.readouterr().out
    assert "cap defaults to 32 in its table, 30 in the family file" in out and "FAILED, 1 problem(s)" in out, out
