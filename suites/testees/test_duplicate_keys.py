"""Issue 49, item 7a: a key written twice in any object of a testee's answer line (``{"id":1,"ok":"a","ok":"b"}``,
an id twice, a key twice in an error or a host value, in a start answer, a batch line or a lone answer) is the
finding ``malformed_answer``: Python's parser keeps the last one, so the answer is ambiguous and never compared.

The client parses every line at C speed and asks for the pairs hook only when a key may repeat
(harness/model/untrusted.py, ``may_repeat_keys``): that pre-check must be exact (never says "no" to a line with a
key twice), which the generated texts below hold it to, formatted every way a testee may write them."""

from __future__ import annotations

import json
import random
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference
from harness.model import repeated_keys, untrusted
from harness.testees.command import CommandTestee
from harness.testees.errors import ImplementationUnavailable
from harness.tools.hostile_faults import BY_NAME

TEXTS = [f"Fact {i}: \u201cq\u201d" for i in range(120)]


def _client() -> CommandTestee:
    """A client without a process: only its line reader runs."""
    client = object.__new__(CommandTestee)
    client.max_line_bytes = 1 << 20
    return client


DUPLICATED = [
    b'{"id":1,"ok":"a","ok":"b"}',
    b'{"id":1,"id":2,"ok":"a"}',
    b'{"id": 1, "ok": "a", "ok" : "a"}',  # the same value twice is still two keys
    b'{"id":"batch-3","batch":[{"id":1,"ok":"x"},{"id":2,"ok":"a","ok":"b"}]}',
    b'{"id":"batch-3","batch":[],"batch":[{"id":1,"ok":"x"}]}',
    b'{"id":1,"error":{"code":"invalid_json","code":"x","message":"m"}}',
    b'{"id":1,"ok":{"$utf16":[55296],"$utf16":[65]}}',
    b'{"id":"__start__","ok":{"protocol":2,"protocol":2,"name":"t"}}',
    b'{"id":1,"ok":"a:\\u003a","ok":"b"}',  # a colon written as an escape
    b'{"id":1,"ok":"x","ok":"\\u003a"}',  # as many escaped colons kept as pairs lost
    b'{"id":1,"ok":[[{"a":1,"a":2}]]}',  # deeper than the pre-check counts
]


@pytest.mark.parametrize("line", DUPLICATED, ids=range(len(DUPLICATED)))
def test_a_key_twice_in_any_object_is_a_malformed_answer(line: bytes) -> None:
    message, fault = _client()._read(line)
    assert message is None and fault is not None
    assert fault.kind == "malformed_answer" and "twice in one object" in fault.message, fault


@pytest.mark.parametrize("line", [
    b'{"id":1,"ok":"a"}', b'{"id":1,"ok":"k:v \\":\\" x"}', b'{"id":1,"ok":{"$utf16":[55296]}}',
    b'{"id":1,"error":{"code":"x","message":"a: b"}}', b'{"id":"b","batch":[{"id":1,"ok":"a"},{"id":1,"ok":"a"}]}',
])
def test_keys_once_each_are_read_as_before(line: bytes) -> None:
    assert _client()._read(line) == (json.loads(line), None)


# -- the pre-check is exact --------------------------------------------------------------------------------------

SENTINEL = "\x00dup\x00"
keys = st.sampled_from(["id", "ok", "error", "code", "message", "$utf16", "a:b", 'q"', "\\", ":", ""])
scalars = st.one_of(st.text(alphabet=st.sampled_from('ab:"\\\u00e9\n \u2028{}'), max_size=6), st.integers(),
                    st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none())
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(keys, inner, max_size=4)), max_leaves=24)


def _render(value: Any, style: int) -> str:
    if style == 0:
        return json.dumps(value, separators=(",", ":"))
    if style == 1:
        return json.dumps(value, ensure_ascii=False)
    if style == 2:
        return json.dumps(value, indent=1, ensure_ascii=False).replace('":', '"  :')  # whitespace before a colon
    return json.dumps(value).replace(":", "\\u003a").replace('"\\u003a', '":')  # colons in strings escaped


