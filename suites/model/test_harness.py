"""Harness machinery: host values, the protocol, response comparison, the implementation registry."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from harness.model import hostvalues
from harness.model.compare import mismatch, same_json
from harness.model.registry import OPS
from harness.testees import protocol
from harness.testees.impls import ImplementationUnavailable, InProcess, get_impl
from harness.testees.inprocess import error_response

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value", ["a\ud800b", "\udc00", "\U0001f600", "plain", 30, 30.0, -0.0, True, None,
                                   math.inf, -math.inf, 2**64, [], [1, "a\ud800"], {}, {"$float": [1.5]}])
def test_host_values_round_trip(value: object) -> None:
    encoded = hostvalues.encode(value)
    json.dumps(encoded, allow_nan=False)  # always plain JSON
    decoded = hostvalues.decode(json.loads(json.dumps(encoded)))
    assert type(decoded) is type(value) and (decoded == value)
    if isinstance(value, float):
        assert math.copysign(1, decoded) == math.copysign(1, value)


def test_host_nan_round_trip() -> None:
    assert math.isnan(hostvalues.decode(hostvalues.encode(math.nan)))


@pytest.mark.parametrize("bad", [{"$float": "nan"}, {"$utf16": [70000]}, {"$utf16": "x"}, {"x": 1}, [{"x": 1}],
                                 {"$object": [1]}])
def test_host_value_rejects_unknown_forms(bad: object) -> None:
    with pytest.raises(ValueError, match="not a host value"):
        hostvalues.decode(bad)


def test_same_json_is_bit_exact() -> None:
    assert same_json({"s": 1.0}, {"s": 1})
    assert not same_json(0.0, -0.0)
    assert not same_json(0.85, 0.8500000000000001)
    assert not same_json(True, 1)
    assert not same_json({"a": 1}, {"a": 1, "b": 2})
    assert same_json(None, None) and not same_json(None, 0)


def test_mismatch_messages() -> None:
    assert mismatch("normalize_fact_text", {"result": "a"}, {"ok": "a"}) is None
    assert "expected error invalid_text" in mismatch("normalize_fact_text", {"error": "invalid_text"}, {"ok": "a"})
    assert "expected a result" in mismatch("normalize_fact_text", {"result": "a"},
                                           {"error": {"code": "crash", "message": "boom"}})
    assert "not valid JSON" in mismatch("decide_write", {"result": {}}, {"ok": "{"})


def test_error_mapping() -> None:
    assert error_response(ValueError("invalid_cap: no"))["error"]["code"] == "invalid_cap"
    assert error_response(TypeError("invalid_text: no"))["error"]["code"] == "invalid_text"
    # A leaking conversion error is not a contract error, even when it is a ValueError.
    leaked = UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")
    assert error_response(leaked)["error"]["code"] == "unexpected_exception"
    assert error_response(OverflowError("can't convert negative int to unsigned"))["error"]["code"] == \
        "unexpected_exception"
    assert error_response(ValueError("something else"))["error"]["code"] == "unexpected_exception"
    assert error_response(ValueError("not_a_code: x"))["error"]["code"] == "unexpected_exception"


def test_in_process_never_raises() -> None:
    def explode(**kwargs: object) -> str:
        raise RuntimeError("boom")

    impl = InProcess("exploding", lambda op: explode)
    assert impl.call("normalize_fact_text", {"text": "x"})["error"]["code"] == "unexpected_exception"


@pytest.mark.parametrize(
    "request_, message",
    [
        ([], "must be a JSON object"),
        ({"op": "normalize_fact_text"}, "id must be"),
        ({"id": True, "op": "normalize_fact_text"}, "id must be"),
        ({"id": 1, "op": "nope", "args": {}}, "unknown op"),
        ({"id": 1, "op": ["normalize_fact_text"], "args": {}}, "unhashable"),  # an op that is not a string
        ({"id": 1, "op": "normalize_fact_text", "args": []}, "args must be an object"),
        ({"id": 1, "op": "normalize_fact_text", "args": {}}, "missing required argument"),
        ({"id": 1, "op": "normalize_fact_text", "args": {"text": "a", "x": 1}}, "unknown argument"),
        ({"id": 1, "op": "normalize_fact_text", "args": {"text": {"$bad": 1}}}, "not a host value"),
    ],
)
def test_bad_requests(request_: object, message: str) -> None:
    response = protocol.handle(get_impl("reference"), request_)
    assert response["error"]["code"] == "bad_request" and message in response["error"]["message"]


def test_defaults_are_the_registry_defaults() -> None:
    """The registry's declared defaults are what the reference uses when an argument is omitted."""
    import inspect

    for op in OPS.values():
        signature = inspect.signature(op.reference)
        assert [p.name for p in op.params] == list(signature.parameters)
        for param in op.params:
            default = signature.parameters[param.name].default
            assert (default is inspect.Parameter.empty) == param.required
            if not param.required:
                assert default == param.default and type(default) is type(param.default)


