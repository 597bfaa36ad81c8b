"""A version skew in a family's own Unicode-data step (issue 51, item 4): a family-v2 step declares the property it
reads (``"unicode": "general_category"``), each implementation reports its version of it (an in-process module's
``UNICODE_VERSIONS``, a command testee's start answer, a black box's declaration), and a divergence whose differing
characters are exactly ones whose General_Category differs between the two versions is ``unicode_version_skew``
with the property as its detail, traced or not; a planted rule difference on an old character is not.

The family (``h3fam``, written into the test's own folder): ``h3_words(text)`` -> the JSON list of the maximal runs
of letters and numbers (General_Category L* or N*). The reference reads unicodedata2 (18.0.0), the twin CPython's
own unicodedata (14.0.0 on CPython 3.11); the twin also keeps ``_`` (Pc) inside a word, a planted rule difference
on a character as old as Unicode.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAMILY = "h3fam"
NEW_LETTER = "\U00010d4a"  # GARAY VOWEL SIGN A (Lo), new in 16.0.0: Cn in 14.0.0, a letter in 18.0.0
OLD = "15.0.0"

FAMILY_FILE = {
    "schema": "family-v2",
    "family": FAMILY,
    "description": "A test family with a General_Category step (suites/classes/test_skew_declared_property.py)",
    "reference": {"module": "h3_ref"},
    "ops": [
        {"name": "h3_words", "js_name": "h3Words",
         "params": [{"name": "text", "js_name": "text", "error_code": "invalid_text", "kind": "text"}],
         "result": "json", "plain": {"text": "plain"},
         "steps": [{"id": "words.text", "title": "the text is a string", "code": "invalid_text", "role": "host",
                    "param": "text"},
                   {"id": "words.split", "title": "maximal runs of letters and numbers (General_Category L*, N*)",
                    "unicode": "general_category", "follows": {"step": "words.text", "as": "runs"}}]},
    ],
}

_COMMON = '''
import json
from reference.steps import note
from reference.tracing import tracer


class H3Error(ValueError):
    def __init__(self, code, step, message):
        super().__init__(f"{code}: {message}")
        self.code, self.step = code, step


def _words(text, keep):
    if not isinstance(text, str):
        raise H3Error("invalid_text", "words.text", f"text must be a string, not {type(text).__name__}")
    note("words.text", text)
    words, word = [], ""
    for ch in text:
        if DATA.category(ch)[0] in "LN" or ch in keep:
            word += ch
        elif word:
            words.append(word)
            word = ""
    words += [word] if word else []
    note("words.split", words)
    return words


def h3_words(text):
    return json.dumps(_words(text, KEEP))


TRACED = ("h3_words",)
trace = tracer({"h3_words": h3_words}, __name__)
'''

REFERENCE = '''"""h3fam's reference: General_Category from unicodedata2."""
import unicodedata2 as DATA
KEEP = ""
UNICODE_VERSIONS = {"general_category": DATA.unidata_version}
''' + _COMMON

TWIN = '''"""h3fam's twin: General_Category from CPython's own unicodedata; keeps "_" inside a word (a planted rule)."""
import unicodedata as DATA
KEEP = "_"
UNICODE_VERSIONS = {"general_category": DATA.unidata_version}
''' + _COMMON

# A black box: a command testee of the same twin, with no trace and no word of its Unicode version (its
# declaration says it).
BOX = '''"""h3fam's black box: the twin behind the protocol, no traces, no unicode in its start answer."""
import json, sys
sys.path.insert(0, sys.argv[1])
import h3_twin
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "start":
        answer = {"protocol": 2, "name": "h3-box", "version": "1", "language": "Python", "contracts": ["v1"]}
        if len(sys.argv) > 2:
            answer["unicode"] = json.loads(sys.argv[2])
        print(json.dumps({"id": request["id"], "ok": answer}), flush=True)
        continue
    try:
        print(json.dumps({"id": request["id"], "ok": h3_twin.h3_words(**request["args"])}), flush=True)
    except ValueError as exc:
        print(json.dumps({"id": request["id"], "error": {"code": str(exc).split(":")[0], "message": str(exc)}}),
              flush=True)