def _repeats(text: str) -> bool:
    try:
        untrusted.loads(text, unique_keys=True, max_depth=None)
    except untrusted.Refused as refused:
        assert refused.kind == "duplicate_key"
        return True
    return False


def _with_a_duplicate(value: Any, rng: random.Random) -> Any:
    """``value`` with one object (if it has one) given a sentinel key, to be renamed to one of its keys."""
    objects: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            objects.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    chosen = [o for o in objects if o]
    if not chosen:
        return None
    target = rng.choice(chosen)
    key = rng.choice(list(target))
    target[SENTINEL] = rng.choice([target[key], "other", 1, {"x": ":"}])
    return key


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(keys, values, max_size=5), st.integers(0, 3), st.booleans(), st.randoms())
def test_the_pre_check_never_misses_a_key_twice(top: dict[str, Any], style: int, plant: bool,
                                                rng: random.Random) -> None:
    key = _with_a_duplicate(top, rng) if plant else None
    text = _render(top, style)
    if key is not None:
        text = text.replace(json.dumps(SENTINEL, ensure_ascii=style in (0, 3)), json.dumps(key))
    for line in (text, text.encode("utf-8", "surrogatepass")):
        parsed = untrusted.loads(line, want=dict, max_depth=None)
        if _repeats(text):
            assert repeated_keys.may_repeat_keys(line, parsed), text
    if style != 2:  # (style 2 also spaces a quote and a colon inside strings: keys may change)
        assert _repeats(text) == (key is not None), text


def _batch(answers: list[dict[str, Any]]) -> bytes:
    return json.dumps({"id": "batch-1000", "batch": answers}, separators=(",", ":"), ensure_ascii=False).encode()


@pytest.mark.parametrize("answers", [
    [{"id": i, "ok": f"fact {i} \u201cq\u201d"} for i in range(1000)],
    [{"id": i, "ok": f"fact {i}: \"{{\\\"a\\\":1}}\" :"} for i in range(1000)],
    [{"id": i, "error": {"code": "invalid_json", "message": f"candidates_json: not JSON at {i}"}} for i in range(1000)],
    [{"id": i, "ok": {"$utf16": [0xD800, i]}} for i in range(1000)],
], ids=["strings", "colons", "errors", "host-values"])
def test_a_batch_line_without_a_key_twice_needs_no_pairs_hook(answers: list[dict[str, Any]]) -> None:
    """The common lines are decided by the pre-check alone (the hook costs about as much as the parse)."""
    line = _batch(answers)
    assert not repeated_keys.may_repeat_keys(line, untrusted.loads(line, want=dict, max_depth=None))


# -- a testee that writes one -----------------------------------------------------------------------------------

@pytest.mark.parametrize("form", ["batches", "lines"])
def test_a_testee_writing_a_key_twice_is_a_finding_and_every_request_is_answered(hostile, form: str) -> None:  # type: ignore[no-untyped-def]
    assert BY_NAME["duplicate_key"].finding == "malformed_answer"
    testee = hostile("duplicate_key", at=7)
    testee.batch_form = form == "batches"
    responses = testee.call_batch([("normalize_fact_text", {"text": text}) for text in TEXTS])
    assert responses == [{"ok": reference.normalize_fact_text(text)} for text in TEXTS]  # never "a second ok"
    findings = testee.findings.to_json()
    assert [f["kind"] for f in findings] == ["malformed_answer"], findings
    assert "twice in one object" in findings[0]["message"] and '"ok"' in findings[0]["message"]


def test_a_start_answer_with_a_key_twice_ends_the_start_naming_it() -> None:
    script = ("import sys; sys.stdin.readline(); "
              "sys.stdout.write('{\"id\":\"__start__\",\"ok\":{\"protocol\":2,\"protocol\":1}}\\n'); "
              "sys.stdout.flush(); sys.stdin.readline()")
    with pytest.raises(ImplementationUnavailable) as refused:
        CommandTestee([sys.executable, "-c", script], startup_timeout=10)
    said = str(refused.value)
    assert "its start answer is not protocol JSON: " in said and 'the key "protocol" twice in one object' in said, said
