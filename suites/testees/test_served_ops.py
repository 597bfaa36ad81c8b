"""Declarations say what they serve (``"ops"``: op and family names; ``"functions"``: an in-process module's
own names): an op an implementation does not serve is never sent to it, and is "not served", never a
failure, a skip in a pass rate, a divergence or a fault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.fixtures.load import all_cases
from harness.model.registry import served_ops
from harness.testees import impls
from suites.fake_impl import declare, run

MODULE = '''import reference


def norm(text):  # normalize_fact_text under another library's own name
    return reference.normalize_fact_text(text){bug}
'''


def _module(folder: Path, bug: str = "") -> None:
    (folder / "normonly.py").write_text(MODULE.format(bug=bug), encoding="utf-8")


def _in_process(folder: Path, **changes: object) -> Path:
    fields: dict[str, object] = {"start": {"python": "normonly"}, "ops": ["normalize_fact_text"],
                                 "functions": {"normalize_fact_text": "norm"}}
    fields.update(changes)
    return declare(folder, "normonly", **fields)


def _run(folder: Path, *command: str):  # type: ignore[no-untyped-def]
    import os

    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(folder), old) if p)
    try:
        return run(folder, *command)
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old


def test_family_and_op_names_resolve() -> None:
    ops, unknown = served_ops(["memgate"])
    assert "decide_write" in ops and "unicode_versions" in ops and not unknown
    assert served_ops(["build_dedup_context", "nope"]) == (("build_dedup_context",), ["nope"])
    assert served_ops(None)[0] == served_ops(["memgate"])[0]


@pytest.mark.parametrize(("changes", "says"), [
    ({"ops": ["normalise_fact_text"]}, "'normalise_fact_text' is neither an op nor an op family"),
    ({"functions": {"decide_write": "gate"}}, "decide_write is not an op it serves"),
])
def test_a_wrong_ops_or_functions_field_is_a_broken_declaration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              changes: dict[str, object], says: str) -> None:
    _in_process(tmp_path, **changes)
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    assert says in impls.broken()["normonly"]


def test_functions_belong_to_an_in_process_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    declare(tmp_path, "fake", functions={"normalize_fact_text": "norm"})
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    assert "only an in-process implementation" in impls.broken()["fake"]


def test_an_in_process_module_serves_one_op_under_its_own_name(tmp_path: Path) -> None:
    _module(tmp_path)
    _in_process(tmp_path)
    out = tmp_path / "results.json"
    result = _run(tmp_path, "-m", "harness", "check", "--impl", "normonly", "--results", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    pinned = sum(case.op == "normalize_fact_text" for case in all_cases())
    others = {op: sum(case.op == op for case in all_cases()) for op in ("decide_write", "build_dedup_context")}
    assert document["counts"]["normonly"] == {"pass": pinned, "fail": 0, "skip": 0}
    assert document["unserved"] == {"normonly": others}
    assert {row["op"] for row in document["results"]} == {"normalize_fact_text"}
    assert f"normonly: {pinned}/{pinned} fixture cases pass" in result.stdout
    # its bug is found, on the op it serves
    _module(tmp_path, bug=".strip()")
    result = _run(tmp_path, "-m", "harness", "diff", "normalize_fact_text", "a\u001c", "--impl", "reference,normonly")
    assert result.returncode == 1 and "whitespace_definition" in result.stdout, result.stdout + result.stderr
    # and an op it does not serve is not sent to it, nor reported as unanswered
    result = _run(tmp_path, "-m", "harness", "diff", "build_dedup_context", "null", "null", "null",
                  "--impl", "reference,normonly")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not served by normonly" in result.stdout and "no answer" not in result.stdout


def test_a_module_missing_a_function_it_says_it_serves_is_unavailable(tmp_path: Path) -> None:
    _module(tmp_path)
    _in_process(tmp_path, functions={})
    result = _run(tmp_path, "-m", "harness", "check", "--impl", "normonly", "--results", str(tmp_path / "r.json"))
    assert result.returncode != 0 and "does not export normalize_fact_text" in result.stdout + result.stderr


def test_a_command_testee_of_one_op_passes_selftest_and_check(tmp_path: Path) -> None:
    """A program that knows only build_dedup_context (any other op: bad_request), declared as serving it."""
    declare(tmp_path, "fake", ops=["build_dedup_context"],
            start={"command": ["{python}", str(Path(__file__).parents[1] / "fakes" / "fake_testee.py")],
                   "env": {"FAKE_SERVES": "build_dedup_context"}})
    result = run(tmp_path, "-m", "harness", "selftest", "--impl", "fake")
    assert result.returncode == 0, result.stdout + result.stderr
    result = run(tmp_path, "-m", "harness", "check", "--impl", "fake", "--results", str(tmp_path / "r.json"))
    assert result.returncode == 0 and "FINDING" not in result.stdout, result.stdout + result.stderr
    pinned = sum(case.op == "build_dedup_context" for case in all_cases())
    assert f"fake: {pinned}/{pinned} fixture cases pass" in result.stdout
    # planted: the same program declared as serving every op is a testee refusing requests (findings)
    declare(tmp_path, "fake", start={"command": ["{python}", str(Path(__file__).parents[1] / "fakes" /
                                                                 "fake_testee.py")],
                                     "env": {"FAKE_SERVES": "build_dedup_context"}})
    result = run(tmp_path, "-m", "harness", "check", "--impl", "fake", "--results", str(tmp_path / "r.json"))
    assert result.returncode != 0, result.stdout
