"""A declaration's ``ops`` by state (issue 53, item 6): absent (every op of every family), empty (a broken
declaration: it would serve nothing), partial (exactly those), a family name (every op of it), unknown or given
twice (broken). Each is read through the one loader (``impls.declaration``) and asked op by op, so that a
loader that takes ``[]`` as "every op" (or "nothing" silently) fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.model.registry import OPS, served_ops
from harness.testees import impls
from suites.fake_impl import declare

ABSENT = object()
EVERY = frozenset(OPS)
MEMGATE = frozenset(served_ops(["memgate"])[0])


@pytest.mark.parametrize(("ops", "serves"), [
    (ABSENT, EVERY),
    (["build_dedup_context"], frozenset({"build_dedup_context"})),
    (["normalize_fact_text", "decide_write"], frozenset({"normalize_fact_text", "decide_write"})),
    (["memgate"], MEMGATE),
], ids=["absent", "one", "two", "family"])
def test_what_a_declaration_serves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ops: object,
                                   serves: frozenset[str]) -> None:
    declare(tmp_path, **({} if ops is ABSENT else {"ops": ops}))
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    assert "fake" not in impls.broken()
    declared = impls.declaration("fake")
    assert {op for op in OPS if declared.serves_op(op)} == serves


@pytest.mark.parametrize(("ops", "says"), [
    ([], "ops"),
    (["nope"], "'nope' is neither an op nor an op family"),
    (["build_dedup_context", "build_dedup_context"], "ops"),
    ("memgate", "ops"),
], ids=["empty", "unknown", "twice", "not-a-list"])
def test_a_declaration_whose_ops_cannot_be_served_is_broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            ops: object, says: str) -> None:
    declare(tmp_path, ops=ops)
    monkeypatch.setenv("PARITY_IMPLEMENTATIONS", str(tmp_path))
    problem = impls.broken().get("fake")
    assert problem is not None and says in problem, problem
    with pytest.raises(impls.DeclarationError):
        impls.declaration("fake")
