"""What a counterfactual rule reads: one divergence (an input and every implementation's answer to it),
and the means to ask the same implementations about a changed input.

A counterfactual explains the divergence only when, with exactly what its cause names replaced, the
implementations agree AND (for characters) their common outcome is one that some side had before, so the
replacement removed the disagreement, not the whole trigger (an empty text, a broken JSON text).

The op's knowledge comes from the registry: its parameters (kinds, error codes, plain values), the op its
texts go through (``Op.via``), its character rules, and where its result keeps a decision about candidates
(``Op.decision``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from harness.differential.outcomes import (
    Responses,
    divergent,
    kind,
    lost_piece,
    observe,
    oracle_of,
    outcome,
    outcome_shape,
)
from harness.model.registry import Decision, Op, get_op
from harness.testees.testee import Testee


@dataclass(frozen=True)
class Again:
    """A rule's answer that another input shows the divergence better (an argument alone, an element less, a
    skew peeled off): the driver classifies that one instead, to a bounded depth."""

    args: dict[str, Any]
    responses: Responses


@dataclass
class Probe:
    impls: dict[str, Testee]
    op_name: str
    args: dict[str, Any]
    responses: Responses
    versions: dict[str, dict[str, str]]
    deeper: bool = True  # whether the driver will follow an Again (its depth bound not reached)
    _memo: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def op(self) -> Op:
        return get_op(self.op_name)

    @cached_property
    def codes(self) -> dict[str, tuple[str, Any]]:
        """Each implementation's outcome: ("error", code), ("ok", value) or ("unparseable", text)."""
        return {name: outcome(self.op_name, r) for name, r in self.responses.items()}

    @cached_property
    def kinds(self) -> set[str]:
        return {found for found, _ in self.codes.values()}

    @cached_property
    def json_params(self) -> list[str]:
        """The JSON parameters given as strings."""
        return [p.name for p in self.op.params if p.error_code == "invalid_json" and isinstance(self.args.get(p.name),
                                                                                                 str)]

    @cached_property
    def refused(self) -> set[str]:
        """The implementations that refused the input as invalid_json."""
        return {name for name, (found, code) in self.codes.items() if found == "error" and code == "invalid_json"}

    def memo(self, key: str, compute: Callable[[], Any]) -> Any:
        """A value several rules of one family read, computed once per probe."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def observe(self, args: dict[str, Any]) -> Responses:
        return observe(self.impls, self.op_name, args)

    def explains(self, new_args: dict[str, Any], keep_outcome: bool = True, after: Responses | None = None) -> bool:
        """Whether the implementations agree on ``new_args`` (with ``keep_outcome``: on an outcome kind one
        side had before). ``after``: their responses to ``new_args``, where the caller has them already."""
        after = self.observe(new_args) if after is None else after
        if divergent(self.op_name, after):
            return False
        before = {kind(self.op_name, r) for r in self.responses.values()}
        return not keep_outcome or bool({kind(self.op_name, r) for r in after.values()} & before)

    def keeps(self, new_args: dict[str, Any]) -> bool:
        """Whether the implementations still disagree on ``new_args`` the same way: the same ones disagree with
        the oracle, each with the same outcome shape (``outcomes.outcome_shape``: a list that gains, loses or
        changes items, a longer or shorter text...). A rewrite that turns one difference into another (a letter
        one side splits off made a letter of a token another rule drops) does not keep it."""
        after = self.observe(new_args)
        names = divergent(self.op_name, after)
        if names != divergent(self.op_name, self.responses):
            return False
        oracle = oracle_of(self.op_name, self.responses)
        return oracle_of(self.op_name, after) == oracle and all(
            outcome_shape(self.op_name, self.responses[oracle], self.responses[name]) ==
            outcome_shape(self.op_name, after[oracle], after[name]) for name in names)

    def settles(self, new_args: dict[str, Any]) -> bool:
        """Whether the rewrite ``new_args`` removes the disagreement itself: the implementations agree there, on
        an outcome kind some side had before (``explains``), and not only because every side lost the piece they
        differed in (``outcomes.lost_piece``: a token gone on both sides, an item count changed on both, the plain
        input's output). A rewrite that settles it that way is no evidence for what it replaced."""
        after = self.observe(new_args)
        if divergent(self.op_name, after):
            return False
        before = {kind(self.op_name, r) for r in self.responses.values()}
        if not {kind(self.op_name, r) for r in after.values()} & before:
            return False
        return not lost_piece(self.op_name, self.responses, after, self.plain_response)

    def plain_response(self) -> dict[str, Any] | None:
        """One side's response to the op's plain arguments (``Op.plain``; None without them)."""
        def compute() -> dict[str, Any] | None:
            plain = dict(self.op.plain)
            if not plain:
                return None
            answers = self.observe(plain)
            return next(iter(answers.values()), None)
        found: dict[str, Any] | None = self.memo("plain-response", compute)
        return found

    # ---- a result that decides about candidates (Op.decision) -------------------------------------

    @property
    def decision(self) -> Decision | None:
        return self.op.decision

    def threshold(self, args: dict[str, Any] | None = None) -> Any:
        """The threshold the call compares with (its default when not given)."""
        assert self.decision is not None
        return (self.args if args is None else args).get(self.decision.threshold,
                                                          self.op.param(self.decision.threshold).default)

    def similarities(self, responses: Responses) -> list[Any]:
        """Each result's match similarity (None without a match); empty unless every result is a decision."""
        if self.decision is None:
            return []
        sims = []
        for response in responses.values():
            found, value = outcome(self.op_name, response)
            if found != "ok" or not isinstance(value, dict):
                return []
            match = value.get(self.decision.match)
            sims.append(match.get(self.decision.similarity) if isinstance(match, dict) else None)
        return sims

    def match_ids(self, responses: Responses) -> list[Any]:
        """Each result's matched candidate, by what tells candidates apart (None without a match)."""
        assert self.decision is not None
        ids = []
        for response in responses.values():
            found, value = outcome(self.op_name, response)
            match = value.get(self.decision.match) if found == "ok" and isinstance(value, dict) else None
            ids.append(tuple(match.get(k) for k in self.decision.match_key) if isinstance(match, dict) else None)
        return ids

    def verdicts(self, responses: Responses) -> set[Any]:
        """The distinct decisions of the results (an outcome kind where a result is none)."""
        assert self.decision is not None
        out = set()
        for response in responses.values():
            found, value = outcome(self.op_name, response)
            out.add(tuple(value.get(k) for k in self.decision.verdict) if found == "ok" and isinstance(value, dict)
                    else found)
        return out
