"""The reference on Pyodide (pyodide_host/): its build's errors, its start, and the one boundary it adds.

The tests that start Pyodide need the pinned npm package (`python pyodide_host/build.py`); without it
they are skipped, and fail instead when PARITY_REQUIRE_PYODIDE=1 (CI sets it: `nox -s parity` installs
it first).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import reference
from harness.testees.impls import declaration, get_impl
from harness.testees.inprocess import InProcess

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "pyodide_host"
INSTALLED = (HOST / "node_modules" / "pyodide").is_dir()
NODE = shutil.which("node")


def _need_pyodide() -> None:
    if NODE and INSTALLED:
        return
    why = "node is not on PATH" if not NODE else "pyodide is not installed (python pyodide_host/build.py)"
    if os.environ.get("PARITY_REQUIRE_PYODIDE") == "1":
        pytest.fail(f"PARITY_REQUIRE_PYODIDE=1 but {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def pyodide() -> Any:
    _need_pyodide()
    impl = get_impl("pyodide")
    yield impl
    impl.close()


def test_it_describes_itself_with_the_versions_pyodide_brings(pyodide: Any) -> None:
    described = pyodide.description
    assert described["name"] == "memgate-reference-pyodide" and described["contracts"] == ["v1"]
    assert "unicodedata2 stood in by Pyodide's unicodedata" in described["language"]
    assert "CPython 3.14" in described["language"]
    # The stand-in is Pyodide's own unicodedata, so both Unicode steps report the same version, and it
    # is what unicode_versions() answers there.
    versions = json.loads(pyodide.call("unicode_versions", {})["ok"])
    assert versions == described["unicode"]
    assert (versions["normalization"] == versions["case_mapping"]
            != json.loads(reference.unicode_versions())["normalization"])
    assert declaration("pyodide").startup_deadline >= 10


@pytest.mark.parametrize("text", [
    "plain ascii",
    "\ud800",  # a lone surrogate: the reference's invalid_text, only if it crosses unchanged
    "a\udfffb",
    "\ud800\udc00",  # two lone halves in a code-point host string ($codepoints), not U+10000
    "\U00010000",  # the valid character
    "\u2028 \u0085 \x1c \ufeff",
    "\x00",
    "Σ\u0301Σ",
])
def test_strings_cross_into_python_unchanged(pyodide: Any, text: str) -> None:
    """Whatever the harness sends arrives in the reference as the same code points: the testee gives
    Python the request line itself (ASCII JSON), never a JavaScript string of the argument."""
    here = InProcess("here", lambda op: getattr(reference, op.name))
    for op, args in (("normalize_fact_text", {"text": text}), ("unicode_nfc", {"text": text})):
        assert pyodide.call(op, args) == here.call(op, args), (op, text)
    assert pyodide.call("unicode_nfc", {"text": "x"})["ok"] == "x"


def test_wrong_host_types_get_the_references_errors(pyodide: Any) -> None:
    here = InProcess("here", lambda op: getattr(reference, op.name))
    for op, args in (("normalize_fact_text", {"text": 3}), ("normalize_fact_text", {"text": None}),
                     ("build_dedup_context", {"topical_json": "[]", "pinned_json": "[]", "recent_json": "[]",
                                              "cap": 2.5}),
                     ("decide_write", {"text": "a", "embedding_json": "[1]", "candidates_json": "[]",
                                       "threshold": float("nan")})):
        assert pyodide.call(op, args) == here.call(op, args), (op, args)


def test_the_bare_bench_runs_inside_pyodide(tmp_path: Path) -> None:
    _need_pyodide()
    requests = tmp_path / "requests.json"
    requests.write_text(json.dumps({"ops": {}, "requests": [{"op": "normalize_fact_text", "args": {"text": "A b"}}]}))
    proc = subprocess.run([NODE, str(HOST / "bench.js"), str(requests), "--seconds", "0.2"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["requestsPerSecond"] > 0 and result["startupSeconds"] > 0


def _host_without_package(tmp_path: Path) -> Path:
    """pyodide_host/ copied without node_modules: what a clone has before its build step."""
    copy = tmp_path / "pyodide_host"
    shutil.copytree(HOST, copy, ignore=shutil.ignore_patterns("node_modules"))
    return copy


@pytest.mark.skipif(NODE is None, reason="node is not on PATH")
def test_a_testee_without_its_package_says_how_to_install_it(tmp_path: Path) -> None:
    copy = _host_without_package(tmp_path)
    proc = subprocess.run([NODE, str(copy / "testee.js")], input="", capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == 4
    assert "pyodide is not installed" in proc.stderr and "pyodide_host/build.py" in proc.stderr


def test_the_build_check_names_what_is_missing(tmp_path: Path) -> None:
    copy = _host_without_package(tmp_path)
    proc = subprocess.run([sys.executable, str(copy / "build.py"), "--check"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PATH": os.environ.get("PATH", "")}, check=False)
    if NODE is None or shutil.which("npm") is None:
        assert proc.returncode == 2 and "not found on PATH" in proc.stderr
    else:
        assert proc.returncode == 1 and "pyodide is not installed in pyodide_host/node_modules" in proc.stderr
    no_node = subprocess.run([sys.executable, str(copy / "build.py"), "--check"], capture_output=True, text=True,
                             timeout=60, env={**os.environ, "PATH": str(tmp_path / "empty")}, check=False)
    assert no_node.returncode == 2 and "not found on PATH" in no_node.stderr and "Node.js 20" in no_node.stderr


def test_the_pin_is_exact_and_locked() -> None:
    """package.json pins one version and package-lock.json (what npm ci installs) has it, with integrity."""
    wanted = json.loads((HOST / "package.json").read_text())["dependencies"]["pyodide"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", wanted), f"pyodide must be pinned to one version, not a range: {wanted!r}"
    locked = json.loads((HOST / "package-lock.json").read_text())["packages"]["node_modules/pyodide"]
    assert locked["version"] == wanted and locked["integrity"].startswith("sha512-")


def test_a_failure_of_pyodide_itself_is_a_crash_of_that_request_only(tmp_path: Path) -> None:
    """A trap inside Pyodide (planted: the testee's call into Python throws a WebAssembly.RuntimeError
    on one text) is that request's `crash`; the testee exits and a fresh one answers the rest, in a
    batch too (left unanswered by the dying testee, then resent one request per line by the client)."""
    _need_pyodide()
    from harness.testees.command import CommandTestee

    copy = _host_without_package(tmp_path)
    os.symlink(HOST / "node_modules", copy / "node_modules")
    for name in ("reference", "harness", "families", "pyproject.toml"):
        os.symlink(ROOT / name, tmp_path / name)
    testee = copy / "testee.js"
    source = testee.read_text()
    planted = source.replace(
        "  const answer = host.boot.answer;\n",
        "  const answer = (line) => {\n"
        "    if (line.includes('TRAP')) throw new WebAssembly.RuntimeError('unreachable executed');\n"
        "    return host.boot.answer(line);\n"
        "  };\n")
    assert planted != source, "testee.js changed: update the planted trap"
    testee.write_text(planted)
    impl = CommandTestee([NODE, str(testee)], name="trapping", timeout=30, startup_timeout=60)
    try:
        assert impl.call("normalize_fact_text", {"text": "A"}) == {"ok": "a"}
        crashed = impl.call("normalize_fact_text", {"text": "TRAP"})
        assert (crashed["error"]["code"] == "crash"
                and "RuntimeError: unreachable executed" in crashed["error"]["message"])
        answers = impl.call_batch([("normalize_fact_text", {"text": "B"}), ("normalize_fact_text", {"text": "TRAP"}),
                                   ("normalize_fact_text", {"text": "C"})])
        assert answers[0] == {"ok": "b"} and answers[2] == {"ok": "c"}
        assert answers[1]["error"]["code"] == "crash"
    finally:
        impl.close()
