"""The reproduction gate: a content divergence is classified only if it comes again.

A disagreement seen inside a batch is sent again, alone, to every implementation involved. Each
implementation must answer as it did (the same outcome): then the divergence is real, and the alone
answers are what is classified. An implementation that answers otherwise alone is sent the input again
at the same position of a fresh batch of plain fillers (the op's ``plain`` arguments of the registry):

* it answers alone the same way twice, and otherwise inside that batch: a ``batch_context`` finding
  (its answer depends on the batch around it);
* otherwise (two alone answers differ, or the batch answer is the alone one after all):
  ``nondeterministic``, with the observations.

Either way it is a finding about that testee (harness/testees/findings.py), never a divergence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.differential.outcomes import Responses, divergent, observe, same_outcome
from harness.model import hostvalues
from harness.model.registry import get_op
from harness.testees.errors import answered
from harness.testees.findings import Findings
from harness.testees.testee import Testee


@dataclass
class Verdict:
    reproduced: bool
    responses: Responses  # the alone answers (what is classified when it reproduced)


def _shown(response: dict[str, Any] | None) -> str:
    return json.dumps(hostvalues.encode(response) if response is not None else None, ensure_ascii=True)[:300]


def judge(impl: Testee, name: str, op: str, args: dict[str, Any], alone: dict[str, Any], position: int,
          findings: Findings, **seen: Any) -> str:
    """Why an implementation answered alone otherwise than in a batch: the finding's kind, recorded.
    Alone again: an answer that moves is nondeterministic. At ``position`` of a fresh batch of plain
    fillers: an answer other than the (stable) alone one is batch_context; the alone one again is
    nondeterministic (the batch answer did not come back)."""
    encoded = json.dumps(hostvalues.encode_args(args), ensure_ascii=True)[:300]
    second = impl.call(op, args)
    if not answered(second):
        return "no_answer"  # the client has the finding
    if not same_outcome(op, alone, second):
        findings.add(name, "nondeterministic", f"{op}: the same request answered differently when sent again",
                     request=encoded, alone=_shown(alone), aloneAgain=_shown(second), **seen)
        return "nondeterministic"
    plain = dict(get_op(op).plain)
    again = impl.call_batch([(op, plain)] * position + [(op, args)])[position]
    if not answered(again):
        return "no_answer"
    if not same_outcome(op, alone, again):
        findings.add(name, "batch_context", f"{op}: answered otherwise alone than at position {position} of a batch",
                     request=encoded, alone=_shown(alone), inFreshBatch=_shown(again), position=position, **seen)
        return "batch_context"
    findings.add(name, "nondeterministic", f"{op}: answered otherwise once in a batch, never again",
                 request=encoded, alone=_shown(alone), inFreshBatch=_shown(again), position=position, **seen)
    return "nondeterministic"


def gate(impls: dict[str, Testee], op: str, args: dict[str, Any], seen: Responses, findings: Findings,
         positions: dict[str, int] | None = None) -> Verdict:
    """Send ``args`` again alone to every implementation in ``seen`` (the answers seen in a batch); see
    the module docstring. ``positions``: where the input was in the batch each implementation got."""
    involved = {name: impls[name] for name in seen if name in impls}
    alone = observe(involved, op, args)
    moved = [name for name in seen if name in alone and not same_outcome(op, seen[name], alone[name])]
    if not moved and all(name in alone for name in seen):
        return Verdict(True, alone)
    for name in moved:
        judge(impls[name], name, op, args, alone[name], (positions or {}).get(name, 0), findings,
              inBatch=_shown(seen[name]))
    return Verdict(False, alone)


def outcome_kinds(responses: dict[str, dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """Each implementation's outcome kind: ok, or error:<code>."""
    return tuple(sorted((name, "ok" if "ok" in r else f"error:{r['error']['code']}") for name, r in responses.items()))


def shape(op: str, responses: Responses) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """What a sweep keeps of a disagreement: the implementations that disagree and the outcome kinds."""
    return tuple(divergent(op, responses)), outcome_kinds(responses)


def gate_shape(impls: dict[str, Testee], op: str, args: dict[str, Any],
               seen: tuple[tuple[str, ...], tuple[tuple[str, str], ...]], findings: Findings,
               position: int = 0) -> Verdict:
    """The gate where only the shape of the batch's disagreement was kept (the sweep): alone, the same
    implementations must disagree with the same outcome kinds. If not, each implementation whose part
    moved is judged (``judge``: batch_context or nondeterministic)."""
    names = {name for name, _ in seen[1]}
    # In the run's order (the oracle first), as the batch had them; compared as sets: which implementations
    # disagree, not in which order they were listed (a sweep once dropped every class where two of them
    # listed out of alphabetical order disagreed, pyodide before wasm, with no finding).
    involved = {name: impl for name, impl in impls.items() if name in names}
    alone = observe(involved, op, args)
    if len(alone) < len(names):
        return Verdict(False, alone)  # no answer now: the client has the finding
    now = shape(op, alone)
    if set(now[0]) == set(seen[0]) and dict(now[1]) == dict(seen[1]):
        return Verdict(True, alone)
    kinds = dict(seen[1])
    suspects = [name for name in involved if name in set(seen[0]) ^ set(now[0])
                or outcome_kinds({name: alone[name]})[0][1] != kinds[name]]
    if not suspects:  # the shape moved and nobody's part did: a harness bug, never a silent drop
        raise RuntimeError(f"gate_shape: {op} {args!r}: the shape {now} differs from {seen} with no part moved")
    for name in suspects:
        judge(impls[name], name, op, args, alone[name], position, findings, inBatchKinds=json.dumps(seen[1]))
    return Verdict(False, alone)
