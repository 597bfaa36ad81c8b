"""The protocol's two sides each take a shorter path for the common message: the server for a batch's plain
calls (harness/testees/protocol.py, ``_plain_call``): every request, plain or not, gets exactly the answer the full
path (``_handle_one``) gives it; the client for a batch's plain answers (harness/testees/command.py,
``_plain_answer``): each one it takes is read as ``_response`` reads it."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import reference
from harness.testees import protocol
from harness.testees.command import CommandTestee, _plain_answer
from harness.testees.inprocess import InProcess

IMPL = InProcess("reference", lambda op: getattr(reference, op.name), {"traces": list(reference.TRACED)},
                 tracer=reference.trace)

ODD = [
    {"id": 1, "op": "normalize_fact_text", "args": {"text": "  A\u00a0b  "}},  # plain
    {"id": "s", "op": "normalize_fact_text", "args": {"text": ""}},  # plain, a contract error
    {"id": 2, "op": "unicode_versions", "args": {}},  # plain, no parameters
    {"id": 3, "op": "decide_write", "args": {"text": "x", "candidates_json": "[]", "embedding_json": "[1.0]",
                                             "threshold": 0.5}},
    {"id": True, "op": "normalize_fact_text", "args": {"text": "a"}},  # an id of the wrong type
    {"id": 1.0, "op": "normalize_fact_text", "args": {"text": "a"}},
    {"id": None, "op": "normalize_fact_text", "args": {"text": "a"}},
    {"id": 4, "op": "normalize_fact_text"},  # args omitted: the binding's default
    {"id": 5, "op": "normalize_fact_text", "args": {"text": "a"}, "extra": 1},  # a key beside the three
    {"id": 6, "op": "no_such_op", "args": {"text": "a"}},
    {"id": 7, "op": ["normalize_fact_text"], "args": {"text": "a"}},
    {"id": 8, "op": "normalize_fact_text", "args": {"text": {"$utf16": [0xD800, 0x41]}}},  # a host-value form
    {"id": 9, "op": "normalize_fact_text", "args": {"text": {"$float": "NaN"}}},
    {"id": 10, "op": "normalize_fact_text", "args": {"txt": "a"}},  # an unknown parameter
    {"id": 11, "op": "decide_write", "args": {"text": "a"}},  # required parameters missing
    {"id": 12, "op": "normalize_fact_text", "args": ["a"]},
    {"id": 13, "op": "normalize_fact_text", "args": {"text": 5}},  # a scalar of the wrong kind
    {"id": 14, "op": "normalize_fact_text", "args": {"text": None}},
    {"id": 15, "op": "normalize_fact_text", "args": {"text": ["a"]}},
    {"id": 16, "op": "trace", "args": {"op": "normalize_fact_text", "args": {"text": "A"}}},
    {"id": 17, "op": "start", "args": {"protocol": 2}},
    {"id": 18, "batch": [{"id": 19, "op": "normalize_fact_text", "args": {"text": "B"}}]},  # a batch in a batch
    "not an object", 5, None, [],
]


def _full(items: list[Any]) -> list[dict[str, Any]]:
    return [protocol._handle_one(IMPL, item) for item in items]


def test_every_kind_of_request_gets_the_full_paths_answer() -> None:
    got = protocol.handle(IMPL, {"id": 0, "batch": ODD})
    assert got == {"id": 0, "batch": _full(ODD)}
    plain = [item for item in ODD if protocol._plain_call(IMPL, item) is not None]
    assert [item["id"] for item in plain] == [1, "s", 2, 3, 13, 14]  # the short path is taken, and only there


def test_the_answer_line_is_the_same_byte_for_byte() -> None:
    line = json.dumps({"id": 0, "batch": ODD})
    full = protocol.encode_line({"id": 0, "batch": _full(json.loads(line)["batch"])})
    assert protocol.answer_line(IMPL, line) == full


scalars = st.one_of(st.text(max_size=8), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())
requests = st.fixed_dictionaries(
    {"id": st.one_of(st.integers(), st.text(max_size=3), st.booleans(), st.floats()),
     "op": st.sampled_from(["normalize_fact_text", "decide_write", "build_dedup_context", "unicode_nfc",
                            "unicode_versions", "trace", "nope"]),
     "args": st.dictionaries(st.sampled_from(["text", "candidates_json", "embedding_json", "threshold", "raw",
                                              "x"]), scalars, max_size=4)},
    optional={"extra": scalars})


@given(st.lists(requests, max_size=6))
def test_generated_requests_get_the_full_paths_answer(items: list[dict[str, Any]]) -> None:
    assert protocol.handle(IMPL, {"id": 0, "batch": items})["batch"] == _full(items)


def _client(op_name: str) -> CommandTestee:
    """A client whose request 0 is a call of ``op_name``, without a process (only its answer checks run)."""
    client = object.__new__(CommandTestee)
    args = {"op": "normalize_fact_text", "args": {"text": "a"}} if op_name == "trace" else {"text": "a"}
    client.name, client.description, client.untraced = "t", {"traces": ["normalize_fact_text"]}, {}
    client._calls, client._bodies = [(op_name, args)], {0: {"op": op_name, "args": args}}
    return client


answers = st.dictionaries(st.sampled_from(["id", "ok", "error", "extra"]),
                          st.one_of(st.integers(0, 2), st.booleans(), st.floats(0, 1), st.text(max_size=3), st.none(),
                                    st.fixed_dictionaries({"$utf16": st.just([0xD800])}),
                                    st.lists(st.text(max_size=1), max_size=1)),
                          max_size=3)


@given(answers, st.sampled_from(["normalize_fact_text", "decide_write", "unicode_versions", "trace"]))
def test_a_plain_answer_is_read_as_the_full_checks_read_it(answer: dict[str, Any], op_name: str) -> None:
    if _plain_answer(answer, 1, op_name):
        assert _client(op_name)._response(answer, 0) == ({"ok": answer["ok"]}, None)


def test_the_common_answer_takes_the_short_path_and_no_other_does() -> None:
    assert _plain_answer({"id": 1, "ok": "x"}, 1, "normalize_fact_text")
    for answer, op_name in [({"id": 1, "ok": "x"}, "trace"), ({"id": True, "ok": "x"}, "normalize_fact_text"),
                            ({"id": 2, "ok": "x"}, "normalize_fact_text"), ({"id": 1.0, "ok": "x"}, "decide_write"),
                            ({"id": 1, "ok": {"$utf16": [0xD800]}}, "normalize_fact_text"),
                            ({"id": 1, "ok": "x", "extra": 1}, "normalize_fact_text"),
                            ({"id": 1, "ok": 5}, "decide_write"),
                            ({"id": 1, "error": "x"}, "normalize_fact_text"), ({"id": 1, "ok": "x"}, "no_such_op")]:
        assert not _plain_answer(answer, 1, op_name), answer
