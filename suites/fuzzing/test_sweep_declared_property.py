"""A sweep's hint and its per-code-point ``masked`` answers follow the Unicode properties an op declares (issue 51,
items 5 and 6, review): a code point whose General_Category changed between the versions in play is
``unicode_data_differs`` for an op with a General_Category step (docs/examples/tokens: ``tokenize``), as a code point
whose case mapping changed is for memgate's ops; not for an op that reads no such property.

Run in a child process: the tokens family joins the registry by PARITY_FAMILIES (its reference needs the
family's requirement, ``regex``, installed as nox's sessions do)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEW_LETTER = 0x10D4A  # GARAY VOWEL SIGN A: unassigned in 14.0.0, a letter in 16.0.0 (General_Category only)

CHILD = f'''
import json
from harness.fuzzing import classes
versions = ("14.0.0", "16.0.0")
out = {{}}
for template in ("token-alone", "alone"):
    out[template] = [classes.hint(template, {NEW_LETTER}, versions),
                     classes.chunk_split(template, {NEW_LETTER} - 2, {NEW_LETTER} + 2, versions)[2][0]]
stated = {{"ref": {{"general_category": "16.0.0"}}, "box": {{"general_category": "14.0.0"}}}}
out["points"] = {{op: {NEW_LETTER} in classes.sensitive_points(op, stated)
                 for op in ("tokenize", "normalize_fact_text")}}
print(json.dumps(out))
'''


def test_a_general_category_change_is_unicode_data_differs_for_an_op_declaring_it() -> None:
    pytest.importorskip("regex", reason="the tokens family's requirement (nox's sessions install it)")
    """Planted: ``_sensitive`` reading unicode_tables.STEPS (normalization, case mapping) again: the new letter's
    hint was "none" for tokenize, and it shared its ``masked`` answer with its neighbours."""
    env = dict(os.environ, PARITY_FAMILIES=str(ROOT / "docs" / "examples" / "tokens" / "families"),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "docs" / "examples" / "tokens" / "src"),
                                           *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["token-alone"] == ["unicode_data_differs"] * 2, out
    assert out["alone"] == ["none"] * 2, out  # memgate's op reads no General_Category
    assert out["points"] == {"tokenize": True, "normalize_fact_text": False}, out
