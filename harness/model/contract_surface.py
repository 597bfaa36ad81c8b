"""An op family's surface in its specification against its family file: the document the family file names
(``"contract"``) gives, in two tables the reader parses,

* every op's signatures, one row each: ``| what it is | `python_name(a, b)` | `jsName(a, b)` | defaults |``, the
  defaults ``none`` or ``name value, name value`` (each value a JSON literal: ``threshold 0.85, mode "auto"``);
* every parameter, one row each: ``| `op` | # | `python_name` | `jsName` | `kind` | host value | default |
  `error_code` |``, numbered 1..n in the signature's order, the default ``—`` for a required parameter else a
  JSON literal in backticks (``30`` is an integer, ``30.0`` a float: they differ), the host value the kind takes
  (``string``, ``number``, ``boolean``: ``kind_host_type``) and the error code of a value that is not one.

Each is compared with the family file, field by field: names, positions, defaults (by type and value), kinds, host
values and codes; an op or a parameter the document lacks or lists twice, and one the family lacks, are problems.
A family that names a contract must have both tables, as it must have its step tables (harness/model/
contract_doc.py). ``python -m harness lint`` reports each problem (status 1).

The host value a kind takes is the harness's own knowledge of the kind: the host type of its plain value
(registry.PLAIN_VALUES); ``out_of_kind`` draws, from one sample per host type (HOST_SAMPLES), the values a
parameter of that kind must refuse with its code (harness/checks/surface.py sends them to every implementation).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.model import untrusted
from harness.model.families import Family
from harness.model.registry import PLAIN_VALUES

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_CALL = rf"`({_NAME})\(([^()`]*)\)`"
SIGNATURE_ROW = re.compile(rf"^\|([^|`]*)\|\s*{_CALL}\s*\|\s*{_CALL}\s*\|([^|]*)\|\s*$")
PARAM_ROW = re.compile(rf"^\|\s*`({_NAME})`\s*\|\s*(\d+)\s*\|\s*`({_NAME})`\s*\|\s*`({_NAME})`\s*\|\s*`([a-z0-9_]+)`"
                       r"\s*\|\s*([a-z]+)\s*\|\s*(—|`[^`|]+`)\s*\|\s*`([a-z_]+)`\s*\|\s*$")
SIGNATURE_FORM = "| what it is | `python_name(a, b)` | `jsName(a, b)` | none, or: a 0.85, b \"auto\" |"
PARAM_FORM = "| `op` | # | `python_name` | `jsName` | `kind` | string/number/boolean | — or `default` | `error_code` |"
REQUIRED = "—"


def host_type(value: Any) -> str:
    """The host type of a host value as a caller sees it: boolean (never a number), number (an integer or a float,
    as a JavaScript number), string, null, array, object."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def kind_host_type(kind: str) -> str | None:
    """The host type a parameter of ``kind`` takes: that of the kind's plain value, which every implementation
    takes (None for a kind the harness has no plain value of)."""
    return host_type(PLAIN_VALUES[kind]) if kind in PLAIN_VALUES else None


# One or two values of every host type; a parameter must refuse, with its own code, each of another host type
# than its kind's. Both booleans and both an integer and a fraction: a binding may take 1 for true or a bool for 1.
HOST_SAMPLES: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("string", ("1",)), ("boolean", (True, False)), ("number", (1, 0.5)), ("null", (None,)), ("array", ([],)),
    ("object", ({},)))


def out_of_kind(kind: str) -> list[Any]:
    """The sample host values not of ``kind``'s host type ([] for a kind without one)."""
    wanted = kind_host_type(kind)
    if wanted is None:
        return []
    return [value for name, values in HOST_SAMPLES if name != wanted for value in values]


@dataclass(frozen=True)
class SignatureRow:
    name: str
    params: tuple[str, ...]
    js_name: str
    js_params: tuple[str, ...]
    defaults: dict[str, Any] | str  # name -> value, or why the cell does not read


@dataclass(frozen=True)
class ParamRow:
    op: str
    position: int
    name: str
    js_name: str
    kind: str
    host: str
    default: Any  # REQUIRED, a value, or _Unreadable
    code: str


@dataclass(frozen=True)
class _Unreadable:
    text: str


def _names(cell: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in cell.split(",") if name.strip())


