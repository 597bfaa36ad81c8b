"""Nothing about an op or a cause rule is left out silently (issue 50, item 6).

* Every op of the family files is served by its family's reference, and the memgate family's by the Rust core
  (the core's own test, ``host::tests::the_table_is_the_family_files``, holds ``host::OPS`` to the family file;
  here the built PyO3 module and WASM package are held to the registry and to the reference's traced ops).
* The WASM testee announces the ops the package itself lists (``traced()``), never a copy; a package built
  before that export serves no traces and says why.
* Every rule a cause module defines is in its classifier's ``ORDER`` (a rule left out never fires), and the
  expected-divergences schema's cause enum is what harness/tools/make_cause_enum.py makes from the rules.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

import reference
from harness.checks.surface import js_surface, python_surface
from harness.differential.rule import Rule
from harness.model.paths import ROOT
from harness.model.registry import OPS
from harness.testees.command import start_request
from harness.tools import make_cause_enum

MEMGATE = tuple(name for name, op in OPS.items() if op.family == "memgate")
TESTEE = ROOT / "wasm_host" / "testee.js"
PKG = ROOT / "wasm_host" / "pkg"


def test_the_reference_serves_every_op_of_its_family() -> None:
    assert MEMGATE and python_surface(reference, "reference", MEMGATE) == []
    # It traces every op the differential suites compare (their divergences get their cause from traces).
    assert set(reference.TRACED) == {name for name in MEMGATE if OPS[name].differential}


def test_the_pyo3_module_serves_every_op_and_traces_what_the_reference_traces() -> None:
    memgate_rs = pytest.importorskip("memgate_rs")
    assert python_surface(memgate_rs, "pyo3", MEMGATE) == []
    assert list(memgate_rs.TRACED) == [name for name in MEMGATE if name in reference.TRACED]
    with pytest.raises(ValueError, match="memgate_rs traces " + ", ".join(memgate_rs.TRACED)):
        memgate_rs.trace(next(op for op in MEMGATE if op not in memgate_rs.TRACED), {})


def _start(pkg: Path, *requests: dict[str, object]) -> tuple[list[dict[str, object]], str]:
    """The WASM testee's answers to `start` and then ``requests``, and its stderr."""
    lines = [json.dumps(start_request()), *(json.dumps(r) for r in requests)]
    proc = subprocess.run(["node", str(TESTEE), str(pkg)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=60, check=False)
    return [json.loads(line) for line in proc.stdout.splitlines()], proc.stderr


def _node() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH")


def test_the_wasm_testee_announces_the_packages_own_traced_list() -> None:
    _node()
    if not (PKG / "memgate_wasm.js").is_file():
        pytest.skip("the WASM package is not built (python wasm_host/build.py)")
    answers, stderr = _start(PKG)
    description = answers[0]["ok"]
    assert isinstance(description, dict)
    assert description["traces"] == [name for name in MEMGATE if name in reference.TRACED], stderr
    assert js_surface(description["surface"]["exports"], "wasm", MEMGATE) == []


OLD_PKG = """'use strict';
exports.normalizeFactText = (text) => text;
exports.unicodeVersions = () => '{}';
exports.trace = (op, text) => '{}';
"""


def test_a_package_without_the_traced_export_serves_no_traces_and_says_why(tmp_path: Path) -> None:
    _node()
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "memgate_wasm.js").write_text(OLD_PKG, encoding="utf-8")
    (pkg / "memgate_wasm_bg.wasm").write_bytes(b"\0asm")
    answers, stderr = _start(pkg, {"id": 7, "op": "trace", "args": {"op": "normalize_fact_text",
                                                                     "args": {"text": "a"}}})
    assert answers[0]["ok"]["traces"] == []  # type: ignore[index]
    assert "exports trace but not traced" in stderr and "wasm_host/build.py" in stderr
    error = answers[1]["error"]
    assert error["code"] == "bad_request" and "no traces: the wasm package exports trace but not traced" in \
        error["message"]  # type: ignore[index]


def _rules_defined(package: ModuleType) -> dict[str, str]:
    """Every rule a module of the classifier package defines (in its RULES or as a module-level value): name ->
    module."""
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        values = [*vars(module).values(), *getattr(module, "RULES", ())]
        for value in values:
            if isinstance(value, Rule):
                found[value.name] = info.name
    return found


@pytest.mark.parametrize("package", ["harness.differential.causes", "harness.differential.counterfactual"])
def test_every_rule_a_cause_module_defines_is_in_its_classifiers_order(package: str) -> None:
    classifier = importlib.import_module(package)
    defined = _rules_defined(classifier)
    left_out = sorted(f"{name} ({module}.py)" for name, module in defined.items() if name not in classifier.ORDER)
    assert not left_out, f"rules never tried: add them to {package}.ORDER: {', '.join(left_out)}"
    assert set(classifier.ORDER) == set(defined) and len(defined) >= 15


def test_the_expected_schemas_cause_enum_is_made_from_the_rules() -> None:
    from harness.differential.explain import CAUSES

    current = make_cause_enum.OUT.read_text(encoding="utf-8")
    assert current == make_cause_enum.made(current), "run python -m harness.tools.make_cause_enum"
    assert set(make_cause_enum.rule_causes()) == set(CAUSES)
    assert make_cause_enum.main(["--check"]) == 0
