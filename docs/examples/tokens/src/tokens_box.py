"""The tokens family's black box (docs/examples/tokens): ``tokenize`` as a command testee speaking the protocol of
docs/protocol.md, with the Python standard library only (no harness code, no ``regex``). It is written the way
such code often is, and so differs from the contract in three known ways, each its own class:

- the length rule counts UTF-8 bytes, not code points: a token of 12 code points or fewer that takes more than
  12 bytes is dropped (the cause ``length_rule``);
- a combining mark (General_Category Mn) that follows a letter or a number stays inside its token, where the
  contract ends the token there (a rule of its own: ``a\\u0301b`` is one token here, two in the contract);
- General_Category is ``unicodedata``'s, of the Python running it (CPython 3.11: Unicode 14.0.0, 3.12: 15.0.0,
  3.13: 15.1.0), reported in its start answer (``"unicode": {"general_category": ...}``): letters newer than
  that are no letters here (a version skew of the step ``tok.split``).

Its results are ``json.dumps``'s default text (``["a", "b"]``, with ``\\u`` escapes), not the reference's compact
text: the two are one JSON value, and the harness compares them as such.
"""

import json
import math
import platform
import sys
import unicodedata

PROTOCOL = 2
FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
MAX_BYTES = 12
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
        if tag == "$codepoints":
            return "".join(map(chr, inner))
        if tag == "$object":
            return {k: host_value(v) for k, v in inner.items()}
        raise ValueError(f"not a host value: {value}")
    return value


def tokenize(text):
    if not isinstance(text, str):
        raise ValueError(f"invalid_text: text must be a string, not {type(text).__name__}")
    tokens, current = [], []
    for ch in text:
        category = unicodedata.category(ch)
        if category[0] in "LN" or (category == "Mn" and current):
            current.append(ch)
        elif current:
            tokens.append("".join(current))
            current = []
    if current:
        tokens.append("".join(current))
    return json.dumps([token for token in tokens if len(token.encode("utf-8")) <= MAX_BYTES])


def answer(request):
    rid = request.get("id") if isinstance(request, dict) else None
    try:
        if "batch" in request:
            return {"id": rid, "batch": [answer(item) for item in request["batch"]]}
        args = request.get("args", {})
        if request["op"] == "start":
            if args.get("protocol") != PROTOCOL:
                raise ValueError(f"protocol {args.get('protocol')} is not supported: this testee speaks {PROTOCOL}")
            codes.update(args["codes"])
            return {"id": rid, "ok": {"protocol": PROTOCOL, "name": "tokens-box", "version": "1",
                                      "language": f"Python {platform.python_version()} (standard library only)",
                                      "unicode": {"general_category": unicodedata.unidata_version},
                                      "contracts": ["v1"]}}
        if request["op"] != "tokenize" or not isinstance(args, dict) or set(args) != {"text"}:
            raise ValueError(f"bad arguments for {request['op']}: {args}")
        text = host_value(args["text"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return {"id": rid, "error": {"code": "bad_request", "message": f"bad request: {exc!r}"}}
    try:
        return {"id": rid, "ok": tokenize(text)}
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
    sys.stdout.write(json.dumps(response) + "\n")
    sys.stdout.flush()