def _literal(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the reader's depth: a cell read as its text
        return _Unreadable(text)


def _defaults(cell: str) -> dict[str, Any] | str:
    cell = cell.strip()
    if cell == "none":
        return {}
    out: dict[str, Any] = {}
    for piece in (part.strip() for part in cell.split(",")):
        match = re.fullmatch(rf"({_NAME})\s+(.+)", piece)
        value = _literal(match.group(2)) if match else None
        if match is None or isinstance(value, _Unreadable):
            return f"{piece!r} is not 'name value' with a JSON literal value"
        out[match.group(1)] = value
    return out


def signature_rows(text: str) -> list[SignatureRow]:
    return [SignatureRow(m.group(2), _names(m.group(3)), m.group(4), _names(m.group(5)), _defaults(m.group(6)))
            for m in map(SIGNATURE_ROW.match, text.splitlines()) if m]


def param_rows(text: str) -> list[ParamRow]:
    rows = []
    for match in map(PARAM_ROW.match, text.splitlines()):
        if match:
            cell = match.group(7)
            default = REQUIRED if cell == REQUIRED else _literal(cell.strip("`"))
            rows.append(ParamRow(match.group(1), int(match.group(2)), match.group(3), match.group(4), match.group(5),
                                 match.group(6), default, match.group(8)))
    return rows


def _same(a: Any, b: Any) -> bool:
    """Equal by host type and value: 30 is not 30.0, False is not 0."""
    return type(a) is type(b) and a == b


def _shown(value: Any) -> str:
    if value is REQUIRED:
        return "— (required)"
    if isinstance(value, _Unreadable):
        return f"{value.text!r} (no JSON literal)"
    return json.dumps(value)


def problems(family: Family, path: Path | None = None) -> list[str]:
    """Each way the surface in the family's specification (``path``, default: the one its file names) disagrees
    with its family file; [] when it names none."""
    path = path or family.contract
    if path is None:
        return []
    where = f"op family {family.name}: its contract {path}"
    try:  # a regular file within its limit, as contract_doc reads it
        text = untrusted.read_bounded(path, "contract").decode("utf-8")
    except (untrusted.BadDocument, UnicodeDecodeError) as exc:
        return [f"{where} cannot be read ({exc}); fix: name the family's specification in its \"contract\""]
    return compare(family, text, where)


def compare(family: Family, text: str, where: str) -> list[str]:
    found: list[str] = []
    ops = {op["name"]: op for op in family.ops}
    signatures = signature_rows(text)
    found += [f"{where}: its signature table lists {row.name}, an op the family file does not declare"
              for row in signatures if row.name not in ops]
    params = param_rows(text)
    found += [f"{where}: its parameter table lists {row.op}, an op the family file does not declare"
              for row in params if row.op not in ops]
    with_params = [name for name, op in ops.items() if op["params"]]
    if not signatures or (not params and with_params):  # say once what is missing, not once per op
        missing = (["signature table (one row per op: " + SIGNATURE_FORM + ")"] if not signatures else []) + (
            ["parameter table (one row per parameter: " + PARAM_FORM + ")"] if not params and with_params else [])
        return [*found, f"{where}: has no {' and no '.join(missing)}; the family file declares the ops "
                        f"{', '.join(ops)} (docs/contract.md §2.1 shows both tables)"]
    for name, op in ops.items():
        declared = op["params"]
        rows = [row for row in signatures if row.name == name]
        if len(rows) != 1:
            found.append(f"{where}: {len(rows)} signature rows for {name}, one wanted ({SIGNATURE_FORM})")
        else:
            found += _signature(where, op, rows[0])
        mine = [row for row in params if row.op == name]
        by_name: dict[str, list[ParamRow]] = {}
        for row in mine:
            by_name.setdefault(row.name, []).append(row)
        for position, param in enumerate(declared, start=1):
            listed = by_name.pop(param["name"], [])
            if len(listed) != 1:
                found.append(f"{where}: {len(listed)} parameter rows for {name}'s parameter {param['name']}, one "
                             f"wanted ({PARAM_FORM})")
                continue
            found += _param(where, name, position, param, listed[0])
        for extra in sorted(by_name):
            found.append(f"{where}: its parameter table lists {name}'s parameter {extra}, which the family file "
                         f"does not declare (its parameters: {', '.join(p['name'] for p in declared) or 'none'})")
    return found


def _signature(where: str, op: dict[str, Any], row: SignatureRow) -> list[str]:
    found = []
    names = tuple(p["name"] for p in op["params"])
    js_names = tuple(p["js_name"] for p in op["params"])
    name = op["name"]
    if row.params != names:
        found.append(f"{where}: its signature of {name} takes ({', '.join(row.params)}), the family file's "
                     f"({', '.join(names)})")
    if row.js_name != op["js_name"] or row.js_params != js_names:
        found.append(f"{where}: its JavaScript signature of {name} is {row.js_name}({', '.join(row.js_params)}), "
                     f"the family file's {op['js_name']}({', '.join(js_names)})")
    if isinstance(row.defaults, str):
        found.append(f"{where}: the defaults of {name} do not read: {row.defaults}")
    else:
        wanted = {p["name"]: p["default"] for p in op["params"] if "default" in p}
        if list(row.defaults) != list(wanted) or not all(_same(row.defaults[k], v) for k, v in wanted.items()):
            shown = ", ".join(f"{k} {json.dumps(v)}" for k, v in wanted.items()) or "none"
            given = ", ".join(f"{k} {json.dumps(v)}" for k, v in row.defaults.items()) or "none"
            found.append(f"{where}: its signature table gives {name} the defaults {given}, the family file {shown}")
    return found


def _param(where: str, op: str, position: int, param: dict[str, Any], row: ParamRow) -> list[str]:
    at = f"{where}: {op}'s parameter {param['name']}"
    found = []
    if row.position != position:
        found.append(f"{at} is number {row.position} in its table, {position} in the family file")
    if row.js_name != param["js_name"]:
        found.append(f"{at} is {row.js_name} in JavaScript in its table, {param['js_name']} in the family file")
    if row.kind != param["kind"]:
        found.append(f"{at} is of kind {row.kind} in its table, {param['kind']} in the family file")
    host = kind_host_type(param["kind"])
    if host is not None and row.host != host:
        found.append(f"{at} takes a {row.host} in its table; its kind {param['kind']} takes a {host}")
    wanted = param["default"] if "default" in param else REQUIRED
    if not (row.default is REQUIRED and wanted is REQUIRED) and (
            row.default is REQUIRED or wanted is REQUIRED or not _same(row.default, wanted)):
        found.append(f"{at} defaults to {_shown(row.default)} in its table, {_shown(wanted)} in the family file")
    if row.code != param["error_code"]:
        found.append(f"{at} refuses a wrong value with {row.code} in its table, {param['error_code']} in the family "
                     "file")
    return found
