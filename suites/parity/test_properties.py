"""Properties each implementation must have on its own (ci profile), checked through the protocol's
implementation interface so that every implementation is held to the same statements."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import unicodedata2
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness.differential.strategies import candidate_objects, dumps, texts, threshold, vectors
from harness.model.unicode_info import assigned_in
from reference.dedup_context import HEADER, PIN_NOTE

# Each example here costs several calls; a fifth of the profile's budget keeps `nox -s parity` short.
FEWER = settings(max_examples=max(10, settings.default.max_examples // 5))
LINE_BREAK = re.compile("[\n\u000b\u000c\r\u0085\u2028\u2029]")


def _ok(impl: Any, op: str, **args: Any) -> Any:
    response = impl.call(op, args)
    assert "ok" in response, f"{impl.name} {op}({args!r}) failed: {response}"
    return response["ok"]


@pytest.mark.op("normalize_fact_text", "unicode_versions")
def test_normalize_idempotent_and_nfc(impl: Any) -> None:
    """The output is NFC in the implementation's own normalization version: checked with the harness's
    newest tables (unicodedata2) on outputs whose characters that version assigns, where the stability
    policy makes every version agree; idempotence is checked on every output."""
    version = json.loads(_ok(impl, "unicode_versions"))["normalization"]

    @FEWER
    @given(text=texts(allow_surrogates=False))
    def check(text: str) -> None:
        once = _ok(impl, "normalize_fact_text", text=text)
        if all(assigned_in(ord(ch), version) for ch in once):
            assert unicodedata2.normalize("NFC", once) == once, f"not NFC in Unicode {version}: {once!r}"
        assert _ok(impl, "normalize_fact_text", text=once) == once, f"not idempotent on {text!r}"

    check()


sections = st.lists(st.fixed_dictionaries({"id": texts(allow_surrogates=False), "text": texts(allow_surrogates=False)}),
                    max_size=8).map(dumps)


@pytest.mark.op("build_dedup_context")
def test_dedup_context_invariants(impl: Any) -> None:
    @FEWER
    @given(topical=sections, pinned=sections, recent=sections, cap=st.integers(0, 12))
    def check(topical: str, pinned: str, recent: str, cap: int) -> None:
        out = _ok(impl, "build_dedup_context", topical_json=topical, pinned_json=pinned, recent_json=recent, cap=cap)
        if out == "":
            return
        lines = out.split("\n")
        assert lines[0] == HEADER
        has_note = lines[-1] == PIN_NOTE
        memories = lines[1:-1] if has_note else lines[1:]
        assert 1 <= len(memories) <= cap, f"{len(memories)} memory lines for cap {cap}"
        ids = []
        for line in memories:
            assert not LINE_BREAK.search(line), f"a memory spans lines: {line!r}"
            match = re.match(r"\[ID: ([^\[\]]+)\] ", line)
            assert match, f"malformed line {line!r}"
            ids.append(match.group(1))
        assert len(ids) == len(set(ids)), f"duplicate ids {ids}"
        pinned_flags = [line.split("] ", 1)[1].startswith("[pinned, read-only] ") for line in memories]
        assert pinned_flags == sorted(pinned_flags, reverse=True), "a pinned line after an unpinned one"
        assert has_note == any(pinned_flags), "pin note present exactly when a pinned line is"

    check()


@st.composite
def gate_inputs(draw: st.DrawFn) -> dict[str, Any]:
    dim = draw(st.integers(1, 4))
    candidates = draw(st.lists(candidate_objects(texts(allow_surrogates=False), st.just(dim)), max_size=4))
    return {"text": draw(texts(allow_surrogates=False)), "embedding_json": dumps(draw(vectors(dim))),
            "candidates": candidates,
            "threshold": draw(threshold().filter(lambda t: isinstance(t, float) and 0 <= t <= 1))}


def _decide(impl: Any, inputs: dict[str, Any], candidates: list[dict[str, Any]], mode: str) -> dict[str, Any] | None:
    response = impl.call("decide_write", {"text": inputs["text"], "embedding_json": inputs["embedding_json"],
                                          "candidates_json": dumps(candidates), "threshold": inputs["threshold"],
                                          "mode": mode})
    return json.loads(response["ok"]) if "ok" in response else None


@pytest.mark.op("decide_write")
def test_decide_write_invariants(impl: Any) -> None:
    @FEWER
    @given(inputs=gate_inputs(), mode=st.sampled_from(["auto", "explicit", "mirror", "reconcile"]))
    def check(inputs: dict[str, Any], mode: str) -> None:
        candidates = inputs["candidates"]
        result = _decide(impl, inputs, candidates, mode)
        assume(result is not None)  # invalid inputs are the differential suite's business
        normalized = _ok(impl, "normalize_fact_text", text=inputs["text"])
        has_exact = any(isinstance(c.get("text"), str)
                        and _ok(impl, "normalize_fact_text", text=c["text"]) == normalized
                        for c in candidates)
        if has_exact:
            assert result["action"] == "skip", f"an exact duplicate was not skipped: {result}"
        unrelated = {"id": "unrelated-candidate", "text": normalized + " and something else entirely"}
        assert _decide(impl, inputs, candidates + [unrelated], mode) == result, "an unrelated candidate changed it"
        if mode in ("mirror", "reconcile"):
            other = "reconcile" if mode == "mirror" else "mirror"
            assert _decide(impl, inputs, candidates, other) == result, "mirror and reconcile disagree"

    check()
