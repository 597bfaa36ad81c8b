"""Implementations as plug-ins: each one is declared once, in ``implementations/<name>.json``.

A declaration (schema ``schemas/implementation-v1.schema.json``) says how to build the
implementation, how to start it (a Python module called in process, or a command speaking the protocol
of docs/protocol.md), whether it is the oracle, which contract versions it serves, its deadlines and its
expected-divergence list. The CLI, the suites, the nox sessions, the surface check and the bench all
read the declarations; adding an implementation changes nothing here.

More declarations can be added from outside the project with ``PARITY_IMPLEMENTATIONS`` (folders,
separated by the path separator), e.g. a fake implementation in a test.

This module is the one reader of declarations. The nox sessions, which run under nox's own interpreter
(no project, no jsonschema), get what they build from ``python -m harness.testees.impls`` run with the
session's interpreter (``plan``; harness/tools/parity_plan.py reads it): the same files, the same verdicts, the
same placeholders expanded.

Every implementation answers ``call(op, args) -> response``, where a response is the protocol's
``{"ok": <return value>}`` or ``{"error": {"code", "message"}}``. Codes are the contract's, plus the
harness's own for failures that are not contract errors:

* ``unexpected_exception``: the implementation raised something that is not a contract error
  (e.g. a ``UnicodeEncodeError`` or ``OverflowError`` leaking from a binding);
* ``crash`` / ``timeout``: a command testee died or hung on this request;
* ``unavailable``: the implementation is not built or cannot be loaded;
* ``bad_request``: the request itself was malformed.
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import jsonschema

from harness.model import hostvalues, paths, untrusted
from harness.model.names import did_you_mean
from harness.model.paths import SCHEMAS
from harness.model.registry import OPS, families, served_ops
from harness.model.status import UsageError, exit_with
from harness.testees.command import DEFAULT_MAX_LINE_BYTES, CommandTestee
from harness.testees.errors import HARNESS_CODES, ImplementationUnavailable, UnknownImplementation
from harness.testees.findings import DEFAULT_MAX_FAULTS
from harness.testees.inprocess import InProcess
from harness.testees.protocol import PROTOCOL_VERSION
from harness.testees.testee import Testee

ROOT = paths.ROOT
DECLARATIONS = paths.IMPLEMENTATIONS
SCHEMA = SCHEMAS / "implementation-v1.schema.json"
EXTRA_ENV = "PARITY_IMPLEMENTATIONS"
ORACLE_ENV = "PARITY_ORACLE"  # --oracle NAME (harness/model/project_option.py): this run's oracle
CONTEXT_ENV = "PARITY_CONTEXT"  # --context NAMES: implementations shown beside a witness, never judged
MAX_DECLARATION_BYTES = 1 << 20  # a declaration is a few hundred bytes; a bigger file is not one


class DeclarationError(UsageError):
    """A declaration is missing, malformed or inconsistent; the message names the file and the problem. A
    configuration error (status 2) wherever it stops a command."""


@dataclass(frozen=True)
class Implementation:
    """One implementation's declaration, its placeholders resolved."""

    name: str
    description: str
    language: str
    oracle: bool
    contracts: tuple[str, ...]
    python_module: str | None  # in process: the module with one function per op
    command: tuple[str, ...] | None  # out of process: the testee program
    env: dict[str, str]
    build: tuple[tuple[str, ...], ...]
    expected: Path | None
    startup_deadline: float
    request_deadline: float
    hint: str
    source: Path  # the declaration file
    host_strings: str = "code-points"  # "utf-16": a high surrogate then a low one is a pair there
    bare_bench: tuple[str, ...] | None = None  # times its own loop over a requests file (nox -s bench)
    speed_goals: bool = True  # in the set the bench's throughput goals are stated for
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES  # limits.line_bytes
    max_faults: int = DEFAULT_MAX_FAULTS  # limits.faults_in_a_row
    # unicode_platforms: step -> platform -> the Unicode version it reads there (where that depends on the platform)
    unicode_platforms: dict[str, dict[str, str]] = field(default_factory=dict)
    # unicode: property -> the Unicode version it reads (the declaration's word, for a black box that cannot say it
    # itself; its start answer's, or an in-process module's UNICODE_VERSIONS, is taken before it: merge_unicode)
    unicode: dict[str, str] = field(default_factory=dict)
    ops: tuple[str, ...] = tuple(OPS)  # the ops it serves ("ops": op and family names, resolved)
    functions: dict[str, str] = field(default_factory=dict)  # in process: op -> its function's name there

    def serves_op(self, op: str) -> bool:
        """Whether it serves ``op`` (its declaration's ``ops``): an op it does not serve is never sent to it."""
        return op in self.ops

    def function_of(self, op: str) -> str:
        """The name of the function serving ``op`` in its in-process module."""
        return self.functions.get(op, op)

    def platform_versions(self, step: str) -> tuple[str, ...]:
        """The Unicode versions it may read for ``step`` on the platforms it supports (none declared: ())."""
        return tuple(sorted(set(self.unicode_platforms.get(step, {}).values())))

    @property
    def expresses_all(self) -> bool:
        """Whether every argument arrives in its host as the same value, whatever it is (strings of code points)."""
        return self.host_strings != "utf-16"

    def can_express(self, args: dict[str, Any]) -> bool:
        """Whether every argument arrives in its host as the same value (see hostvalues.utf16_merges)."""
        return self.expresses_all or not any(hostvalues.utf16_merges(v) for v in args.values())

    @property
    def in_process(self) -> bool:
        return self.python_module is not None

    def serves(self, contract: str) -> bool:
        return contract in self.contracts


