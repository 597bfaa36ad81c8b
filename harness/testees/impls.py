"""Implementations as plug-ins: each one is declared once, in ``implementations/<name>.json``.

A declaration (schema ``schemas/implementation-v1.schema.json``) says how to build the
implementation, how to start it (a Python module called in process, or a command speaking the protocol
of docs/protocol.md), whether it is the oracle, which contract versions it serves, its deadlines and its
expected-divergence list. The CLI, the suites, the nox sessions, the surface check and the bench all
read the declarations; adding an implementation changes nothing here.

More declarations can be added from outside the project with ``PARITY_IMPLEMENTATIONS`` (folders,
separated by the path separator), e.g. a fake implementation in a test.

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
import sys
import time
from importlib import metadata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from harness.testees.command import CommandTestee
from harness.testees.inprocess import InProcess
from harness.testees.protocol import PROTOCOL_VERSION
from harness.testees.errors import HARNESS_CODES, ImplementationUnavailable
from harness.model import hostvalues
from harness.model.registry import OPS
from harness.testees.testee import Testee
from harness.model.paths import SCHEMAS
from harness.model import paths

ROOT = paths.ROOT
DECLARATIONS = paths.IMPLEMENTATIONS
SCHEMA = SCHEMAS / "implementation-v1.schema.json"
EXTRA_ENV = "PARITY_IMPLEMENTATIONS"


class DeclarationError(Exception):
    """A declaration is missing, malformed or inconsistent; the message names the file and the problem."""


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

    def can_express(self, args: dict[str, Any]) -> bool:
        """Whether every argument arrives in its host as the same value (see hostvalues.utf16_merges)."""
        return self.host_strings != "utf-16" or not any(hostvalues.utf16_merges(v) for v in args.values())

    @property
    def in_process(self) -> bool:
        return self.python_module is not None

    def serves(self, contract: str) -> bool:
        return contract in self.contracts


def _expand(text: str, here: Path) -> str:
    return text.replace("{python}", sys.executable).replace("{root}", str(ROOT)).replace("{here}", str(here))


def _load(path: Path) -> Implementation:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DeclarationError(f"{path}: cannot read the declaration: {exc}") from None
    errors = sorted(jsonschema.Draft202012Validator(_schema()).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        where = "/".join(map(str, errors[0].path)) or "(top)"
        raise DeclarationError(f"{path}: not a valid implementation-v1 declaration at {where}: {errors[0].message}")
    if data["name"] != path.stem:
        raise DeclarationError(f"{path}: its name {data['name']!r} must equal the file name {path.stem!r}")
    here = path.parent
    start = data["start"]
    return Implementation(
        name=data["name"],
        description=data["description"],
        language=data["language"],
        oracle=data["oracle"],
        contracts=tuple(data["contracts"]),
        python_module=start.get("python"),
        command=tuple(_expand(t, here) for t in start["command"]) if "command" in start else None,
        env={k: _expand(v, here) for k, v in start.get("env", {}).items()},
        build=tuple(tuple(_expand(t, here) for t in cmd) for cmd in data["build"]),
        expected=ROOT / data["expected"] if data["expected"] else None,
        startup_deadline=float(data["deadlines"]["startup"]),
        request_deadline=float(data["deadlines"]["request"]),
        hint=data["hint"],
        source=path,
        host_strings=data.get("host_strings", "code-points"),
        bare_bench=tuple(_expand(t, here) for t in data["bare_bench"]) if "bare_bench" in data else None,
        speed_goals=data.get("speed_goals", True),
    )


def _schema() -> dict[str, Any]:
    # read again with every reload of the declarations (they are cached by their files' stamps), so a
    # schema edited together with a declaration during a long run is seen together with it
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


def declaration_dirs() -> list[Path]:
    extra = [Path(p) for p in os.environ.get(EXTRA_ENV, "").split(os.pathsep) if p]
    return [DECLARATIONS, *extra]


def declarations() -> dict[str, Implementation]:
    """Every declared implementation by name (the project's, then those of PARITY_IMPLEMENTATIONS).
    Read again only when a declaration file or folder changes (the harness asks for them per example)."""
    now, extra = time.monotonic(), os.environ.get(EXTRA_ENV, "")
    # The harness asks per comparison: look at the files at most once a second (at once when the
    # extra folders change).
    if now - _CHECKED[0] > _RECHECK_SECONDS or extra != _CHECKED[1]:
        _CHECKED[:] = [now, extra, _fingerprint()]
    return dict(_declarations(_CHECKED[2]))


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
def _declarations(fingerprint: tuple[tuple[str, int, int], ...]) -> tuple[tuple[str, Implementation], ...]:
    found: dict[str, Implementation] = {}
    for name, mtime, _ in fingerprint:
        if mtime == -1:
            raise DeclarationError(f"{name}: no such folder of implementation declarations")
        declared = _load(Path(name))
        if declared.name in found:
            raise DeclarationError(f"{name}: implementation {declared.name!r} is already declared in "
                                   f"{found[declared.name].source}")
        found[declared.name] = declared
    oracles = [d.name for d in found.values() if d.oracle]
    if len(oracles) != 1:
        raise DeclarationError(f"exactly one implementation must be the oracle; declared: {oracles or 'none'}")
    return tuple(found.items())


def names() -> list[str]:
    """Every declared implementation, the oracle first."""
    found = declarations()
    return sorted(found, key=lambda name: (not found[name].oracle, name))


def oracle() -> str:
    return next(d.name for d in declarations().values() if d.oracle)


def declaration(name: str) -> Implementation:
    found = declarations()
    try:
        return found[name]
    except KeyError:
        raise ImplementationUnavailable(f"unknown implementation {name!r}; declared: {', '.join(found)}") from None


def _in_process(declared: Implementation) -> InProcess:
    assert declared.python_module is not None
    try:
        module = importlib.import_module(declared.python_module)
    except ImportError as exc:
        raise ImplementationUnavailable(
            f"{declared.name}: the module {declared.python_module!r} is not importable ({exc}); {declared.hint}"
        ) from None
    missing = [op.name for op in OPS.values() if not callable(getattr(module, op.name, None))]
    if missing:
        raise ImplementationUnavailable(f"{declared.name}: {declared.python_module} does not export {', '.join(missing)}")
    impl = InProcess(declared.name, lambda op: getattr(module, op.name))
    versions = impl.call("unicode_versions", {})
    impl.description = {
        "protocol": PROTOCOL_VERSION,
        "name": declared.python_module,
        "version": _version_of(module),
        "language": f"{declared.language} on CPython {platform.python_version()}",
        "unicode": json.loads(versions["ok"]) if "ok" in versions else versions,
        "contracts": list(declared.contracts),
    }
    return impl


def _version_of(module: Any) -> str:
    version = getattr(module, "__version__", None)
    if isinstance(version, str):
        return version
    top = module.__name__.split(".")[0]
    for dist in metadata.packages_distributions().get(top, []):
        return metadata.version(dist)
    return "unknown"


def get_impl(name: str) -> Testee:
    """Start the implementation `name` as its declaration says; ImplementationUnavailable if it cannot."""
    declared = declaration(name)
    if declared.in_process:
        return _in_process(declared)
    assert declared.command is not None
    return CommandTestee(declared.command, name=declared.name, timeout=_override("REQUEST", declared.request_deadline),
                         startup_timeout=_override("STARTUP", declared.startup_deadline),
                         env={**os.environ, **declared.env}, hint=declared.hint)


def _override(which: str, declared: float) -> float:
    """A deadline from the declaration, unless PARITY_{STARTUP,REQUEST}_TIMEOUT overrides every one."""
    value = os.environ.get(f"PARITY_{which}_TIMEOUT")
    return float(value) if value else declared


def available() -> list[str]:
    found = []
    for name in names():
        try:
            get_impl(name).close()
        except ImplementationUnavailable:
            continue
        found.append(name)
    return found


__all__ = ["HARNESS_CODES", "OPS", "CommandTestee", "DeclarationError", "InProcess", "Implementation",
           "ImplementationUnavailable", "available", "declaration", "declarations", "get_impl", "names", "oracle"]
