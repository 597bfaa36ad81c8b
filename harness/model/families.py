"""Op families: the files that declare the ops (schemas/family-v2.schema.json; family-v1 files load as they always
did), read and checked in one place.

A family file lists its ops (parameters and their kinds, return type, steps with roles, the fields the cause
rules and the sweep read), its sweep templates and its reference module, named by module or by path. The
files come, in this order, from the harness's own ``families/`` (the memgate family: in a wheel under
``harness/resources/families``), the project's ``families/`` and ``PARITY_FAMILIES`` (files or folders,
separated like PATH). harness/model/registry.py builds the op registry from them. A family-v2 file may also name
the packages its reference needs (``requires``: PEP 508 requirements pinned with ``==``, installed by the nox
sessions before they plan: ``pinned_requirements``) and the Unicode property each step reads (``unicode``).

Everything here is untrusted: a file that does not parse, breaks its schema, repeats a name another family
has, cites a parameter or an op that does not exist, or names a reference that does not import or lacks a
function is a ``FamilyError`` naming the file, the place in it and the fix. The registry keeps the
families that load and the problems of those that do not; every command stops on a problem (status 2).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.model import paths
from harness.model.names import did_you_mean
from harness.model.status import UsageError

ENV = "PARITY_FAMILIES"
OWN = paths.resource("families")  # the harness's own families (memgate)
PLACEHOLDER = re.compile(r"\{c(?::([a-z]+))?\}")
PLACEHOLDERS = ("{c}", "{c:json}", "{c:u}")  # a template's swept value: as it is, inside a JSON string, as \u escapes
SCHEMAS = ("family-v1", "family-v2")  # the family schemas this harness reads; a file's "schema" picks its own
# A requirement of a family's reference (family-v2 "requires"): a PEP 508 project name, optional extras, == one
# version (PEP 440, no wildcard), optional environment marker. schemas/family-v2.schema.json's pattern is this one.
_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_VERSION = (r"(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:(?:a|b|rc)[0-9]+)?(?:\.post[0-9]+)?(?:\.dev[0-9]+)?"
            r"(?:\+[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)?")
REQUIREMENT = re.compile(rf"^{_NAME} *(?:\[ *{_NAME}(?: *, *{_NAME})* *\])? *== *{_VERSION}(?: *; *\S.*)?$")


class FamilyError(UsageError, ValueError):
    """A family file that cannot be used; the message names the file, where and the fix (status 2)."""


@dataclass(frozen=True)
class Family:
    name: str
    path: Path
    description: str
    module: ModuleType  # the reference
    ops: tuple[dict[str, Any], ...]  # as the file gives them, checked
    templates: tuple[dict[str, Any], ...]
    contract: Path | None = None  # its specification, when it names one
    fixture_folder: Path | None = None  # where its fixture files and release pins live, when it names one
    generators: tuple[Path, ...] = ()  # its fixture generators (.py files defining SPEC)
    schema: str = "family-v1"  # the schema its file follows (SCHEMAS)
    requires: tuple[str, ...] = ()  # the pinned requirements its reference needs (family-v2 "requires")


def project_name(name: str) -> str:
    """A project name as pip compares them (PEP 503): lower case, each run of - _ . one -."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pin(requirement: str) -> tuple[str, str]:
    """(the project name as pip compares it, the version) of a requirement REQUIREMENT matches."""
    name = re.match(_NAME, requirement)
    version = re.match(_VERSION, requirement.split("==", 1)[1].strip())
    assert name is not None and version is not None, requirement
    return project_name(name.group(0)), version.group(0)


def requirement_problem(entry: object) -> str | None:
    """Why ``entry`` is not a requirement a family may give (REQUIREMENT), or None."""
    if not isinstance(entry, str):
        return f"{entry!r} is not a string"
    if REQUIREMENT.fullmatch(entry):
        return None
    name = re.match(_NAME, entry.strip())
    example = f"{name.group(0) if name else 'regex'}==2024.11.6"
    if "==" not in entry or "===" in entry:
        return f"{entry!r} is not pinned to one version (give it with ==, e.g. {example!r})"
    return f"{entry!r} is not a PEP 508 requirement pinned with == to one version (e.g. {example!r})"


