"""Surface check: every op of the registry is exported by each implementation under the contract's
names, with the same parameters (names, order) and the same defaults; nothing else is exported but the
optional diagnostic ``trace`` (``trace(op, args)`` in Python, ``trace(op, ...args)`` in JavaScript, with
``traced()``, the ops it serves).

* Python (reference package, PyO3 module): public callables and ``inspect.signature``;
* JavaScript (the wasm-bindgen package): exported functions and their parameter names, read by Node;
* every implementation: an omitted argument behaves exactly like passing the registry's default.
"""

from __future__ import annotations

import importlib
import inspect
from types import ModuleType
from typing import Any

from harness.differential.outcomes import same_outcome
from harness.fixtures.load import all_cases
from harness.model.registry import OPS
from harness.model.traces import TRACE_OP
from harness.testees.impls import declaration
from harness.testees.testee import Testee

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


def check(impl_name: str, impl: Testee) -> list[str]:
    """The surface of an implementation, as its declaration says where to find it: the module of an
    in-process one, or the exports a command testee reports in its answer to `start`."""
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
    return problems + default_behaviour(impl, impl_name, ops=declared.ops)