PLACEHOLDERS = ("python", "root", "here")  # {python}: the reading interpreter, {root}: the project, {here}: its folder
# A {name} the expansion would leave as it is; "${name}" is the shell's (a command may run `sh -c '... ${HOME}'`).
_PLACEHOLDER = re.compile(r"(?<!\$)\{([A-Za-z_][A-Za-z0-9_.-]*)\}")


def _expand(text: str, here: Path) -> str:
    return text.replace("{python}", sys.executable).replace("{root}", str(ROOT)).replace("{here}", str(here))


def _expanded_fields(data: dict[str, Any]) -> list[tuple[str, str]]:
    """Every string of a declaration whose placeholders are expanded, with where it is (``start/command/2``)."""
    start = data.get("start", {})
    found = [(f"start/command/{i}", text) for i, text in enumerate(start.get("command", []))]
    found += [(f"start/env/{key}", text) for key, text in start.get("env", {}).items()]
    found += [(f"build/{i}/{j}", text) for i, command in enumerate(data.get("build", []))
              for j, text in enumerate(command)]
    found += [(f"bare_bench/{i}", text) for i, text in enumerate(data.get("bare_bench", []))]
    if isinstance(data.get("expected"), str):
        found.append(("expected", data["expected"]))
    return found


def _check_placeholders(path: Path, data: dict[str, Any]) -> None:
    """A ``{name}`` that is no placeholder (``{pyhton}``, ``{ROOT}``) would reach the command as it is: the
    declaration is broken, the field and the placeholder named."""
    for where, text in _expanded_fields(data):
        for match in _PLACEHOLDER.finditer(text):
            name = match.group(1)
            if name not in PLACEHOLDERS:
                known = ", ".join(f"{{{known}}}" for known in PLACEHOLDERS)
                raise DeclarationError(
                    f"{path}: field {where}: unknown placeholder {{{name}}} in {text!r}"
                    f"{did_you_mean(name.lower(), PLACEHOLDERS)}; fix: use one of {known} (docs/implementers.md)")


