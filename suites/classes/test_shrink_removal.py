"""A class met one *removal* away from a shrink's witness lies beside it (``Elsewhere.beside``: the witness holds
that class's difference too, and harness/classes/sightings.py splits it); a class a simplification brings (a number
of a JSON text made 0, which writes the text shorter) is met, and filed, but does not lie beside the witness: the
simplification made that difference, the witness need not hold it.

The op and the implementations are stood in for inside harness/classes/shrink.py (its calls to observe and
name_shares): a JSON list argument; the kept class ("kept") while the list holds 75 (and, for the second witness,
is exactly [75, 0]), the other class ("other") on a list of zeros.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from harness.classes import shrink as shrinking
from harness.classes.shrink import Elsewhere
from harness.differential.explain import Share

OTHER = (("box",), "other", None)


def _world(monkeypatch: pytest.MonkeyPatch, kept: Any) -> None:
    def classes(args: dict[str, Any]) -> list[str]:
        try:
            value = json.loads(args.get("v", ""))
        except ValueError:
            return []
        if not isinstance(value, list) or not all(isinstance(x, int) for x in value):
            return []
        if kept(value):
            return ["kept"]
        return ["other"] if value and all(x == 0 for x in value) else []

    def observe(opened: Any, op: str, args: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {"oracle": {"ok": "a"}, "box": {"ok": "b" if classes(args) else "a"}}

    def name_shares(opened: Any, op: str, args: dict[str, Any], got: Any, versions: Any, **kw: Any) -> list[Share]:
        return [Share(("box",), SimpleNamespace(cause=cause, detail=None)) for cause in classes(args)]

    monkeypatch.setattr(shrinking, "observe", observe)
    monkeypatch.setattr(shrinking, "name_shares", name_shares)
    monkeypatch.setattr(shrinking, "divergent", lambda op, got: [n for n, r in got.items() if r["ok"] == "b"])
    monkeypatch.setattr(shrinking, "oracle_of", lambda op, got: "oracle")
    monkeypatch.setattr(shrinking, "outcome_kinds", lambda got: tuple(sorted(got)))
    monkeypatch.setattr(shrinking, "get_op", lambda op: SimpleNamespace(params=()))


def test_a_class_a_simplification_brings_is_not_beside_the_witness(monkeypatch: pytest.MonkeyPatch) -> None:
    """[75] is minimal for "kept"; 75 made 0 gives [0], "other", on a text one character shorter. Planted (as
    before: a candidate smaller in size counted as a removal): "other" beside the witness; failed."""
    _world(monkeypatch, lambda value: 75 in value)
    elsewhere = Elsewhere()
    small, _ = shrinking.shrink({}, "op", {"v": "[75]"}, {}, ("kept", None), elsewhere=elsewhere)
    assert small == {"v": "[75]"}
    assert OTHER in elsewhere.found  # met, and kept to be filed as its own class
    assert elsewhere.beside == set(), elsewhere.beside


def test_a_class_one_deletion_away_is_beside_the_witness(monkeypatch: pytest.MonkeyPatch) -> None:
    """[75, 0] is minimal for "kept"; dropping 75 leaves [0], "other": a real removal, so it lies beside."""
    _world(monkeypatch, lambda value: value == [75, 0])
    elsewhere = Elsewhere()
    small, _ = shrinking.shrink({}, "op", {"v": "[75,0]"}, {}, ("kept", None), elsewhere=elsewhere)
    assert small == {"v": "[75,0]"}
    assert elsewhere.beside == {OTHER}, elsewhere.beside


def test_moves_say_which_candidates_are_removals() -> None:
    """Every candidate the shrink's phases yield, flagged: a deletion is a removal; a number simplified, a
    character made 'a', a JSON text written compactly, are not (whatever their sizes)."""
    moves = dict((json.dumps(candidate, sort_keys=True), removal)
                 for phase in (shrinking._structure_moves, shrinking._paired_moves, shrinking._global_moves,
                               shrinking._fine_moves)
                 for candidate, removal in phase({"v": "[123.5,  7]", "t": "xy"}))
    assert moves[json.dumps({"t": "xy", "v": "[7]"}, sort_keys=True)] is True
    assert moves[json.dumps({"t": "x", "v": "[123.5,  7]"}, sort_keys=True)] is True
    assert moves[json.dumps({"t": "xy", "v": "[0.0,7]"}, sort_keys=True)] is False
    assert moves[json.dumps({"t": "ay", "v": "[123.5,  7]"}, sort_keys=True)] is False
    assert moves[json.dumps({"t": "xy", "v": "[123.5,7]"}, sort_keys=True)] is False
    # the phases' candidates, unflagged, are what they were
    assert list(shrinking._fine_steps({"t": "xy"})) == [{"t": c} for c, _ in shrinking._string_moves("xy")]