def pinned_requirements(path: Path) -> list[str]:
    """The requirements a family file's reference needs (its "requires"), for the nox sessions, which install them
    before they plan: standard library only (nox's own interpreter runs it). A file that cannot be read or is not
    a family-v2 object gives none (the harness reports what is wrong with it); an entry that is not a pinned PEP 508
    requirement is a FamilyError naming the file and the entry."""
    from harness.model import untrusted

    try:
        document = untrusted.loads(untrusted.read_bounded(path, "family file"), unique_keys=True)
    except (untrusted.BadDocument, untrusted.Refused):
        return []
    if not isinstance(document, dict) or document.get("schema") == "family-v1" or "requires" not in document:
        return []
    return _requires(path, document["requires"])


def _requires(path: Path, given: object) -> list[str]:
    if not isinstance(given, list):
        raise _fail(path, "requires", f"{given!r} is not a list", 'give a list of pinned requirements, e.g. '
                    '["regex==2024.11.6"]')
    for index, entry in enumerate(given):
        problem = requirement_problem(entry)
        if problem:
            raise _fail(path, f"requires/{index}", problem,
                        "give each requirement of the reference as name==version (PEP 508, one pinned version)")
    return list(given)


def family_files() -> list[Path]:
    """Every family file, in loading order: the harness's own, the project's, then PARITY_FAMILIES'. A file found
    twice is listed once: by its path, or by its name and content (an installed harness run in its own checkout
    finds its ``memgate.json`` in the wheel and in ``families/``). Two files of one name and different content
    both stay: ``load`` refuses the later, naming both."""
    folders = [OWN]
    own_project = paths.ROOT / "families"
    if own_project.resolve() != OWN.resolve():
        folders.append(own_project)
    out: list[Path] = []
    for folder in folders:
        if folder.is_dir():
            out += sorted(folder.glob("*.json"))
    for item in (p for p in os.environ.get(ENV, "").split(os.pathsep) if p):
        named = Path(item).expanduser()
        if named.is_dir():
            out += sorted(named.glob("*.json"))
        else:
            out.append(named)  # a missing file is reported by read()
    seen: set[Path] = set()
    contents: set[tuple[str, bytes]] = set()
    unique = []
    for path in out:
        key, content = path.resolve(), _content(path)
        if key in seen or (content is not None and (path.name, content) in contents):
            continue  # the same file, or a copy of one already listed (a wheel's own family in its checkout)
        seen.add(key)
        if content is not None:
            contents.add((path.name, content))
        unique.append(path)
    return unique


def _content(path: Path) -> bytes | None:
    """A family file's bytes, to know a copy of one already listed (the installed harness's own ``memgate.json``
    and its checkout's ``families/memgate.json`` are one family); None when it cannot be read as a family file,
    which ``read`` then reports."""
    from harness.model import untrusted

    try:
        return untrusted.read_bounded(path, "family file")
    except untrusted.BadDocument:
        return None


def _validation() -> ModuleType:
    """harness/model/schemas.py, imported by name when a file is checked: the protocol's server side, which
    imports the registry, runs inside Pyodide, where jsonschema is not (pyproject.toml's import contract keeps
    its import graph free of it); there the files are the ones the harness that started it has checked."""
    return importlib.import_module("harness.model.schemas")


def _fail(path: Path, where: str, problem: str, fix: str) -> FamilyError:
    return FamilyError(f"family file {path}: {where}: {problem}; fix: {fix}")


def _document(path: Path) -> dict[str, Any]:
    from harness.model import untrusted  # the strict reader: no duplicate keys, no NaN, bounded


    try:  # a regular file within its limit (untrusted.LIMITS), else refused unread: a FIFO never blocks
        data = untrusted.read_bounded(path, "family file")
    except untrusted.BadDocument as exc:
        problem = str(exc).removeprefix(f"{path}: ").removeprefix("not a family file: ")
        raise _fail(path, "(file)", f"cannot be read ({problem})",
                    f"name an existing family file (a regular file) in {ENV}, or remove it") from None
    try:
        document = untrusted.loads(data, unique_keys=True)
    except untrusted.Refused as exc:
        raise _fail(path, "(file)", f"not strict JSON ({exc})", "write it as JSON (docs/implementers.md)") from None
    if not isinstance(document, dict):
        raise _fail(path, "(top)", f"a JSON {type(document).__name__}, not an object",
                    "write the family as one JSON object (schemas/family-v2.schema.json)")
    schema = document.get("schema")
    if schema not in SCHEMAS:
        raise _fail(path, "schema", f"{schema!r} is not a family schema this harness reads",
                    f"name one of {', '.join(SCHEMAS)} (schemas/<name>.schema.json)")
    if schema != "family-v1" and "requires" in document:
        _requires(path, document["requires"])  # named more plainly than the schema's pattern would
    # Inside Pyodide (no jsonschema there) the files are the ones the harness that started it has checked.
    problems = [] if sys.platform == "emscripten" else _validation().problems(document, schema)
    if problems:
        raise _fail(path, problems[0].split(": ", 1)[0], problems[0].split(": ", 1)[-1][:300],
                    f"follow schemas/{schema}.schema.json" + (f" ({len(problems) - 1} more problem(s))"
                                                             if len(problems) > 1 else ""))
    if document["family"] != path.stem:
        raise _fail(path, "family", f"{document['family']!r} is not the file's name ({path.stem!r})",
                    f"name the file {document['family']}.json, or the family {path.stem!r}")
    return document