def _fix(error: jsonschema.ValidationError) -> str:
    """What to do about a schema error, in a few words."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "required":
        missing = str(error.message).split("'")[1] if "'" in error.message else "it"
        return f"add the field `{missing}`"
    if error.validator == "additionalProperties":
        return "remove the field, or check its spelling against schemas/implementation-v1.schema.json"
    if error.validator == "enum":
        return "use one of " + ", ".join(json.dumps(v) for v in error.validator_value)
    if error.validator == "const":
        return f"set it to {json.dumps(error.validator_value)}"
    if error.validator == "type":
        return f"make it of type {error.validator_value}"
    if error.validator in ("minimum", "exclusiveMinimum"):
        return f"make it {'at least' if error.validator == 'minimum' else 'more than'} {error.validator_value}"
    if error.validator == "minItems":
        return f"give it at least {error.validator_value} item(s)"
    if error.validator == "pattern":
        return f"make it match {error.validator_value}"
    if schema.get("description"):
        return str(schema["description"])
    return "see schemas/implementation-v1.schema.json"


def _load(path: Path) -> Implementation:
    try:
        data = untrusted.read_document(path, "declaration", unique_keys=True, max_bytes=MAX_DECLARATION_BYTES,
                                       max_depth=untrusted.MAX_DEPTH)  # 100 levels, as documented
    except untrusted.BadDocument as exc:  # not JSON, too deep, NaN, not an object, unreadable: this one is broken
        problem = str(exc).removeprefix(f"{path}: ").removeprefix("not a declaration: ").removeprefix(
            "cannot read the declaration: ")
        raise DeclarationError(f"{path}: cannot read the declaration: {problem}; fix: make it one JSON object "
                               "(schemas/implementation-v1.schema.json)") from None
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(_schema()).iter_errors(data))
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "(the top level)"
        raise DeclarationError(f"{path}: field {where}: {error.message}; fix: {_fix(error)}")
    if data["name"] != path.stem:
        raise DeclarationError(f"{path}: field name: {data['name']!r} is not the file name {path.stem!r}; fix: "
                               "rename the file or the implementation")
    _check_placeholders(path, data)
    here = path.parent
    start = data["start"]
    served, unknown = served_ops(data.get("ops"))
    if unknown:
        raise DeclarationError(f"{path}: field ops: {', '.join(map(repr, unknown))} is neither an op nor an op family"
                               f"{did_you_mean(unknown[0], [*families(), *OPS])}; fix: name ops ({', '.join(OPS)}) or "
                               f"families ({', '.join(families())})")
    functions = dict(data.get("functions", {}))
    if functions and "python" not in start:
        raise DeclarationError(f"{path}: field functions: only an in-process implementation (start.python) has "
                               "functions; fix: remove the field (a command testee is sent each op by its name)")
    stray = sorted(set(functions) - set(served))
    if stray:
        raise DeclarationError(f"{path}: field functions: {', '.join(stray)} is not an op it serves (ops: "
                               f"{', '.join(served)}); fix: remove it or serve the op")
    return Implementation(
        ops=served,
        functions=functions,
        name=data["name"],
        description=data["description"],
        language=data["language"],
        oracle=data["oracle"],
        contracts=tuple(data["contracts"]),
        python_module=start.get("python"),
        command=tuple(_expand(t, here) for t in start["command"]) if "command" in start else None,
        env={k: _expand(v, here) for k, v in start.get("env", {}).items()},
        build=tuple(tuple(_expand(t, here) for t in cmd) for cmd in data["build"]),
        expected=_document_path(path, "expected", data["expected"]) if data["expected"] else None,
        startup_deadline=float(data["deadlines"]["startup"]),
        request_deadline=float(data["deadlines"]["request"]),
        hint=data["hint"],
        source=path,
        host_strings=data.get("host_strings", "code-points"),
        bare_bench=tuple(_expand(t, here) for t in data["bare_bench"]) if "bare_bench" in data else None,
        speed_goals=data.get("speed_goals", True),
        unicode_platforms={step: dict(by) for step, by in data.get("unicode_platforms", {}).items()},
        unicode=dict(data.get("unicode", {})),
        max_line_bytes=data.get("limits", {}).get("line_bytes", DEFAULT_MAX_LINE_BYTES),
        max_faults=data.get("limits", {}).get("faults_in_a_row", DEFAULT_MAX_FAULTS),
    )


def _base_of(path: Path) -> Path:
    """What a relative document path of the declaration ``path`` is relative to: the project root for the
    project's own declarations (implementations/), the declaration's own folder for every other one
    (PARITY_IMPLEMENTATIONS)."""
    here = path.parent.resolve()
    return ROOT if here == DECLARATIONS.resolve() else here


def _document_path(path: Path, field: str, value: str) -> Path:
    """A file the declaration makes the harness read or write as a document (its ``field``): ``{root}`` and
    ``{here}`` expanded, a relative path taken from ``_base_of``; it must resolve (symbolic links followed)
    inside the declaration's folder or the project, else the declaration is broken, the field named."""
    here = path.parent.resolve()
    named = Path(_expand(value, here))
    try:
        resolved = (named if named.is_absolute() else _base_of(path) / named).resolve()
    except (OSError, RuntimeError) as exc:  # a loop of symbolic links
        raise DeclarationError(f"{path}: field {field}: {value!r} does not resolve ({exc}); fix: name a file inside "
                               "the declaration's folder or the project") from None
    if not (resolved.is_relative_to(here) or resolved.is_relative_to(ROOT)):
        raise DeclarationError(
            f"{path}: field {field}: {value!r} resolves to {resolved}, outside the declaration's folder ({here}) "
            f"and the project ({ROOT}); fix: name a file inside one of them (a relative path is taken from "
            f"{'the project root' if _base_of(path) == ROOT else 'the folder of the declaration'})")
    return resolved


