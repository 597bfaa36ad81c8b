"""Implementations join through their declaration alone: a whole fake implementation (a command testee,
suites/fakes/fake_testee.py) declared in a temporary folder runs the fixture suite and the differential
suite, which pass on a faithful fake and catch a bug planted in it. Declarations are checked too."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from harness.testees import impls
from suites.fake_impl import ROOT, declare, run


@pytest.mark.parametrize("bug", ["", "capitalize"])
def test_a_fake_implementation_joins_by_its_declaration(tmp_path: Path, bug: str) -> None:
    declare(tmp_path, bug=bug)
    listed = run(tmp_path, "-m", "harness", "impls")
    row = next(line for line in listed.stdout.splitlines() if line.split()[:1] == ["fake"])
    assert row.split()[1:5] == ["Python", "command", "testee", "v1"], listed.stdout
    described = json.loads(run(tmp_path, "-m", "harness", "impls", "--json").stdout)
    assert described["implementations"]["fake"]["name"] == "fake-testee", described

    fixtures = run(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider", "suites/parity/test_fixtures.py",
                   "--impl=fake")
    differential = run(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider", "suites/parity/test_differential.py",
                       "--impl=fake", "-k", "normalize_fact_text")
    if not bug:
        assert fixtures.returncode == 0, fixtures.stdout[-3000:]
        assert differential.returncode == 0, differential.stdout[-3000:]
        return
    assert fixtures.returncode == 1, fixtures.stdout[-3000:]
    assert "norm-" in fixtures.stdout  # the normalize cases fail ...
    assert differential.returncode == 1, differential.stdout[-3000:]
    assert "unexpected divergence" in differential.stdout and "normalize_fact_text" in differential.stdout


def test_the_project_declarations_are_valid() -> None:
    found = impls.declarations()
    assert set(found) >= {"reference", "pyo3", "wasm"}
    assert impls.oracle() == "reference" and impls.names()[0] == "reference"
    for declared in found.values():
        assert declared.expected is None or declared.expected.is_file(), declared.name


def test_two_oracles_are_an_error(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    declare(tmp_path, oracle=True)
    monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
    with pytest.raises(impls.DeclarationError, match=r"op normalize_fact_text has 2 oracles \(reference, fake\)"):
        impls.declarations()


@pytest.mark.parametrize(("changes", "message"), [
    ({"name": "other"}, r"fake.json: field name: 'other' is not the file name 'fake'; fix: rename"),
    ({"deadlines": {"startup": 0, "request": 1}}, r"fake.json: field deadlines/startup: 0 is less than or equal "
                                                   r"to the minimum of 0; fix: make it more than 0"),
    ({"start": {"shell": "fake"}}, r"fake.json: field start(/shell)?: .*; fix: "),
    ({"contracts": []}, r"fake.json: field contracts: \[\] should be non-empty; fix: give it at least 1 item"),
    ({"hint": None}, r"fake.json: field hint: None is not of type 'string'; fix: make it of type string"),
    ({"bare_bnech": ["x"]}, r"fake.json: field \(the top level\): Additional properties .*'bare_bnech'.*; fix: "
                            r"remove the field, or check its spelling"),
])
def test_a_bad_declaration_is_named_and_stops_only_what_asks_for_it(  # type: ignore[no-untyped-def]
        tmp_path: Path, monkeypatch, changes: dict, message: str) -> None:  # type: ignore[type-arg]
    path = declare(tmp_path, **changes)
    if changes.get("name") == "other":
        path.rename(tmp_path / "fake.json")
    monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
    assert "fake" not in impls.names() and "reference" in impls.names()
    assert re.search(message, impls.broken()["fake"]), impls.broken()
    with pytest.raises(impls.DeclarationError, match=message):
        impls.declaration("fake")


def test_a_malformed_declaration_file_is_listed_and_the_rest_runs(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    listed = run(tmp_path, "-m", "harness", "impls")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "broken: broken declaration" in listed.stdout and "broken.json: cannot read the declaration" in listed.stdout
    assert any(line.split()[:2] == ["reference", "Python"] for line in listed.stdout.splitlines()), listed.stdout
    asked = run(tmp_path, "-m", "harness", "check", "--impl", "broken")
    assert asked.returncode != 0 and "broken.json: cannot read the declaration" in asked.stderr
    left_out = run(tmp_path, "-m", "harness", "diff", "normalize_fact_text", "Abc", "--require-all")
    assert left_out.returncode != 0 and "left out of 'all available': broken: broken declaration" in left_out.stderr
    # A command that names other implementations runs.
    declare(tmp_path)
    fuzzed = run(tmp_path, "-m", "harness", "fuzz", "--impls", "reference,fake", "--seconds", "1", "--workers", "1",
                 "--report", str(tmp_path / "fuzz.json"))
    assert fuzzed.returncode == 0, fuzzed.stdout + fuzzed.stderr


def test_a_name_declared_twice_is_an_error(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    declare(tmp_path, name="pyo3")
    monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
    with pytest.raises(impls.DeclarationError, match="'pyo3' is already declared"):
        impls.declaration("pyo3")
    assert "pyo3" not in impls.names()


@pytest.mark.parametrize(("bug", "status"), [("", 0), ("protocol", 1), ("any_version", 1)])
def test_selftest_on_a_fake_testee(tmp_path: Path, bug: str, status: int) -> None:
    declare(tmp_path, bug=bug)
    result = run(tmp_path, "-m", "harness", "selftest", "--impl", "fake")
    assert result.returncode == status, result.stdout + result.stderr
    assert "ok   start: a valid self-description" in result.stdout
    if not bug:
        assert "ok   a testee killed from outside: a fresh process answers that request" in result.stdout
        assert "ok   then the same process answers the next one" in result.stdout
    elif bug == "any_version":  # a well-formed start of protocol 3 taken: only that probe fails
        assert "FAIL a start with another protocol version: answered bad_request" in result.stdout
        assert [line for line in result.stdout.splitlines() if line.startswith("FAIL ")] == [
            line for line in result.stdout.splitlines() if line.startswith("FAIL a start with another protocol")]
    else:
        assert "FAIL request write-gate-v1/norm-ascii-lowercase: a valid response with its id" in result.stdout
        assert "FAIL the testee kept answering" in result.stdout and "JSONDecodeError" in result.stdout
        assert "FAIL no finding about the testee after its start" in result.stdout
        assert "malformed_answer: an answer that is neither {ok} nor {error: {code, message}}" in result.stdout


def test_the_minimal_testee_of_the_docs_passes_the_selftest(tmp_path: Path) -> None:
    """docs/implementers.md's example, declared like any implementation, passes selftest and the fixtures."""
    declare(tmp_path, name="minimal", start={"command": ["{python}", str(ROOT / "docs" / "examples" /
                                                                          "minimal_testee.py")]})
    result = run(tmp_path, "-m", "harness", "selftest", "--impl", "minimal")
    assert result.returncode == 0, result.stdout + result.stderr
    fixtures = run(tmp_path, "-m", "harness", "check", "--impl", "minimal", "--results", str(tmp_path / "r.json"))
    assert fixtures.returncode == 0, fixtures.stdout[-3000:]


