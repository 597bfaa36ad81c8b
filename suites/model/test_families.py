"""Op families as data (families/*.json, schemas/family-v1.schema.json): the registry is built from them, an
outside family joins through PARITY_FAMILIES with no edit of the harness, and a broken family file is a
clear error naming the file and the place (status 2), never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.differential.counterfactual.characters import CHARACTER_RULES
from harness.differential.explain import CAUSES
from harness.differential.strategies import KINDS
from harness.fuzzing import templates
from harness.model import families, fixture_schema, paths, unicode_tables
from harness.model.registry import FAMILIES, OPS, ROLES
from harness.model.step_relations import RELATIONS

ROOT = Path(__file__).resolve().parents[2]

REFERENCE = '''def squash_space(text):
    if not isinstance(text, str):
        raise TypeError("text")
    return " ".join(text.split())
'''


def _family(**changes: Any) -> dict[str, Any]:
    op = {"name": "squash_space", "js_name": "squashSpace",
          "params": [{"name": "text", "js_name": "text", "error_code": "invalid_text", "kind": "text"}],
          "result": "text", "fixture": None, "char_rules": ["whitespace_definition"],
          "steps": [{"id": "squash.text", "title": "a string", "code": "invalid_text", "role": "host", "param": "text"},
                    {"id": "squash.collapse", "title": "runs of White_Space to one space, trimmed",
                     "role": "white_space"}]}
    document = {"schema": "family-v1", "family": "squash", "description": "a toy family (test double)",
                "reference": {"path": "squash_ref.py"}, "ops": [op],
                "templates": [{"name": "squash-between", "op": "squash_space", "rule": "a run inside a word",
                               "args": {"text": "a{c}b"}, "causes": ["whitespace_definition"]}]}
    for key, value in changes.items():
        if key.startswith("op_"):
            op[key[3:]] = value
        else:
            document[key] = value
    return document


def _write(folder: Path, document: dict[str, Any] | str, name: str = "squash") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "squash_ref.py").write_text(REFERENCE, encoding="utf-8")
    path = folder / f"{name}.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document), encoding="utf-8")
    return path


def _enum(name: str, schema: str = "family-v2") -> list[str]:
    document = json.loads((paths.SCHEMAS / f"{schema}.schema.json").read_text(encoding="utf-8"))
    return document["$defs"][name]["enum"]


VOCABULARIES = [("kind", KINDS), ("role", ROLES), ("charRule", CHARACTER_RULES), ("cause", CAUSES),
                ("relation", RELATIONS)]
# What each vocabulary gained after family-v1 was released (family-v1.schema.json stays as it was released).
SINCE_V1 = {"cause": {"length_rule"},
            # issue 53 item 4: a relation for every pair of consecutive steps (harness/model/step_relations.py)
            "relation": {"nfc", "lowercase", "same", "binary32", "empty", "contains", "extends", "holds", "runs",
                         "kept_items", "independent"}}


@pytest.mark.parametrize(("name", "table"), [*VOCABULARIES, ("unicodeProperty", unicode_tables.PROPERTIES)])
def test_the_schema_vocabularies_are_the_harness_tables(name: str, table: Any) -> None:
    assert sorted(_enum(name)) == sorted(table)


@pytest.mark.parametrize(("name", "table"), VOCABULARIES)
def test_the_released_family_v1_vocabularies_are_the_tables_less_what_came_after(name: str, table: Any) -> None:
    assert sorted(_enum(name, "family-v1")) == sorted(set(table) - SINCE_V1.get(name, set()))


def test_the_memgate_family_is_the_first_and_declares_every_op_the_registry_has() -> None:
    assert FAMILIES[0].name == "memgate" and FAMILIES[0].path.name == "memgate.json"
    assert [op["name"] for op in FAMILIES[0].ops] == [op for op in OPS if OPS[op].family == "memgate"]
    assert {t.name for t in templates.TEMPLATES} == {t["name"] for t in FAMILIES[0].templates}
    assert templates.missing_templates() == []


def test_a_template_writes_the_swept_value_in_each_placeholder_form() -> None:
    build = templates._builder({"a": "x{c}y", "b": '["{c:json}"]', "c": '"{c:u}"', "d": 7})
    assert build('"') == {"a": 'x"y', "b": '["\\""]', "c": '"\\u0022"', "d": 7}
    assert build("\U0001f600")["c"] == '"\\ud83d\\ude00"'


def test_the_fixture_schema_gets_each_ops_rules_from_the_registry() -> None:
    schema = fixture_schema.derive(json.loads((paths.SCHEMAS / "fixture-v1.schema.json").read_text(encoding="utf-8")))
    test = schema["$defs"]["test"]
    from harness.fixtures.load import all_cases

    # The ops the fixture files' cases call, in registry order; an op no fixture pins (a diagnostic) is not one.
    pinned = {case.op for case in all_cases()}
    assert test["properties"]["op"]["enum"] == [name for name in OPS if name in pinned] and len(pinned) < len(OPS)
    rules = {rule["if"]["properties"]["op"]["const"]: rule["then"]["properties"] for rule in test["allOf"]}
    assert rules["decide_write"]["args"]["required"] == ["text", "embedding_json", "candidates_json"]
    assert "invalid_cap" not in rules["decide_write"]["expect"]["properties"]["error"]["enum"]
    dedup = rules["build_dedup_context"]["expect"]["properties"]["error"]["enum"]
    assert {"invalid_cap", "invalid_json", "invalid_shape"} <= set(dedup) and "invalid_text" not in dedup


def test_an_outside_family_joins_through_the_environment(tmp_path: Path) -> None:
    path = _write(tmp_path / "fam", _family())
    probe = ("from harness.model.registry import OPS, family_problems\n"
             "from harness.fuzzing.templates import BY_NAME, missing_templates\n"
             "op = OPS['squash_space']\n"
             "print(family_problems(), op.family, op.reference('a \\u3000 b'), [s.id for s in op.steps],\n"
             "      BY_NAME['squash-between'].args(0x85), missing_templates(), 'decide_write' in OPS)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PARITY_FAMILIES=str(path)), check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("() squash a b ['squash.text', 'squash.collapse'] {'text': 'a\\x85b'} [] True")


@pytest.mark.parametrize(("document", "says"), [
    ("{not json", "not strict JSON"),
    (_family(ops=[]), "ops"),
    (_family(op_params=[{"name": "text", "js_name": "text", "error_code": "invalid_text", "kind": "texte"}]),
     "ops/0/params/0/kind"),
    (_family(family="other"), "is not the file's name"),
    (_family(op_function="squash"), "has no function 'squash'"),
    (_family(reference={"path": "nowhere.py"}), "neither a .py file nor a package folder"),
    (_family(reference={"module": "no_such_module_here"}), "does not import (ModuleNotFoundError"),
    (_family(op_name="decide_write", op_function="squash_space", templates=[]), "op 'decide_write' is declared by"),
    (_family(op_via="squash_spaces"), "via 'squash_spaces' is not an op; did you mean 'squash_space'?"),
    (_family(op_plain={"txt": "a"}), "'txt' is not a parameter; did you mean 'text'?"),
    (_family(op_steps=[{"id": "squash.text", "title": "t", "role": "host"}]), "a host step checks a parameter"),
    (_family(templates=[{"name": "t", "op": "squash_space", "rule": "r", "args": {"text": "a{c:x}b"}}]),
     "unknown placeholder '{c:x}'"),
    (_family(templates=[{"name": "t", "op": "squash_space", "rule": "r", "args": {"text": "ab"}}]),
     "no argument holds the swept value"),
    (_family(templates=[{"name": "alone", "op": "squash_space", "rule": "r", "args": {"text": "{c}"}}]),
     "template 'alone' is declared by"),
    (_family(fixtures={"folder": "fx", "generators": ["nowhere_v1.py"]}), "fixtures/generators/0: 'nowhere_v1.py'"),
    (_family(op_steps=[{"id": "squash.text", "title": "a string", "code": "invalid_text", "role": "host",
                        "param": "text"},
                       {"id": "squash.collapse", "title": "t", "follows": {"step": "squash.txt", "as": "join"}}]),
     "steps/1/follows/step: 'squash.txt' is not a step before squash.collapse; did you mean 'squash.text'?"),
    (_family(fixtures={"folder": "squash_ref.py", "generators": ["squash_ref.py"]}),
     "fixtures/folder: 'squash_ref.py'"),
    ("[]", "(top): a JSON list, not an object"),
    (_family(schema="family-v3"), "schema: 'family-v3' is not a family schema this harness reads"),
    (_family(schema="family-v2", requires="regex"), "requires: 'regex' is not a list"),
    (_family(schema="family-v2", op_unicode_steps=["normalization"]), "'unicode_steps' was unexpected"),  # derived
    (_family(schema="family-v2", op_steps=[{"id": "squash.collapse", "title": "t", "unicode": "script"}]),
     "ops/0/steps/0/unicode: 'script' is not one of"),
    (_family(op_steps=[{"id": "squash.collapse", "title": "t", "unicode": "white_space"}]),  # family-v1 as released
     "'unicode' was unexpected"),
    # A family cannot define error codes of its own (reference/errors.py CODES): one loaded, then its reference
    # answered unexpected_exception on its own fixture cases and diff named that boundary_coercion.
    (_family(op_params=[{"name": "text", "js_name": "text", "error_code": "invalid_token", "kind": "text"}]),
     "ops/0/params/0/error_code: 'invalid_token' is not an error code of the contract"),
    (_family(op_steps=[{"id": "squash.text", "title": "a string", "code": "invalid_txt", "role": "host",
                        "param": "text"}]),
     "ops/0/steps/0/code: 'invalid_txt' is not an error code of the contract; did you mean 'invalid_text'?"),
])
def test_a_broken_family_file_is_named_with_the_place_and_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  document: Any, says: str) -> None:
    path = _write(tmp_path / "fam", document)
    monkeypatch.setenv(families.ENV, str(path))
    found, problems = families.load()
    problems += families.check_vias(found)
    assert [family.name for family in found] == ["memgate"] or "via" in says, problems
    assert len(problems) == 1 and str(path) in problems[0] and says in problems[0] and "fix:" in problems[0], problems


def test_every_command_stops_on_a_broken_family_with_status_2(tmp_path: Path) -> None:
    path = _write(tmp_path / "fam", _family(op_function="squash"))
    env = dict(os.environ, PARITY_FAMILIES=str(path))
    entry = "import sys; from harness.cli.entry import run; sys.argv[1:] = {}; run()"  # the console script
    for command in (["-m", "harness", "check", "--impl", "reference"], ["-m", "generators", "check"],
                    ["-c", entry.format(["check", "--impl", "reference"])], ["-c", entry.format(["fixtures", "list"])]):
        done = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=120,
                              env=env, check=False)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert "error: family file" in done.stderr and "has no function 'squash'" in done.stderr
        assert "Traceback" not in done.stderr


def test_the_harness_without_its_own_families_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(families, "OWN", tmp_path / "gone")
    monkeypatch.delenv(families.ENV, raising=False)
    found, problems = families.load()
    assert len(problems) == 1 and "op families are missing" in problems[0], problems  # found: the project's own


# The memgate steps whose role is "rule" and that compose no role: each is a rule of the contract's own, with no
# character set or number of its own at work, so a divergence that parts there is rightly a rule_difference (or an
# outcome rule's). A step added without a role fails the test below until it gets one or a line here.
RULE_STEPS = {
    "gate.normalize": "the new text's normalization: its own norm.* steps are noted inside it, and part first",
    "gate.empty_text": "a check that the normalized text is empty: decided by norm.edges, noted before it",
    "gate.normalize_candidates": "each candidate's normalization: its norm.* steps are noted inside it, first",
    "gate.exact": "equality of two normalized strings: no character set of its own",
    "gate.decision": "the mode table: action, reason and match",
    "ctx.order": "the sections' order",
    "ctx.cap_limit": "a count of lines against the cap (the cap's own coercion is ctx.cap's, a host step)",
    "ctx.skip_empty": "a collapsed value that is empty: decided by ctx.join, noted before it",
    "ctx.skip_bracket": "the ASCII brackets [ and ] only",
    "ctx.skip_duplicate": "equality of collapsed ids",
    "ctx.line": "a pure output step: the line's text from parts already noted",
    "ctx.output": "a pure output step: the header and the lines",
    "ctx.pin_note": "a pure output step: the pin note",
    "versions.report": "reports the Unicode versions: compared by the skew rules, not traced per character",
}


def test_every_step_has_a_role_composes_some_or_is_listed_as_a_rule() -> None:
    (memgate,) = [family for family in FAMILIES if family.name == "memgate"]
    steps = {step.id: step for op in OPS.values() if op.family == memgate.name for step in op.steps}
    unlisted = [sid for sid, step in steps.items()
                if step.role == "rule" and not step.composes and sid not in RULE_STEPS]
    assert unlisted == [], f"steps without a role: give each one, \"composes\", or a line in RULE_STEPS: {unlisted}"
    stale = [sid for sid in RULE_STEPS if sid not in steps or steps[sid].role != "rule" or steps[sid].composes]
    assert stale == [], f"RULE_STEPS lists steps that have a role now, or do not exist: {stale}"
    assert steps["ctx.join"].composes == ("trim",)