def _schema() -> dict[str, Any]:
    # read again with every reload of the declarations (they are cached by their files' stamps), so a
    # schema edited together with a declaration during a long run is seen together with it
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


def declaration_dirs() -> list[Path]:
    extra = [Path(p) for p in os.environ.get(EXTRA_ENV, "").split(os.pathsep) if p]
    return [DECLARATIONS, *extra]


@dataclass(frozen=True)
class _Read:
    found: dict[str, Implementation]  # the declarations that load, by name
    broken: dict[str, str]  # the ones that do not: file stem -> what is wrong, and the fix


def _current() -> _Read:
    """The declarations as read last (cached: never changed by a caller). Read again only when a
    declaration file or folder changes: the harness asks for them per example, so the files are looked
    at at most once a second (at once when the extra folders change)."""
    now, extra = time.monotonic(), os.environ.get(EXTRA_ENV, "")
    if now - _CHECKED[0] > _RECHECK_SECONDS or extra != _CHECKED[1]:
        _CHECKED[:] = [now, extra, _fingerprint()]
    return _read_all(_CHECKED[2])


def declarations() -> dict[str, Implementation]:
    """Every declared implementation by name (the project's, then those of PARITY_IMPLEMENTATIONS)."""
    return dict(_current().found)


_RECHECK_SECONDS = 1.0
_CHECKED: list[Any] = [-1e9, None, ()]


def _fingerprint() -> tuple[tuple[str, int, int], ...]:
    """Each declaration file with its mtime and size (-1, -1: a folder that does not exist)."""
    found: list[tuple[str, int, int]] = []
    for directory in declaration_dirs():
        if not directory.is_dir():
            found.append((str(directory), -1, -1))
            continue
        for path in sorted(directory.glob("*.json")):
            stat = path.stat()
            found.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(found)


