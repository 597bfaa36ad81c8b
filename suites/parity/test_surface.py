"""The surface check: on every requested implementation, and on planted surface bugs."""

from __future__ import annotations

import types
from typing import Any

import pytest

import reference
from harness.checks.surface import check, default_behaviour, js_surface, python_surface
from harness.model.registry import OPS
from harness.testees.impls import InProcess


def test_surface(impl_name: str, impl: Any) -> None:
    problems = check(impl_name, impl)
    assert not problems, "\n".join(problems)


def _fake_module(**overrides: Any) -> types.SimpleNamespace:
    functions = {name: getattr(reference, name) for name in OPS if OPS[name].family == "memgate"}
    functions.update(overrides)
    return types.SimpleNamespace(**{k: v for k, v in functions.items() if v is not None})


def _decide(text, embedding_json, candidates_json, threshold=0.8, mode="auto", force=False):  # type: ignore[no-untyped-def]
    return reference.decide_write(text, embedding_json, candidates_json, threshold, mode, force)


def _decide_renamed(text, embedding, candidates_json, threshold=0.85, mode="auto", force=False):  # type: ignore[no-untyped-def]
    return ""


@pytest.mark.parametrize(
    "module, message",
    [
        (_fake_module(build_dedup_context=None), "missing export build_dedup_context"),
        (_fake_module(normalise=reference.normalize_fact_text), "extra export normalise"),
        (_fake_module(decide_write=_decide), "threshold defaults to 0.8, expected 0.85"),
        (_fake_module(decide_write=_decide_renamed), "has parameters"),
        (_fake_module(build_dedup_context=lambda topical_json, pinned_json, recent_json, cap=30.0: ""),
         "cap defaults to 30.0, expected 30"),
    ],
)
def test_python_surface_planted(module: Any, message: str) -> None:
    assert any(message in p for p in python_surface(module, "fake")), python_surface(module, "fake")


GOOD_JS = {op.js_name: [p.js_name for p in op.params] for op in OPS.values()}


@pytest.mark.parametrize(
    "exports, message",
    [
        ({k: v for k, v in GOOD_JS.items() if k != "decideWrite"}, "missing export decideWrite"),
        ({**GOOD_JS, "initSync": []}, "extra export initSync"),
        ({**GOOD_JS, "buildDedupContext": ["topicalJson", "pinnedJson", "recentJson"]}, "should take"),
        ({**GOOD_JS, "normalizeFactText": ["input"]}, "should take (text)"),
    ],
)
def test_js_surface_planted(exports: dict[str, Any], message: str) -> None:
    assert js_surface(GOOD_JS) == []
    assert any(message in p for p in js_surface(exports)), js_surface(exports)


def test_default_behaviour_planted() -> None:
    def resolve(op):  # type: ignore[no-untyped-def]
        if op.name == "build_dedup_context":
            return lambda topical_json, pinned_json, recent_json, cap=29: reference.build_dedup_context(
                topical_json, pinned_json, recent_json, cap)
        return op.reference

    problems = default_behaviour(InProcess("off-by-one-default", resolve), "fake", per_op=100)
    assert any("omitting cap" in p for p in problems), problems
