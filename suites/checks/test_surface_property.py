"""The surface as a property (issue 53 item 7), on in-process fakes: harness/checks/surface.py's ``check`` holds an
implementation's exports to the op table (names, order, defaults) and sends every parameter of every op a value of
each host type its kind does not take (``kind_probes``, generated from the op table), expecting the parameter's
code as the oracle gives it. Each fault is planted and seen: a PyO3-like module with two parameters swapped, a
family file whose cap default is 32, and, for every parameter of every op, an implementation that takes an
out-of-kind value of that parameter alone."""

from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Callable
from typing import Any

import pytest

import reference
from harness.checks import surface
from harness.checks.surface import check, js_surface, kind_behaviour, kind_probes, plain_call, python_surface
from harness.model.contract_surface import out_of_kind
from harness.model.registry import OPS
from harness.testees.inprocess import InProcess

MEMGATE = tuple(name for name, op in OPS.items() if op.family == "memgate")
PARAMS = [(op, param.name) for op in MEMGATE for param in OPS[op].params]


def _reference() -> InProcess:
    return InProcess("reference", lambda op: op.reference)


class _Builtin:
    """A PyO3-like function: no Python code object, its signature only what ``__text_signature__`` says (as
    ``inspect.signature`` reads a builtin's); called with keywords, as the harness calls it."""

    def __init__(self, function: Callable[..., Any], text_signature: str) -> None:
        self._function = function
        self.__text_signature__ = text_signature
        self.__name__ = function.__name__

    @property
    def __signature__(self) -> inspect.Signature:
        # what inspect makes of a builtin's "(text, ...)" text signature
        namespace: dict[str, Any] = {}
        exec(f"def f{self.__text_signature__}: pass", namespace)  # the text is the test's own
        return inspect.signature(namespace["f"])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._function(*args, **kwargs)


def _pyo3_like(**signatures: str) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{
        name: _Builtin(getattr(reference, name), signatures.get(name, str(inspect.signature(getattr(reference, name)))))
        for name in MEMGATE})


def test_a_pyo3_like_module_is_held_to_the_op_table() -> None:
    assert python_surface(_pyo3_like(), "pyo3-like", MEMGATE) == []
    swapped = _pyo3_like(decide_write="(text, embedding_json, candidates_json, threshold=0.85, force=False, "
                                      "mode='auto')")
    found = python_surface(swapped, "pyo3-like", MEMGATE)
    assert any("decide_write" in p and "has parameters" in p and "'force', 'mode'" in p for p in found), found
    swapped_json = _pyo3_like(build_dedup_context="(pinned_json, topical_json, recent_json, cap=30)")
    assert any("build_dedup_context" in p for p in python_surface(swapped_json, "pyo3-like", MEMGATE))


def test_two_swapped_javascript_parameters_are_named() -> None:
    good = {OPS[op].js_name: [p.js_name for p in OPS[op].params] for op in MEMGATE}
    assert js_surface(good, "js", MEMGATE) == []
    swapped = {**good, "buildDedupContext": ["topicalJson", "recentJson", "pinnedJson", "cap"]}
    assert any("buildDedupContext" in p and "should take" in p for p in js_surface(swapped, "js", MEMGATE))