@lru_cache(maxsize=16)
def _read_all(fingerprint: tuple[tuple[str, int, int], ...]) -> _Read:
    """Every declaration file of ``fingerprint`` read: those that load and those that do not."""
    found: dict[str, Implementation] = {}
    broken: dict[str, str] = {}
    for name, mtime, _ in fingerprint:
        if mtime == -1:
            if Path(name) == DECLARATIONS:
                raise DeclarationError(paths.project_problem() or f"{name}: the project has no folder of "
                                       "implementation declarations (implementations/)")
            raise DeclarationError(f"{name}: no such folder of implementation declarations (named by {EXTRA_ENV})")
        try:
            declared = _load(Path(name))
        except DeclarationError as exc:
            broken[Path(name).stem] = str(exc)
            continue
        if declared.name in found:
            broken[declared.name] = (f"{name}: implementation {declared.name!r} is already declared in "
                                     f"{found[declared.name].source}; fix: remove one of them")
            continue
        found[declared.name] = declared
    oracles = [d for d in found.values() if d.oracle]
    if not oracles:
        raise DeclarationError("no implementation is declared the oracle (\"oracle\": true)"
                               + (f" (broken: {'; '.join(broken.values())})" if broken else ""))
    for op in OPS:
        serving = [d.name for d in oracles if d.serves_op(op)]
        if len(serving) > 1:
            raise DeclarationError(f"op {op} has {len(serving)} oracles ({', '.join(serving)}): an op family's "
                                   "oracle is the one implementation serving it that is declared \"oracle\": true; "
                                   "fix: name what each oracle serves in its \"ops\", or drop \"oracle\" from one")
    return _Read(found, dict(sorted(broken.items())))


def broken() -> dict[str, str]:
    """The declaration files that do not load: their name (the file stem) -> what is wrong, and the fix.
    They stop only what asks for them."""
    return dict(_current().broken)


def names() -> list[str]:
    """Every declared implementation whose declaration loads (and is not ambiguous), the oracle first."""
    read = _current()
    found = read.found
    return sorted((name for name in found if name not in read.broken), key=lambda name: (not found[name].oracle, name))


def oracle(op: str | None = None) -> str:
    """The implementation the others are compared with, for ``op``: the one this run names (``--oracle NAME``,
    ``PARITY_ORACLE``) where it serves the op, else the declared oracle that serves it (each op family may
    have its own: the implementation declared ``"oracle": true`` whose ``ops`` hold it), else the first
    declared oracle. Without an op: the run's, else the first declared. An unknown name is a usage error."""
    found = _current().found
    named = os.environ.get(ORACLE_ENV)
    if named:
        if named not in found:
            raise UnknownImplementation(f"--oracle {named} ({ORACLE_ENV}): unknown implementation"
                                        f"{did_you_mean(named, found)}; declared: {', '.join(found)}")
        if op is None or found[named].serves_op(op):
            return named
    oracles = [d for d in found.values() if d.oracle]
    return next((d.name for d in oracles if op is not None and d.serves_op(op)), oracles[0].name)


def context() -> frozenset[str]:
    """The implementations this run shows for context only (``--context NAMES``, ``PARITY_CONTEXT``, comma-
    separated): their answers go beside every witness and they are never divergent, so a run can compare two
    named implementations with the reference as context. An unknown name is a usage error."""
    named = [name for name in os.environ.get(CONTEXT_ENV, "").split(",") if name]
    found = _current().found
    unknown = [name for name in named if name not in found]
    if unknown:
        raise UnknownImplementation(f"--context {unknown[0]} ({CONTEXT_ENV}): unknown implementation"
                                    f"{did_you_mean(unknown[0], found)}; declared: {', '.join(found)}")
    return frozenset(named)


def oracles() -> list[str]:
    """Every declared oracle (one per op family at most), and the run's (``--oracle``) first."""
    found = _current().found
    named = os.environ.get(ORACLE_ENV)
    return list(dict.fromkeys([*([named] if named in found else []), *(d.name for d in found.values() if d.oracle)]))


def declaration(name: str) -> Implementation:
    read = _current()
    if name in read.broken:
        raise DeclarationError(read.broken[name])
    found = read.found
    try:
        return found[name]
    except KeyError:
        raise UnknownImplementation(f"unknown implementation {name!r}{did_you_mean(name, found)}; declared: "
                                    f"{', '.join(found)}") from None


