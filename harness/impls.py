"""The implementation registry: every implementation answers ``call(op, args) -> response``.

A response is the protocol's: ``{"ok": <return value>}`` or ``{"error": {"code", "message"}}``.
Codes are the contract's, plus the harness's own for failures that are not contract errors:

* ``unexpected_exception``: the implementation raised something that is not a contract error
  (e.g. a ``UnicodeEncodeError`` or ``OverflowError`` leaking from a binding);
* ``crash`` / ``timeout``: an out-of-process testee died or hung on this request (wasm, later);
* ``unavailable``: the implementation is not built or cannot be loaded.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any, Callable

from .registry import OPS, Op, get_op

HARNESS_CODES = ("unexpected_exception", "crash", "timeout", "unavailable", "bad_request")
_CODE = re.compile(r"^([a-z_]+):")


class ImplementationUnavailable(Exception):
    """The implementation cannot be used here; the message says how to build it."""


def error_response(exc: BaseException) -> dict[str, Any]:
    """Map an exception to a response. Only ValueError/TypeError with a contract code count as contract errors."""
    from reference.errors import CODES

    message = str(exc)
    match = _CODE.match(message)
    if isinstance(exc, (ValueError, TypeError)) and match and match.group(1) in CODES and \
            not isinstance(exc, UnicodeError):
        return {"error": {"code": match.group(1), "message": message}}
    return {"error": {"code": "unexpected_exception", "message": f"{type(exc).__name__}: {message}"}}


@dataclass
class InProcess:
    """An implementation called in this process: the reference, or the PyO3 module."""

    name: str
    resolve: Callable[[Op], Callable[..., Any]]

    def call(self, op_name: str, args: dict[str, Any]) -> dict[str, Any]:
        function = self.resolve(get_op(op_name))
        try:
            return {"ok": function(**args)}
        except Exception as exc:  # every failure becomes a reported result, never an aborted run
            return error_response(exc)

    def close(self) -> None:
        pass


def reference_impl() -> InProcess:
    return InProcess("reference", lambda op: op.reference)


PYO3_MODULE = "memgate_rs"


def pyo3_impl() -> InProcess:
    try:
        module = importlib.import_module(PYO3_MODULE)
    except ImportError as exc:
        raise ImplementationUnavailable(
            f"the PyO3 module {PYO3_MODULE!r} is not importable ({exc}); build it with `nox -s build-pyo3` "
            "or use the .venv made by `nox -s dev`"
        ) from None

    def resolve(op: Op) -> Callable[..., Any]:
        function = getattr(module, op.name, None)
        if function is None:
            raise ImplementationUnavailable(f"{PYO3_MODULE} does not export {op.name}")
        return function

    return InProcess("pyo3", resolve)


def wasm_impl() -> Any:
    from .wasm_client import wasm_impl as start

    return start()


FACTORIES: dict[str, Callable[[], Any]] = {
    "reference": reference_impl,
    "pyo3": pyo3_impl,
    "wasm": wasm_impl,
}


def get_impl(name: str) -> Any:
    try:
        factory = FACTORIES[name]
    except KeyError:
        raise ImplementationUnavailable(f"unknown implementation {name!r}; known: {', '.join(FACTORIES)}") from None
    return factory()


def available() -> list[str]:
    names = []
    for name in FACTORIES:
        try:
            get_impl(name).close()
        except ImplementationUnavailable:
            continue
        names.append(name)
    return names


__all__ = ["FACTORIES", "HARNESS_CODES", "OPS", "ImplementationUnavailable", "available", "get_impl"]