def load_file(name: str, target: Path) -> ModuleType:
    """The module of a .py file or a package folder, imported under ``name`` (once: a second call with the same
    file gives the same module). Its own import errors propagate."""
    init = target / "__init__.py" if target.is_dir() else target
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(init):
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, init, submodule_search_locations=[str(target)] if target.is_dir() else None)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _fixtures(path: Path, named: dict[str, Any] | None) -> tuple[Path | None, tuple[Path, ...]]:
    """(the fixture folder, the generator files) the family file names; the files must exist."""
    if named is None:
        return None, ()
    generators = []
    for index, given in enumerate(named["generators"]):
        target = (path.parent / given).resolve()
        if target.suffix != ".py" or not target.is_file():
            raise _fail(path, f"fixtures/generators/{index}", f"{given!r} is not a .py file ({target})",
                        "name each generator's .py file, from the family file's folder")
        generators.append(target)
    folder = (path.parent / named["folder"]).resolve()
    if folder.exists() and not folder.is_dir():
        raise _fail(path, "fixtures/folder", f"{named['folder']!r} is not a folder ({folder})",
                    "name the folder the family's fixture files go in, from the family file's folder")
    return folder, tuple(generators)


def _missing(requires: tuple[str, ...], module: str | None) -> list[str]:
    """The requirements that may provide the missing module ``module``: the one whose project name is the module's,
    else each one not installed at its pinned version (a project's module names need not be its own)."""
    from importlib import metadata

    def absent(requirement: str) -> bool:
        name, version = pin(requirement)
        try:
            return metadata.version(name) != version
        except metadata.PackageNotFoundError:
            return True

    top = project_name((module or "").split(".")[0])
    return [r for r in requires if pin(r)[0] == top] or [r for r in requires if absent(r)]


def _reference(path: Path, family: str, named: dict[str, str], requires: tuple[str, ...] = ()) -> ModuleType:
    """The family's reference module: imported by name, or loaded from its path (a .py file or a package). A
    module missing that a requirement of the family may provide: an error naming it and the pip command."""
    try:
        if "module" in named:
            return importlib.import_module(named["module"])
        target = (path.parent / named["path"]).resolve()
        init = target / "__init__.py" if target.is_dir() else target
        if not init.is_file():
            raise _fail(path, "reference/path", f"{named['path']!r} is neither a .py file nor a package folder "
                        f"({target})", "name the reference's file or folder, from the family file's folder")
        return load_file(f"parity_family_{family}", target)
    except FamilyError:
        raise
    except ModuleNotFoundError as exc:
        wanted = _missing(requires, exc.name)
        if not wanted:
            raise _fail(path, "reference", f"{named} does not import (ModuleNotFoundError: {exc})",
                        "make the reference importable (its module name on sys.path, or its path right); a package "
                        'it needs goes in the family\'s "requires" (schema family-v2), pinned: name==version') from None
        command = f"{sys.executable} -m pip install " + " ".join(repr(requirement) for requirement in wanted)
        raise _fail(path, "reference", f"{named} does not import (ModuleNotFoundError: {exc}); it needs "
                    f"{', '.join(wanted)} (the family's \"requires\"), not installed in this environment",
                    f"install it: {command} (nox -s parity and nox -s tests install it themselves)") from None
    except Exception as exc:  # noqa: BLE001 - the reference's own import failing: its message, not a traceback
        raise _fail(path, "reference", f"{named} does not import ({type(exc).__name__}: {exc})",
                    "make the reference importable (its module name on sys.path, or its path right)") from None