def test_run_cli_speaks_the_protocol() -> None:
    requests = [
        {"id": 1, "op": "normalize_fact_text", "args": {"text": "A\u001cb."}},
        {"id": "two", "op": "build_dedup_context", "args": {"topical_json": "null", "pinned_json": "null",
                                                           "recent_json": "null", "cap": {"$float": "NaN"}}},
        {"id": 3, "op": "normalize_fact_text", "args": {"text": {"$utf16": [0xD800]}}},
        {"id": 4, "op": "decide_write", "args": {"text": "x", "embedding_json": "null", "candidates_json": "null"}},
    ]
    stdin = "".join(json.dumps(r) + "\n" for r in requests) + "not json\n"
    proc = subprocess.run([sys.executable, "-m", "harness", "run", "--impl", "reference"], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, check=True)
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0] == {"id": 1, "ok": "a\u001cb"}
    assert lines[1]["id"] == "two" and lines[1]["error"]["code"] == "invalid_cap"
    assert lines[2]["error"]["code"] == "invalid_text"
    assert json.loads(lines[3]["ok"]) == {"action": "store", "reason": "new", "match": None}
    assert lines[4]["error"]["code"] == "bad_request" and lines[4]["id"] is None


def test_unknown_impl() -> None:
    with pytest.raises(ImplementationUnavailable, match="unknown implementation"):
        get_impl("cobol")


def test_the_harness_copy_of_the_contract_sets_matches_the_reference() -> None:
    """Two copies on purpose (the search must not take its pools from what it tests); on the unplanted
    tree they agree."""
    from harness.model import contract_sets
    from reference import unicode_data

    assert contract_sets.WHITE_SPACE == unicode_data.WHITE_SPACE
    assert contract_sets.EDGE_PUNCTUATION == unicode_data.EDGE_PUNCTUATION
    assert contract_sets.QUOTE_DASH == {chr(cp): target for cp, target in unicode_data.QUOTE_DASH_MAP.items()}
    assert contract_sets.LINE_BREAKS == unicode_data.LINE_BREAKS
    assert not contract_sets.NEAR_WHITE_SPACE & contract_sets.WHITE_SPACE


@pytest.mark.parametrize("text, found", [
    ("[1]", set()), ('{"a":"\\ud83d\\ude00"}', set()), ("\ufeff[1]", {"bom"}), ("[NaN]", {"nan_literal"}),
    ("[-Infinity]", {"nan_literal"}), ("[1e400]", {"number_overflow"}), ('[{"a":1,"\\u0061":2}]', {"duplicate_key"}),
    ('["\\udc00\\ud800"]', {"lone_surrogate"}), ('["\ud800"]', {"lone_surrogate"}), ('["x\ty"]', {"control_character"}),
    ("[1]\u00a0", {"whitespace"}), ("[\u001c1]", {"whitespace"}), ("[1,\ufeff0]", {"whitespace"}),
    ("[1]\ufeff", {"whitespace"}), ('["\ufeff"]', set()), ("[1,\u000c0]", {"whitespace"}),
    ("[" * 101 + "]" * 101, {"depth"}),
    ("[" * 100 + "]" * 100, set()), ("[01]", {"syntax"}), ("tru", {"syntax"}), ('"NaN"', set()),
])
def test_json_features_name_the_strictness_rules(text: str, found: set[str]) -> None:
    from harness.model.json_features import features

    assert features(text) == found
