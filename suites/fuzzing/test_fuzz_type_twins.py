"""The fuzzer sends host values by type (issue 53 item 3): an input now and then followed by its type twins (True,
then 1 and 1.0 with the other arguments the same), and each batch ending with the op's plain arguments under such
values, part of an order left to later batches; a testee that memoizes by == is found."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from harness.classes.expected import load
from harness.fuzzing import generate
from harness.fuzzing.fuzz import fuzz
from harness.model.hostvalues import shown, type_twins
from harness.testees.impls import get_impl
from suites.fake_impl import declare


def test_a_batch_keeps_its_size_and_holds_twins_in_it_and_at_its_end() -> None:
    batch = generate.Inputs(5).batch("decide_write", 1000)
    assert len(batch) == 1000
    twins = [i for i in range(1, len(batch)) if any(
        name in batch[i - 1] and type_twins(batch[i - 1][name]) and shown(value) in map(shown, type_twins(
            batch[i - 1][name])) and {k: v for k, v in batch[i].items() if k != name} ==
        {k: v for k, v in batch[i - 1].items() if k != name} for name, value in batch[i].items())]
    assert len(twins) >= 3, len(twins)
    plain = generate.plain_args(generate.OPS["decide_write"])
    assert plain is not None
    assert {k: v for k, v in batch[-1].items() if k in plain} .keys() == plain.keys()
    assert sum(1 for args in batch[-4:] if all(shown(args[k]) == shown(v) for k, v in plain.items()
                                               if k in args and not type_twins(args[k]))) >= 1


@pytest.mark.parametrize("op", ["normalize_fact_text", "decide_write", "build_dedup_context"])
def test_the_seeds_own_draws_stay_what_they_were(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The draws added since (type twins, lookalike ids, edge numbers, keys) come from a second generator: without
    them the batch is the one the main generator alone gives, and with them the inputs between twins are those
    inputs, in order (a seed that found a bug finds it again; the speed gate compares the same work)."""
    full = generate.Inputs(11)
    drawn = [full.args(op) for _ in range(400)]
    for name in ("TWIN_RATE", "LOOKALIKE_RATE", "EDGE_RATE"):
        monkeypatch.setattr(generate, name, 0.0)
    monkeypatch.setattr(generate.Inputs, "malformed", lambda self, text: text)
    plain = generate.Inputs(11)
    bare = [plain.args(op) for _ in range(400)]
    # the main generator made the same draws either way: the same state after 400 inputs, and the inputs the
    # additions left alone are equal
    assert full.rng.getstate() == plain.rng.getstate()
    assert sum(1 for a, b in zip(drawn, bare, strict=True) if a == b) >= 100
    assert drawn != bare or op == "normalize_fact_text"  # the additions do reach the inputs


def test_a_testee_that_memoizes_by_equality_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    declare(tmp_path, name="double", bug="memoize")
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    opened = {"reference": get_impl("reference"), "double": get_impl("double")}
    try:
        result = fuzz(opened, load(list(opened)), seconds=float("inf"), seed=3, ops=["decide_write"], workers=1,
                      max_examples=4000, stream=io.StringIO())
    finally:
        for testee in opened.values():
            testee.close()
    # Found as what it is: a finding about the double (its answers depend on what it was asked before), no class,
    # and the ledger accounts for every disagreeing input (the gate's and the batches' set-aside members).
    assert not result.new and not result.divergences, result.new
    dependent = [f for f in result.findings.to_json() if f["kind"] == "history_dependent"]
    assert dependent and all(f["impl"] == "double" for f in dependent), result.findings.to_json()
    assert result.ledger.ok and result.ledger.not_reproduced > 0, result.ledger.lines()