def platform_versions(name: str, step: str) -> tuple[str, ...]:
    """The Unicode versions ``name`` declares for ``step`` on its platforms; () when it declares none or is
    not declared here (a name from a report of another project)."""
    found = _current().found
    return found[name].platform_versions(step) if name in found else ()


def check_platforms(versions: dict[str, dict[str, Any]]) -> None:
    """A DeclarationError (status 2) when an implementation reads, for a step whose versions it declares by
    platform (unicode_platforms), a version it does not declare: a platform it was never said to run on,
    whose skews no expected entry was worked out for."""
    found = _current().found
    problems = []
    for name, reported in sorted(versions.items()):
        if name not in found or not isinstance(reported, dict):
            continue
        for step, by_platform in sorted(found[name].unicode_platforms.items()):
            version = reported.get(step)
            if isinstance(version, str) and version not in by_platform.values():
                listed = ", ".join(f"{platform}: {v}" for platform, v in by_platform.items())
                problems.append(f"{name} reads Unicode {version} for {step} on this platform; its declaration "
                                f"({found[name].source}) names the platforms it supports ({listed}): add this one "
                                "to unicode_platforms, with its table (python -m harness.tools.make_unicode_tables "
                                f"--versions {version}), then run `python -m harness expected update`")
    if problems:
        raise DeclarationError("; ".join(problems))


def start_each(names: list[str], cutoff: float | None = None) -> dict[str, Testee | Exception]:
    """Every named implementation started at once, in threads (a command testee's start is mostly waiting for
    its process: Pyodide's takes seconds, and started one after another the first batch waited for the sum):
    each name's testee, or the ImplementationUnavailable or DeclarationError that kept it from starting, in the
    order of ``names``. Any other error closes the testees that did start and is raised."""
    chosen = list(dict.fromkeys(names))
    if len(chosen) <= 1:
        futures = None
    else:
        with ThreadPoolExecutor(max_workers=len(chosen), thread_name_prefix="testee-start") as pool:
            futures = {name: pool.submit(get_impl, name, cutoff) for name in chosen}
    out: dict[str, Testee | Exception] = {}
    unexpected: BaseException | None = None
    for name in chosen:
        try:
            out[name] = futures[name].result() if futures is not None else get_impl(name, cutoff)
        except (ImplementationUnavailable, DeclarationError) as exc:
            out[name] = exc
        except BaseException as exc:  # noqa: BLE001 - raised below, once the others are closed
            unexpected = unexpected or exc
    if unexpected is not None:
        for started in out.values():
            if not isinstance(started, Exception):
                started.close()
        raise unexpected
    return out


def _in_process(declared: Implementation) -> InProcess:
    assert declared.python_module is not None
    try:
        module = importlib.import_module(declared.python_module)
    except ImportError as exc:
        raise ImplementationUnavailable(
            f"{declared.name}: the module {declared.python_module!r} is not importable ({exc}); {declared.hint}"
        ) from None
    missing = [declared.function_of(op) + ("" if declared.function_of(op) == op else f" (for {op})")
               for op in declared.ops if not callable(getattr(module, declared.function_of(op), None))]
    if missing:
        raise ImplementationUnavailable(
            f"{declared.name}: {declared.python_module} does not export {', '.join(missing)}; its declaration "
            f"({declared.source}) says it serves {', '.join(declared.ops)}: name what it serves in `ops`, and a "
            "function of another name in `functions`")
    tracer = getattr(module, "trace", None)
    impl = InProcess(declared.name, lambda op: getattr(module, declared.function_of(op.name)),
                     tracer=tracer if callable(tracer) else None, serves=frozenset(declared.ops))
    if declared.serves_op("unicode_versions"):
        versions = impl.call("unicode_versions", {})
        unicode = json.loads(versions["ok"]) if "ok" in versions else versions
    else:
        unicode = _module_unicode(declared, module)
    lies = unicode_lies(unicode, declared) if isinstance(unicode, dict) else []
    if lies:
        raise DeclarationError(f"{declared.name}: {'; '.join(lies)}; fix: make the declaration's `unicode` "
                               f"({declared.source}) and the module's say the same, or drop one of them")
    impl.description = {
        "protocol": PROTOCOL_VERSION,
        "name": declared.python_module,
        "version": _version_of(module),
        "language": f"{declared.language} on CPython {platform.python_version()}",
        "unicode": merge_unicode(unicode, declared) if isinstance(unicode, dict) else unicode,
        "contracts": list(declared.contracts),
        # the ops its trace(op, args) serves: the module's TRACED (a black box without trace)
        "traces": [str(op) for op in getattr(module, "TRACED", ())] if impl.tracer is not None else [],
    }
    return impl


