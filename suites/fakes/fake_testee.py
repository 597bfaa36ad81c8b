"""A whole fake implementation, for the plug-in tests (suites/testees/test_plugins.py): a command testee that
serves the protocol with the reference's functions, one of them broken on purpose when FAKE_BUG says so.

    FAKE_BUG=            a faithful copy of the reference
    FAKE_BUG=capitalize  normalize_fact_text capitalizes its first letter (the contract lowercases)
    FAKE_BUG=strip       normalize_fact_text also applies str.strip() (U+001C-U+001F are space to Python)
    FAKE_BUG=protocol    answers requests with "result" where the protocol says "ok"
    FAKE_BUG=edges       the reference's edge-stripping step also applies str.strip() (U+001C-U+001F go at the
                         edges), and the fake serves step traces (the reference's, made by the same planted
                         code): a divergence whose cause the traces show, at norm.edges
    FAKE_BUG=any_version a start of any protocol version from 2 up is taken (one without "codes" is refused):
                         the selftest's other-version probe must see it
    FAKE_BUG=memoize     answers memoized by argument equality (a host that caches by ==): True, 1 and 1.0 are
                         one key, so force=1 after force=True gets the cached valid answer (a fresh process
                         refuses it: the reproduction gate's history_dependent finding, not a class)
    FAKE_BUG=whitespace  the reference's White_Space step with another set, traced: U+0085 is not White_Space
                         to it and U+FEFF is (a JavaScript twin's set): two differences, one per direction

FAKE_SERVES (ops, comma-separated) makes it a testee of only those ops: any other is answered bad_request, as
a program that knows nothing of it would (its declaration's ``ops`` names them, so the harness never sends one).

FAKE_UNICODE (a JSON object) stands in for the Unicode versions it describes itself with and answers
unicode_versions with (a platform whose version the harness has no table of).

It joins the harness through a declaration alone (implementations/<name>.json in a folder named by
PARITY_IMPLEMENTATIONS), like any implementation in any language.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import reference
from harness.model.registry import Op
from harness.testees import protocol
from harness.testees.command import PROTOCOL_VERSION
from harness.testees.impls import InProcess

BUG = os.environ.get("FAKE_BUG", "")
UNICODE = os.environ.get("FAKE_UNICODE", "")
SERVES = frozenset(op for op in os.environ.get("FAKE_SERVES", "").split(",") if op) or None


def capitalized(text: Any) -> str:
    result = reference.normalize_fact_text(text)
    return result[:1].upper() + result[1:]


def stripped(text: Any) -> str:
    return reference.normalize_fact_text(text).strip()


def memoized(fn: Callable[..., Any]) -> Callable[..., Any]:
    """FAKE_BUG=memoize: the answers of ``fn`` kept by its arguments' equality (and hash), as a host's cache would."""
    seen: dict[Any, Any] = {}

    def call(*args: Any, **kwargs: Any) -> Any:
        key = (args, tuple(sorted(kwargs.items())))
        try:
            if key not in seen:
                seen[key] = fn(*args, **kwargs)
        except TypeError:  # an argument that does not hash (a list): not cached
            return fn(*args, **kwargs)
        return seen[key]

    return call


def resolve(op: Op) -> Callable[..., Any]:
    if BUG == "memoize":
        return memoized(getattr(reference, op.name))
    if BUG == "capitalize" and op.name == "normalize_fact_text":
        return capitalized
    if BUG == "strip" and op.name == "normalize_fact_text":
        return stripped
    if UNICODE and op.name == "unicode_versions":
        return lambda: UNICODE
    return getattr(reference, op.name)


def plant_in_the_steps() -> None:
    """FAKE_BUG=edges or whitespace: the bug inside the reference's own step, so that its traces show it where
    it is."""
    if BUG == "edges":
        edges = reference.normalize.strip_edges
        reference.normalize.strip_edges = lambda text: edges(text).strip()
    else:
        collapse = reference.normalize.collapse_white_space
        reference.normalize.collapse_white_space = lambda text: "\x85".join(
            collapse(part) for part in text.replace("\ufeff", " ").split("\x85"))


def main() -> int:
    traced = BUG in ("edges", "whitespace")
    if traced:
        plant_in_the_steps()
    description = {"protocol": PROTOCOL_VERSION, "name": "fake-testee", "version": BUG or "faithful",
                   "language": "Python (a test double)", "unicode": json.loads(UNICODE or reference.unicode_versions()),
                   "contracts": ["v1"], **({"traces": list(reference.TRACED)} if traced else {})}
    impl = InProcess("fake", resolve, description, tracer=reference.trace if traced else None, serves=SERVES)
    if BUG not in ("protocol", "any_version"):
        return protocol.serve(impl, sys.stdin, sys.stdout, description)
    for line in sys.stdin:
        if BUG == "protocol":
            request = json.loads(line)  # a line that is not JSON kills it: the selftest's "kept answering" sees it
        else:
            try:
                request = json.loads(line)
            except ValueError:
                request = None
        if not isinstance(request, dict):  # not a request: as the protocol answers one
            sys.stdout.write(json.dumps(protocol.bad_request(None, "a request must be a JSON object")) + "\n")
            sys.stdout.flush()
            continue
        args = request.get("args")
        if BUG == "any_version" and request.get("op") == "start" and isinstance(args, dict):
            taken = isinstance(args.get("protocol"), int) and args["protocol"] >= 2 and "codes" in args
            response = ({"id": request["id"], "ok": description} if taken else
                        {"id": request["id"], "error": {"code": "bad_request", "message": "bad_request: no codes"}})
            sys.stdout.write(json.dumps(response) + "\n")
            sys.stdout.flush()
            continue
        response = protocol.handle(impl, request, description)
        if BUG == "any_version":
            sys.stdout.write(json.dumps(response) + "\n")
            sys.stdout.flush()
            continue
        if "ok" in response and response["id"] != "__start__":
            response["result"] = response.pop("ok")
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
