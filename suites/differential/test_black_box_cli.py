"""The three planted differences of a black box behind the protocol, through ``harness diff``: an outside family
(family-v1, written into tmp_path) with a tokenizer op, its reference in process and a command testee that counts
a token's length in UTF-8 bytes, keeps combining marks inside tokens and reads General_Category from this
Python's unicodedata (stating no Unicode version, so no skew can be named). Each input is one class, rightly
named (suites/differential/test_black_box_classes.py holds the same classifier in process)."""

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
FAMILY = "h4cli"
OP = "h4cli_tokenize"

FAMILY_FILE = {
    "schema": "family-v1",
    "family": FAMILY,
    "description": "A test family: a text to the JSON list of its tokens (suites/differential/test_black_box_cli.py)",
    "reference": {"module": "h4cli_ref"},
    "ops": [{
        "name": OP, "js_name": "h4cliTokenize",
        "params": [{"name": "text", "js_name": "text", "error_code": "invalid_text", "kind": "text"}],
        "result": "json", "plain": {"text": "plain text"}, "char_rules": ["final_sigma", "case_mapping"],
        "steps": [{"id": "hfour.text", "title": "the text is a string", "code": "invalid_text", "role": "host",
                   "param": "text"},
                  {"id": "hfour.lowercase", "title": "full lowercase", "role": "lowercase"},
                  {"id": "hfour.split", "title": "maximal runs of General_Category L* and N*"},
                  {"id": "hfour.length", "title": "tokens over 12 code points dropped"}]}],
}

# The reference and the box are the shared tokens box (suites/tokens_box.py): the contract in process, and the
# box with its three bugs as a command testee (the module run as a script speaks the protocol).
REFERENCE = '''"""h4cli's reference: the tokens box's contract (General_Category from unicodedata2, code points)."""
from suites import tokens_box

_contract = tokens_box.box(lower=True)


def h4cli_tokenize(text):
    return _contract(text)
'''
BOX_COMMAND = ["{python}", str(ROOT / "suites" / "tokens_box.py"), "h4cli-box", "bytes,marks,old-letters"]


def _declaration(name: str, start: dict[str, Any], oracle: bool) -> dict[str, Any]:
    return {"schema": "implementation-v1", "name": name, "description": f"{FAMILY}'s {name}", "language": "Python",
            "oracle": oracle, "contracts": ["v1"], "ops": [FAMILY], "start": start, "build": [],
            "expected": None, "deadlines": {"startup": 20, "request": 10}, "hint": "put its src/ on PYTHONPATH"}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp(FAMILY)
    for sub in ("families", "src", "implementations"):
        (folder / sub).mkdir()
    (folder / "families" / f"{FAMILY}.json").write_text(json.dumps(FAMILY_FILE), encoding="utf-8")
    (folder / "src" / "h4cli_ref.py").write_text(REFERENCE, encoding="utf-8")
    for one in (_declaration("h4cli-ref", {"python": "h4cli_ref"}, True),
                _declaration("h4cli-box", {"command": BOX_COMMAND}, False)):
        (folder / "implementations" / f"{one['name']}.json").write_text(json.dumps(one), encoding="utf-8")
    found = dict(os.environ, PARITY_FAMILIES=str(folder / "families"),
                 PARITY_IMPLEMENTATIONS=str(folder / "implementations"),
                 PYTHONPATH=os.pathsep.join([str(folder / "src"), str(ROOT),
                                             *filter(None, [os.environ.get("PYTHONPATH")])]))
    for name in ("PARITY_ORACLE", "PARITY_CONTEXT", "PARITY_PROJECT"):
        found.pop(name, None)
    return found


def _classes(env: dict[str, str], text: str) -> list[tuple[str, str | None, list[str]]]:
    done = subprocess.run([sys.executable, "-m", "harness", "diff", OP, text, "--impls", "h4cli-ref,h4cli-box",
                           "--json"], cwd=env["PARITY_FAMILIES"], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads(done.stdout)
    return [(c["cause"], c["detail"], c["divergent"]) for c in report["divergences"]]


@pytest.mark.parametrize("text, cause, detail", [
    ("ΣΣΣΣΣΣΣ", "length_rule", None),  # 7 code points, 14 bytes (was final_sigma: an ASCII stand-in for the sigma)
    ("жbcdefghijkl", "length_rule", None),  # 12 code points, 13 bytes (was case_mapping)
    ("日bcdefghijkl", "length_rule", None),  # 14 bytes, a Lo letter (was rule_difference)
    ("cafe\u0301 bar", "rule_difference", "oracle-only"),  # the box keeps U+0301 inside its token
    ("ok \U0001e4d1z", "rule_difference", "divergent-only"),  # a letter of 16.0 the box splits off
])
def test_each_planted_difference_is_its_own_rightly_named_class(env: dict[str, str], text: str, cause: str,
                                                                 detail: str | None) -> None:
    if "\U0001e4d1" in text and unicodedata.category("\U0001e4d1") != "Cn":
        pytest.skip("this Python's unicodedata knows the letter")
    assert _classes(env, text) == [(cause, detail, ["h4cli-box"])]