def _module_unicode(declared: Implementation, module: Any) -> dict[str, str]:
    """An in-process module's own Unicode versions: its module-level ``UNICODE_VERSIONS`` (property -> version,
    ``unicode_tables.PROPERTIES``), {} when it has none; a malformed one is a DeclarationError naming it."""
    found = getattr(module, "UNICODE_VERSIONS", None)
    if found is None:
        return {}
    if not isinstance(found, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in found.items()):
        raise DeclarationError(f"{declared.name}: {declared.python_module}.UNICODE_VERSIONS is {found!r:.200}; fix: "
                               "make it a dict of Unicode property -> version, e.g. {\"general_category\": \"16.0.0\"}")
    return dict(found)


def unicode_lies(reported: dict[str, Any], declared: Implementation) -> list[str]:
    """Each Unicode property for which the implementation's own word (its start answer's ``unicode``, an in-process
    module's ``UNICODE_VERSIONS`` or ``unicode_versions``) and its declaration's ``unicode`` name different
    versions, said in words; [] when they agree wherever both give one."""
    return [f"it reports {prop} {reported[prop]!r}; its declaration ({declared.source.name}) says {version!r}"
            for prop, version in sorted(declared.unicode.items()) if prop in reported and reported[prop] != version]


def merge_unicode(reported: dict[str, Any], declared: Implementation) -> dict[str, Any]:
    """The Unicode versions an implementation reads: its own word for every property it reports, the declaration's
    for the others (a black box that cannot say them)."""
    return {**declared.unicode, **reported}


def described_unicode(testee: Any) -> dict[str, str]:
    """The Unicode versions a started testee's self-description holds (its start answer's ``unicode``, with the
    declaration's filled in: ``check_handshake``, ``_in_process``): property -> version, strings only; {} for
    anything else (a test double without a description, a malformed answer)."""
    description = getattr(testee, "description", None)
    found = description.get("unicode") if isinstance(description, dict) else None
    if not isinstance(found, dict):
        return {}
    return {key: value for key, value in found.items() if isinstance(key, str) and isinstance(value, str)}


def _version_of(module: Any) -> str:
    version = getattr(module, "__version__", None)
    if isinstance(version, str):
        return version
    top = module.__name__.split(".")[0]
    for dist in metadata.packages_distributions().get(top, []):
        return metadata.version(dist)
    return "unknown"


def get_impl(name: str, cutoff: float | None = None) -> Testee:
    """Start the implementation `name` as its declaration says; ImplementationUnavailable if it cannot.
    ``cutoff``: a time.monotonic() after which a command testee waits for nothing (a run's budget)."""
    declared = declaration(name)
    if declared.in_process:
        return _in_process(declared)
    assert declared.command is not None
    testee = CommandTestee(declared.command, name=declared.name,
                           timeout=_override("REQUEST", declared.request_deadline),
                           startup_timeout=_override("STARTUP", declared.startup_deadline),
                           env={**os.environ, **declared.env}, hint=declared.hint,
                           max_line_bytes=declared.max_line_bytes, max_faults=declared.max_faults, cutoff=cutoff)
    check_handshake(testee, declared)
    return testee


