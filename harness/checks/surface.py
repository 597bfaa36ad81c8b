"""Surface check: every op of the registry is exported by each implementation under the contract's
names, with the same parameters (names, order) and the same defaults; nothing else is exported but the
optional diagnostic ``trace`` (``trace(op, args)`` in Python, ``trace(op, ...args)`` in JavaScript, with
``traced()``, the ops it serves).

* Python (reference package, PyO3 module): public callables and ``inspect.signature``;
* JavaScript (the wasm-bindgen package): exported functions and their parameter names, read by Node;
* every implementation: an omitted argument behaves exactly like passing the registry's default;
* every implementation: every parameter of every op refuses, with its own error code, a value of each host type
  its kind does not take (``kind_probes``, generated from the op table: harness/model/contract_surface.py says
  which host type a kind takes), the other arguments plain (``OPS[op].plain``, else defaults and the kinds' plain
  values), as the oracle does.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from harness.differential.outcomes import outcome, same_outcome
from harness.fixtures.load import all_cases
from harness.model.contract_surface import host_type, kind_host_type, out_of_kind
from harness.model.hostvalues import shown
from harness.model.registry import OPS, PLAIN_VALUES, Op
from harness.model.traces import TRACE_OP
from harness.testees.fanout import expressible
from harness.testees.impls import declaration, get_impl
from harness.testees.impls import oracle as oracle_name
from harness.testees.testee import Response, Testee

_MISSING = inspect.Parameter.empty


def python_surface(module: ModuleType | Any, label: str, ops: tuple[str, ...] = tuple(OPS),
                   functions: dict[str, str] | None = None) -> list[str]:
    """The module's functions against the ops it serves (``ops``), each under its own name or the one
    ``functions`` maps it to. A module that serves every op under its own name (a binding of this project)
    exports nothing else; a module of another library (a name map) may."""
    problems = []
    public = getattr(module, "__all__", None)  # a module that says what it exports: that, else what it holds
    exported = {name for name in (public if isinstance(public, (list, tuple)) else dir(module))
                if not name.startswith("_") and callable(getattr(module, name, None))
                and not inspect.ismodule(getattr(module, name)) and not inspect.isclass(getattr(module, name))}
    named = {(functions or {}).get(op, op): op for op in ops}  # function name -> the op it serves
    expected = set(named)
    for name in sorted(expected - exported):
        problems.append(f"{label}: missing export {name}" + ("" if named[name] == name else f" (for {named[name]})"))
    for name in sorted(exported - expected - {TRACE_OP} if not functions else set()):
        problems.append(f"{label}: extra export {name} (not an op it serves: its declaration's ops)")
    if TRACE_OP in exported:  # the optional diagnostic: trace(op, args)
        try:
            params = list(inspect.signature(getattr(module, TRACE_OP)).parameters)
        except (TypeError, ValueError):
            params = []
        if params != ["op", "args"]:
            problems.append(f"{label}: {TRACE_OP} should take (op, args), takes ({', '.join(params)})")
    for name in sorted(expected & exported):
        op = OPS[named[name]]
        try:
            signature = inspect.signature(getattr(module, name))
        except (TypeError, ValueError) as exc:
            problems.append(f"{label}: {name} has no inspectable signature ({exc})")
            continue
        got = [(p.name, p.default) for p in signature.parameters.values()]
        want = [(p.name, _MISSING if p.required else p.default) for p in op.params]
        if [n for n, _ in got] != [n for n, _ in want]:
            problems.append(f"{label}: {name}{signature} has parameters {[n for n, _ in got]}, "
                            f"expected {[n for n, _ in want]}")
            continue
        for (param, default), (_, wanted) in zip(got, want, strict=True):
            if default is not wanted and (type(default) is not type(wanted) or default != wanted):
                problems.append(f"{label}: {name}: parameter {param} defaults to {default!r}, expected "
                                f"{'no default' if wanted is _MISSING else repr(wanted)}")
    return problems


# The WASM package's list of the ops its trace serves (the core's host::TRACED), which its testee reads: part of the
# diagnostic, as Python's TRACED is (a list there, so never a callable export).
JS_TRACED = "traced"


def js_surface(exports: dict[str, list[str] | None], label: str = "wasm", ops: tuple[str, ...] = tuple(OPS)
               ) -> list[str]:
    problems = []
    expected = {OPS[op].js_name: OPS[op] for op in ops}
    functions = {name: params for name, params in exports.items() if params is not None}
    for name in sorted(set(expected) - set(functions)):
        problems.append(f"{label}: missing export {name}")
    for name in sorted(set(functions) - set(expected) - {TRACE_OP, JS_TRACED}):
        problems.append(f"{label}: extra export {name} (not an op it serves: its declaration's ops)")
    if TRACE_OP in functions and (functions[TRACE_OP] or [None])[0] != "op":  # trace(op, ...the op's args)
        problems.append(f"{label}: {TRACE_OP}({', '.join(functions[TRACE_OP] or [])}) should take op first")
    for name in sorted(set(expected) & set(functions)):
        want = [p.js_name for p in expected[name].params]
        if functions[name] != want:
            problems.append(f"{label}: {name}({', '.join(functions[name] or [])}) should take ({', '.join(want)})")
    return problems


def default_behaviour(impl: Testee, label: str, per_op: int = 12, ops: tuple[str, ...] = tuple(OPS)) -> list[str]:
    """Omitting a defaulted argument must equal passing the registry's default explicitly (the ops it serves)."""
    problems = []
    seen: dict[str, int] = {}
    for case in all_cases():
        if case.op not in ops:
            continue
        op = OPS[case.op]
        defaulted = [p for p in op.params if not p.required and p.name not in case.raw_args]
        if not defaulted or seen.get(case.op, 0) >= per_op:
            continue
        seen[case.op] = seen.get(case.op, 0) + 1
        args = case.args
        explicit = {**args, **{p.name: p.default for p in defaulted}}
        omitted, given = impl.call(case.op, args), impl.call(case.op, explicit)
        if not same_outcome(case.op, omitted, given):
            problems.append(f"{label}: {case.full_id}: omitting {', '.join(p.name for p in defaulted)} gives "
                            f"{omitted}, passing the registry defaults gives {given}")
    return problems