DEEP = "[" * 100_000 + "]" * 100_000


def test_a_deep_declaration_is_broken_alone_and_every_command_runs(tmp_path: Path) -> None:
    """A declaration nesting 100,000 levels deep among PARITY_IMPLEMENTATIONS is listed broken, with its
    problem; `impls` and `check --impl reference` run as before; asking for it is status 2, no traceback."""
    (tmp_path / "deep.json").write_text(DEEP, encoding="utf-8")
    listed = run(tmp_path, "-m", "harness", "impls")
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stdout + listed.stderr
    assert "deep: broken declaration" in listed.stdout and "nesting deeper than the parser's limit" in listed.stdout
    assert any(line.split()[:2] == ["reference", "Python"] for line in listed.stdout.splitlines()), listed.stdout
    checked = run(tmp_path, "-m", "harness", "check", "--impl", "reference", "--results", str(tmp_path / "r.json"))
    assert checked.returncode == 0 and "Traceback" not in checked.stderr, checked.stdout[-2000:] + checked.stderr
    asked = run(tmp_path, "-m", "harness", "check", "--impl", "deep", "--results", str(tmp_path / "d.json"))
    assert asked.returncode == 2 and "Traceback" not in asked.stderr, asked.stderr
    assert f"error: {tmp_path / 'deep.json'}: cannot read the declaration: nesting deeper" in asked.stderr
    assert not (tmp_path / "d.json").exists()


