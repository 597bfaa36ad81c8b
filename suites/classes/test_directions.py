"""Distinct differences are distinct classes: where a character rule parts, the class's detail says which
side's rule acted (a character White_Space to one side only is one class per direction), and a black box
is blamed only for what it does itself (each disagreeing implementation's own share)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.differential.causes.facts import DIVERGENT_ONLY, ORACLE_ONLY, acting_side
from suites.fake_impl import declare, run


def test_the_side_that_acted_is_the_one_that_changed_what_it_received() -> None:
    assert acting_side("a\x85b", "a b", "a\x85b") == (ORACLE_ONLY, ["\x85"])
    assert acting_side("a\ufeffb", "a\ufeffb", "a b") == (DIVERGENT_ONLY, ["\ufeff"])
    # A space elsewhere in the input does not make the oracle's space a kept character.
    assert acting_side(" a\x85b", " a b", " a\x85b") == (ORACLE_ONLY, ["\x85"])
    # Both sides collapsed their neighbours: the character one of them kept decides.
    assert acting_side("\n\ufeff\n", " \ufeff ", " ") == (DIVERGENT_ONLY, ["\ufeff"])
    # Two differences side by side, one each way: the first one's.
    assert acting_side("\x85\ufeff", " \ufeff", "\x85 ") == (ORACLE_ONLY, ["\x85"])
    # A map applied differently on both sides: no direction.
    assert acting_side("x\u2019y", "x'y", "x`y") == (None, [])
    assert acting_side("ab", "ab", "ab") == (None, [])


def _classes(folder: Path, *command: str) -> list[dict[str, Any]]:
    done = run(folder, "-m", "harness", *command)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return json.loads(done.stdout)["divergences"]


def test_a_character_white_space_to_one_side_only_is_one_class_per_direction(tmp_path: Path) -> None:
    folder = tmp_path / "impls"
    declare(folder, name="twin", bug="whitespace")  # U+0085 not White_Space to it, U+FEFF White_Space
    seen = {}
    for text in ("a\x85b", "a\ufeffb"):
        (found,) = _classes(folder, "diff", "--impls", "reference,twin", "--json", "normalize_fact_text", text)
        assert (found["cause"], found["step"], found["divergent"]) == ("whitespace_definition", "norm.white_space",
                                                                      ["twin"])
        seen[text] = found["detail"]
    assert seen == {"a\x85b": ORACLE_ONLY, "a\ufeffb": DIVERGENT_ONLY}


def test_a_black_box_is_not_blamed_for_another_implementations_difference(tmp_path: Path) -> None:
    """The twin (traced) differs on U+FEFF; the stripper (a black box: str.strip() after the op) on U+001C at
    an edge. One witness holding both is two classes, one per implementation, each with its own cause (planted:
    the old single counterfactual class named both)."""
    folder = tmp_path / "impls"
    declare(folder, name="twin", bug="whitespace")
    declare(folder, name="stripper", bug="strip")
    found = _classes(folder, "diff", "--impls", "reference,twin,stripper", "--json", "normalize_fact_text",
                     "a\ufeffb\x1c")
    assert [(c["divergent"], c["cause"], c["detail"], c["step"]) for c in found] == [
        (["twin"], "whitespace_definition", DIVERGENT_ONLY, "norm.white_space"),
        (["stripper"], "whitespace_definition", DIVERGENT_ONLY, None)]  # from its outputs: it strips, the oracle keeps


def test_the_direction_is_read_against_the_steps_own_input(tmp_path: Path) -> None:
    """decide_write normalizes its text, then each candidate: where a candidate's White_Space step parts, its input
    is the candidate's text, not the gate's text that looks like the oracle's value (planted: reading the first
    string most like either value named the wrong side)."""
    folder = tmp_path / "impls"
    declare(folder, name="twin", bug="whitespace")
    candidates = json.dumps([{"id": "m", "text": "a\x85b"}])
    (found,) = _classes(folder, "diff", "--impls", "reference,twin", "--json", "decide_write", "--arg", 'text="a b"',
                        "--arg", 'embedding_json="null"', "--arg", f"candidates_json={json.dumps(candidates)}")
    assert (found["cause"], found["detail"], found["characters"]) == ("whitespace_definition", ORACLE_ONLY,
                                                                      ["U+0085"])


def test_the_side_is_read_off_the_whole_values_before_any_alignment() -> None:
    """A Python toy that splits on U+001C (str.split) against an oracle that keeps it and makes U+0009 one '-':
    difflib pairs the '-ab' of the oracle's "\\x1c-ab\\x1cab" with the toy's "ab-ab", and the span-by-span reading
    called it oracle-only (the example family's parity suite found the input). Only the oracle kept characters
    of the input the other lacks: the toy's rule acted."""
    assert acting_side(["\x1c\tab\x1cab"], "\x1c-ab\x1cab", "ab-ab") == (DIVERGENT_ONLY, ["\x1c"])
    assert acting_side(["a\x85b"], "a-b", "a\x85b") == (ORACLE_ONLY, ["\x85"])