'''


def _declaration(name: str, start: dict[str, Any], oracle: bool, **more: Any) -> dict[str, Any]:
    return {"schema": "implementation-v1", "name": name, "description": f"h3fam's {name}", "language": "Python",
            "oracle": oracle, "contracts": ["v1"], "ops": [FAMILY], "start": start, "build": [],
            "expected": None if oracle else "{here}/expected/" + name + ".json",
            "deadlines": {"startup": 20, "request": 10}, "hint": "put its src/ on PYTHONPATH", **more}


def write(folder: Path, box: dict[str, Any] | None = None, box_says: dict[str, str] | None = None) -> dict[str, str]:
    """The family, the reference, the twin and (``box``: its declaration's extra fields) the black box under
    ``folder``; the environment to run the harness with."""
    for sub in ("families", "src", "implementations/expected"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "families" / f"{FAMILY}.json").write_text(json.dumps(FAMILY_FILE), encoding="utf-8")
    (folder / "src" / "h3_ref.py").write_text(REFERENCE, encoding="utf-8")
    (folder / "src" / "h3_twin.py").write_text(TWIN, encoding="utf-8")
    (folder / "src" / "h3_box.py").write_text(BOX, encoding="utf-8")
    declared = [_declaration("h3-ref", {"python": "h3_ref"}, True),
                _declaration("h3-twin", {"python": "h3_twin"}, False)]
    if box is not None:
        command = ["{python}", str(folder / "src" / "h3_box.py"), str(folder / "src"), ROOT.as_posix()]
        command = command[:3] + ([json.dumps(box_says)] if box_says is not None else [])
        declared.append(_declaration("h3-box", {"command": command}, False, **box))
    for one in declared:
        (folder / "implementations" / f"{one['name']}.json").write_text(json.dumps(one), encoding="utf-8")
    env = dict(os.environ, PARITY_FAMILIES=str(folder / "families"),
               PARITY_IMPLEMENTATIONS=str(folder / "implementations"),
               PYTHONPATH=os.pathsep.join([str(folder / "src"), str(ROOT),
                                           *filter(None, [os.environ.get("PYTHONPATH")])]))
    for name in ("PARITY_ORACLE", "PARITY_CONTEXT", "PARITY_PROJECT"):
        env.pop(name, None)
    return env


def diff(env: dict[str, str], text: str, impls: str) -> tuple[int, dict[str, Any], str]:
    done = subprocess.run([sys.executable, "-m", "harness", "diff", "h3_words", text, "--impls", impls, "--json"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        report = {}
    return done.returncode, report, done.stdout + done.stderr


def classes(report: dict[str, Any]) -> list[tuple[str, str | None]]:
    return sorted((c["cause"], c.get("detail")) for c in report.get("classes", report.get("divergences", [])))


@pytest.fixture(scope="module")
def twin_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    if unicodedata.unidata_version == "18.0.0":
        pytest.skip("this Python's unicodedata is as new as unicodedata2: no skew to see")
    return write(tmp_path_factory.mktemp("h3fam"))


def test_a_letter_new_in_a_version_is_a_general_category_skew_traced(twin_env: dict[str, str]) -> None:
    status, report, said = diff(twin_env, f"ab{NEW_LETTER}cd", "h3-ref,h3-twin")
    assert report, said
    assert classes(report) == [("unicode_version_skew", "general_category")], said
    assert report["implementations"]["h3-ref"] == {"general_category": "18.0.0"}, report["implementations"]
    assert report["implementations"]["h3-twin"] == {"general_category": unicodedata.unidata_version}


def test_a_planted_rule_on_an_old_character_is_not_a_skew(twin_env: dict[str, str]) -> None:
    status, report, said = diff(twin_env, "ab_cd", "h3-ref,h3-twin")
    assert report and classes(report), said
    assert all(cause != "unicode_version_skew" for cause, _ in classes(report)), said
    assert [cause for cause, _ in classes(report)] == ["rule_difference"], said


def test_a_rule_difference_beside_a_skew_is_not_the_skew(twin_env: dict[str, str]) -> None:
    """The new letter and the planted underscore in one word: a span holds "_", whose data no version changed."""
    status, report, said = diff(twin_env, f"a{NEW_LETTER}b_c", "h3-ref,h3-twin")
    assert report and classes(report), said
    assert all(cause != "unicode_version_skew" for cause, _ in classes(report)), said


def test_a_black_box_by_its_declaration_is_named_by_the_counterfactual_skew(tmp_path: Path) -> None:
    """No traces: the black box states its version in its declaration (``unicode``), and the counterfactual check
    (sensitive_between over every property, skew_steps over the op's) names the skew; the planted rule is not."""
    if unicodedata.unidata_version == "18.0.0":
        pytest.skip("this Python's unicodedata is as new as unicodedata2: no skew to see")
    env = write(tmp_path, box={"unicode": {"general_category": unicodedata.unidata_version}})
    status, report, said = diff(env, f"ab{NEW_LETTER}cd", "h3-ref,h3-box")
    assert classes(report) == [("unicode_version_skew", "general_category")], said
    assert [d["step"] for d in report["divergences"]] == ["words.split"], said  # the one step reading it
    assert report["implementations"]["h3-box"] == {"general_category": unicodedata.unidata_version}
    status, report, said = diff(env, "ab_cd", "h3-ref,h3-box")
    assert classes(report) and all(cause != "unicode_version_skew" for cause, _ in classes(report)), said


def test_a_black_box_that_says_no_version_is_no_skew(tmp_path: Path) -> None:
    """The same black box with no declared version: nothing says it reads other data, so no skew is named."""
    if unicodedata.unidata_version == "18.0.0":
        pytest.skip("this Python's unicodedata is as new as unicodedata2: no skew to see")
    env = write(tmp_path, box={})
    status, report, said = diff(env, f"ab{NEW_LETTER}cd", "h3-ref,h3-box")
    assert report and classes(report), said
    assert ("unicode_version_skew", "general_category") not in classes(report), said


def test_a_start_answer_that_contradicts_the_declaration_is_a_handshake_lie(tmp_path: Path) -> None:
    """The start answer's version is used; its declaration saying another is a handshake_lie finding."""
    env = write(tmp_path, box={"unicode": {"general_category": "16.0.0"}},
                box_says={"general_category": unicodedata.unidata_version})
    status, report, said = diff(env, "ab cd", "h3-ref,h3-box")
    assert report["implementations"]["h3-box"] == {"general_category": unicodedata.unidata_version}, said
    lies = [f for f in report.get("findings", []) if f.get("kind") == "handshake_lie"]
    assert lies and "general_category" in json.dumps(lies) and "16.0.0" in json.dumps(lies), said


def test_a_declared_version_without_a_table_is_status_2(tmp_path: Path) -> None:
    env = write(tmp_path, box={"unicode": {"general_category": "13.0.0"}})
    status, report, said = diff(env, "ab", "h3-ref,h3-box")
    assert status == 2 and "Unicode 13.0.0 read by h3-box (general_category)" in said and "Traceback" not in said


def test_an_in_process_module_and_its_declaration_disagreeing_is_status_2(tmp_path: Path) -> None:
    env = write(tmp_path)
    path = tmp_path / "implementations" / "h3-twin.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "unicode": {"general_category": "17.0.0"}}))
    status, report, said = diff(env, "ab", "h3-ref,h3-twin")
    assert status == 2 and "h3-twin" in said and "general_category" in said and "Traceback" not in said, said


def test_a_malformed_unicode_versions_is_status_2_naming_it(tmp_path: Path) -> None:
    env = write(tmp_path)
    source = tmp_path / "src" / "h3_twin.py"
    source.write_text(source.read_text().replace('UNICODE_VERSIONS = {"general_category": DATA.unidata_version}',
                                                 'UNICODE_VERSIONS = ["14.0.0"]'))
    status, report, said = diff(env, "ab", "h3-ref,h3-twin")
    assert status == 2 and "h3_twin.UNICODE_VERSIONS" in said and "Traceback" not in said, said


def test_a_report_shows_each_declared_property_that_is_a_version() -> None:
    """A code point's versions per implementation list every property read with a Unicode version (white_space
    too, where a family's step declares it), never a value that is no version (memgate's contract-v1)."""
    from harness.model.unicode_info import describe

    shown = describe(0x10D4A, {"twin": {"general_category": "14.0.0", "white_space": "contract-v1"},
                               "box": {"white_space": "16.0.0"}}).versions
    assert shown == {"twin": {"general_category": "14.0.0 (unassigned)"}, "box": {"white_space": "16.0.0 (assigned)"}}


def test_an_expected_skew_entry_covers_the_version_pair_of_its_own_family(tmp_path: Path) -> None:
    """`expected update` on an outside family's skew lists every code point whose General_Category differs between
    the two versions, worked out against that family's oracle (not the first declared one, memgate's reference,
    whose versions hold no general_category): another letter new in 16.0.0 is then expected, not new."""
    if unicodedata.unidata_version == "18.0.0":
        pytest.skip("this Python's unicodedata is as new as unicodedata2: no skew to see")
    env = write(tmp_path)
    status, report, said = diff(env, f"ab{NEW_LETTER}cd", "h3-ref,h3-twin")
    assert classes(report) == [("unicode_version_skew", "general_category")], said
    (tmp_path / "diff.json").write_text(json.dumps(report), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "harness", "expected", "update", "--report",
                           str(tmp_path / "diff.json"), "--impls", "h3-ref,h3-twin"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = json.loads((tmp_path / "implementations" / "expected" / "h3-twin.json").read_text(encoding="utf-8"))
    assert [entry["cause"] for entry in listed["entries"]] == ["unicode_version_skew"], listed
    status, report, said = diff(env, "ab\U00010d4bcd", "h3-ref,h3-twin")  # another letter new in 16.0.0
    assert status == 0, said
    assert [c.get("status") for c in report.get("classes", report.get("divergences", []))] == ["expected"], said