def check_handshake(testee: CommandTestee, declared: Implementation) -> None:
    """A self-description that lies is a finding: contracts that do not cover the declaration's, unicode
    versions other than its own unicode_versions answer, or other than its declaration's ``unicode`` (the start
    answer's are the ones used; a property only the declaration names is filled in from it)."""
    description = testee.description
    served = description.get("contracts")
    if not isinstance(served, list) or not set(declared.contracts) <= set(served):
        testee.findings.add(declared.name, "handshake_lie", f"its start answer serves contracts {served!r}; its "
                            f"declaration ({declared.source.name}) says {list(declared.contracts)}")
    if declared.serves_op("unicode_versions"):
        answer = testee.call("unicode_versions", {})
        try:
            versions = untrusted.loads(answer["ok"]) if isinstance(answer.get("ok"), str) else None
        except untrusted.Refused:  # not JSON (too deep, NaN...): the op's own checks see its answer
            versions = None
        if versions is not None and versions != description.get("unicode"):
            testee.findings.add(declared.name, "handshake_lie",
                                f"its start answer says unicode {json.dumps(description.get('unicode'))[:200]}; its "
                                f"unicode_versions answer is {json.dumps(versions)[:200]}")
    if declared.unicode:
        reported = description.get("unicode")
        reported = reported if isinstance(reported, dict) else {}
        lies = unicode_lies(reported, declared)
        if lies:
            testee.findings.add(declared.name, "handshake_lie", "its start answer's unicode disagrees with its "
                                f"declaration: {'; '.join(lies)}"[:1000])
        description["unicode"] = merge_unicode(reported, declared)


def plan() -> dict[str, Any]:
    """What the nox sessions build and start, as JSON (harness/tools/parity_plan.py): every implementation of
    ``names()`` (the oracle first) with its start and build commands as read here, ``{python}`` (this
    interpreter), ``{root}`` and ``{here}`` expanded, its hint and its file; and the broken declarations
    (file stem -> the file, the problem and the fix). A DeclarationError (a folder of PARITY_IMPLEMENTATIONS
    that does not exist, not exactly one oracle) stops it: status 2, the problem named."""
    read = _current()
    found = {}
    for name in names():
        declared = read.found[name]
        start: dict[str, Any] = ({"python": declared.python_module} if declared.in_process
                                 else {"command": list(declared.command or ())})
        found[name] = {"source": str(declared.source), "start": start,
                       "build": [list(command) for command in declared.build], "hint": declared.hint}
    return {"found": found, "broken": dict(read.broken)}


def main() -> int:
    """``python -m harness.testees.impls``: the plan of the declarations on stdout, one JSON object."""
    print(json.dumps(plan(), indent=1))
    return 0


def request_deadline_of(declared: Implementation) -> float:
    """Its request deadline, as the client enforces it (PARITY_REQUEST_TIMEOUT included); 0 in process."""
    return 0.0 if declared.in_process else _override("REQUEST", declared.request_deadline)


def _override(which: str, declared: float) -> float:
    """A deadline from the declaration, unless PARITY_{STARTUP,REQUEST}_TIMEOUT (or the project's pyproject.toml)
    overrides every one: harness/model/settings.py reads it, in range or a usage error naming it."""
    from harness.model import settings

    value = settings.value(f"PARITY_{which}_TIMEOUT")
    return declared if value is None else float(value)


def available() -> list[str]:
    found = []
    for name in names():
        try:
            get_impl(name).close()
        except (ImplementationUnavailable, DeclarationError):
            continue
        found.append(name)
    return found


__all__ = ["HARNESS_CODES", "OPS", "CommandTestee", "DeclarationError", "broken", "check_handshake", "InProcess",
           "Implementation",
           "ImplementationUnavailable", "UnknownImplementation", "available", "declaration", "declarations", "get_impl",
           "start_each",
           "names", "oracle", "plan"]


if __name__ == "__main__":
    exit_with(main)