def test_a_family_file_whose_cap_default_is_32_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry as a family file with ``"default": 32`` for cap makes it: every implementation's cap=30 is now
    the wrong default (the family's contract table names it too: suites/model/test_contract_surface.py)."""
    op = OPS["build_dedup_context"]
    planted = dataclasses.replace(op, params=tuple(dataclasses.replace(p, default=32) if p.name == "cap" else p
                                                   for p in op.params))
    assert python_surface(reference, "reference", MEMGATE) == []
    monkeypatch.setitem(OPS, "build_dedup_context", planted)
    found = python_surface(reference, "reference", MEMGATE)
    assert any("cap defaults to 30, expected 32" in p for p in found), found


def test_the_probes_are_generated_from_the_op_table() -> None:
    """One probe per out-of-kind value of every parameter of every op; the other arguments plain, and the plain call
    itself is answered by the oracle (so a refusal is the probed parameter's)."""
    probes = kind_probes(MEMGATE)
    assert len(probes) == sum(len(out_of_kind(OPS[op].param(name).kind)) for op, name in PARAMS) > 0
    assert {(p.op, p.param) for p in probes} == set(PARAMS)
    oracle = _reference()
    for op in MEMGATE:
        base = plain_call(OPS[op])
        assert base is not None and "ok" in oracle.call(op, base), op
        assert all(base[key] == value for key, value in OPS[op].plain)
    for probe in probes:
        base = plain_call(OPS[probe.op])
        assert base is not None
        assert {k: v for k, v in probe.args.items() if k != probe.param} == {k: v for k, v in base.items()
                                                                            if k != probe.param}
        assert probe.code == OPS[probe.op].param(probe.param).error_code
    assert kind_behaviour(_reference(), "reference", MEMGATE, _reference()) == []


def _accepting(op_name: str, param_name: str) -> InProcess:
    """The reference, but ``op_name`` takes any value of ``param_name`` out of its kind as the kind's plain value
    (a binding that converts it: 1 to true, "1" to a number, an array to a text)."""
    kind = OPS[op_name].param(param_name).kind
    wrong = out_of_kind(kind)

    def resolve(op: Any) -> Callable[..., str]:
        if op.name != op_name:
            return op.reference
        plain = plain_call(op)
        assert plain is not None

        def converting(**args: Any) -> str:
            value = args[param_name]
            if any(type(value) is type(w) and value == w for w in wrong):
                args[param_name] = plain[param_name]
            return op.reference(**args)

        return converting

    return InProcess("accepting", resolve)


@pytest.mark.parametrize("op_name, param_name", PARAMS, ids=[f"{op}.{param}" for op, param in PARAMS])
def test_an_implementation_taking_one_out_of_kind_value_is_named(op_name: str, param_name: str) -> None:
    found = kind_behaviour(_accepting(op_name, param_name), "accepting", MEMGATE, _reference())
    assert found, f"{op_name}({param_name}=...) out of its kind was taken and nothing said so"
    assert all(f"{op_name}({param_name}=" in line for line in found), found
    code = OPS[op_name].param(param_name).error_code
    assert all(f"error {code}" in line and "the oracle reference: error " + code in line for line in found), found


def test_the_surface_check_runs_the_kind_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    """``check`` (the call path of every implementation: in process, command testee, Pyodide, WASM) runs them: the
    reference's declaration, an implementation under it that takes force=1."""
    assert check("reference", _reference(), _reference()) == []
    found = check("reference", _accepting("decide_write", "force"), _reference())
    assert any("decide_write(force=1)" in line and "invalid_force" in line for line in found), found
    calls: list[str] = []
    real = surface.kind_behaviour
    monkeypatch.setattr(surface, "kind_behaviour", lambda *a, **k: calls.append("probed") or real(*a, **k))
    check("reference", _reference(), _reference())
    assert calls == ["probed"]


def test_the_oracle_is_opened_when_not_given() -> None:
    """Without an oracle given, each op's declared oracle answers beside (here the reference itself)."""
    found = kind_behaviour(_accepting("build_dedup_context", "cap"), "accepting", MEMGATE)
    assert found and all("the oracle reference: error invalid_cap" in line for line in found), found


def test_a_wrong_code_for_an_out_of_kind_value_is_named() -> None:
    """Refusing is not enough: the code must be the parameter's (a binding whose mode check says invalid_text)."""

    def resolve(op: Any) -> Callable[..., str]:
        if op.name != "decide_write":
            return op.reference

        def wrong_code(**args: Any) -> str:
            if not isinstance(args.get("mode", "auto"), str):
                raise ValueError("invalid_text: mode is not a string")
            return op.reference(**args)

        return wrong_code

    found = kind_behaviour(InProcess("wrong-code", resolve), "wrong-code", MEMGATE, _reference())
    assert found and all("decide_write(mode=" in line and "answered error invalid_text" in line for line in found)