@pytest.mark.parametrize(("text", "said"), [
    (DEEP, "nesting deeper than the parser's limit"),
    ('{"a": ' * 150 + "1" + "}" * 150, "more than 100 levels"),
    ('{"schema": "implementation-v1", "oracle": NaN}', "the token NaN"),
    ('{"schema": "implementation-v1", "schema": "implementation-v1"}', 'the key "schema" twice'),
    ("\ufeff{}", "byte order mark"),
    ("[]", "an array where an object is due"),
    ("", "not JSON"),
])
def test_a_declaration_the_untrusted_reader_refuses_is_broken_alone(  # type: ignore[no-untyped-def]
        tmp_path: Path, monkeypatch, text: str, said: str) -> None:
    (tmp_path / "bad.json").write_text(text, encoding="utf-8")
    declare(tmp_path)
    monkeypatch.setenv(impls.EXTRA_ENV, str(tmp_path))
    assert "fake" in impls.names() and "reference" in impls.names() and "bad" not in impls.names()
    problem = impls.broken()["bad"]
    assert problem.startswith(f"{tmp_path / 'bad.json'}: cannot read the declaration: ") and said in problem, problem
    with pytest.raises(impls.DeclarationError) as refused:
        impls.declaration("bad")
    assert refused.value.status == 2


def test_the_project_declarations_name_their_lists_from_the_project_root() -> None:
    found = impls.declarations()
    assert found["wasm"].expected == ROOT / "expected" / "wasm.json"
    assert found["pyo3"].expected == ROOT / "expected" / "pyo3.json"


def test_a_relative_expected_of_an_outside_declaration_is_taken_from_its_own_folder(  # type: ignore[no-untyped-def]
        tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "impls"
    declare(folder, expected="lists/fake.json")
    declare(folder, name="rooted", expected="{root}/expected/wasm.json")
    declare(folder, name="here", expected="{here}/here.d/here.json")
    monkeypatch.setenv(impls.EXTRA_ENV, str(folder))
    assert impls.declaration("fake").expected == folder.resolve() / "lists" / "fake.json"
    assert impls.declaration("rooted").expected == ROOT / "expected" / "wasm.json"
    assert impls.declaration("here").expected == folder.resolve() / "here.d" / "here.json"


def _outside_cases(tmp_path: Path) -> dict[str, str]:
    """expected values of a declaration in tmp_path/impls that resolve to tmp_path/outside/x.json."""
    return {"relative": "../outside/x.json", "absolute": str(tmp_path / "outside" / "x.json"),
            "placeholder": "{here}/../outside/x.json", "link": "linked/x.json"}


@pytest.mark.parametrize("how", ["relative", "absolute", "placeholder", "link"])
def test_an_expected_path_outside_is_refused_and_the_file_there_untouched(tmp_path: Path, how: str) -> None:
    """`expected` must resolve inside the declaration's folder or the project: else the declaration is broken,
    the field named, every command asking for it is status 2, and the file outside (here a valid expected list
    of that implementation, which `expected update` would have rewritten) keeps its bytes and its mtime."""
    folder, outside = tmp_path / "impls", tmp_path / "outside" / "x.json"
    outside.parent.mkdir()
    data = json.dumps({"schema": "expected-divergences-v2", "implementation": "fake", "entries": []}, indent=4)
    outside.write_text(data, encoding="utf-8")
    os.utime(outside, ns=(1_000_000_000, 1_000_000_000))
    declare(folder, expected=_outside_cases(tmp_path)[how])
    (folder / "linked").symlink_to(outside.parent)
    listed = run(folder, "-m", "harness", "impls")
    assert listed.returncode == 0 and "fake: broken declaration" in listed.stdout, listed.stdout + listed.stderr
    assert "field expected: " in listed.stdout and "outside the declaration's folder" in listed.stdout
    for command in (("expected", "update", "--impls", "reference,fake"), ("expected", "check", "--impls", "fake"),
                    ("fuzz", "--impls", "reference,fake", "--seconds", "1", "--report", str(tmp_path / "f.json")),
                    ("check", "--impl", "fake", "--results", str(tmp_path / "c.json"))):
        done = run(folder, "-m", "harness", *command)
        assert done.returncode == 2 and "Traceback" not in done.stderr, (command, done.stdout, done.stderr)
        assert f"error: {folder / 'fake.json'}: field expected: " in done.stderr, done.stderr
        assert str(outside) in done.stderr, done.stderr
    assert outside.read_text(encoding="utf-8") == data and outside.stat().st_mtime_ns == 1_000_000_000
    assert sorted(p.name for p in outside.parent.iterdir()) == ["x.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["impls", "outside"]