def _check_op(path: Path, where: str, op: dict[str, Any], module: ModuleType) -> None:
    params = [param["name"] for param in op["params"]]
    if len(set(params)) != len(params):
        raise _fail(path, f"{where}/params", "a parameter name is given twice", "name each parameter once")
    ids = [step["id"] for step in op["steps"]]
    if len(set(ids)) != len(ids):
        raise _fail(path, f"{where}/steps", "a step id is given twice", "give each step its own id")
    for index, step in enumerate(op["steps"]):
        if step.get("role") in ("host", "json") and step.get("param") not in params:
            raise _fail(path, f"{where}/steps/{index}", f"a {step['role']} step checks a parameter: "
                        f"{step.get('param')!r} is not one of {params}", "name the parameter it checks in 'param'")
        if "follows" in step and step["follows"]["step"] not in ids[:index]:
            raise _fail(path, f"{where}/steps/{index}/follows/step", f"{step['follows']['step']!r} is not a step "
                        f"before {step['id']}{did_you_mean(step['follows']['step'], ids[:index])}",
                        "name the earlier step whose value this one is computed from")
        if "param" in step and step["param"] not in params:
            raise _fail(path, f"{where}/steps/{index}/param", f"{step['param']!r} is not a parameter"
                        f"{did_you_mean(step['param'], params)}", f"name one of {params}")
    _check_codes(path, where, op)
    for name in op.get("plain", {}):
        if name not in params:
            raise _fail(path, f"{where}/plain", f"{name!r} is not a parameter{did_you_mean(name, params)}",
                        f"name one of {params}")
    functions = {"function": op.get("function", op["name"])}
    functions.update((f"later/{version}", function) for version, function in op.get("later", {}).items())
    for field, function in functions.items():
        if not callable(getattr(module, function, None)):
            raise _fail(path, f"{where}/{field}", f"the reference {module.__name__} has no function {function!r}",
                        f"define {function}() in the reference, or name its function in 'function'")
    if "result_schema" in op and sys.platform != "emscripten":
        problem = _validation().schema_problem(op["result_schema"])
        if problem:
            raise _fail(path, f"{where}/result_schema", f"not a JSON Schema ({problem[:200]})",
                        "write a draft 2020-12 schema")


def _check_relations(path: Path, where: str, op: dict[str, Any]) -> None:
    """Every step of a family-v2 op past its first says what it takes from the step before it: its ``follows``, or
    a role with a relation of its own (harness/model/step_relations.py); a step that says nothing is refused here,
    not only named later by tracecheck (issue 53 item 4)."""
    from harness.model.step_relations import undeclared

    unsaid = undeclared(op["steps"])
    if unsaid:
        at = [step["id"] for step in op["steps"]].index(unsaid[0])
        more = f" ({len(unsaid) - 1} more such step(s): {', '.join(unsaid[1:])})" if len(unsaid) > 1 else ""
        raise _fail(path, f"{where}/steps/{at}", f"step {unsaid[0]} of op {op['name']} says nothing of the step "
                    f"before it (no \"follows\", and its role has no relation of its own){more}",
                    'give it "follows": {"step": <the earlier step it takes its value from>, "as": <a relation>}, '
                    'with "as": "independent" where it reads an argument of its own (docs/traces.md)')


def _check_codes(path: Path, where: str, op: dict[str, Any]) -> None:
    """Every error code a family names is one of the contract's (reference/errors.py CODES): a family cannot define
    codes of its own (a testee maps "code: detail" to its code with the start request's list, and the reference
    answers any other as unexpected_exception), so a code of its own is refused here, not found later as a
    divergence of no cause."""
    from reference.errors import CODES

    named = [(f"{where}/params/{i}/error_code", param["error_code"]) for i, param in enumerate(op["params"])]
    named += [(f"{where}/steps/{i}/code", step["code"]) for i, step in enumerate(op["steps"]) if "code" in step]
    for at, code in named:
        if code not in CODES:
            raise _fail(path, at, f"{code!r} is not an error code of the contract{did_you_mean(code, CODES)} "
                        "(a family cannot define codes of its own)", f"use one of {', '.join(CODES)}")


