"""harness.testees.command: the start handshake, crash, trap and hang recovery with a test double; the
wasm testee (wasm_host/testee.js) with a fake package, and the real one when built.

The double is a small Python testee speaking the protocol; it answers `start` with the protocol version
in $DOUBLE_PROTOCOL (default the harness's); its behaviour is chosen by the `text` argument: "crash" exits
without answering, "hang" never answers, "trap" answers `crash` and exits
(as wasm_host/testee.js does after a WebAssembly trap); anything else is echoed as "<pid>:<text>".
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import reference
from harness.model.compare import mismatch
from harness.testees import impls
from harness.testees.command import PROTOCOL_VERSION, CommandTestee, op_table, start_request
from harness.testees.impls import ImplementationUnavailable

WASM_PKG = impls.ROOT / "wasm_host" / "pkg"
PKG_ENTRY = "memgate_wasm.js"
TESTEE_JS = impls.ROOT / "wasm_host" / "testee.js"

DOUBLE = r"""
import json, os, sys, time

def out(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()

def answer(request):
    # (response, trapped); "crash" dies without answering, "hang" never answers
    rid = request["id"]
    if request["op"] == "start":
        version = int(os.environ.get("DOUBLE_PROTOCOL", request["args"]["protocol"]))
        return {"id": rid, "ok": {"protocol": version, "name": "double", "version": "0", "language": "Python",
                                  "unicode": {}, "contracts": ["v1"]}}, False
    text = request["args"].get("text")
    if text == "crash":
        sys.stderr.write("double: dying on purpose\n"); sys.stderr.flush()
        os._exit(1)
    if text == "hang":
        time.sleep(3600)
    if text == "trap":
        sys.stderr.write("double: trapped\n"); sys.stderr.flush()
        return {"id": rid, "error": {"code": "crash", "message": "WebAssembly trap: RuntimeError: unreachable"}}, True
    if text == "contract":
        return {"id": rid, "error": {"code": "invalid_text", "message": "invalid_text: no"}}, False
    if text == "tagged":
        return {"id": rid, "ok": {"$utf16": [97, 0xD800]}}, False
    return {"id": rid, "ok": "%d:%s" % (os.getpid(), text)}, False

for line in sys.stdin:
    request = json.loads(line)
    if "batch" in request:
        if os.environ.get("DOUBLE_BATCHES") == "0":
            out({"id": request["id"], "error": {"code": "bad_request", "message": "no batches here"}})
            continue
        answers = []
        for item in request["batch"]:
            response, trapped = answer(item)
            answers.append(response)
            if trapped:
                break
        out({"id": request["id"], "batch": answers})
    else:
        response, trapped = answer(request)
        out(response)
    if trapped:
        os._exit(3)
"""


@pytest.fixture(params=["batches", "lines"])
def double(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A testee double that takes the protocol's batch lines ("batches") or refuses them ("lines": the
    client then sends one request per line)."""
    script = tmp_path / "double.py"
    script.write_text(DOUBLE, encoding="utf-8")
    monkeypatch.setenv("DOUBLE_BATCHES", "1" if request.param == "batches" else "0")
    testees = []

    def make(timeout: float = 5.0, **kwargs: Any) -> CommandTestee:
        testee = CommandTestee([sys.executable, str(script)], timeout=timeout, startup_timeout=10, **kwargs)
        testees.append(testee)
        return testee

    make.batches = request.param == "batches"  # type: ignore[attr-defined]
    yield make
    for testee in testees:
        testee.close()


def batch(texts: list[str]) -> list[tuple[str, dict[str, str]]]:
    return [("normalize_fact_text", {"text": text}) for text in texts]


def pid_of(response: dict) -> str:  # type: ignore[type-arg]
    assert "ok" in response, response
    return response["ok"].split(":", 1)[0]


def test_answers_in_order_and_large_batches(double) -> None:  # type: ignore[no-untyped-def]
    testee = double()
    texts = [f"t{i}" for i in range(1000)]  # written before any answer is read
    responses = testee.call_batch(batch(texts))
    assert [r["ok"].split(":", 1)[1] for r in responses] == texts
    assert testee.call("normalize_fact_text", {"text": "contract"})["error"]["code"] == "invalid_text"
    assert testee.call("normalize_fact_text", {"text": "tagged"}) == {"ok": "a\ud800"}
    assert testee.restarts == 0
    # A testee without batch lines is legitimate: counted, never a finding.
    assert testee.batches_refused == (0 if double.batches else 1) and not testee.findings


def test_crash_reports_that_request_and_restarts(double) -> None:  # type: ignore[no-untyped-def]
    testee = double()
    responses = testee.call_batch(batch(["a", "b", "crash", "c", "d"]))
    assert responses[2]["error"]["code"] == "crash"
    assert "dying on purpose" in responses[2]["error"]["message"]
    assert [r["ok"].split(":", 1)[1] for i, r in enumerate(responses) if i != 2] == ["a", "b", "c", "d"]
    assert pid_of(responses[0]) == pid_of(responses[1]) != pid_of(responses[3]) == pid_of(responses[4])
    # A batch that dies unanswered is sent again one request per line, which names the culprit; the
    # culprit is retried once, alone, on a fresh process, and dies again: an input crash, no finding.
    assert testee.restarts == (3 if double.batches else 2)
    assert testee.batch_form == double.batches
    assert not testee.findings
    # The fresh process keeps working, and a crash on a single call is reported too.
    assert testee.call("normalize_fact_text", {"text": "crash"})["error"]["code"] == "crash"
    assert "ok" in testee.call("normalize_fact_text", {"text": "e"})


def test_hang_is_a_timeout_within_the_deadline(double) -> None:  # type: ignore[no-untyped-def]
    testee = double(timeout=1.0)
    started = time.monotonic()
    responses = testee.call_batch(batch(["a", "hang", "b", "c"]))
    elapsed = time.monotonic() - started
    assert responses[1]["error"]["code"] == "timeout"
    assert elapsed < 6, elapsed  # the batch's deadline, then the request's
    assert [r["ok"].split(":", 1)[1] for i, r in enumerate(responses) if i != 1] == ["a", "b", "c"]
    assert pid_of(responses[0]) != pid_of(responses[2])
    assert testee.restarts == (3 if double.batches else 2)
    assert not testee.findings


def test_trap_answer_then_exit(double) -> None:  # type: ignore[no-untyped-def]
    testee = double()
    responses = testee.call_batch(batch(["a", "trap", "b", "trap", "c"]))
    for i in (1, 3):
        assert responses[i]["error"]["code"] == "crash"
        assert "trap" in responses[i]["error"]["message"]
    assert len({pid_of(responses[i]) for i in (0, 2, 4)}) == 3
    assert testee.restarts == 4  # each trap retried alone on a fresh process, then the rest on another
    assert not testee.findings


def test_every_request_crashing_never_loops(double) -> None:  # type: ignore[no-untyped-def]
    testee = double()
    responses = testee.call_batch(batch(["crash", "crash", "trap", "x"]))
    assert [r.get("error", {}).get("code") for r in responses] == ["crash", "crash", "crash", None]


def test_testee_that_cannot_start_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(ImplementationUnavailable, match="exited during start-up.*try this"):
        CommandTestee([sys.executable, "-c", "import sys; sys.exit(5)"], startup_timeout=10, hint="try this")


def test_the_handshake_gives_the_self_description(double) -> None:  # type: ignore[no-untyped-def]
    testee = double()
    assert testee.description["protocol"] == PROTOCOL_VERSION and testee.description["name"] == "double"


def test_another_protocol_version_is_a_clear_error(double, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DOUBLE_PROTOCOL", str(PROTOCOL_VERSION + 1))
    with pytest.raises(ImplementationUnavailable,
                       match=f"protocol version mismatch: the harness speaks {PROTOCOL_VERSION}"):
        double()


def test_unbuilt_package_is_unavailable_with_a_build_hint(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH")
    monkeypatch.setenv("MEMGATE_WASM_PKG", str(tmp_path / "no-such-pkg"))
    with pytest.raises(ImplementationUnavailable, match="build-wasm"):
        impls.get_impl("wasm")


# --- the real testee (needs `python wasm_host/build.py`) -------------------------------------------

REAL_REASON = (
    "the wasm package is not built (wasm_host/pkg); run `python wasm_host/build.py` or `nox -s build-wasm`"
    if not (WASM_PKG / PKG_ENTRY).is_file()
    else "node is not on PATH" if shutil.which("node") is None else ""
)


@pytest.fixture(scope="module")
def real():  # type: ignore[no-untyped-def]
    if REAL_REASON:
        pytest.skip(REAL_REASON)
    testee = impls.get_impl("wasm")
    yield testee
    testee.close()


def test_real_testee_answers(real) -> None:  # type: ignore[no-untyped-def]
    responses = real.call_batch([
        ("normalize_fact_text", {"text": "  \u201cHello\u201d   World\u2026 "}),
        ("normalize_fact_text", {"text": "a\ud800b"}),
        ("decide_write", {"text": "x", "embedding_json": "null", "candidates_json": "null", "mode": "a\udc00"}),
        ("build_dedup_context", {"topical_json": "null", "pinned_json": "null", "recent_json": "null", "cap": 2**32}),
        ("build_dedup_context", {"topical_json": "null", "pinned_json": "null", "recent_json": "null", "cap": -1}),
        ("build_dedup_context", {"topical_json": "null", "pinned_json": "null", "recent_json": "null", "cap": 30.5}),
        ("build_dedup_context", {"topical_json": "null", "pinned_json": "null", "recent_json": "null", "cap": None}),
        ("build_dedup_context", {"topical_json": '[{"id":"a","text":"b"}]', "pinned_json": "null",
                                 "recent_json": "null", "cap": 4294967295}),
        ("decide_write", {"text": "x", "embedding_json": "[1]", "candidates_json": "null",
                          "threshold": math.nan}),
        ("decide_write", {"text": "x", "embedding_json": "[1]", "candidates_json": "null", "threshold": True}),
        ("decide_write", {"text": "x", "embedding_json": "[1]", "candidates_json": "null", "force": 0}),
        ("decide_write", {"text": "Hello", "embedding_json": "null",
                          "candidates_json": '[{"id":"m1","text":"hello."}]'}),
        ("unicode_versions", {}),
        # Wrong types a JavaScript caller can pass, sent as host values ($object, arrays).
        ("normalize_fact_text", {"text": []}),
        ("decide_write", {"text": "x", "embedding_json": "[1]", "candidates_json": "null", "force": {}}),
        ("build_dedup_context", {"topical_json": "null", "pinned_json": "null", "recent_json": "null",
                                 "cap": [30]}),
    ])
    codes = [r["error"]["code"] if "error" in r else None for r in responses]
    assert codes == [None, "invalid_text", "invalid_mode", "invalid_cap", "invalid_cap", "invalid_cap",
                     "invalid_cap", None, "invalid_threshold", "invalid_threshold", "invalid_force", None, None,
                     "invalid_text", "invalid_force", "invalid_cap"]
    assert responses[0]["ok"] == reference.normalize_fact_text("  \u201cHello\u201d   World\u2026 ") == 'hello" world'
    assert mismatch("decide_write", {"result": {"action": "skip", "reason": "exact_duplicate", "match": {
        "id": "m1", "text": "hello.", "similarity": None, "pinned": False}}}, responses[11]) is None
    assert set(json.loads(responses[12]["ok"])) == {"case_mapping", "normalization", "white_space"}
    for response in responses:
        if "error" in response:
            assert response["error"]["message"].startswith(response["error"]["code"] + ": ")


# --- wasm_host/testee.js with a fake package (needs node, not the wasm build) ------------------------

FAKE_PKG = r'''
'use strict';
exports.normalizeFactText = function (text) {
  if (text === 'trap') throw new WebAssembly.RuntimeError('unreachable executed');
  if (text === 'exit') process.exit(9);
  if (text === 'contract') throw new Error('invalid_text: text must be a string');
  if (text === 'other') throw new TypeError('boom');
  if (typeof text !== 'string') throw new Error('invalid_text: text must be a string, got ' + typeof text);
  return process.pid + ':' + Array.from(text, (c) => c.codePointAt(0).toString(16)).join(',');
};
exports.decideWrite = (...args) => JSON.stringify(args.map((a) => (a === undefined ? '<undefined>' : a)));
exports.buildDedupContext = (...args) => JSON.stringify([args.length, ...args.map(String)]);
exports.unicodeVersions = () => '{}';
'''


@pytest.fixture()
def fake_pkg(tmp_path: Path) -> Path:
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / PKG_ENTRY).write_text(FAKE_PKG, encoding="utf-8")
    (pkg / PKG_ENTRY.replace(".js", "_bg.wasm")).write_bytes(b"\0asm")
    return pkg


def test_testee_js_maps_errors_traps_and_args(fake_pkg: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("MEMGATE_WASM_PKG", str(fake_pkg))
    with impls.get_impl("wasm") as testee:
        r = testee.call_batch([
            ("normalize_fact_text", {"text": "a\ud800\U0001F600"}),  # sent as $utf16, lone surrogate kept
            ("normalize_fact_text", {"text": "contract"}),
            ("normalize_fact_text", {"text": "other"}),
            ("normalize_fact_text", {"text": "trap"}),
            ("normalize_fact_text", {"text": "b"}),
            ("normalize_fact_text", {"text": "exit"}),
            ("normalize_fact_text", {"text": "c"}),
            ("decide_write", {"text": "t", "embedding_json": "e", "candidates_json": "c", "force": True}),
            ("decide_write", {"text": "t", "embedding_json": "e", "candidates_json": "c", "threshold": math.inf,
                              "mode": None}),
            ("build_dedup_context", {"topical_json": "a", "pinned_json": "b", "recent_json": "c"}),
            ("build_dedup_context", {"topical_json": "a", "pinned_json": "b", "recent_json": "c", "cap": 2**32}),
            ("normalize_fact_text", {"nope": 1}),
            ("no_such_op", {}),
        ])
        assert r[0]["ok"].split(":")[1] == "61,d800,1f600"
        assert r[1]["error"] == {"code": "invalid_text", "message": "invalid_text: text must be a string"}
        assert r[2]["error"]["code"] == "unexpected_exception" and "TypeError: boom" in r[2]["error"]["message"]
        assert r[3]["error"]["code"] == "crash" and "trap" in r[3]["error"]["message"]
        assert r[5]["error"]["code"] == "crash" and "status 9" in r[5]["error"]["message"]
        pids = [r[i]["ok"].split(":")[0] for i in (0, 4, 6)]
        # Batch lines: the trap ends its batch and is retried alone (2 restarts); the exit kills the next
        # batch unanswered, which is then sent one request per line (the batch's process, then the
        # culprit's retry alone, then the rest's: 3 more). Both failures come again: no finding.
        assert len(set(pids)) == 3 and testee.restarts == 5 and testee.batch_form
        assert not testee.findings
        assert json.loads(r[7]["ok"]) == ["t", "e", "c", "<undefined>", "<undefined>", True]
        assert json.loads(r[8]["ok"]) == ["t", "e", "c", None, None]  # Infinity -> null in JSON.stringify
        assert json.loads(r[9]["ok"]) == [3, "a", "b", "c"]  # trailing omitted args are not passed
        assert json.loads(r[10]["ok"]) == [4, "a", "b", "c", "4294967296"]
        assert [r[i]["error"]["code"] for i in (11, 12)] == ["bad_request", "bad_request"]


def test_testee_js_raw_lines(fake_pkg: Path) -> None:
    import subprocess

    lines = [
        "not json",
        json.dumps({"id": 0, "op": "normalize_fact_text", "args": {"text": "before the op table"}}),
        json.dumps({**start_request(), "id": 1}),
        json.dumps({"id": True, "op": "unicode_versions"}),
        json.dumps({"id": "x", "op": "normalize_fact_text", "args": {}}),
        json.dumps({"id": 2, "op": "normalize_fact_text", "args": {"text": [1]}}),
        json.dumps({"id": 3, "op": "normalize_fact_text", "args": {"text": {"$float": "NaN"}}}),
        '{"id": 4, "op": "normalize_fact_text", "args": {"text": "\\ud800"}}',
    ]
    lines += [
        json.dumps({"id": 5, "batch": [{"id": 6, "op": "normalize_fact_text", "args": {"text": "b"}},
                                       {"id": 7, "op": "normalize_fact_text", "args": {"text": "contract"}}]}),
        json.dumps({"id": 8, "op": "start", "args": {"protocol": 1, "ops": op_table()}}),
    ]
    out = subprocess.run(["node", str(TESTEE_JS), str(fake_pkg)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=30, check=False)
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert out.returncode == 0, out.stderr
    assert [a.get("error", {}).get("code") for a in answers] == [
        "bad_request", "bad_request", None, "bad_request", "bad_request", "invalid_text", "invalid_text", None,
        None, "bad_request"]  # an array is a host value (a wrong type a JavaScript caller can pass)
    assert "send start first" in answers[1]["error"]["message"]
    assert answers[2]["id"] == 1 and answers[2]["ok"]["protocol"] == PROTOCOL_VERSION
    assert answers[2]["ok"]["surface"]["exports"]["decideWrite"] == ["...args"]  # the fake's rest parameters
    assert answers[7]["ok"].endswith(":d800")  # a lone surrogate escape survives JSON.parse
    assert [r.get("ok", r.get("error", {}).get("code")) for r in answers[8]["batch"]][1] == "invalid_text"
    assert answers[8]["batch"][0]["ok"].endswith(":62") and answers[8]["id"] == 5
    assert "protocol 1 is not supported" in answers[9]["error"]["message"]


# --- the real testee's protocol paths, line by line (needs the wasm build) --------------------------

START = start_request()
OPS_WITH_A_MISSING_EXPORT = {**START["args"]["ops"], "not_exported": {"js": "notExported", "params": [],
                                                                        "required": 0}}
# (what, the line sent, the id and the code (or "ok") it is answered with); "" answers nothing.
PROTOCOL_LINES: list[tuple[str, str, Any, str]] = [
    ("an op before start", json.dumps({"id": 1, "op": "unicode_versions"}), 1, "bad_request"),
    ("start with args that are not an object", json.dumps({"id": 2, "op": "start", "args": 7}), 2, "bad_request"),
    ("start with ops that are not an object",
     json.dumps({"id": 3, "op": "start", "args": {**START["args"], "ops": 3}}), 3, "bad_request"),
    ("start with a malformed op entry",
     json.dumps({"id": 4, "op": "start", "args": {**START["args"], "ops": {"x": {"js": 1}}}}), 4, "bad_request"),
    ("start without the error codes", json.dumps({"id": 5, "op": "start", "args": {
        k: v for k, v in START["args"].items() if k != "codes"}}), 5, "bad_request"),
    ("start with an op the package does not export",
     json.dumps({"id": 6, "op": "start", "args": {**START["args"], "ops": OPS_WITH_A_MISSING_EXPORT}}), 6, "ok"),
    ("a blank line", "   ", None, ""),
    ("a request that is not an object", "[1]", None, "bad_request"),
    ("an id that is neither a string nor an integer", json.dumps({"id": 1.5, "op": "unicode_versions"}), 1.5,
     "bad_request"),
    ("no id", json.dumps({"op": "unicode_versions"}), None, "bad_request"),
    ("no args", json.dumps({"id": 7, "op": "unicode_versions"}), 7, "ok"),
    ("an op the package does not export", json.dumps({"id": 8, "op": "not_exported", "args": {}}), 8,
     "unexpected_exception"),
    ("a trace without the op's args", json.dumps({"id": 9, "op": "trace", "args": {"op": "unicode_nfc"}}), 9,
     "bad_request"),
    ("a string as code points, a lone surrogate among them", json.dumps({"id": 10, "op": "unicode_nfc", "args": {
        "text": {"$codepoints": [0x61, 0xD800, 0x62]}}}), 10, "invalid_text"),
    ("code points that make a surrogate pair", json.dumps({"id": 11, "op": "unicode_nfc", "args": {
        "text": {"$codepoints": [0xD83D, 0xDE00]}}}), 11, "bad_request"),
    ("an object as an argument", json.dumps({"id": 12, "op": "unicode_nfc", "args": {
        "text": {"$object": {"a": [1, {"$float": "NaN"}]}}}}), 12, "invalid_text"),
    ("a value no host has", json.dumps({"id": 13, "op": "unicode_nfc", "args": {"text": {"$nope": 1}}}), 13,
     "bad_request"),
    ("a batch whose id is not one", json.dumps({"id": 1.5, "batch": []}), 1.5, "bad_request"),
    ("a batch without an id", json.dumps({"batch": []}), None, "bad_request"),
    ("a batch that is not an array", json.dumps({"id": "b", "batch": 3}), "b", "bad_request"),
]


def test_the_real_testee_answers_each_bad_line_and_goes_on() -> None:
    """Every path of testee.js's request handling a well-behaved client never takes (and `nox -s coverage`
    measures): the package loaded from its entry file, each bad line answered bad_request with its id (null
    where it has none), a blank line skipped, an op the package lacks an unexpected_exception, then EOF ends it."""
    if REAL_REASON:
        pytest.skip(REAL_REASON)
    import subprocess

    lines = [line for _, line, _, _ in PROTOCOL_LINES]
    done = subprocess.run(["node", str(TESTEE_JS), str(WASM_PKG / PKG_ENTRY)], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    expected = [(what, want_id, code) for what, _, want_id, code in PROTOCOL_LINES if code]
    assert len(answers) == len(expected), done.stdout
    for (what, want_id, code), answer in zip(expected, answers, strict=True):
        got = "ok" if "ok" in answer else answer["error"]["code"]
        assert (got, answer["id"]) == (code, want_id), (what, answer)