def plain_call(op: Op) -> dict[str, Any] | None:
    """Arguments of ``op`` every implementation takes: its family's plain arguments (``op.plain``), each parameter
    they leave out at its default, else at its kind's plain value; None where a parameter has none of these."""
    given = dict(op.plain)
    args: dict[str, Any] = {}
    for param in op.params:
        if param.name in given:
            args[param.name] = given[param.name]
        elif not param.required:
            args[param.name] = param.default
        elif param.kind in PLAIN_VALUES:
            args[param.name] = PLAIN_VALUES[param.kind]
        else:
            return None
    return args


@dataclass(frozen=True)
class KindProbe:
    """One parameter given a value of a host type its kind does not take, the other arguments plain."""

    op: str
    param: str
    value: Any
    code: str  # the code the contract gives a wrong value of the parameter (its family file's error_code)
    args: dict[str, Any]


def kind_probes(ops: tuple[str, ...] = tuple(OPS)) -> list[KindProbe]:
    """For every parameter of every op of ``ops`` (registry order), one probe per host value not of its kind's
    host type (contract_surface.out_of_kind): made from the op table, never listed by hand."""
    probes = []
    for name in ops:
        op = OPS[name]
        base = plain_call(op)
        if base is None:  # a kind the harness has no plain value of: the family schema allows none
            continue
        for param in op.params:
            probes += [KindProbe(name, param.name, value, param.error_code, {**base, param.name: value})
                       for value in out_of_kind(param.kind)]
    return probes


def kind_behaviour(impl: Testee, label: str, ops: tuple[str, ...] = tuple(OPS), oracle: Testee | None = None
                   ) -> list[str]:
    """Every kind probe of the ops ``impl`` serves must be refused with the parameter's code, as by the oracle (the
    op's oracle, ``impls.oracle``, opened here unless given or ``label`` is it); the oracle's answer is named beside.
    Values ``label``'s host cannot hold are not sent."""
    probes = [probe for probe in kind_probes(ops) if expressible(label, probe.args)]
    if not probes:
        return []
    answers = impl.call_batch([(probe.op, probe.args) for probe in probes])
    truth: list[tuple[str, Response]] = []
    opened: dict[str, Testee] = {}
    try:
        for probe, answer in zip(probes, answers, strict=True):
            name = oracle.name if oracle is not None else oracle_name(probe.op)
            if oracle is not None:
                truth.append((name, oracle.call(probe.op, probe.args)))
            elif name == label:
                truth.append((name, answer))
            else:
                if name not in opened:
                    opened[name] = get_impl(name)
                truth.append((name, opened[name].call(probe.op, probe.args)))
    finally:
        for testee in opened.values():
            testee.close()
    problems = []
    for probe, answer, (name, said) in zip(probes, answers, truth, strict=True):
        wanted = ("error", probe.code)
        got = outcome(probe.op, answer)
        if got == wanted:
            continue
        kind = OPS[probe.op].param(probe.param).kind
        given = host_type(probe.value)
        problems.append(f"{label}: {probe.op}({probe.param}={shown(probe.value)}) answered {_said(got)}; "
                        f"{'an' if given[0] in 'aeiou' else 'a'} {given} is not the {kind_host_type(kind)} its kind "
                        f"{kind} takes, so the "
                        f"contract's answer is error {probe.code} (the oracle {name}: {_said(outcome(probe.op, said))}"
                        "; the other arguments plain)")
    return problems


def _said(result: tuple[str, Any]) -> str:
    kind, value = result
    return f"error {value}" if kind == "error" else f"{kind} {value!r}"[:120]


def check(impl_name: str, impl: Testee, oracle: Testee | None = None) -> list[str]:
    """The surface of an implementation, as its declaration says where to find it: the module of an
    in-process one, or the exports a command testee reports in its answer to `start`; then its behaviour on
    omitted arguments and on values out of each parameter's kind (``oracle``: the testee to compare with, default
    each op's declared oracle)."""
    declared = declaration(impl_name)
    if declared.python_module is not None:
        problems = python_surface(importlib.import_module(declared.python_module), impl_name, declared.ops,
                                  declared.functions)
    else:
        surface = impl.description.get("surface") if isinstance(impl.description, dict) else None
        if isinstance(surface, dict) and surface.get("kind") == "js" and isinstance(surface.get("exports"), dict):
            problems = js_surface(surface["exports"], impl_name, declared.ops)
        else:
            problems = []  # the testee reports no surface of its own: only its behaviour is checked
    return (problems + default_behaviour(impl, impl_name, ops=declared.ops)
            + kind_behaviour(impl, impl_name, declared.ops, oracle))