def _check_template(path: Path, where: str, template: dict[str, Any], ops: dict[str, dict[str, Any]]) -> None:
    if template["op"] not in ops:
        raise _fail(path, f"{where}/op", f"{template['op']!r} is not an op of this family"
                    f"{did_you_mean(template['op'], ops)}", f"name one of {', '.join(ops)}")
    params = {param["name"]: param for param in ops[template["op"]]["params"]}
    unknown = [name for name in template["args"] if name not in params]
    missing = [name for name, param in params.items() if "default" not in param and name not in template["args"]]
    if unknown or missing:
        raise _fail(path, f"{where}/args", f"unknown {unknown} / missing {missing} argument(s) of {template['op']}",
                    f"give the op's parameters: {', '.join(params)}")
    swept = False
    for name, value in template["args"].items():
        if not isinstance(value, str):
            continue
        for match in PLACEHOLDER.finditer(value):
            if match.group(0) not in PLACEHOLDERS:
                raise _fail(path, f"{where}/args/{name}", f"unknown placeholder {match.group(0)!r}",
                            f"use {', '.join(PLACEHOLDERS)}")
            swept = True
    if not swept:
        raise _fail(path, f"{where}/args", "no argument holds the swept value",
                    f"put {PLACEHOLDERS[0]} (or {', '.join(PLACEHOLDERS[1:])}) where the code point goes")


def read(path: Path) -> Family:
    """The family of one file, checked; FamilyError naming what is wrong and where."""
    document = _document(path)
    requires = tuple(document.get("requires", ()))
    module = _reference(path, document["family"], document["reference"], requires)
    ops = {}
    for index, op in enumerate(document["ops"]):
        if op["name"] in ops:
            raise _fail(path, f"ops/{index}/name", f"op {op['name']!r} is declared twice", "declare each op once")
        _check_op(path, f"ops/{index}", op, module)
        if document["schema"] != "family-v1":  # a family-v1 file's roles name causes only
            _check_relations(path, f"ops/{index}", op)
        ops[op["name"]] = op
    names: set[str] = set()
    for index, template in enumerate(document.get("templates", [])):
        if template["name"] in names:
            raise _fail(path, f"templates/{index}/name", f"template {template['name']!r} is given twice",
                        "name each template once")
        names.add(template["name"])
        _check_template(path, f"templates/{index}", template, ops)
    contract = (path.parent / document["contract"]).resolve() if "contract" in document else None
    folder, generators = _fixtures(path, document.get("fixtures"))
    return Family(document["family"], path, document["description"], module, tuple(document["ops"]),
                  tuple(document.get("templates", [])), contract, folder, generators, document["schema"], requires)


def _names(family: Family) -> list[tuple[str, str]]:
    """Every name the family takes, with its kind: its own, its ops', its steps' and its templates'."""
    return [("family", family.name), *(("op", op["name"]) for op in family.ops),
            *(("step", step["id"]) for op in family.ops for step in op["steps"]),
            *(("template", template["name"]) for template in family.templates)]


def load() -> tuple[list[Family], list[str]]:
    """(the families that load, in loading order; one problem line per file that does not). A family or an
    op, step or template name that an earlier family has is a problem of the later file."""
    found: list[Family] = []
    problems: list[str] = []
    if not OWN.is_dir():  # a broken install or checkout: the harness would run with no op at all
        problems.append(f"the harness's own op families are missing ({OWN}): reinstall memgate-parity, or restore "
                        "families/ in the checkout from version control")
    owner: dict[tuple[str, str], Path] = {}
    for path in family_files():
        try:
            family = read(path)
            taken = [key for key in _names(family) if key in owner]
            if taken:
                kind, name = taken[0]
                if kind == "family":  # the same file's name (read checks it): a copy would have been left out
                    raise _fail(path, kind, f"{kind} {name!r} is declared by {owner[(kind, name)]} already, with "
                                "other content", "keep one of the two files (an installed harness's own family: "
                                "reinstall memgate-parity from the checkout whose families/ you run in), or give "
                                "the family another name (names are shared by every family)")
                raise _fail(path, kind, f"{kind} {name!r} is declared by {owner[(kind, name)]} already",
                            f"give the {kind} another name (names are shared by every family)")
            owner.update((key, path) for key in _names(family))
            found.append(family)
        except FamilyError as exc:
            problems.append(str(exc))
    return found, problems


def check_vias(found: list[Family]) -> list[str]:
    """One problem per op whose ``via`` names no op of any family that loaded."""
    ops = {op["name"] for family in found for op in family.ops}
    return [f"family file {family.path}: op {op['name']}: via {op['via']!r} is not an op{did_you_mean(op['via'], ops)}"
            "; fix: name an op of a family that loads" for family in found for op in family.ops
            if "via" in op and op["via"] not in ops]

