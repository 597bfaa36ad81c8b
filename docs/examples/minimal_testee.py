"""A minimal command testee: the protocol of docs/protocol.md in one small file, no harness code.

It serves the project's Python reference, but the shape is the same in any language: read a line,
answer a line. suites/testees/test_plugins.py declares it and runs `python -m harness selftest` on it.
"""

import json
import math
import sys

import reference  # the implementation this testee serves (any library, in any language)

PROTOCOL = 2
FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
ops = {}  # the op table, from `start`
codes = set()  # the contract's error codes, from `start`


def host_value(value):
    """docs/protocol.md, host values: JSON scalars and arrays, $float, $utf16, $codepoints, $object."""
    if isinstance(value, list):
        return [host_value(v) for v in value]
    if isinstance(value, dict):
        (tag, inner), = value.items()
        if tag == "$float":
            return FLOATS[inner]
        if tag == "$utf16":
            return b"".join(u.to_bytes(2, "little") for u in inner).decode("utf-16-le", "surrogatepass")
        if tag == "$codepoints":  # a Python str holds any code point; a UTF-16 host would refuse some
            return "".join(map(chr, inner))
        if tag == "$object":
            return {k: host_value(v) for k, v in inner.items()}
        raise ValueError(f"not a host value: {value}")
    return value


def answer(request):
    rid = request.get("id") if isinstance(request, dict) else None
    try:
        if "batch" in request:
            return {"id": rid, "batch": [answer(item) for item in request["batch"]]}
        args = request.get("args", {})
        if request["op"] == "start":
            if args.get("protocol") != PROTOCOL:
                raise ValueError(f"protocol {args.get('protocol')} is not supported: this testee speaks {PROTOCOL}")
            ops.update(args["ops"])
            codes.update(args["codes"])
            return {"id": rid, "ok": {"protocol": PROTOCOL, "name": "minimal-testee", "version": "1",
                                      "language": "Python", "unicode": json.loads(reference.unicode_versions()),
                                      "contracts": ["v1"]}}
        op = ops[request["op"]]  # KeyError: an unknown op
        if not isinstance(args, dict) or set(args) - set(op["params"]) or \
                any(p not in args for p in op["params"][:op["required"]]):
            raise ValueError(f"bad arguments for {request['op']}: {args}")
        kwargs = {name: host_value(value) for name, value in args.items()}
    except (KeyError, TypeError, ValueError) as exc:
        return {"id": rid, "error": {"code": "bad_request", "message": f"bad request: {exc!r}"}}
    try:
        return {"id": rid, "ok": getattr(reference, request["op"])(**kwargs)}
    except Exception as exc:  # noqa: BLE001 (a contract error is "code: detail"; anything else is unexpected)
        code = str(exc).split(":", 1)[0]
        return {"id": rid, "error": {"code": code if code in codes else "unexpected_exception", "message": str(exc)}}


for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError as exc:
        response = {"id": None, "error": {"code": "bad_request", "message": f"not JSON: {exc}"}}
    else:
        response = answer(request)
    # Results are plain strings here; a string with lone surrogates would be sent as {"$utf16": [...]}.
    sys.stdout.write(json.dumps(response) + "\n")
    sys.stdout.flush()
