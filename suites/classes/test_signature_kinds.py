"""What harness/classes/signature.py says a character's kind is matches what it computes: the kinds it names
(``BUCKETS``' values and ``NEW``) are the ones ``kind_of`` gives, and the bound it states follows from them."""

from __future__ import annotations

import re

from harness.classes import signature


def test_the_docstring_names_the_kinds_kind_of_gives() -> None:
    """Planted (the old docstring: kinds L, M, N, P, S, Z, C and "2 * 8 kinds"): failed."""
    kinds = {signature.kind_of(ch) for ch in "aZ5\u0301.+ \u0000\u0378\U0001e4d0"}
    assert kinds == set(signature.BUCKETS.values()) | {signature.NEW}, kinds
    doc = signature.__doc__ or ""
    for name in kinds:
        assert f"``{name}``" in doc, name
    assert not re.search(r"``[LMNPSZC]``", doc)  # no major class named as a kind
    assert f"{2 ** len(kinds)} sets" in doc  # the sets of kinds an implementation's part can hold
